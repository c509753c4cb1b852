//! The errors a model reads when its arguments do not fit: one per problem, and all of a
//! call's together.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use toolwright_names::did_you_mean;

use crate::param::ParamInfo;

/// One thing wrong with the arguments of a call, naming the parameter so the model can
/// retry with a fix.
///
/// ```
/// use toolwright_core::ArgumentError;
///
/// let err = ArgumentError::Unknown {
///     param: "pth".into(),
///     valid: vec!["path".into(), "max_bytes".into()],
/// };
/// assert_eq!(
///     err.to_string(),
///     "unknown parameter `pth`: did you mean `path`? (valid parameters: `path`, `max_bytes`)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ArgumentError {
    /// A required parameter was not sent.
    Missing {
        /// The parameter's name.
        param: String,
        /// What the parameter accepts, e.g. `string` or `array of integer`.
        expected: Option<String>,
        /// The parameter's description.
        description: Option<String>,
    },
    /// A required parameter was sent as `null`.
    Null {
        /// The parameter's name.
        param: String,
        /// What the parameter accepts.
        expected: Option<String>,
    },
    /// A parameter's value has the wrong type or an invalid value.
    Invalid {
        /// The parameter's name.
        param: String,
        /// What the parameter accepts.
        expected: Option<String>,
        /// A short rendering of what was sent.
        got: String,
        /// Why the value was refused.
        reason: String,
    },
    /// A parameter the tool does not have.
    Unknown {
        /// The name that was sent.
        param: String,
        /// The tool's parameters.
        valid: Vec<String>,
    },
    /// A field inside a parameter's object (a struct parameter, at any depth) that its type
    /// does not have: serde would skip it, and the model would never learn its value was
    /// dropped.
    ///
    /// ```
    /// use toolwright_core::ArgumentError;
    ///
    /// let err = ArgumentError::UnknownField {
    ///     param: "filter".into(),
    ///     place: "filter.rules[0].sevrity".into(),
    ///     valid: vec!["severity".into(), "name".into()],
    /// };
    /// assert_eq!(
    ///     err.to_string(),
    ///     "unknown field `sevrity` at `filter.rules[0].sevrity`: did you mean `severity`? \
    ///      (valid fields there: `severity`, `name`)"
    /// );
    /// ```
    UnknownField {
        /// The parameter whose value holds it.
        param: String,
        /// Where, as a model writes it: `filter.rules[0].sevrity`.
        place: String,
        /// The fields the object there has.
        valid: Vec<String>,
    },
    /// The arguments break the tool's JSON Schema (tools defined at run time).
    Schema {
        /// JSON Pointer to the offending value, `""` for the whole argument object.
        pointer: String,
        /// What the schema requires there.
        message: String,
    },
}

impl ArgumentError {
    /// The parameter the error is about, if it is about one.
    ///
    /// ```
    /// use toolwright_core::ArgumentError;
    /// let err = ArgumentError::Null { param: "path".into(), expected: None };
    /// assert_eq!(err.param(), Some("path"));
    /// ```
    pub fn param(&self) -> Option<&str> {
        match self {
            ArgumentError::Missing { param, .. }
            | ArgumentError::Null { param, .. }
            | ArgumentError::Invalid { param, .. }
            | ArgumentError::Unknown { param, .. }
            | ArgumentError::UnknownField { param, .. } => Some(param),
            ArgumentError::Schema { .. } => None,
        }
    }

    /// Fills in what a parameter accepts and its description, from the tool's parameters.
    pub(crate) fn fill_in(&mut self, params: &[ParamInfo]) {
        let lookup = |name: &str| params.iter().find(|p| p.name() == name);
        match self {
            ArgumentError::Missing {
                param,
                expected,
                description,
            } => {
                if let Some(info) = lookup(param) {
                    expected.get_or_insert_with(|| info.expected_type().to_owned());
                    if description.is_none() {
                        *description = info.description().map(str::to_owned);
                    }
                }
            }
            ArgumentError::Null { param, expected }
            | ArgumentError::Invalid {
                param, expected, ..
            } => {
                if let Some(info) = lookup(param) {
                    expected.get_or_insert_with(|| info.expected_type().to_owned());
                }
            }
            ArgumentError::Unknown { .. }
            | ArgumentError::UnknownField { .. }
            | ArgumentError::Schema { .. } => {}
        }
    }
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgumentError::Missing {
                param,
                expected,
                description,
            } => {
                write!(f, "missing required parameter `{param}`")?;
                if let Some(expected) = expected {
                    write!(f, " (expected {expected})")?;
                }
                if let Some(description) = description {
                    write!(f, ": {description}")?;
                }
                Ok(())
            }
            ArgumentError::Null { param, expected } => {
                write!(f, "parameter `{param}` is required and cannot be null")?;
                if let Some(expected) = expected {
                    write!(f, "; send {expected}")?;
                }
                Ok(())
            }
            ArgumentError::Invalid {
                param,
                expected,
                got,
                reason,
            } => {
                write!(f, "invalid value for parameter `{param}`: ")?;
                if let Some(expected) = expected {
                    write!(f, "expected {expected}, ")?;
                }
                write!(f, "got {got} ({reason})")
            }
            ArgumentError::Unknown { param, valid } => {
                write!(f, "unknown parameter `{param}`")?;
                if valid.is_empty() {
                    return f.write_str(": this tool takes no parameters");
                }
                if let Some(close) = did_you_mean(param, valid.iter().map(String::as_str)) {
                    write!(f, ": did you mean `{close}`?")?;
                }
                f.write_str(" (valid parameters: ")?;
                for (i, name) in valid.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "`{name}`")?;
                }
                f.write_str(")")
            }
            ArgumentError::UnknownField { place, valid, .. } => {
                let field = place.rsplit(['.', ']']).next().unwrap_or(place.as_str());
                write!(f, "unknown field `{field}` at `{place}`")?;
                if valid.is_empty() {
                    return f.write_str(": the value there takes no such field");
                }
                if let Some(close) = did_you_mean(field, valid.iter().map(String::as_str)) {
                    write!(f, ": did you mean `{close}`?")?;
                }
                f.write_str(" (valid fields there: ")?;
                for (i, name) in valid.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "`{name}`")?;
                }
                f.write_str(")")
            }
            ArgumentError::Schema { pointer, message } => {
                if pointer.is_empty() {
                    write!(f, "{message}")
                } else {
                    write!(f, "at `{pointer}`: {message}")
                }
            }
        }
    }
}

/// Every problem with the arguments of one call to one tool.
///
/// This is what [`ToolError::InvalidArguments`](crate::ToolError::InvalidArguments) holds;
/// its text lists every problem at once so the model can fix them all in one retry.
///
/// ```
/// use toolwright_core::{ArgumentError, InvalidArguments};
///
/// let err = InvalidArguments::new("read_file", vec![ArgumentError::Missing {
///     param: "path".into(),
///     expected: Some("string".into()),
///     description: Some("Path relative to the workspace root".into()),
/// }]);
/// assert_eq!(
///     err.to_string(),
///     "invalid arguments for tool `read_file`: missing required parameter `path` \
///      (expected string): Path relative to the workspace root"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
pub struct InvalidArguments {
    tool: String,
    errors: Vec<ArgumentError>,
}

impl InvalidArguments {
    /// The problems `errors` with the arguments of a call to `tool`.
    pub fn new(tool: impl Into<String>, errors: Vec<ArgumentError>) -> Self {
        InvalidArguments {
            tool: tool.into(),
            errors,
        }
    }

    /// The tool that was called.
    ///
    /// ```
    /// # use toolwright_core::InvalidArguments;
    /// assert_eq!(InvalidArguments::new("t", vec![]).tool(), "t");
    /// ```
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// Every problem found, in parameter order, unknown parameters last.
    ///
    /// ```
    /// # use toolwright_core::InvalidArguments;
    /// assert!(InvalidArguments::new("t", vec![]).errors().is_empty());
    /// ```
    pub fn errors(&self) -> &[ArgumentError] {
        &self.errors
    }

    pub(crate) fn fill_in(&mut self, tool: &str, params: &[ParamInfo]) {
        if self.tool.is_empty() {
            self.tool = tool.to_owned();
        }
        for error in &mut self.errors {
            error.fill_in(params);
        }
    }
}

impl fmt::Display for InvalidArguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid arguments for tool `{}`", self.tool)?;
        match self.errors.as_slice() {
            [] => Ok(()),
            [only] => write!(f, ": {only}"),
            many => {
                write!(f, " ({} problems):", many.len())?;
                for error in many {
                    write!(f, "\n- {error}")?;
                }
                Ok(())
            }
        }
    }
}

/// A short rendering of a JSON value for an error message: its kind and, when short, its text.
// For toolwright-runtime (the executor's messages say values the same way); not part of the API.
#[doc(hidden)]
pub fn summarize_value(value: &Value) -> String {
    const MAX: usize = 60;
    let kind = match value {
        Value::Null => return "null".to_owned(),
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let text = value.to_string();
    if text.chars().count() <= MAX {
        format!("{kind} {text}")
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{kind} {cut}...")
    }
}
