//! The JSON Schema of a tool's parameters, built from the Rust types through `schemars`.

use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::{Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use crate::param::ParamInfo;

/// The generator every tool's schemas come from: JSON Schema 2020-12, `$defs` for named
/// types, and no formats that JSON Schema does not define.
pub(crate) fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|settings| settings.meta_schema = None)
        .with_transform(RecursiveTransform(numeric_formats_as_bounds))
        .with_transform(RecursiveTransform(closed_objects))
        .into_generator()
}

/// Whether a `minimum` / `maximum` is worth telling a model: the limits of 32- and 64-bit
/// integers (which every integer parameter now carries) say nothing it needs; smaller ones do.
// For toolwright-formats (strict mode keeps the same bounds); not part of the API.
#[doc(hidden)]
pub fn is_meaningful_bound(bound: &Value) -> bool {
    bound
        .as_f64()
        .is_some_and(|b| b.abs() < f64::from(i32::MAX))
}

/// `schema` with the generator's transforms applied: schemars applies them to root schemas
/// and `$defs`, not to the inline schema of one parameter.
pub(crate) fn normalized(mut schema: Schema) -> Schema {
    use schemars::transform::Transform;
    RecursiveTransform(numeric_formats_as_bounds).transform(&mut schema);
    RecursiveTransform(closed_objects).transform(&mut schema);
    schema
}

/// Closes a derived struct's object schema (`additionalProperties: false`) unless it says
/// otherwise: the arguments reader refuses a field the struct does not have
/// (`ArgumentError::UnknownField`), so the schema a model reads says the same. A type that
/// takes other fields (a map, a `#[serde(flatten)]` map) has `additionalProperties` already
/// and keeps it.
fn closed_objects(schema: &mut Schema) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if object.contains_key("properties") && !object.contains_key("additionalProperties") {
        object.insert("additionalProperties".into(), Value::Bool(false));
    }
}

/// The range of each integer format schemars writes (`uint64`, `int32`, ...), which JSON
/// Schema does not define (validators warn "unknown format ... ignored").
const INTEGER_FORMATS: [(&str, i128, i128); 12] = [
    ("int8", i8::MIN as i128, i8::MAX as i128),
    ("uint8", 0, u8::MAX as i128),
    ("int16", i16::MIN as i128, i16::MAX as i128),
    ("uint16", 0, u16::MAX as i128),
    ("int32", i32::MIN as i128, i32::MAX as i128),
    ("uint32", 0, u32::MAX as i128),
    ("int64", i64::MIN as i128, i64::MAX as i128),
    ("uint64", 0, u64::MAX as i128),
    ("int", i64::MIN as i128, i64::MAX as i128),
    ("uint", 0, u64::MAX as i128),
    ("int128", i64::MIN as i128, i64::MAX as i128),
    ("uint128", 0, u64::MAX as i128),
];

/// The largest integer every JSON reader holds exactly (2^53 - 1).
const MAX_SAFE_INTEGER: i128 = (1 << 53) - 1;

/// Replaces an integer `format` that JSON Schema does not define with the `minimum` and
/// `maximum` it stands for, when they are within 2^53 (keeping tighter bounds already
/// there), and drops `float` /
/// `double`, which say nothing a JSON number does not.
fn numeric_formats_as_bounds(schema: &mut Schema) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    let Some(format) = object.get("format").and_then(Value::as_str) else {
        return;
    };
    if matches!(format, "float" | "double") {
        object.remove("format");
        return;
    }
    let Some((_, low, high)) = INTEGER_FORMATS.iter().find(|(name, ..)| *name == format) else {
        return;
    };
    object.remove("format");
    let bound = |value: i128| -> Value {
        // Every bound fits an i64 or a u64 (128-bit integers are clamped to 64 bits, which
        // is what JSON numbers carry exactly).
        match i64::try_from(value) {
            Ok(value) => json!(value),
            Err(_) => json!(u64::try_from(value).unwrap_or(u64::MAX)),
        }
    };
    let tighter = |existing: Option<&Value>, limit: i128, keep_larger: bool| -> bool {
        existing.and_then(Value::as_f64).is_some_and(|existing| {
            if keep_larger {
                existing >= limit as f64
            } else {
                existing <= limit as f64
            }
        })
    };
    // A bound past 2^53 is noise to a model (and not exact in many JSON readers): an `i64`
    // says "integer", and the arguments reader still refuses what does not fit.
    if !tighter(object.get("minimum"), *low, true) && low.abs() <= MAX_SAFE_INTEGER {
        object.insert("minimum".into(), bound(*low));
    }
    if !tighter(object.get("maximum"), *high, false) && high.abs() <= MAX_SAFE_INTEGER {
        object.insert("maximum".into(), bound(*high));
    }
}

/// `{"type":"object","properties":...,"required":[...],"additionalProperties":false}` for
/// `params`, with the named types they use under `$defs`.
pub(crate) fn object_schema(params: &[ParamInfo], definitions: Map<String, Value>) -> Value {
    let properties: Map<String, Value> = params
        .iter()
        .map(|param| (param.name().to_owned(), param.schema().clone()))
        .collect();
    let required: Vec<&str> = params
        .iter()
        .filter(|param| param.is_required())
        .map(ParamInfo::name)
        .collect();
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), Value::Bool(false));
    if !definitions.is_empty() {
        schema.insert("$defs".into(), Value::Object(definitions));
    }
    Value::Object(schema)
}

/// What a schema accepts, in a few words for an error message: `string`, `integer >= 0`,
/// `array of string`, `one of "a", "b"`, `object Point`.
pub(crate) fn expected_type(schema: &Value, root: &Value) -> String {
    expected_type_at(schema, root, 0)
}

fn expected_type_at(schema: &Value, root: &Value, depth: usize) -> String {
    let Some(object) = schema.as_object() else {
        return match schema {
            Value::Bool(false) => "nothing".to_owned(),
            _ => "any JSON value".to_owned(),
        };
    };
    if depth > 4 {
        return "a JSON value".to_owned();
    }
    if let Some(Value::String(reference)) = object.get("$ref") {
        let name = reference.rsplit('/').next().unwrap_or(reference);
        let target = reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer));
        return match target {
            Some(target) if target.get("enum").is_some() || target.get("oneOf").is_some() => {
                expected_type_at(target, root, depth + 1)
            }
            Some(target) => format!("{} `{name}`", expected_type_at(target, root, depth + 1)),
            None => format!("`{name}`"),
        };
    }
    if let Some(Value::Array(values)) = object.get("enum") {
        let choices: Vec<String> = values.iter().map(Value::to_string).collect();
        return format!("one of {}", choices.join(", "));
    }
    if let Some(constant) = object.get("const") {
        return format!("exactly {constant}");
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(variants)) = object.get(keyword) {
            // A documented enum: every variant is one constant.
            let constants: Option<Vec<String>> = variants
                .iter()
                .map(
                    |variant| match (variant.get("const"), variant.get("enum")) {
                        (Some(constant), _) => Some(constant.to_string()),
                        (None, Some(Value::Array(values))) if values.len() == 1 => {
                            Some(values[0].to_string())
                        }
                        _ => None,
                    },
                )
                .collect();
            if let Some(constants) = constants {
                return format!("one of {}", constants.join(", "));
            }
            let parts: Vec<String> = variants
                .iter()
                .map(|variant| expected_type_at(variant, root, depth + 1))
                .collect();
            return parts.join(" or ");
        }
    }
    match object.get("type") {
        Some(Value::String(ty)) => expected_type_of(ty, object, root, depth),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .map(|ty| expected_type_of(ty, object, root, depth))
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "any JSON value".to_owned(),
    }
}

fn expected_type_of(ty: &str, object: &Map<String, Value>, root: &Value, depth: usize) -> String {
    match ty {
        "array" => match object.get("items") {
            Some(items) => format!("array of {}", expected_type_at(items, root, depth + 1)),
            None => "array".to_owned(),
        },
        "integer" | "number" => {
            let mut text = ty.to_owned();
            if let Some(min) = object.get("minimum").filter(|b| is_meaningful_bound(b)) {
                text.push_str(&format!(" >= {min}"));
            }
            if let Some(max) = object.get("maximum").filter(|b| is_meaningful_bound(b)) {
                text.push_str(&format!(" <= {max}"));
            }
            text
        }
        other => other.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_types_of_common_shapes() {
        let root = json!({"$defs": {
            "Unit": {"type": "string", "enum": ["c", "f"]},
            "Point": {"type": "object", "properties": {}}
        }});
        let cases = [
            (json!({"type": "string"}), "string"),
            (json!({"type": "integer", "minimum": 0}), "integer >= 0"),
            (
                json!({"type": "array", "items": {"type": "string"}}),
                "array of string",
            ),
            (json!({"type": ["string", "null"]}), "string or null"),
            (json!({"$ref": "#/$defs/Unit"}), "one of \"c\", \"f\""),
            (json!({"$ref": "#/$defs/Point"}), "object `Point`"),
            (
                json!({"oneOf": [{"const": "c", "description": "C"}, {"enum": ["f"]}]}),
                "one of \"c\", \"f\"",
            ),
            (json!(true), "any JSON value"),
        ];
        for (schema, expected) in cases {
            assert_eq!(expected_type(&schema, &root), expected, "{schema}");
        }
    }

    #[test]
    fn integer_formats_become_bounds() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code, reason = "only its schema is used")]
        struct Numbers {
            big: u64,
            wide: i64,
            signed: i32,
            small: u8,
            ratio: f64,
            maybe: Option<u32>,
            #[schemars(range(min = 1, max = 7))]
            days: u16,
        }
        let schema = generator().into_root_schema_for::<Numbers>().to_value();
        let text = schema.to_string();
        assert!(!text.contains("\"format\""), "{text}");
        let property = |name: &str| schema["properties"][name].clone();
        assert_eq!(property("big")["minimum"], json!(0));
        // Past 2^53 a bound is noise to a model: a `u64` says "integer >= 0".
        assert_eq!(property("big").get("maximum"), None);
        assert_eq!(property("wide"), json!({"type": "integer"}));
        assert_eq!(property("signed")["minimum"], json!(i32::MIN));
        assert_eq!(property("signed")["maximum"], json!(i32::MAX));
        assert_eq!(property("small")["maximum"], json!(255));
        assert_eq!(property("ratio"), json!({"type": "number"}));
        // Tighter bounds the author gave are kept.
        assert_eq!(property("days")["minimum"], json!(1));
        assert_eq!(property("days")["maximum"], json!(7));
        // What the model is told: small limits, not 64-bit ones.
        assert_eq!(expected_type(&property("big"), &schema), "integer >= 0");
        assert_eq!(
            expected_type(&property("small"), &schema),
            "integer >= 0 <= 255"
        );
        assert_eq!(expected_type(&property("signed"), &schema), "integer");
    }
}
