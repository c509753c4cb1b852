//! Replacing `$ref`s with the definitions they point to, for clients that cannot resolve
//! references.

use serde_json::{Map, Value};

use super::notes;

/// How deep a recursive type is unrolled before it is cut off.
const MAX_DEPTH: usize = 8;

/// `schema` with every local `$ref` replaced by its target and `$defs`/`definitions`
/// removed. A recursive type is unrolled `MAX_DEPTH` times, then cut to `{"type":"object"}`.
pub(crate) fn inline_refs(schema: &Value) -> Value {
    let root = schema.clone();
    let mut out = inline(schema, &root, 0);
    if let Some(object) = out.as_object_mut() {
        object.remove("$defs");
        object.remove("definitions");
    }
    out
}

fn inline(schema: &Value, root: &Value, depth: usize) -> Value {
    match schema {
        Value::Object(object) => {
            if let Some(Value::String(reference)) = object.get("$ref") {
                let target = reference
                    .strip_prefix('#')
                    .and_then(|pointer| root.pointer(pointer));
                if let Some(target) = target {
                    if depth >= MAX_DEPTH {
                        return serde_json::json!({"type": "object", "description": "(nested too deeply to describe)"});
                    }
                    let mut resolved = match inline(target, root, depth + 1) {
                        Value::Object(resolved) => resolved,
                        other => return other,
                    };
                    // Siblings of `$ref` (a parameter's description) override the target's;
                    // a description is joined to the type's, so the type's doc comment stays.
                    for (key, value) in object {
                        if key == "$ref" {
                            continue;
                        }
                        let value = match (key.as_str(), value, resolved.get(key)) {
                            ("description", Value::String(outer), Some(Value::String(inner))) => {
                                Value::String(notes::joined(outer, inner))
                            }
                            _ => inline(value, root, depth),
                        };
                        resolved.insert(key.clone(), value);
                    }
                    return Value::Object(resolved);
                }
            }
            Value::Object(
                object
                    .iter()
                    .filter(|(key, _)| *key != "$defs" && *key != "definitions")
                    .map(|(key, value)| (key.clone(), inline(value, root, depth)))
                    .collect::<Map<String, Value>>(),
            )
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|item| inline(item, root, depth)).collect())
        }
        other => other.clone(),
    }
}

/// Whether `schema` uses `$ref` anywhere.
#[cfg(test)]
pub(crate) fn has_refs(schema: &Value) -> bool {
    match schema {
        Value::Object(object) => object.contains_key("$ref") || object.values().any(has_refs),
        Value::Array(items) => items.iter().any(has_refs),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn inlines_and_joins_sibling_descriptions() {
        let schema = json!({
            "type": "object",
            "properties": {"at": {"$ref": "#/$defs/Point", "description": "Where"}},
            "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}, "description": "A point"}}
        });
        assert_eq!(
            inline_refs(&schema),
            json!({
                "type": "object",
                "properties": {"at": {"type": "object", "properties": {"x": {"type": "number"}}, "description": "Where. A point"}}
            })
        );
    }

    #[test]
    fn cuts_recursion() {
        let schema = json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}
        });
        let inlined = inline_refs(&schema);
        assert!(!has_refs(&inlined));
        assert!(inlined.to_string().contains("nested too deeply"));
    }
}
