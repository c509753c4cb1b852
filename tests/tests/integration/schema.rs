//! The JSON Schema of tools' parameters.

use serde_json::{Value, json};
use toolwright::register_all_tools;

use crate::snapshot::assert_json_snapshot;

fn input_schema(name: &str) -> Value {
    register_all_tools()
        .unwrap()
        .get(name)
        .unwrap_or_else(|| panic!("no tool {name}"))
        .input_schema()
        .clone()
}

#[test]
fn snapshots_of_input_schemas() {
    for name in [
        "search_records",
        "get_forecast",
        "convert_temperature",
        "sort_numbers",
        "purge_cache",
        "do_nothing",
        "echo",
    ] {
        assert_json_snapshot(&format!("input_schema_{name}"), &input_schema(name));
    }
}

#[test]
fn snapshots_of_output_schemas() {
    let registry = register_all_tools().unwrap();
    for name in ["get_forecast", "sort_numbers"] {
        let tool = registry.get(name).unwrap();
        assert_json_snapshot(
            &format!("output_schema_{name}"),
            tool.output_schema()
                .expect("Json<T> gives an output schema"),
        );
    }
    assert_eq!(registry.get("echo").unwrap().output_schema(), None);
    assert_eq!(registry.get("always_fails").unwrap().output_schema(), None);
}

#[test]
fn object_shape_required_and_descriptions() {
    let schema = input_schema("search_records");
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["required"], json!(["query"]));
    let properties = schema["properties"].as_object().unwrap();
    // Declaration order, the context parameter left out, renames applied.
    let keys: Vec<&str> = properties.keys().map(String::as_str).collect();
    assert_eq!(keys, ["query", "filters", "boosts", "limit", "api_key"]);
    assert_eq!(properties["query"]["description"], "Free-text query");
    assert_eq!(properties["limit"]["default"], 10);
    // An Option<T> parameter is described by T, and is simply not required.
    assert_eq!(properties["filters"]["type"], "array");
    // Nested struct: a $ref into $defs, with the type's own doc comments.
    let filter = &schema["$defs"]["Filter"];
    assert_eq!(
        filter["properties"]["field"]["description"],
        "Field name to match."
    );
    assert_eq!(filter["description"], "A search filter.");
    // Maps.
    assert_eq!(properties["boosts"]["type"], "object");
    assert_eq!(
        properties["boosts"]["additionalProperties"]["type"],
        "number"
    );
}

#[test]
fn enums_of_strings() {
    let schema = input_schema("convert_temperature");
    let unit = &schema["$defs"]["Unit"];
    let choices: Vec<&Value> = match unit.get("enum") {
        Some(Value::Array(values)) => values.iter().collect(),
        _ => unit["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|variant| &variant["const"])
            .collect(),
    };
    assert_eq!(choices, [&json!("celsius"), &json!("fahrenheit")]);
}

#[test]
fn a_tool_without_parameters_has_an_empty_object_schema() {
    assert_eq!(
        input_schema("do_nothing"),
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
}

#[test]
fn every_schema_is_valid_json_schema() {
    let registry = register_all_tools().unwrap();
    let meta = jsonschema::draft202012::meta::validator();
    for name in registry.names() {
        let tool = registry.get(&name).unwrap();
        let errors: Vec<String> = meta
            .iter_errors(tool.input_schema())
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        if let Some(output) = tool.output_schema() {
            assert!(meta.is_valid(output), "{name} output schema");
        }
        // And usable as a validator.
        jsonschema::draft202012::new(tool.input_schema()).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn schemas_validate_the_arguments_they_describe() {
    let validator = jsonschema::draft202012::new(&input_schema("get_forecast")).unwrap();
    assert!(validator.is_valid(&json!({"location": {"lat": 1.0, "lon": 2.0}})));
    assert!(
        validator
            .is_valid(&json!({"location": {"lat": 1.0, "lon": 2.0}, "days": 2, "unit": "celsius"}))
    );
    assert!(!validator.is_valid(&json!({"days": 2})));
    assert!(!validator.is_valid(&json!({"location": {"lat": 1.0, "lon": 2.0}, "unit": "kelvin"})));
    assert!(!validator.is_valid(&json!({"location": {"lat": 1.0, "lon": 2.0}, "extra": 1})));
}

#[test]
fn schemas_are_deterministic() {
    let a = serde_json::to_string(&input_schema("search_records")).unwrap();
    let b = serde_json::to_string(&input_schema("search_records")).unwrap();
    assert_eq!(a, b);
}
