//! The JSON Schema of a tool's parameters, built from the Rust types through `schemars`.

use schemars::SchemaGenerator;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::param::ParamInfo;

/// The generator every tool's schemas come from: JSON Schema 2020-12, `$defs` for named types.
pub(crate) fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|settings| settings.meta_schema = None)
        .into_generator()
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
            if let Some(min) = object.get("minimum") {
                text.push_str(&format!(" >= {min}"));
            }
            if let Some(max) = object.get("maximum") {
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
}
