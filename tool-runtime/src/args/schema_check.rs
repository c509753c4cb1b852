//! Arguments of a tool defined at run time, checked against its JSON Schema.

use serde_json::{Map, Value};

use super::{ArgumentError, InvalidArguments, summarize_value};
use crate::param::ParamInfo;

/// Checks a runtime tool's arguments against its JSON Schema before its handler sees them,
/// and reports every problem the way `#[tool]`'s typed reading does.
pub(crate) struct SchemaChecker {
    tool: String,
    validator: jsonschema::Validator,
    /// The properties, for "valid parameters" lists.
    names: Vec<String>,
    /// Properties not in `required`: `null` for them means absent, as for `#[tool]` functions
    /// (and OpenAI strict mode sends optional parameters as `null`).
    optional: Vec<String>,
}

impl SchemaChecker {
    /// A checker for `schema`, whose parameters are `params`.
    pub(crate) fn new(
        tool: &str,
        schema: &Value,
        params: &[ParamInfo],
    ) -> Result<Self, jsonschema::ValidationError<'static>> {
        Ok(SchemaChecker {
            tool: tool.to_owned(),
            validator: jsonschema::validator_for(schema)?,
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
        use jsonschema::error::ValidationErrorKind as Kind;

        args.retain(|name, value| !(value.is_null() && self.optional.contains(name)));
        let instance = Value::Object(args);
        let mut errors = Vec::new();
        for error in self.validator.iter_errors(&instance) {
            let pointer = error.instance_path().to_string();
            let depth = pointer.matches('/').count();
            let param = pointer
                .strip_prefix('/')
                .map(|rest| rest.split('/').next().unwrap_or(rest))
                .map(|segment| segment.replace("~1", "/").replace("~0", "~"));
            let sent = param.as_ref().and_then(|name| instance.get(name));
            let converted = match (error.kind(), param) {
                (Kind::Required { property }, None) => ArgumentError::Missing {
                    param: property
                        .as_str()
                        .map_or_else(|| property.to_string(), str::to_owned),
                    expected: None,
                    description: None,
                },
                (Kind::AdditionalProperties { unexpected }, None) => {
                    errors.extend(unexpected.iter().map(|param| ArgumentError::Unknown {
                        param: param.clone(),
                        valid: self.names.clone(),
                    }));
                    continue;
                }
                (_, Some(param)) if depth == 1 && sent == Some(&Value::Null) => {
                    ArgumentError::Null {
                        param,
                        expected: None,
                    }
                }
                (_, Some(param)) => ArgumentError::Invalid {
                    got: sent.map_or_else(|| "nothing".to_owned(), summarize_value),
                    param,
                    expected: None,
                    reason: if depth > 1 {
                        format!("at `{pointer}`: {error}")
                    } else {
                        error.to_string()
                    },
                },
                (_, None) => ArgumentError::Schema {
                    pointer,
                    message: error.to_string(),
                },
            };
            errors.push(converted);
        }
        match (errors.is_empty(), instance) {
            (true, Value::Object(args)) => Ok(args),
            _ => Err(InvalidArguments::new(self.tool.clone(), errors)),
        }
    }
}
