//! Arguments of a tool defined at run time, checked against its JSON Schema by
//! [`super::subset`], the crate's one JSON Schema engine (the keywords a tool's arguments
//! use, see there). Each problem becomes a [`Violation`], and every violation the same kind
//! of [`ArgumentError`] `#[tool]`'s typed reading gives, so the model reads one kind of
//! message.

use serde_json::{Map, Value};

use super::error::{ArgumentError, InvalidArguments, summarize_value};
use super::subset::Subset;
use super::violation::{Violation, ViolationKind};
use crate::param::ParamInfo;

/// Checks a runtime tool's arguments against its JSON Schema before its handler sees them,
/// and reports every problem the way `#[tool]`'s typed reading does.
pub(crate) struct SchemaChecker {
    tool: String,
    engine: Subset,
    /// The properties, for "valid parameters" lists.
    names: Vec<String>,
    /// Properties not in `required`: `null` for them means absent, as for `#[tool]` functions
    /// (and OpenAI strict mode sends optional parameters as `null`).
    optional: Vec<String>,
}

impl SchemaChecker {
    /// A checker for `schema`, whose parameters are `params`, or why `schema` cannot check
    /// arguments (a `$ref` that does not resolve, ...).
    pub(crate) fn new(tool: &str, schema: &Value, params: &[ParamInfo]) -> Result<Self, String> {
        Ok(SchemaChecker {
            tool: tool.to_owned(),
            engine: Subset::new(schema)?,
            names: params.iter().map(|p| p.name().to_owned()).collect(),
            optional: params
                .iter()
                .filter(|p| !p.is_required())
                .map(|p| p.name().to_owned())
                .collect(),
        })
    }

    /// The arguments without `null`s for optional parameters, or every way they break the schema.
    pub(crate) fn check(
        &self,
        mut args: Map<String, Value>,
    ) -> Result<Map<String, Value>, InvalidArguments> {
        args.retain(|name, value| !(value.is_null() && self.optional.contains(name)));
        let instance = Value::Object(args);
        let mut errors = Vec::new();
        for violation in self.engine.violations(&instance) {
            self.convert(violation, &instance, &mut errors);
        }
        match (errors.is_empty(), instance) {
            (true, Value::Object(args)) => Ok(args),
            _ => Err(InvalidArguments::new(self.tool.clone(), errors)),
        }
    }

    /// The argument errors `violation` of `instance` stands for.
    fn convert(&self, violation: Violation, instance: &Value, errors: &mut Vec<ArgumentError>) {
        let Violation {
            pointer,
            kind,
            message,
        } = violation;
        let depth = pointer.matches('/').count();
        let param = pointer
            .strip_prefix('/')
            .map(|rest| rest.split('/').next().unwrap_or(rest))
            .map(|segment| segment.replace("~1", "/").replace("~0", "~"));
        let sent = param.as_ref().and_then(|name| instance.get(name));
        errors.push(match (kind, param) {
            (ViolationKind::Required { property }, None) => ArgumentError::Missing {
                param: property,
                expected: None,
                description: None,
            },
            (ViolationKind::Additional { unexpected }, None) => {
                errors.extend(unexpected.into_iter().map(|param| ArgumentError::Unknown {
                    param,
                    valid: self.names.clone(),
                }));
                return;
            }
            (_, Some(param)) if depth == 1 && sent == Some(&Value::Null) => ArgumentError::Null {
                param,
                expected: None,
            },
            (_, Some(param)) => ArgumentError::Invalid {
                got: sent.map_or_else(|| "nothing".to_owned(), summarize_value),
                param,
                expected: None,
                reason: if depth > 1 {
                    format!("at `{pointer}`: {message}")
                } else {
                    message
                },
            },
            (_, None) => ArgumentError::Schema { pointer, message },
        });
    }
}

/// Checks whole values against a JSON Schema (a tool's output schema) with the same engine
/// as arguments, and says where each breaks it.
// For toolwright-runtime (the executor checks structured outputs); not part of the API.
#[doc(hidden)]
pub struct ValueChecker {
    engine: Subset,
}

impl ValueChecker {
    /// A checker for `schema`, or why `schema` cannot check values.
    pub fn new(schema: &Value) -> Result<Self, String> {
        Ok(ValueChecker {
            engine: Subset::new(schema)?,
        })
    }

    /// Every way `instance` breaks the schema: the JSON Pointer of the value (`""` for the
    /// whole of it) and what the schema requires there.
    pub fn problems(&self, instance: &Value) -> Vec<(String, String)> {
        self.engine
            .violations(instance)
            .into_iter()
            .map(|violation| (violation.pointer, violation.message))
            .collect()
    }
}
