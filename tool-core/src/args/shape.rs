//! The shape of a JSON Schema, checked by the crate itself: what a runtime-built tool's
//! schemas pass when the tool is built, in place of validation against the meta-schema.
//!
//! Every schema, at any depth (under `properties`, `items`, `anyOf`, `$defs`, ...), is an
//! object or a boolean, and each keyword the subset checker reads has a value of the kind
//! JSON Schema gives it: `type` names JSON Schema types, `required` is a list of distinct
//! strings, `enum` a list, bounds are numbers, counts non-negative integers, `multipleOf`
//! positive, `pattern` and `$ref` strings, and so on. Keywords it does not know are left
//! alone, as JSON Schema does.

use serde_json::Value;

use super::subset::child;

/// The names `type` takes.
const TYPES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// `Ok` if `schema` has the shape of a JSON Schema; otherwise where it does not (a JSON
/// Pointer into the schema) and why, worded like the meta-schema validator's errors.
pub(crate) fn check_shape(schema: &Value) -> Result<(), String> {
    shape(schema, "").map_err(|(pointer, message)| {
        if pointer.is_empty() {
            message
        } else {
            format!("at `{pointer}`: {message}")
        }
    })
}

/// A place in the schema and what is wrong there.
type Problem = (String, String);

fn shape(schema: &Value, pointer: &str) -> Result<(), Problem> {
    let object = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(object) => object,
        other => {
            return Err((
                pointer.to_owned(),
                format!("{other} is not of types \"boolean\", \"object\""),
            ));
        }
    };
    for (keyword, value) in object {
        keyword_shape(keyword, value, &child(pointer, keyword))?;
    }
    Ok(())
}

fn keyword_shape(keyword: &str, value: &Value, at: &str) -> Result<(), Problem> {
    let bad = |what: &str| Err((at.to_owned(), format!("{value} is not {what}")));
    match keyword {
        "type" => {
            let names = match value {
                Value::String(_) => std::slice::from_ref(value),
                Value::Array(names) if !names.is_empty() => names.as_slice(),
                _ => return bad("a JSON Schema type or a non-empty list of them"),
            };
            for (i, name) in names.iter().enumerate() {
                if !name.as_str().is_some_and(|n| TYPES.contains(&n)) {
                    let place = if value.is_array() {
                        child(at, &i.to_string())
                    } else {
                        at.to_owned()
                    };
                    return Err((
                        place,
                        format!(
                            "{name} is not a JSON Schema type (one of \"{}\")",
                            TYPES.join("\", \"")
                        ),
                    ));
                }
            }
            if !distinct(names) {
                return bad("a list of distinct types");
            }
        }
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
            let Value::Object(schemas) = value else {
                return bad("an object of schemas");
            };
            for (name, schema) in schemas {
                shape(schema, &child(at, name))?;
            }
        }
        "items" if value.is_array() => schemas(value, at, false)?,
        "prefixItems" | "allOf" | "anyOf" | "oneOf" => schemas(value, at, true)?,
        "items"
        | "additionalProperties"
        | "additionalItems"
        | "not"
        | "if"
        | "then"
        | "else"
        | "contains"
        | "propertyNames"
        | "unevaluatedItems"
        | "unevaluatedProperties" => {
            shape(value, at)?;
        }
        "dependentRequired" => {
            let Value::Object(lists) = value else {
                return bad("an object of lists of distinct strings");
            };
            if let Some((name, list)) = lists.iter().find(|(_, list)| !strings(list)) {
                return Err((
                    child(at, name),
                    format!("{list} is not a list of distinct strings"),
                ));
            }
        }
        _ => {
            if let Some((fits, what)) = value_kind(keyword)
                && !fits(value)
            {
                return bad(what);
            }
        }
    }
    Ok(())
}

/// Whether a keyword's value fits, and what it must be.
type ValueKind = (fn(&Value) -> bool, &'static str);

/// For a keyword whose value is a plain value: whether a value fits, and what it must be.
fn value_kind(keyword: &str) -> Option<ValueKind> {
    Some(match keyword {
        "required" => (strings, "a list of distinct strings"),
        "enum" | "examples" => (Value::is_array, "a list"),
        "minimum" | "maximum" => (Value::is_number, "a number"),
        // A number since draft 6, a boolean in draft 4.
        "exclusiveMinimum" | "exclusiveMaximum" => {
            (|v| v.is_number() || v.is_boolean(), "a number")
        }
        "multipleOf" => (
            |v| v.as_f64().is_some_and(|f| f > 0.0),
            "a number greater than 0",
        ),
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties"
        | "minContains" | "maxContains" => (
            |v| {
                v.is_u64()
                    || (v.is_f64() && v.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0))
            },
            "a non-negative integer",
        ),
        "pattern" | "format" | "title" | "description" | "$ref" | "$id" | "$anchor"
        | "$comment" | "$schema" | "contentEncoding" | "contentMediaType" => {
            (Value::is_string, "a string")
        }
        "uniqueItems" | "readOnly" | "writeOnly" | "deprecated" => (Value::is_boolean, "a boolean"),
        _ => return None,
    })
}

/// A list of schemas (non-empty when `non_empty`), each of the right shape.
fn schemas(value: &Value, at: &str, non_empty: bool) -> Result<(), Problem> {
    match value {
        Value::Array(list) if !(non_empty && list.is_empty()) => list
            .iter()
            .enumerate()
            .try_for_each(|(i, schema)| shape(schema, &child(at, &i.to_string()))),
        other => Err((
            at.to_owned(),
            format!(
                "{other} is not a {}list of schemas",
                if non_empty { "non-empty " } else { "" }
            ),
        )),
    }
}

/// A list of distinct strings.
fn strings(value: &Value) -> bool {
    match value {
        Value::Array(list) => list.iter().all(Value::is_string) && distinct(list),
        _ => false,
    }
}

fn distinct(list: &[Value]) -> bool {
    list.iter()
        .enumerate()
        .all(|(i, a)| !list[i + 1..].contains(a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemas_of_the_right_shape_pass() {
        for schema in [
            json!(true),
            json!({}),
            json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City", "minLength": 1, "pattern": "^[A-Z]"},
                    "days": {"type": ["integer", "null"], "minimum": 1, "maximum": 7, "default": 1},
                    "unit": {"enum": ["c", "f"]},
                    "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
                    "point": {"$ref": "#/$defs/Point"},
                    "legacy": {"type": "number", "minimum": 0, "exclusiveMinimum": true}
                },
                "required": ["city"],
                "additionalProperties": false,
                "$defs": {"Point": {"type": "object", "anyOf": [{"required": ["x"]}, true]}},
                "x-vendor": {"anything": "goes"}
            }),
        ] {
            assert_eq!(check_shape(&schema), Ok(()), "{schema}");
        }
    }

    #[test]
    fn misshapen_schemas_say_where() {
        let cases = [
            (json!(5), "5 is not of types \"boolean\", \"object\""),
            (
                json!({"properties": {"a": {"type": "strng"}}}),
                "at `/properties/a/type`: \"strng\" is not a JSON Schema type",
            ),
            (
                json!({"type": ["string", 1]}),
                "at `/type/1`: 1 is not a JSON Schema type",
            ),
            (
                json!({"type": ["string", "string"]}),
                "at `/type`: [\"string\",\"string\"] is not a list of distinct types",
            ),
            (
                json!({"type": 5}),
                "at `/type`: 5 is not a JSON Schema type",
            ),
            (
                json!({"properties": []}),
                "at `/properties`: [] is not an object of schemas",
            ),
            (
                json!({"properties": {"a": 3}}),
                "at `/properties/a`: 3 is not of types",
            ),
            (
                json!({"required": ["a", "a"]}),
                "at `/required`: [\"a\",\"a\"] is not a list of distinct strings",
            ),
            (json!({"required": "a"}), "at `/required`"),
            (json!({"enum": "a"}), "at `/enum`: \"a\" is not a list"),
            (
                json!({"minimum": "1"}),
                "at `/minimum`: \"1\" is not a number",
            ),
            (
                json!({"multipleOf": 0}),
                "at `/multipleOf`: 0 is not a number greater than 0",
            ),
            (
                json!({"maxLength": -1}),
                "at `/maxLength`: -1 is not a non-negative integer",
            ),
            (json!({"maxItems": 1.5}), "at `/maxItems`"),
            (
                json!({"anyOf": []}),
                "at `/anyOf`: [] is not a non-empty list of schemas",
            ),
            (
                json!({"items": {"items": [1]}}),
                "at `/items/items/0`: 1 is not of types",
            ),
            (json!({"pattern": 5}), "at `/pattern`: 5 is not a string"),
            (json!({"$ref": 5}), "at `/$ref`: 5 is not a string"),
            (
                json!({"writeOnly": "yes"}),
                "at `/writeOnly`: \"yes\" is not a boolean",
            ),
            (
                json!({"dependentRequired": {"a": [1]}}),
                "at `/dependentRequired/a`: [1] is not a list of distinct strings",
            ),
            (
                json!({"$defs": {"a/b": {"not": 1}}}),
                "at `/$defs/a~1b/not`: 1 is not of types",
            ),
        ];
        for (schema, expected) in cases {
            match check_shape(&schema) {
                Ok(()) => panic!("{schema} passed"),
                Err(message) => assert!(message.starts_with(expected), "{schema}: {message}"),
            }
        }
    }
}
