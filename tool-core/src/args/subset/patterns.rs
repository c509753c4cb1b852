//! `pattern` and `patternProperties`: regular expressions, checked with the
//! `schema-validation` feature by the `regex-lite` crate (one small crate; linear in the
//! text, so no value can make a match slow; `\d`, `\w`, `\s` are ASCII, as in ECMA-262).
//! Without the feature, or for an expression `regex-lite` cannot read (ECMA-262's
//! look-around and back-references, Unicode classes `\p{..}`, or one past the size limit),
//! they are not checked.

#[cfg(feature = "schema-validation")]
use std::collections::HashMap;

use serde_json::Value;

/// The compiled size one expression may take; past it the expression is not checked, so
/// that a schema cannot make the checker hold much memory.
#[cfg(feature = "schema-validation")]
const SIZE_LIMIT: usize = 1 << 20;

/// The regular expressions of one schema, compiled once when the checker is built.
#[derive(Default)]
pub(super) struct Patterns {
    #[cfg(feature = "schema-validation")]
    compiled: HashMap<String, regex_lite::Regex>,
}

impl Patterns {
    /// Every `pattern` and `patternProperties` expression of `schema` that can be compiled.
    pub(super) fn of(schema: &Value) -> Self {
        #[cfg(feature = "schema-validation")]
        {
            let mut patterns = Patterns::default();
            patterns.collect(schema);
            patterns
        }
        #[cfg(not(feature = "schema-validation"))]
        {
            let _ = schema;
            Patterns::default()
        }
    }

    /// Whether `text` matches `pattern` (anywhere in it: JSON Schema searches, it does not
    /// anchor); `None` when the expression is not checked.
    pub(super) fn matches(&self, pattern: &str, text: &str) -> Option<bool> {
        #[cfg(feature = "schema-validation")]
        return self.compiled.get(pattern).map(|regex| regex.is_match(text));
        #[cfg(not(feature = "schema-validation"))]
        {
            let _ = (pattern, text);
            None
        }
    }

    /// Compiles the expressions of `schema` and of its subschemas.
    #[cfg(feature = "schema-validation")]
    fn collect(&mut self, schema: &Value) {
        match schema {
            Value::Object(object) => {
                for (keyword, value) in object {
                    match (keyword.as_str(), value) {
                        // Values, not schemas.
                        ("enum" | "const" | "default" | "examples", _) => continue,
                        ("pattern", Value::String(pattern)) => self.compile(pattern),
                        ("patternProperties", Value::Object(properties)) => {
                            properties.keys().for_each(|pattern| self.compile(pattern));
                        }
                        _ => {}
                    }
                    self.collect(value);
                }
            }
            Value::Array(items) => items.iter().for_each(|item| self.collect(item)),
            _ => {}
        }
    }

    #[cfg(feature = "schema-validation")]
    fn compile(&mut self, pattern: &str) {
        if self.compiled.contains_key(pattern) {
            return;
        }
        match regex_lite::RegexBuilder::new(pattern)
            .size_limit(SIZE_LIMIT)
            .build()
        {
            Ok(regex) => {
                self.compiled.insert(pattern.to_owned(), regex);
            }
            Err(error) => tracing::warn!(
                pattern,
                %error,
                "a JSON Schema `pattern` the `regex-lite` crate cannot read is not checked"
            ),
        }
    }
}
