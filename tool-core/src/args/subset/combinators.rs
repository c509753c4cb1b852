//! The keywords that apply other schemas to the same value.

use serde_json::{Map, Value};

use super::walk::Walk;

impl Walk<'_> {
    /// `allOf`, `anyOf`, `oneOf`, `not`, `if` / `then` / `else`.
    pub(super) fn check_combinators(
        &mut self,
        object: &Map<String, Value>,
        value: &Value,
        pointer: &str,
        depth: usize,
    ) {
        if let Some(Value::Array(schemas)) = object.get("allOf") {
            for schema in schemas {
                self.check(schema, value, pointer, depth + 1);
            }
        }
        if let Some(Value::Array(schemas)) = object.get("anyOf")
            && !schemas
                .iter()
                .any(|s| self.passes(s, value, pointer, depth + 1))
        {
            self.report(
                pointer,
                format!(
                    "{value} is not valid under any of the schemas listed in the 'anyOf' keyword"
                ),
            );
        }
        if let Some(Value::Array(schemas)) = object.get("oneOf") {
            let passed = schemas
                .iter()
                .filter(|s| self.passes(s, value, pointer, depth + 1))
                .count();
            if passed == 0 {
                self.report(
                    pointer,
                    format!("{value} is not valid under any of the schemas listed in the 'oneOf' keyword"),
                );
            } else if passed > 1 {
                self.report(
                    pointer,
                    format!("{value} is valid under more than one of the schemas listed in the 'oneOf' keyword"),
                );
            }
        }
        if let Some(schema) = object.get("not")
            && self.passes(schema, value, pointer, depth + 1)
        {
            self.report(pointer, format!("{schema} is not allowed for {value}"));
        }
        if let Some(condition) = object.get("if") {
            let branch = if self.passes(condition, value, pointer, depth + 1) {
                object.get("then")
            } else {
                object.get("else")
            };
            if let Some(schema) = branch {
                self.check(schema, value, pointer, depth + 1);
            }
        }
    }
}
