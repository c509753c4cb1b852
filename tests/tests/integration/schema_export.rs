//! Exported schemas in every provider format: snapshots, JSON Schema validity, OpenAI's
//! strict-mode rules, Gemini's subset, MCP annotations.

use serde_json::{Map, Value, json};
use toolwright::formats::schema::{
    Format, SchemaError, SchemaOptions, tools_to_schema, tools_to_schema_with,
};
use toolwright::runtime::ToolFilter;
use toolwright::{Tool, register_all_tools};

use crate::snapshot::assert_json_snapshot;

/// Tools covering: no params (do_nothing), optional params and maps and arrays of structs
/// (search_records), enums and nested structs and an output schema (get_forecast), an
/// array output (sort_numbers), each safety level (echo safe, always_fails cautious,
/// purge_cache dangerous), a secret parameter (purge_cache), an object output
/// (summarize_numbers).
const SAMPLE: [&str; 8] = [
    "do_nothing",
    "search_records",
    "get_forecast",
    "sort_numbers",
    "echo",
    "always_fails",
    "purge_cache",
    "summarize_numbers",
];

fn sample() -> Vec<Tool> {
    let registry = register_all_tools().unwrap();
    SAMPLE
        .iter()
        .map(|name| registry.get(name).unwrap())
        .collect()
}

fn parameters_of(format: Format, exported: &Value) -> &Value {
    match format {
        Format::OpenAiChat => &exported["function"]["parameters"],
        Format::OpenAiResponses | Format::Gemini => &exported["parameters"],
        Format::Anthropic => &exported["input_schema"],
        Format::Mcp => &exported["inputSchema"],
        _ => unreachable!(),
    }
}

#[test]
fn snapshots_of_every_format() {
    let tools = sample();
    for format in Format::ALL {
        assert_json_snapshot(
            &format!("export_{format}"),
            &Value::Array(tools_to_schema(&tools, format)),
        );
    }
    for format in [Format::OpenAiChat, Format::OpenAiResponses] {
        let strict_tools: Vec<Tool> = tools
            .iter()
            .filter(|t| t.name() != "search_records")
            .cloned()
            .collect();
        let strict =
            tools_to_schema_with(&strict_tools, format, SchemaOptions::new().strict(true)).unwrap();
        assert_json_snapshot(&format!("export_{format}_strict"), &Value::Array(strict));
    }
}

#[test]
fn exports_are_deterministic() {
    for format in Format::ALL {
        let a = serde_json::to_string(&tools_to_schema(&sample(), format)).unwrap();
        let b = serde_json::to_string(&tools_to_schema(&sample(), format)).unwrap();
        assert_eq!(a, b, "{format}");
    }
}

#[test]
fn a_tool_without_parameters_exports_an_empty_object_schema() {
    let registry = register_all_tools().unwrap();
    let tools = registry.list(
        &ToolFilter::new()
            .names(["do_nothing"])
            .include_disabled(true),
    );
    for format in Format::ALL {
        let exported = tools_to_schema(&tools, format);
        assert_eq!(
            parameters_of(format, &exported[0]),
            &json!({"type": "object", "properties": {}}),
            "{format}"
        );
    }
}

#[test]
fn the_documented_shapes() {
    let registry = register_all_tools().unwrap();
    let echo = registry.list(&ToolFilter::new().names(["echo"]));
    let chat = &tools_to_schema(&echo, Format::OpenAiChat)[0];
    assert_eq!(chat["type"], "function");
    let keys: Vec<&str> = chat["function"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["name", "description", "parameters"]);
    let responses = &tools_to_schema(&echo, Format::OpenAiResponses)[0];
    let keys: Vec<&str> = responses
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["type", "name", "description", "parameters", "strict"]
    );
    assert_eq!(responses["strict"], false);
    let anthropic = &tools_to_schema(&echo, Format::Anthropic)[0];
    let keys: Vec<&str> = anthropic
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["name", "description", "input_schema"]);
    let gemini = &tools_to_schema(&echo, Format::Gemini)[0];
    let keys: Vec<&str> = gemini
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["name", "description", "parameters"]);
}

#[test]
fn every_exported_schema_is_valid_json_schema() {
    let meta = jsonschema::draft202012::meta::validator();
    let tools = sample();
    for format in [
        Format::OpenAiChat,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::Mcp,
    ] {
        for inline in [false, true] {
            for exported in
                tools_to_schema_with(&tools, format, SchemaOptions::new().inline_refs(inline))
                    .unwrap()
            {
                let parameters = parameters_of(format, &exported);
                let errors: Vec<String> = meta
                    .iter_errors(parameters)
                    .map(|e| e.to_string())
                    .collect();
                assert!(errors.is_empty(), "{format} {exported}: {errors:?}");
                if let Some(output) = exported.get("outputSchema") {
                    assert!(meta.is_valid(output), "{output}");
                }
            }
        }
    }
    // Gemini's subset is OpenAPI, but each schema is still valid JSON Schema (draft 4 style
    // `nullable` is just an unknown keyword there).
    for exported in tools_to_schema(&tools, Format::Gemini) {
        assert!(meta.is_valid(&exported["parameters"]), "{exported}");
    }
}

#[test]
fn inlined_schemas_still_validate_the_same_arguments() {
    let tools = sample();
    let forecast = tools.iter().find(|t| t.name() == "get_forecast").unwrap();
    let with_refs = tools_to_schema(std::slice::from_ref(forecast), Format::Anthropic).remove(0);
    let inlined = tools_to_schema_with(
        std::slice::from_ref(forecast),
        Format::Anthropic,
        SchemaOptions::new().inline_refs(true),
    )
    .unwrap()
    .remove(0);
    assert!(!inlined.to_string().contains("$ref"));
    assert!(!inlined.to_string().contains("$defs"));
    let a = jsonschema::validator_for(&with_refs["input_schema"]).unwrap();
    let b = jsonschema::validator_for(&inlined["input_schema"]).unwrap();
    for arguments in [
        json!({"location": {"lat": 1.0, "lon": 2.0}}),
        json!({"location": {"lat": 1.0}}),
        json!({"location": {"lat": 1.0, "lon": 2.0}, "unit": "kelvin"}),
        json!({"location": {"lat": 1.0, "lon": 2.0}, "unit": "celsius", "days": 3}),
    ] {
        assert_eq!(
            a.is_valid(&arguments),
            b.is_valid(&arguments),
            "{arguments}"
        );
    }
}

// OpenAI strict mode, written down as a checker independent of the exporter.

const STRICT_REJECTED: &[&str] = &[
    "allOf",
    "oneOf",
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
    "minLength",
    "maxLength",
    "pattern",
    "format",
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

/// Every violation of OpenAI's documented strict-mode rules in a parameters schema.
fn strict_violations(parameters: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if parameters.get("type") != Some(&json!("object")) {
        problems.push("the root must be an object schema".to_owned());
    }
    if parameters.get("anyOf").is_some() {
        problems.push("the root must not be anyOf".to_owned());
    }
    let mut properties = 0;
    check_node(parameters, "", 0, &mut properties, &mut problems);
    if let Some(Value::Object(defs)) = parameters.get("$defs") {
        for (name, def) in defs {
            check_node(
                def,
                &format!("$defs/{name}"),
                1,
                &mut properties,
                &mut problems,
            );
        }
    }
    if properties > 5000 {
        problems.push(format!("{properties} properties (max 5000)"));
    }
    problems
}

fn check_node(
    node: &Value,
    path: &str,
    depth: usize,
    properties: &mut usize,
    problems: &mut Vec<String>,
) {
    if depth > 10 {
        problems.push(format!("{path}: nested more than 10 levels"));
    }
    let Value::Object(object) = node else {
        problems.push(format!("{path}: a schema must be an object, got {node}"));
        return;
    };
    for keyword in STRICT_REJECTED {
        if object.contains_key(*keyword) {
            problems.push(format!(
                "{path}: `{keyword}` is not supported in strict mode"
            ));
        }
    }
    if object.contains_key("$ref") && object.len() > 1 {
        problems.push(format!("{path}: `$ref` cannot have sibling keywords"));
    }
    let types: Vec<&str> = match object.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    if types.is_empty()
        && !object.contains_key("$ref")
        && !object.contains_key("anyOf")
        && !object.contains_key("enum")
        && !object.contains_key("const")
    {
        problems.push(format!("{path}: no type"));
    }
    if types.contains(&"object") {
        if object.get("additionalProperties") != Some(&Value::Bool(false)) {
            problems.push(format!("{path}: objects need additionalProperties: false"));
        }
        let props = object
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_else(Map::new);
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let keys: Vec<&str> = props.keys().map(String::as_str).collect();
        if required != keys {
            problems.push(format!(
                "{path}: every property must be required, in order: {keys:?} vs {required:?}"
            ));
        }
        for (name, property) in &props {
            *properties += 1;
            check_node(
                property,
                &format!("{path}/{name}"),
                depth + 1,
                properties,
                problems,
            );
        }
    }
    if let Some(items) = object.get("items") {
        check_node(
            items,
            &format!("{path}/items"),
            depth + 1,
            properties,
            problems,
        );
    }
    if let Some(Value::Array(variants)) = object.get("anyOf") {
        for (i, variant) in variants.iter().enumerate() {
            check_node(
                variant,
                &format!("{path}/anyOf/{i}"),
                depth + 1,
                properties,
                problems,
            );
        }
    }
}

#[test]
fn the_strict_checker_catches_violations() {
    let bad = json!({
        "type": "object",
        "properties": {"a": {"type": "integer", "minimum": 0}, "b": {"$ref": "#/$defs/X", "description": "d"}},
        "required": ["a"]
    });
    let problems = strict_violations(&bad);
    assert!(
        problems.iter().any(|p| p.contains("additionalProperties")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("every property must be required")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("`minimum`")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("sibling")),
        "{problems:?}"
    );
}

#[test]
fn strict_exports_follow_every_strict_rule() {
    let registry = register_all_tools().unwrap();
    let strict_able: Vec<Tool> = registry
        .list(&ToolFilter::new().include_disabled(true))
        .into_iter()
        .filter(|t| t.name() != "search_records")
        .collect();
    for format in [Format::OpenAiChat, Format::OpenAiResponses] {
        let exported =
            tools_to_schema_with(&strict_able, format, SchemaOptions::new().strict(true)).unwrap();
        for tool in &exported {
            let parameters = parameters_of(format, tool);
            let problems = strict_violations(parameters);
            assert!(problems.is_empty(), "{format} {}: {problems:?}", parameters);
            let flag = if format == Format::OpenAiChat {
                &tool["function"]["strict"]
            } else {
                &tool["strict"]
            };
            assert_eq!(flag, true);
            // Still valid JSON Schema.
            assert!(jsonschema::draft202012::meta::is_valid(parameters));
        }
    }
}

#[test]
fn strict_optional_parameters_are_nullable_and_the_adapter_treats_null_as_absent() {
    let registry = register_all_tools().unwrap();
    let forecast = registry.get("get_forecast").unwrap();
    let exported = tools_to_schema_with(
        std::slice::from_ref(&forecast),
        Format::OpenAiChat,
        SchemaOptions::new().strict(true),
    )
    .unwrap();
    let parameters = &exported[0]["function"]["parameters"];
    assert_eq!(parameters["required"], json!(["location", "days", "unit"]));
    assert_eq!(
        parameters["properties"]["days"]["type"],
        json!(["integer", "null"])
    );
    assert_eq!(
        parameters["properties"]["days"]["description"],
        "Number of days, 1 to 7 (minimum: 0; default: 3)"
    );
    assert_eq!(
        parameters["properties"]["unit"],
        json!({"anyOf": [{"$ref": "#/$defs/Unit"}, {"type": "null"}], "description": "Scale of the temperatures"})
    );
    // What a strict-mode model sends for the optional parameters: nulls.
    let validator = jsonschema::validator_for(parameters).unwrap();
    let sent = json!({"location": {"lat": 0.0, "lon": 0.0}, "days": null, "unit": null});
    assert!(validator.is_valid(&sent));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let output = runtime
        .block_on(forecast.call(sent.as_object().unwrap().clone()))
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&output.content)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn tools_that_cannot_be_strict_are_reported_not_sent() {
    let tools = sample();
    let err = tools_to_schema_with(
        &tools,
        Format::OpenAiChat,
        SchemaOptions::new().strict(true),
    )
    .unwrap_err();
    let SchemaError::NotStrict { failures } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].0, "search_records");
    assert!(
        failures[0]
            .1
            .contains("`boosts` is a map with arbitrary keys"),
        "{err}"
    );
    assert!(
        err.to_string()
            .starts_with("a tool cannot be exported in OpenAI strict mode: `search_records`: "),
        "{err}"
    );

    let err = tools_to_schema_with(&tools, Format::Anthropic, SchemaOptions::new().strict(true))
        .unwrap_err();
    assert!(matches!(
        err,
        SchemaError::StrictNotSupported {
            format: Format::Anthropic
        }
    ));
}

fn walk<'a>(value: &'a Value, out: &mut Vec<(&'a str, &'a Value)>) {
    match value {
        Value::Object(object) => {
            for (key, inner) in object {
                out.push((key.as_str(), inner));
                walk(inner, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
        _ => {}
    }
}

#[test]
fn gemini_declarations_stay_in_its_openapi_subset() {
    for exported in tools_to_schema(&sample(), Format::Gemini) {
        let mut keys = Vec::new();
        walk(&exported["parameters"], &mut keys);
        for (key, value) in keys {
            assert!(
                !matches!(
                    key,
                    "$ref" | "$defs" | "additionalProperties" | "const" | "oneOf" | "$schema"
                ),
                "{} has `{key}`",
                exported["name"]
            );
            if key == "type" {
                assert!(
                    value.is_string(),
                    "{}: type arrays are not Gemini: {value}",
                    exported["name"]
                );
            }
        }
    }
    let forecast = tools_to_schema(&sample(), Format::Gemini).remove(2);
    assert_eq!(forecast["name"], "get_forecast");
    let unit = &forecast["parameters"]["properties"]["unit"];
    assert_eq!(unit["enum"], json!(["celsius", "fahrenheit"]));
    assert_eq!(unit["type"], "string");
    // The parameter's doc comment, the enum's, and its variants': Gemini's `enum` has no
    // place for the last two but the description.
    assert_eq!(
        unit["description"],
        "Scale of the temperatures. A temperature scale. \
         (celsius: Degrees Celsius; fahrenheit: Degrees Fahrenheit)"
    );
    // No formats JSON Schema does not define: a number is a number.
    assert_eq!(
        forecast["parameters"]["properties"]["location"]["properties"]["lat"],
        json!({"type": "number", "description": "Latitude in degrees, -90 to 90."})
    );
}

#[test]
fn mcp_tools_carry_annotations_from_the_safety_level_and_meta() {
    let exported = tools_to_schema(&sample(), Format::Mcp);
    let by_name = |name: &str| exported.iter().find(|t| t["name"] == name).unwrap().clone();
    let echo = by_name("echo");
    assert_eq!(echo["title"], "Echo");
    assert_eq!(
        echo["annotations"],
        json!({"title": "Echo", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
    let cautious = by_name("always_fails");
    assert_eq!(cautious["annotations"]["readOnlyHint"], false);
    assert_eq!(cautious["annotations"]["destructiveHint"], false);
    let dangerous = by_name("purge_cache");
    assert_eq!(dangerous["annotations"]["destructiveHint"], true);
    assert_eq!(dangerous["annotations"]["readOnlyHint"], false);
    assert_eq!(
        dangerous["_meta"],
        json!({"categories": ["admin"], "tags": ["cache"], "safety": "dangerous"})
    );
    let forecast = by_name("get_forecast");
    assert_eq!(forecast["_meta"]["version"], "1.2.0");
    // An array output cannot be an MCP outputSchema (it must be an object); none is sent.
    assert!(forecast.get("outputSchema").is_none());
    assert_eq!(by_name("search_records")["inputSchema"]["type"], "object");
    // An object output is.
    let summary = by_name("summarize_numbers");
    assert_eq!(summary["outputSchema"]["type"], "object");
    assert_eq!(summary["outputSchema"]["required"], json!(["count"]));
}

/// A schema that declares its dialect keeps `$schema` (and `$defs`, `additionalProperties`)
/// in MCP's format (SEP-1613, the MCP conformance suite's `json-schema-2020-12`); the
/// providers' formats drop `$schema`.
#[test]
fn mcp_keeps_a_declared_dialect() {
    let dialect = "https://json-schema.org/draft/2020-12/schema";
    let tool = Tool::builder("with_dialect")
        .description("A tool whose schema declares its dialect.")
        .input_schema(json!({
            "$schema": dialect,
            "type": "object",
            "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
            "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
            "additionalProperties": false
        }))
        .handler(|_| async { "ok" })
        .build()
        .unwrap();
    let tools = [tool];
    for format in Format::ALL {
        let exported = tools_to_schema(&tools, format);
        let parameters = parameters_of(format, &exported[0]);
        if format == Format::Mcp {
            assert_eq!(parameters["$schema"], dialect);
            assert!(parameters["$defs"]["address"].is_object());
            assert_eq!(parameters["additionalProperties"], false);
        } else {
            assert!(
                parameters.get("$schema").is_none(),
                "{format}: {parameters}"
            );
        }
    }
}

#[test]
fn strict_mode_keeps_the_doc_comments_of_an_enum_and_its_variants() {
    let tools: Vec<Tool> = sample()
        .into_iter()
        .filter(|t| t.name() == "get_forecast")
        .collect();
    for format in [Format::OpenAiChat, Format::OpenAiResponses] {
        let exported =
            tools_to_schema_with(&tools, format, SchemaOptions::new().strict(true)).unwrap();
        let unit = &parameters_of(format, &exported[0])["$defs"]["Unit"];
        assert_eq!(unit["enum"], json!(["celsius", "fahrenheit"]), "{format}");
        assert_eq!(
            unit["description"],
            "A temperature scale. (celsius: Degrees Celsius; fahrenheit: Degrees Fahrenheit)",
            "{format}"
        );
    }
}

#[test]
fn sixty_four_bit_integers_carry_no_bounds_past_two_to_the_53() {
    let tools: Vec<Tool> = sample()
        .into_iter()
        .filter(|t| t.name() == "sort_numbers")
        .collect();
    for format in Format::ALL {
        let exported = tools_to_schema(&tools, format);
        let items = &parameters_of(format, &exported[0])["properties"]["numbers"]["items"];
        assert_eq!(items, &json!({"type": "integer"}), "{format}");
    }
}
