//! The keywords of objects.

use serde_json::{Map, Value};

use super::reference::child;
use super::values::{count_keyword, plural_y};
use super::walk::Walk;
use crate::args::violation::{Violation, ViolationKind};

impl Walk<'_> {
    /// `properties`, `required`, `patternProperties` (see [`super::patterns`]),
    /// `additionalProperties`, `minProperties`, `maxProperties`, `propertyNames`.
    pub(super) fn check_object(
        &mut self,
        object: &Map<String, Value>,
        map: &Map<String, Value>,
        value: &Value,
        pointer: &str,
        depth: usize,
    ) {
        let properties = match object.get("properties") {
            Some(Value::Object(properties)) => Some(properties),
            _ => None,
        };
        for (name, schema) in properties.into_iter().flatten() {
            if let Some(property) = map.get(name) {
                self.check(schema, property, &child(pointer, name), depth + 1);
            }
        }
        if let Some(Value::Array(required)) = object.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(name) {
                    self.found.push(Violation {
                        pointer: pointer.to_owned(),
                        kind: ViolationKind::Required {
                            property: name.to_owned(),
                        },
                        message: format!(
                            "{} is a required property",
                            Value::String(name.to_owned())
                        ),
                    });
                }
            }
        }
        let patterned = match object.get("patternProperties") {
            Some(Value::Object(patterned)) => Some(patterned),
            _ => None,
        };
        for (pattern, schema) in patterned.into_iter().flatten() {
            for (name, property) in map {
                if self.patterns.matches(pattern, name) == Some(true) {
                    self.check(schema, property, &child(pointer, name), depth + 1);
                }
            }
        }
        // Which properties are "additional" depends on `patternProperties`' expressions:
        // when one is not checked (see `patterns`), neither is `additionalProperties`.
        let readable = patterned.is_none_or(|patterned| {
            patterned
                .keys()
                .all(|pattern| self.patterns.matches(pattern, "").is_some())
        });
        if readable {
            let extra = map.iter().filter(|(name, _)| {
                properties.is_none_or(|p| !p.contains_key(*name))
                    && patterned.is_none_or(|patterned| {
                        patterned
                            .keys()
                            .all(|pattern| self.patterns.matches(pattern, name) != Some(true))
                    })
            });
            match object.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    let unexpected: Vec<String> = extra.map(|(name, _)| name.clone()).collect();
                    if !unexpected.is_empty() {
                        let listed: Vec<String> =
                            unexpected.iter().map(|n| format!("'{n}'")).collect();
                        let verb = if unexpected.len() == 1 { "was" } else { "were" };
                        self.found.push(Violation {
                            pointer: pointer.to_owned(),
                            message: format!(
                                "Additional properties are not allowed ({} {verb} unexpected)",
                                listed.join(", ")
                            ),
                            kind: ViolationKind::Additional { unexpected },
                        });
                    }
                }
                Some(schema @ Value::Object(_)) => {
                    for (name, property) in extra {
                        self.check(schema, property, &child(pointer, name), depth + 1);
                    }
                }
                _ => {}
            }
        }
        if let Some(limit) = count_keyword(object, "minProperties")
            && map.len() < limit
        {
            self.report(
                pointer,
                format!("{value} has less than {limit} propert{}", plural_y(limit)),
            );
        }
        if let Some(limit) = count_keyword(object, "maxProperties")
            && map.len() > limit
        {
            self.report(
                pointer,
                format!("{value} has more than {limit} propert{}", plural_y(limit)),
            );
        }
        if let Some(schema) = object.get("propertyNames") {
            for name in map.keys() {
                self.check(schema, &Value::String(name.clone()), pointer, depth + 1);
            }
        }
    }
}
