//! The walk of a value and a schema together: `$ref`, `type`, `enum` and `const`, then each
//! family of keywords, within the limits of depth and work.

use serde_json::{Map, Value};

use super::reference::resolve;
use super::values::{enum_message, has_type, json_eq};
use super::walk::Walk;

/// How deep the check goes into the schema and the value together (each property, item,
/// subschema and `$ref` is a level); past it, it reports that it stopped, so that a
/// `$ref` cycle cannot recurse for ever.
pub(super) const MAX_DEPTH: usize = 256;

/// How many (schema, value) pairs one check may visit. A schema whose combinators branch at
/// every level (`anyOf` of two `$ref`s back up, through properties) takes time exponential in
/// the value's depth; past the budget the check stops and fails rather than hold a thread.
pub(super) const MAX_STEPS: usize = 1_000_000;

impl Walk<'_> {
    /// Checks `value` against `schema`: every keyword that applies, and the subschemas they lead to.
    pub(super) fn check(&mut self, schema: &Value, value: &Value, pointer: &str, depth: usize) {
        let object = match schema {
            Value::Object(object) => object,
            Value::Bool(false) => {
                return self.report(pointer, format!("False schema does not allow {value}"));
            }
            _ => return,
        };
        let steps = self.steps.get() + 1;
        self.steps.set(steps);
        if steps > MAX_STEPS {
            // `violations` reports it once; what was found on the way may be partial.
            return;
        }
        if depth > MAX_DEPTH {
            return self.report(
                pointer,
                format!("nested too deeply to check (more than {MAX_DEPTH} levels, or `$ref`s that loop)"),
            );
        }
        if let Some(Value::String(reference)) = object.get("$ref")
            && let Some(target) = resolve(self.root, reference)
        {
            self.check(target, value, pointer, depth + 1);
        }
        self.check_kind(object, value, pointer);
        match value {
            Value::Number(number) => self.check_number(object, number, pointer),
            Value::String(text) => self.check_string(object, text, pointer),
            Value::Array(items) => self.check_array(object, items, value, pointer, depth),
            Value::Object(map) => self.check_object(object, map, value, pointer, depth),
            Value::Null | Value::Bool(_) => {}
        }
        self.check_combinators(object, value, pointer, depth);
    }

    /// `type`, `enum`, `const`.
    fn check_kind(&mut self, object: &Map<String, Value>, value: &Value, pointer: &str) {
        match object.get("type") {
            Some(Value::String(name)) if !has_type(name, value) => {
                self.report(pointer, format!("{value} is not of type \"{name}\""));
            }
            Some(Value::Array(names))
                if !names
                    .iter()
                    .any(|n| n.as_str().is_some_and(|n| has_type(n, value))) =>
            {
                let names: Vec<String> = names
                    .iter()
                    .map(|n| n.as_str().unwrap_or("?").to_owned())
                    .collect();
                self.report(
                    pointer,
                    format!("{value} is not of types \"{}\"", names.join("\", \"")),
                );
            }
            _ => {}
        }
        if let Some(Value::Array(options)) = object.get("enum")
            && !options.iter().any(|option| json_eq(option, value))
        {
            self.report(pointer, enum_message(value, options));
        }
        if let Some(expected) = object.get("const")
            && !json_eq(expected, value)
        {
            self.report(pointer, format!("{expected} was expected"));
        }
    }
}
