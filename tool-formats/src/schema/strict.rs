//! OpenAI strict mode ("Structured Outputs" for function calling): the rules a parameter
//! schema must follow, and the rewrite that makes ours follow them.
//!
//! The rules, from OpenAI's documentation:
//! - the root is an object schema, not `anyOf`;
//! - every object has `additionalProperties: false` and lists every property in `required`
//!   (an optional parameter is written as nullable instead: `"type": ["T", "null"]` or
//!   `anyOf` with `{"type": "null"}`);
//! - keywords outside the supported subset are rejected: composition with `allOf`, `not`,
//!   `oneOf`, `if`/`then`/`else`, `patternProperties`, `propertyNames`, `dependent*`,
//!   `unevaluated*`, `contains`; and the validation keywords `minLength`, `maxLength`,
//!   `pattern`, `format`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
//!   `multipleOf`, `minItems`, `maxItems`, `uniqueItems`, `minProperties`, `maxProperties`,
//!   and `default`;
//! - `$ref` takes no sibling keywords;
//! - at most 10 levels of nesting and 5,000 properties in all.
//!
//! Validation keywords carry meaning for the model, so they move into the description
//! ("minimum: 0"); structure that strict mode cannot express (a map with arbitrary keys, a
//! value of any type) makes the tool unfit for strict mode, and it is reported.

use serde_json::{Map, Value, json};
use toolwright_core::__runtime::is_meaningful_bound;

use super::notes;

/// Keywords strict mode rejects but whose meaning can be kept as words in the description.
pub(crate) const MOVED_TO_DESCRIPTION: &[&str] = &[
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "default",
];

/// Keywords strict mode rejects and that cannot be rewritten.
pub(crate) const UNSUPPORTED: &[&str] = &[
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
];

/// Keywords that carry no meaning for the model and are simply dropped.
const DROPPED: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "title",
    "examples",
    "readOnly",
    "writeOnly",
    "deprecated",
];

/// `format`s worth telling the model about (the numeric ones, like `uint32`, are not).
const MEANINGFUL_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uuid",
];

pub(crate) const MAX_DEPTH: usize = 10;
pub(crate) const MAX_PROPERTIES: usize = 5000;

/// The parameters schema rewritten for strict mode, or why it cannot be.
pub(crate) fn make_strict(schema: &Value) -> Result<Value, String> {
    if schema.get("type") != Some(&json!("object")) {
        return Err("the parameters schema must be an object schema".to_owned());
    }
    let mut count = 0;
    let mut out = rewrite(schema, "", 0, &mut count)?;
    if let Some(Value::Object(defs)) = schema.get("$defs") {
        let mut rewritten = Map::new();
        for (name, def) in defs {
            rewritten.insert(
                name.clone(),
                rewrite(def, &format!("$defs/{name}"), 1, &mut count)?,
            );
        }
        if let Some(object) = out.as_object_mut() {
            // `$defs` last, after the properties that use them.
            object.insert("$defs".to_owned(), Value::Object(rewritten));
        }
    }
    if count > MAX_PROPERTIES {
        return Err(format!(
            "it has {count} properties; strict mode allows {MAX_PROPERTIES}"
        ));
    }
    Ok(out)
}

fn rewrite(schema: &Value, path: &str, depth: usize, count: &mut usize) -> Result<Value, String> {
    let at = || {
        if path.is_empty() {
            "the parameters".to_owned()
        } else {
            format!("`{path}`")
        }
    };
    if depth > MAX_DEPTH {
        return Err(format!(
            "{} is nested more than {MAX_DEPTH} levels deep",
            at()
        ));
    }
    let Value::Object(object) = schema else {
        return Err(format!(
            "{} accepts any JSON value, which strict mode cannot express",
            at()
        ));
    };
    if let Some(keyword) = UNSUPPORTED.iter().find(|k| object.contains_key(**k)) {
        return Err(format!(
            "{} uses `{keyword}`, which strict mode does not support",
            at()
        ));
    }
    let mut out = Map::new();
    let mut notes = Vec::new();
    for (key, value) in object {
        let key = key.as_str();
        if DROPPED.contains(&key) || key == "$defs" {
            continue;
        }
        if MOVED_TO_DESCRIPTION.contains(&key) {
            let bound = matches!(key, "minimum" | "maximum");
            if !bound || is_meaningful_bound(value) {
                notes.push(format!("{key}: {}", note_value(value)));
            }
            continue;
        }
        if key == "format" {
            if let Some(format) = value.as_str().filter(|f| MEANINGFUL_FORMATS.contains(f)) {
                notes.push(format!("format: {format}"));
            }
            continue;
        }
        out.insert(key.to_owned(), value.clone());
    }

    // `oneOf` is not supported: constants become an `enum`, anything else `anyOf` (for the
    // enums and tagged unions schemars writes, the variants exclude each other anyway).
    if let Some(Value::Array(variants)) = out.remove("oneOf") {
        match notes::constants(&variants) {
            Some(constants) => {
                if let Some(ty) = constants.ty {
                    out.insert("type".into(), ty);
                }
                out.insert("enum".into(), Value::Array(constants.values));
                // The variants' doc comments, which `enum` has no place for.
                notes.extend(constants.note);
            }
            None => {
                out.insert("anyOf".into(), Value::Array(variants));
            }
        }
    }
    if let Some(Value::Array(variants)) = out.remove("anyOf") {
        let rewritten = variants
            .iter()
            .enumerate()
            .map(|(i, v)| rewrite(v, &format!("{path}/anyOf/{i}"), depth + 1, count))
            .collect::<Result<Vec<_>, _>>()?;
        out.insert("anyOf".into(), Value::Array(rewritten));
    }
    if let Some(items) = out.remove("items") {
        out.insert(
            "items".into(),
            rewrite(&items, &format!("{path}/items"), depth + 1, count)?,
        );
    }

    let is_object = out.get("type") == Some(&json!("object")) || out.contains_key("properties");
    if is_object {
        match out.get("additionalProperties") {
            Some(Value::Object(_)) | Some(Value::Bool(true)) => {
                return Err(format!(
                    "{} is a map with arbitrary keys, which strict mode cannot express; use a \
                     struct with named fields",
                    at()
                ));
            }
            _ => {}
        }
        let properties = match out.remove("properties") {
            Some(Value::Object(properties)) => properties,
            _ => Map::new(),
        };
        let required: Vec<String> = match out.get("required") {
            Some(Value::Array(names)) => names
                .iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };
        let mut rewritten = Map::new();
        for (name, property) in &properties {
            *count += 1;
            let mut property = rewrite(
                property,
                format!("{path}/{name}").trim_start_matches('/'),
                depth + 1,
                count,
            )?;
            if !required.contains(name) {
                property = nullable(property);
            }
            rewritten.insert(name.clone(), property);
        }
        let all: Vec<Value> = properties
            .keys()
            .map(|k| Value::String(k.clone()))
            .collect();
        out.insert("properties".into(), Value::Object(rewritten));
        out.insert("required".into(), Value::Array(all));
        out.insert("additionalProperties".into(), Value::Bool(false));
    }

    if !notes.is_empty() {
        let note = notes.join("; ");
        let description = match out.get("description").and_then(Value::as_str) {
            Some(text) => format!("{text} ({note})"),
            None => format!("({note})"),
        };
        out.insert("description".into(), Value::String(description));
    }

    // `$ref` takes no siblings: keep them outside a one-variant `anyOf`.
    if out.contains_key("$ref") && out.len() > 1 {
        let reference = out.remove("$ref").unwrap_or(Value::Null);
        out.insert("anyOf".into(), json!([{"$ref": reference}]));
    }
    if out.is_empty() {
        return Err(format!(
            "{} accepts any JSON value, which strict mode cannot express",
            at()
        ));
    }
    Ok(Value::Object(canonical_order(out)))
}

/// The keys in the order a reader expects (`type`, `description`, `properties`,
/// `required`, `additionalProperties`, ...), whatever order the rewrite left them in.
fn canonical_order(mut object: Map<String, Value>) -> Map<String, Value> {
    const ORDER: &[&str] = &[
        "type",
        "description",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "$ref",
        "$defs",
    ];
    let mut ordered = Map::new();
    for key in ORDER {
        if let Some(value) = object.remove(*key) {
            ordered.insert((*key).to_owned(), value);
        }
    }
    ordered.extend(object);
    ordered
}

/// The same schema, also accepting `null` (how strict mode spells "optional").
pub(crate) fn nullable(schema: Value) -> Value {
    let Value::Object(mut object) = schema else {
        return schema;
    };
    let simple_type = object.get("type").cloned();
    match simple_type {
        Some(Value::String(ty)) if !object.contains_key("anyOf") => {
            object.insert("type".into(), json!([ty, "null"]));
            if let Some(Value::Array(values)) = object.get_mut("enum")
                && !values.contains(&Value::Null)
            {
                values.push(Value::Null);
            }
            Value::Object(object)
        }
        Some(Value::Array(mut types)) => {
            if !types.contains(&json!("null")) {
                types.push(json!("null"));
            }
            object.insert("type".into(), Value::Array(types));
            Value::Object(object)
        }
        _ => {
            if let Some(Value::Array(variants)) = object.get_mut("anyOf") {
                if !variants.contains(&json!({"type": "null"})) {
                    variants.push(json!({"type": "null"}));
                }
                return Value::Object(object);
            }
            let description = object.remove("description");
            let mut wrapper = Map::new();
            wrapper.insert(
                "anyOf".into(),
                json!([Value::Object(object), {"type": "null"}]),
            );
            if let Some(description) = description {
                wrapper.insert("description".into(), description);
            }
            Value::Object(wrapper)
        }
    }
}

fn note_value(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}
