//! Gemini's function declarations take parameters in an OpenAPI 3.0 subset: no `$ref`, no
//! `additionalProperties`, `nullable` instead of `null` types, `enum` instead of `const`.

use serde_json::{Map, Value, json};

use super::notes;

/// Keywords Gemini's `Schema` accepts.
const KEPT: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "items",
    "properties",
    "required",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "anyOf",
    "propertyOrdering",
    "default",
    "example",
];

/// Formats Gemini documents.
const FORMATS: &[(&str, &[&str])] = &[
    ("integer", &["int32", "int64"]),
    ("number", &["float", "double"]),
    ("string", &["enum", "date-time"]),
];

/// A JSON Schema (with its `$ref`s already inlined) in Gemini's subset.
pub(crate) fn to_gemini(schema: &Value) -> Value {
    let Value::Object(object) = schema else {
        // `true` (any value) has no Gemini spelling; an object is the closest.
        return json!({"type": "object"});
    };
    let mut object = object.clone();
    let mut nullable = false;

    // `"type": ["T", "null"]` -> `"type": "T", "nullable": true`.
    if let Some(Value::Array(types)) = object.get("type").cloned() {
        let non_null: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        nullable |= non_null.len() < types.len();
        match non_null.as_slice() {
            [single] => {
                object.insert("type".into(), single.clone());
            }
            _ => {
                object.remove("type");
                let variants = non_null.into_iter().map(|t| json!({"type": t})).collect();
                object.insert("anyOf".into(), Value::Array(variants));
            }
        }
    }
    if let Some(constant) = object.remove("const") {
        object.insert("enum".into(), json!([constant]));
    }
    // A documented enum (`oneOf` of constants) -> `enum`; other `oneOf` -> `anyOf`.
    if let Some(Value::Array(variants)) = object.remove("oneOf") {
        match notes::constants(&variants) {
            Some(constants) => {
                if let Some(ty) = constants.ty {
                    object.insert("type".into(), ty);
                }
                object.insert("enum".into(), Value::Array(constants.values));
                // The variants' doc comments, which `enum` has no place for.
                if let Some(note) = constants.note {
                    let description = object.get("description").and_then(Value::as_str);
                    let description = notes::with_note(description, &note);
                    object.insert("description".into(), Value::String(description));
                }
            }
            None => {
                object.insert("anyOf".into(), Value::Array(variants));
            }
        }
    }
    // `anyOf` with `{"type": "null"}` -> the other variant(s), nullable.
    if let Some(Value::Array(variants)) = object.remove("anyOf") {
        let non_null: Vec<Value> = variants
            .into_iter()
            .filter(|v| {
                let is_null = v.get("type") == Some(&json!("null"));
                nullable |= is_null;
                !is_null
            })
            .collect();
        match non_null.as_slice() {
            [single] => {
                if let Value::Object(inner) = to_gemini(single) {
                    for (key, value) in inner {
                        match (key.as_str(), object.get(&key), &value) {
                            // The parameter's description, then the type's.
                            ("description", Some(Value::String(outer)), Value::String(inner)) => {
                                let both = notes::joined(outer, inner);
                                object.insert(key, Value::String(both));
                            }
                            // Otherwise the outer value (the parameter's) wins.
                            _ => {
                                object.entry(key).or_insert(value);
                            }
                        }
                    }
                }
            }
            _ => {
                object.insert(
                    "anyOf".into(),
                    Value::Array(non_null.iter().map(to_gemini).collect()),
                );
            }
        }
    }

    let mut out = Map::new();
    for (key, value) in object {
        if !KEPT.contains(&key.as_str()) {
            continue;
        }
        let value = match key.as_str() {
            "properties" => match value {
                Value::Object(properties) => Value::Object(
                    properties
                        .iter()
                        .map(|(name, property)| (name.clone(), to_gemini(property)))
                        .collect(),
                ),
                other => other,
            },
            "items" => to_gemini(&value),
            _ => value,
        };
        out.insert(key, value);
    }
    if let Some(format) = out.get("format").and_then(Value::as_str) {
        let ty = out.get("type").and_then(Value::as_str).unwrap_or("");
        let allowed = FORMATS
            .iter()
            .any(|(t, formats)| *t == ty && formats.contains(&format));
        if !allowed {
            out.remove("format");
        }
    }
    if nullable {
        out.insert("nullable".into(), Value::Bool(true));
    }
    if out.is_empty() {
        out.insert("type".into(), json!("object"));
    }
    Value::Object(out)
}
