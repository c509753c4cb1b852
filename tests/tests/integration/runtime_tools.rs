//! Tools defined at run time with `Tool::builder`.

use serde_json::{Map, Value, json};
use toolwright::model::{ArgumentError, ToolDefinitionError, priority};
use toolwright::{SafetyLevel, Tool, ToolContext, ToolError};

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

fn weather_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 1},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "api_key": {"type": "string", "writeOnly": true}
        },
        "required": ["city"],
        "additionalProperties": false
    })
}

fn weather() -> Tool {
    Tool::builder("runtime_weather")
        .description("Weather for a city.")
        .input_schema(weather_schema())
        .output_schema(json!({"type": "object", "properties": {"city": {"type": "string"}}}))
        .safety(SafetyLevel::Cautious)
        .categories(["weather"])
        .tags(["forecast"])
        .version("0.3.0")
        .priority(priority::OFFICIAL)
        .handler(|args: Map<String, Value>| async move {
            Ok::<_, ToolError>(json!({"city": args["city"], "days": args.get("days")}))
        })
        .build()
        .unwrap()
}

#[test]
fn builder_options_reach_the_tool() {
    let tool = weather();
    assert_eq!(tool.name(), "runtime_weather");
    assert_eq!(tool.description(), "Weather for a city.");
    assert_eq!(tool.safety(), SafetyLevel::Cautious);
    assert_eq!(tool.categories(), ["weather"]);
    assert_eq!(tool.tags(), ["forecast"]);
    assert_eq!(tool.version(), Some("0.3.0"));
    assert_eq!(tool.priority(), 50);
    assert_eq!(tool.required(), ["city"]);
    assert_eq!(tool.input_schema(), &weather_schema());
    assert!(tool.output_schema().is_some());
    let params: Vec<(&str, bool, bool)> = tool
        .params()
        .iter()
        .map(|p| (p.name(), p.is_required(), p.is_secret()))
        .collect();
    assert_eq!(
        params,
        [
            ("city", true, false),
            ("days", false, false),
            ("unit", false, false),
            ("api_key", false, true)
        ]
    );
    assert!(
        tool.source().file.ends_with("runtime_tools.rs"),
        "{}",
        tool.source()
    );
}

#[tokio::test]
async fn valid_arguments_reach_the_handler() {
    let out = weather()
        .call(args(json!({"city": "Oslo", "days": 2})))
        .await
        .unwrap();
    assert_eq!(out.content, r#"{"city":"Oslo","days":2}"#);
    // null for an optional parameter is absent, as for #[tool] functions.
    let out = weather()
        .call(args(json!({"city": "Oslo", "unit": null})))
        .await
        .unwrap();
    assert_eq!(out.content, r#"{"city":"Oslo","days":null}"#);
}

#[tokio::test]
async fn argument_errors_read_like_macro_tool_errors() {
    let err = weather()
        .call(args(
            json!({"cty": "Oslo", "days": 9, "unit": "kelvin", "city": null}),
        ))
        .await
        .unwrap_err();
    let ToolError::InvalidArguments(invalid) = &err else {
        panic!("{err:?}")
    };
    let mut kinds: Vec<(String, &str)> = invalid
        .errors()
        .iter()
        .map(|e| {
            let kind = match e {
                ArgumentError::Missing { .. } => "missing",
                ArgumentError::Null { .. } => "null",
                ArgumentError::Invalid { .. } => "invalid",
                ArgumentError::Unknown { .. } => "unknown",
                _ => "other",
            };
            (e.param().unwrap_or("").to_owned(), kind)
        })
        .collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            ("city".to_owned(), "null"),
            ("cty".to_owned(), "unknown"),
            ("days".to_owned(), "invalid"),
            ("unit".to_owned(), "invalid"),
        ]
    );
    let message = err.to_string();
    assert!(
        message.starts_with("invalid arguments for tool `runtime_weather` (4 problems):"),
        "{message}"
    );
    assert!(
        message.contains("unknown parameter `cty`: did you mean `city`?"),
        "{message}"
    );
    assert!(
        message.contains("parameter `city` is required and cannot be null; send string"),
        "{message}"
    );
    assert!(
        message.contains(
            "invalid value for parameter `days`: expected integer >= 1 <= 7, got number 9"
        ),
        "{message}"
    );
    assert!(
        message.contains("expected one of \"celsius\", \"fahrenheit\", got string \"kelvin\""),
        "{message}"
    );

    let err = weather().call(Map::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid arguments for tool `runtime_weather`: missing required parameter `city` (expected string): City name"
    );
}

#[test]
fn sync_handlers_and_context() {
    let tool = Tool::builder("who_called")
        .description("Say which call this is.")
        .sync_handler(|ctx: &ToolContext, _args| format!("call {}", ctx.call_id()))
        .build()
        .unwrap();
    assert!(!tool.is_async());
    let out = tool
        .call_blocking(&ToolContext::new().with_call_id("c7"), Map::new())
        .unwrap()
        .unwrap();
    assert_eq!(out.content, "call c7");
    // A tool with no properties refuses unknown arguments only if its schema says so;
    // this one has the default empty schema, which allows them.
    assert!(
        tool.call_blocking(&ToolContext::new(), args(json!({"x": 1})))
            .unwrap()
            .is_ok()
    );
}

#[tokio::test]
async fn handler_with_context_and_failures() {
    let tool = Tool::builder("fail_in_context")
        .description("Fail, naming the call.")
        .handler_with_context(|ctx: ToolContext, _args| async move {
            Err::<String, _>(format!("call {} failed", ctx.call_id()))
        })
        .build()
        .unwrap();
    let err = tool
        .call_with(ToolContext::new().with_call_id("c9"), Map::new())
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "call c9 failed");
}

fn build_error(builder: toolwright::model::ToolBuilder) -> ToolDefinitionError {
    match builder.build() {
        Ok(tool) => panic!("{} should not build", tool.name()),
        Err(error) => error,
    }
}

#[test]
fn definitions_are_checked_like_the_macro_checks_them() {
    let ok = || {
        Tool::builder("fine_name")
            .description("Fine.")
            .handler(|_| async { "ok" })
    };
    assert!(ok().build().is_ok());

    let err = build_error(
        Tool::builder("readFile")
            .description("x")
            .handler(|_| async { "" }),
    );
    assert_eq!(
        err.to_string(),
        "tool name `readFile` is invalid: it must start with a lowercase letter and contain only \
         lowercase letters, digits and `_`; did you mean `read_file`?"
    );
    let long = "a".repeat(65);
    let err = build_error(
        Tool::builder(long)
            .description("x")
            .handler(|_| async { "" }),
    );
    assert!(
        err.to_string()
            .contains("65 characters long; model APIs accept at most 64"),
        "{err}"
    );
    for bad in ["", "1abc", "_x", "a-b", "a b", "ä"] {
        assert!(
            matches!(
                build_error(
                    Tool::builder(bad)
                        .description("x")
                        .handler(|_| async { "" })
                ),
                ToolDefinitionError::InvalidName { .. }
            ),
            "{bad:?}"
        );
    }

    let err = build_error(Tool::builder("no_description").handler(|_| async { "" }));
    assert!(matches!(
        err,
        ToolDefinitionError::MissingDescription { .. }
    ));
    let err = build_error(
        Tool::builder("blank")
            .description("  ")
            .handler(|_| async { "" }),
    );
    assert!(matches!(
        err,
        ToolDefinitionError::MissingDescription { .. }
    ));

    let err = build_error(Tool::builder("no_handler").description("x"));
    assert!(matches!(err, ToolDefinitionError::MissingHandler { .. }));
    assert!(err.to_string().contains(".handler("), "{err}");

    let err = build_error(ok().input_schema(json!({
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["pth"]
    })));
    assert_eq!(
        err.to_string(),
        "tool `fine_name` requires `pth`, which is not among the input schema's properties; did you mean `path`?"
    );

    let err = build_error(
        ok().input_schema(json!({"type": "object", "properties": {"a": {"type": "strng"}}})),
    );
    assert!(
        matches!(
            &err,
            ToolDefinitionError::InvalidSchema { which: "input", .. }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("/properties/a/type"), "{err}");

    let err = build_error(ok().input_schema(json!({"type": "string"})));
    assert!(
        err.to_string().contains("must have `\"type\": \"object\"`"),
        "{err}"
    );
    let err = build_error(ok().input_schema(json!("not a schema")));
    assert!(
        matches!(err, ToolDefinitionError::InvalidSchema { .. }),
        "{err:?}"
    );
    let err = build_error(
        ok().input_schema(json!({"type": "object", "$schema": "https://example.com/mine"})),
    );
    assert!(err.to_string().contains("supported drafts"), "{err}");
    let err = build_error(ok().output_schema(json!({"type": 5})));
    assert!(
        matches!(
            err,
            ToolDefinitionError::InvalidSchema {
                which: "output",
                ..
            }
        ),
        "{err:?}"
    );
    let err = build_error(ok().categories([""]));
    assert!(
        matches!(
            err,
            ToolDefinitionError::EmptyLabel {
                what: "category",
                ..
            }
        ),
        "{err:?}"
    );
}

/// A tool over `schema` whose handler echoes its arguments.
fn echo(schema: Value) -> Tool {
    Tool::builder("echo_args")
        .description("Echo the arguments.")
        .input_schema(schema)
        .sync_handler(|_ctx: &ToolContext, args: Map<String, Value>| {
            Ok::<_, ToolError>(Value::Object(args))
        })
        .build()
        .unwrap()
}

/// The argument errors of a call, as the model reads them.
async fn problems(tool: &Tool, value: Value) -> Vec<String> {
    match tool.call(args(value)).await {
        Ok(out) => panic!("accepted: {}", out.content),
        Err(ToolError::InvalidArguments(invalid)) => {
            invalid.errors().iter().map(ToString::to_string).collect()
        }
        Err(other) => panic!("{other:?}"),
    }
}

// With or without the `schema-validation` feature (which adds `pattern` to the one checker), the
// model reads the same errors for what a tool's arguments usually get wrong.
#[tokio::test]
async fn wrong_types_missing_unknown_and_enum_read_the_same_with_either_checker() {
    let tool = echo(json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"enum": ["celsius", "fahrenheit"]},
            "days": {"type": "array", "items": {"type": "integer", "minimum": 1}},
            "where": {
                "type": "object",
                "properties": {"lat": {"type": "number"}},
                "required": ["lat"],
                "additionalProperties": false
            }
        },
        "required": ["city"],
        "additionalProperties": false
    }));
    assert_eq!(
        problems(&tool, json!({"city": 7})).await,
        [
            "invalid value for parameter `city`: expected string, got number 7 (7 is not of type \"string\")"
        ]
    );
    assert_eq!(
        problems(&tool, json!({})).await,
        ["missing required parameter `city` (expected string)"]
    );
    assert_eq!(
        problems(&tool, json!({"city": "Oslo", "cty": "Oslo"})).await,
        [
            "unknown parameter `cty`: did you mean `city`? (valid parameters: `city`, `unit`, `days`, `where`)"
        ]
    );
    assert_eq!(
        problems(&tool, json!({"city": "Oslo", "unit": "kelvin"})).await,
        [
            "invalid value for parameter `unit`: expected one of \"celsius\", \"fahrenheit\", got string \"kelvin\" \
          (\"kelvin\" is not one of \"celsius\" or \"fahrenheit\")"
        ]
    );
    assert_eq!(
        problems(&tool, json!({"city": "Oslo", "days": [1, 0, "2"]})).await,
        [
            "invalid value for parameter `days`: expected array of integer >= 1, got array [1,0,\"2\"] \
             (at `/days/1`: 0 is less than the minimum of 1)",
            "invalid value for parameter `days`: expected array of integer >= 1, got array [1,0,\"2\"] \
             (at `/days/2`: \"2\" is not of type \"integer\")",
        ]
    );
    let mut nested = problems(&tool, json!({"city": "Oslo", "where": {"lon": 1}})).await;
    nested.sort();
    assert_eq!(
        nested,
        [
            "invalid value for parameter `where`: expected object, got object {\"lon\":1} \
             (\"lat\" is a required property)",
            "invalid value for parameter `where`: expected object, got object {\"lon\":1} \
             (Additional properties are not allowed ('lon' was unexpected))",
        ]
    );
    let out = tool
        .call(args(
            json!({"city": "Oslo", "days": [1, 2.0], "where": {"lat": 59.9}}),
        ))
        .await
        .unwrap();
    assert_eq!(
        out.content,
        r#"{"city":"Oslo","days":[1,2.0],"where":{"lat":59.9}}"#
    );
}

// Only with the `schema-validation` feature does the checker read regular expressions.
#[cfg(feature = "schema-validation")]
#[tokio::test]
async fn the_full_validator_checks_patterns() {
    let tool = echo(
        json!({"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}}),
    );
    assert_eq!(
        problems(&tool, json!({"code": "oslo"})).await,
        [
            "invalid value for parameter `code`: expected string, got string \"oslo\" (\"oslo\" does not match \"^[A-Z]{3}$\")"
        ]
    );
}

// Without the feature: a `pattern` is not checked (documented in toolwright/docs/features.md),
// and a `$ref` to another document is refused when the tool is built, saying which are followed.
#[cfg(not(feature = "schema-validation"))]
#[tokio::test]
async fn the_subset_checker_leaves_patterns_and_refuses_remote_references() {
    let tool = echo(
        json!({"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}}),
    );
    assert!(tool.call(args(json!({"code": "oslo"}))).await.is_ok());
    let err = build_error(
        Tool::builder("remote_ref")
            .description("x")
            .input_schema(json!({
                "type": "object",
                "properties": {"a": {"$ref": "https://example.com/a.json"}}
            }))
            .handler(|_| async { "" }),
    );
    assert!(
        matches!(
            &err,
            ToolDefinitionError::InvalidSchema { which: "input", .. }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("only references inside the schema (`#`, `#/$defs/...`) are followed"),
        "{err}"
    );
}

// A schema that refers back to itself without moving into the value (`{"$ref": "#"}`, or an
// `anyOf` of `$ref`s back to the schema holding it) would make the checker recurse without
// end: it is refused when the tool is built.
#[cfg(not(feature = "schema-validation"))]
#[test]
fn schemas_that_loop_in_place_are_refused() {
    let looping = [
        json!({"type": "object", "properties": {"a": {"$ref": "#/properties/a"}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/n"}},
               "$defs": {"n": {"anyOf": [{"$ref": "#/$defs/n"}, {"type": "string"}]}}}),
        json!({"type": "object", "allOf": [{"$ref": "#"}]}),
    ];
    for schema in looping {
        let err = build_error(
            Tool::builder("looping")
                .description("x")
                .input_schema(schema.clone())
                .handler(|_| async { "" }),
        );
        assert!(
            err.to_string().contains("refers back to itself"),
            "{schema}: {err}"
        );
    }
}

// A recursive schema that does move into the value (a tree) is fine, and a value built to
// make a branching schema explode is stopped by the step budget rather than holding the
// thread: the call fails, in bounded work, with or without `schema-validation` (one checker).
#[tokio::test]
async fn recursive_schemas_check_in_bounded_work() {
    let tree = echo(json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/node"}},
        "$defs": {"node": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}
    }));
    let ok = json!({"root": {"children": [{"children": []}, {"children": [{}]}]}});
    assert!(tree.call(args(ok)).await.is_ok());

    // Each level of `x` is checked against both branches of the `anyOf`, and each branch
    // goes one level down again: 2^depth checks without a budget.
    let branching = echo(json!({
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/n"}},
        "$defs": {"n": {"anyOf": [
            {"type": "object", "properties": {"x": {"$ref": "#/$defs/n"}}, "required": ["never"]},
            {"type": "object", "properties": {"x": {"$ref": "#/$defs/n"}}}
        ]}}
    }));
    let mut value = json!(1);
    for _ in 0..60 {
        value = json!({"x": value});
    }
    let problems = problems(&branching, value).await;
    assert!(
        problems.iter().any(|p| p.contains("too complex to check")),
        "{problems:?}"
    );
}
