//! The checks a tool defined at run time passes before it is built: the same rules
//! `#[tool]` checks at compile time, plus a valid JSON Schema (checked by its shape: every
//! keyword the argument check reads has a value of the right kind).

use serde_json::{Map, Value};
use toolwright_names::{NAME_RULE, NameError, did_you_mean};

use crate::args::summarize_value;
use crate::input_schema::expected_type;
use crate::meta::ToolMeta;
use crate::param::ParamInfo;

/// Why a runtime-defined tool could not be built. Each message names the tool and says how to
/// fix the definition.
///
/// ```
/// use toolwright_core::{Tool, ToolDefinitionError};
///
/// let err = Tool::builder("ReadFile").description("x").handler(|_| async { "ok" }).build().unwrap_err();
/// assert!(matches!(err, ToolDefinitionError::InvalidName { .. }));
/// assert!(err.to_string().contains("did you mean `read_file`?"));
/// ```
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolDefinitionError {
    /// The name is not `^[a-z][a-z0-9_]*$` or is too long.
    #[error("tool name `{name}` is invalid: {reason}")]
    InvalidName {
        /// The name given.
        name: String,
        /// What is wrong, with a suggestion when there is one.
        reason: String,
    },
    /// No description, or an empty one.
    #[error(
        "tool `{tool}` has no description: give one with `.description(\"...\")`; the model reads it to decide when to use the tool"
    )]
    MissingDescription {
        /// The tool.
        tool: String,
    },
    /// No handler was given.
    #[error(
        "tool `{tool}` has no handler: give one with `.handler(|args| async move {{ ... }})` or `.sync_handler(|args| ...)`"
    )]
    MissingHandler {
        /// The tool.
        tool: String,
    },
    /// A schema is not valid JSON Schema, or the input schema is not an object schema.
    #[error("the {which} schema of tool `{tool}` is invalid: {message}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// `"input"` or `"output"`.
        which: &'static str,
        /// What is wrong.
        message: String,
    },
    /// `required` names a property the input schema does not have.
    #[error("tool `{tool}` requires `{param}`, which is not among the input schema's properties{}", suggestion.as_ref().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    UnknownRequired {
        /// The tool.
        tool: String,
        /// The name in `required`.
        param: String,
        /// A property with a close name.
        suggestion: Option<String>,
    },
    /// A category or tag is empty.
    #[error("tool `{tool}` has an empty {what}")]
    EmptyLabel {
        /// The tool.
        tool: String,
        /// `"category"` or `"tag"`.
        what: &'static str,
    },
    /// A limit the tool declares is zero, so no call could ever run.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolwright_core::{Tool, ToolDefinitionError};
    ///
    /// let err = Tool::builder("ping").description("Ping.").timeout(Duration::ZERO)
    ///     .handler(|_| async { "pong" }).build().unwrap_err();
    /// assert_eq!(err, ToolDefinitionError::ZeroLimit { tool: "ping".into(), limit: "timeout" });
    /// let err = Tool::builder("ping").description("Ping.").max_calls(0)
    ///     .handler(|_| async { "pong" }).build().unwrap_err();
    /// assert!(err.to_string().contains("has a zero max_calls"));
    /// ```
    #[error(
        "tool `{tool}` has a zero {limit}, so no call could run: give a positive one, or leave it out for no limit of the tool's own"
    )]
    ZeroLimit {
        /// The tool.
        tool: String,
        /// `"timeout"` or `"max_calls"`.
        limit: &'static str,
    },
    /// A prompt or resource defined at run time is invalid: a bad name or URI template, no
    /// handler, an argument named twice, a completion for an argument it does not have.
    ///
    /// ```
    /// use toolwright_core::{Prompt, ToolDefinitionError};
    ///
    /// let err = Prompt::builder("code review").handler(|_, _| async { Ok("hi") }).build().unwrap_err();
    /// assert!(matches!(err, ToolDefinitionError::InvalidPrimitive { kind: "prompt", .. }));
    /// assert!(err.to_string().contains("code review"));
    /// ```
    #[error("{kind} `{name}` is invalid: {reason}")]
    InvalidPrimitive {
        /// `"prompt"` or `"resource"`.
        kind: &'static str,
        /// Its name (a resource's URI when its name is fine).
        name: String,
        /// What is wrong and what to do.
        reason: String,
    },
}

/// Checks a definition's name, description, labels and limits.
pub(crate) fn check_meta(meta: &ToolMeta) -> Result<(), ToolDefinitionError> {
    check_name(&meta.name)?;
    if meta.description.trim().is_empty() {
        return Err(ToolDefinitionError::MissingDescription {
            tool: meta.name.to_string(),
        });
    }
    for (labels, what) in [(&meta.categories, "category"), (&meta.tags, "tag")] {
        if labels.iter().any(|label| label.trim().is_empty()) {
            return Err(ToolDefinitionError::EmptyLabel {
                tool: meta.name.to_string(),
                what,
            });
        }
    }
    let zero_limit = |limit| ToolDefinitionError::ZeroLimit {
        tool: meta.name.to_string(),
        limit,
    };
    if meta.timeout.is_some_and(|timeout| timeout.is_zero()) {
        return Err(zero_limit("timeout"));
    }
    if meta.max_calls == Some(0) {
        return Err(zero_limit("max_calls"));
    }
    Ok(())
}

/// Checks a tool name with the rules every front end shares, worded for a Rust author.
fn check_name(name: &str) -> Result<(), ToolDefinitionError> {
    let reason = match toolwright_names::check_tool_name(name) {
        Ok(()) => return Ok(()),
        Err(NameError::Empty) => NAME_RULE.to_owned(),
        Err(NameError::NotSnakeCase { suggestion }) => match suggestion {
            Some(fixed) => format!("{NAME_RULE}; did you mean `{fixed}`?"),
            None => NAME_RULE.to_owned(),
        },
        Err(NameError::TooLong { len }) => format!(
            "it is {len} characters long; model APIs accept at most {}",
            toolwright_names::MAX_NAME_LEN
        ),
    };
    Err(ToolDefinitionError::InvalidName {
        name: name.to_owned(),
        reason,
    })
}

/// A schema is valid JSON Schema (by its `$schema`, 2020-12 when absent), by its shape: every
/// keyword the argument check reads has a value of the right kind.
pub(crate) fn check_schema(schema: &Value) -> Result<(), String> {
    const KNOWN: [&str; 5] = [
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/draft-07/schema",
        "http://json-schema.org/draft-06/schema",
        "http://json-schema.org/draft-04/schema",
    ];
    if let Some(declared) = schema.get("$schema") {
        let known = declared
            .as_str()
            .is_some_and(|uri| KNOWN.iter().any(|k| uri.trim_end_matches('#') == *k));
        if !known {
            return Err(format!(
                "`$schema` is {declared}; supported drafts are 2020-12, 2019-09, 7, 6 and 4"
            ));
        }
    }
    if !schema.is_object() && !schema.is_boolean() {
        return Err(format!(
            "a schema is a JSON object, got {}",
            summarize_value(schema)
        ));
    }
    meta_check(schema)
}

/// The schema's shape, without a JSON Schema library: every schema an object or a boolean,
/// every keyword the argument check reads of the right kind.
fn meta_check(schema: &Value) -> Result<(), String> {
    crate::args::check_shape(schema)
}

/// The parameters described by an object schema's `properties` and `required`. A
/// `required` name outside `properties` is refused as a typo, unless the schema is
/// `foreign` (someone else's, meant as written).
pub(crate) fn params_of(
    tool: &str,
    schema: &Value,
    foreign: bool,
) -> Result<Vec<ParamInfo>, ToolDefinitionError> {
    let invalid = |message: String| ToolDefinitionError::InvalidSchema {
        tool: tool.to_owned(),
        which: "input",
        message,
    };
    let object = schema
        .as_object()
        .ok_or_else(|| invalid("the input schema must be an object schema".to_owned()))?;
    match object.get("type") {
        Some(Value::String(ty)) if ty == "object" => {}
        other => {
            return Err(invalid(format!(
                "the input schema must have `\"type\": \"object\"` (tool arguments are a JSON object), got {}",
                other.map_or_else(|| "no type".to_owned(), Value::to_string)
            )));
        }
    }
    let empty = Map::new();
    let properties = match object.get("properties") {
        None => &empty,
        Some(Value::Object(properties)) => properties,
        Some(other) => {
            return Err(invalid(format!(
                "`properties` must be an object, got {other}"
            )));
        }
    };
    let required: Vec<&str> = match object.get("required") {
        None => Vec::new(),
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        Some(other) => return Err(invalid(format!("`required` must be an array, got {other}"))),
    };
    for name in &required {
        if !foreign && !properties.contains_key(*name) {
            return Err(ToolDefinitionError::UnknownRequired {
                tool: tool.to_owned(),
                param: (*name).to_owned(),
                suggestion: did_you_mean(name, properties.keys().map(String::as_str))
                    .map(str::to_owned),
            });
        }
    }
    Ok(properties
        .iter()
        .map(|(name, property)| {
            ParamInfo::new(
                name,
                property.get("description").and_then(Value::as_str),
                required.contains(&name.as_str()),
                property.get("writeOnly") == Some(&Value::Bool(true)),
                property.clone(),
                property.get("default").cloned(),
            )
            .with_expected_type(expected_type(property, schema))
        })
        .collect())
}

/// `Debug` shows the message, as `Display` does: what `fn main() -> Result<(), E>` and
/// `anyhow` print is then the explanation, not the variant's fields.
impl std::fmt::Debug for ToolDefinitionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
