//! The keywords of arrays.

use serde_json::{Map, Value};

use super::reference::child;
use super::values::{count_keyword, json_eq, plural};
use super::walk::Walk;

impl Walk<'_> {
    /// `prefixItems`, `items`, `additionalItems`, `minItems`, `maxItems`, `uniqueItems`, `contains`.
    pub(super) fn check_array(
        &mut self,
        object: &Map<String, Value>,
        items: &[Value],
        value: &Value,
        pointer: &str,
        depth: usize,
    ) {
        let mut positional = match object.get("prefixItems") {
            Some(Value::Array(schemas)) => schemas.len(),
            _ => 0,
        };
        if let Some(Value::Array(schemas)) = object.get("prefixItems") {
            for (i, (schema, item)) in schemas.iter().zip(items).enumerate() {
                self.check(schema, item, &child(pointer, &i.to_string()), depth + 1);
            }
        }
        match object.get("items") {
            // The list form of drafts 4 to 2019-09, with `additionalItems` for the rest.
            Some(Value::Array(schemas)) => {
                for (i, (schema, item)) in schemas.iter().zip(items).enumerate() {
                    self.check(schema, item, &child(pointer, &i.to_string()), depth + 1);
                }
                positional = schemas.len();
                match object.get("additionalItems") {
                    Some(Value::Bool(false)) if items.len() > positional => {
                        let extra: Vec<String> =
                            items[positional..].iter().map(Value::to_string).collect();
                        let verb = if extra.len() == 1 { "was" } else { "were" };
                        self.report(
                            pointer,
                            format!(
                                "Additional items are not allowed ({} {verb} unexpected)",
                                extra.join(", ")
                            ),
                        );
                    }
                    Some(schema @ Value::Object(_)) => {
                        for (i, item) in items.iter().enumerate().skip(positional) {
                            self.check(schema, item, &child(pointer, &i.to_string()), depth + 1);
                        }
                    }
                    _ => {}
                }
            }
            Some(schema) => {
                for (i, item) in items.iter().enumerate().skip(positional) {
                    self.check(schema, item, &child(pointer, &i.to_string()), depth + 1);
                }
            }
            None => {}
        }
        if let Some(limit) = count_keyword(object, "minItems")
            && items.len() < limit
        {
            self.report(
                pointer,
                format!("{value} has less than {limit} item{}", plural(limit)),
            );
        }
        if let Some(limit) = count_keyword(object, "maxItems")
            && items.len() > limit
        {
            self.report(
                pointer,
                format!("{value} has more than {limit} item{}", plural(limit)),
            );
        }
        if object.get("uniqueItems") == Some(&Value::Bool(true))
            && items
                .iter()
                .enumerate()
                .any(|(i, a)| items[i + 1..].iter().any(|b| json_eq(a, b)))
        {
            self.report(pointer, format!("{value} has non-unique elements"));
        }
        if let Some(schema) = object.get("contains")
            && !items.iter().enumerate().any(|(i, item)| {
                self.passes(schema, item, &child(pointer, &i.to_string()), depth + 1)
            })
        {
            self.report(
                pointer,
                format!("None of {value} are valid under the given schema"),
            );
        }
    }
}
