//! Lenient arguments: fixing the mistakes models make most, and saying what was fixed.

use serde_json::{Map, Value};

use toolwright_core::__runtime::summarize_value;
use toolwright_core::Tool;

/// Coerces top-level arguments toward their parameter's schema: a number or boolean sent
/// as a string, a single value where an array was expected. Returns what it changed.
pub(crate) fn coerce(tool: &Tool, arguments: &mut Map<String, Value>) -> Vec<String> {
    let mut changes = Vec::new();
    for param in tool.params() {
        let Some(value) = arguments.get_mut(param.name()) else {
            continue;
        };
        let schema = resolve(param.schema(), tool.input_schema());
        let types = schema_types(schema);
        if types.is_empty() || types.iter().any(|ty| matches_type(ty, value)) {
            continue;
        }
        let before = summarize_value(value);
        let fixed = types
            .iter()
            .find_map(|ty| convert(ty, value, schema, tool.input_schema()));
        if let Some(fixed) = fixed {
            changes.push(format!(
                "`{}`: {before} -> {}",
                param.name(),
                summarize_value(&fixed)
            ));
            *value = fixed;
        }
    }
    changes
}

/// Follows a local `$ref` once.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
        .unwrap_or(schema)
}

fn schema_types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(ty)) => vec![ty.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn matches_type(ty: &str, value: &Value) -> bool {
    match (ty, value) {
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64(),
        ("number", Value::Number(_))
        | ("string", Value::String(_))
        | ("boolean", Value::Bool(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_))
        | ("null", Value::Null) => true,
        _ => false,
    }
}

fn convert(ty: &str, value: &Value, schema: &Value, root: &Value) -> Option<Value> {
    match (ty, value) {
        ("integer", Value::String(text)) => text
            .trim()
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| text.trim().parse::<u64>().map(Value::from))
            .ok(),
        ("number", Value::String(text)) => text
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
        ("boolean", Value::String(text)) => match text.trim().to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ("object", Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(object @ Value::Object(_)) => Some(object),
            _ => None,
        },
        ("array", Value::String(text)) if text.trim_start().starts_with('[') => {
            match serde_json::from_str::<Value>(text) {
                Ok(array @ Value::Array(_)) => Some(array),
                _ => None,
            }
        }
        ("array", single) if !single.is_null() => {
            // One value where a list was expected: a list of that value, converted to the
            // item type when that is needed too.
            let items = schema.get("items").map(|items| resolve(items, root));
            let item = match items {
                Some(items) => {
                    let item_types = schema_types(items);
                    if item_types.is_empty() || item_types.iter().any(|t| matches_type(t, single)) {
                        single.clone()
                    } else {
                        item_types
                            .iter()
                            .find_map(|t| convert(t, single, items, root))?
                    }
                }
                None => single.clone(),
            };
            Some(Value::Array(vec![item]))
        }
        _ => None,
    }
}
