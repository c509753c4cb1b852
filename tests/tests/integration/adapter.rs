//! The JSON-arguments adapter: typed parameters in, errors a model can act on.

use serde_json::{Map, Value, json};
use toolwright::model::ArgumentError;
use toolwright::{Tool, ToolContext, ToolError, register_all_tools};

fn tool(name: &str) -> Tool {
    register_all_tools().unwrap().get(name).unwrap()
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

async fn call(name: &str, arguments: Value) -> Result<String, ToolError> {
    tool(name)
        .call(args(arguments))
        .await
        .map(|out| out.content)
}

async fn argument_errors(name: &str, arguments: Value) -> (String, Vec<ArgumentError>) {
    match tool(name).call(args(arguments)).await {
        Err(ToolError::InvalidArguments(invalid)) => {
            assert_eq!(invalid.tool(), name);
            (invalid.to_string(), invalid.errors().to_vec())
        }
        other => panic!("expected invalid arguments, got {other:?}"),
    }
}

#[tokio::test]
async fn typed_arguments_reach_the_function() {
    assert_eq!(
        call(
            "convert_temperature",
            json!({"value": 100, "to": "fahrenheit"})
        )
        .await
        .unwrap(),
        "212.0"
    );
    let forecast = call(
        "get_forecast",
        json!({"location": {"lat": 0.0, "lon": 0.0}, "days": 2, "unit": "celsius"}),
    )
    .await
    .unwrap();
    assert_eq!(
        forecast,
        r#"[{"offset":0,"high":20.0},{"offset":1,"high":21.0}]"#
    );
}

#[tokio::test]
async fn defaults_and_optional_parameters() {
    // `days` defaults to 3; `unit` absent is None.
    let forecast = call(
        "get_forecast",
        json!({"location": {"lat": 0.0, "lon": 0.0}}),
    )
    .await
    .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&forecast)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        3
    );
    // null means absent for optional and defaulted parameters.
    let forecast = call(
        "get_forecast",
        json!({"location": {"lat": 0.0, "lon": 0.0}, "days": null, "unit": null}),
    )
    .await
    .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&forecast)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(call("echo", json!({"word": "hi"})).await.unwrap(), "hi");
    assert_eq!(
        call("echo", json!({"word": "hi", "shout": true}))
            .await
            .unwrap(),
        "HI"
    );
}

#[tokio::test]
async fn context_is_passed_and_left_out_of_the_arguments() {
    let search = tool("search_records");
    let out = search
        .call_with(
            ToolContext::new().with_call_id("call_42"),
            args(json!({"query": "rust", "filters": [{"field": "lang", "any_of": ["en"]}], "api_key": "s3cret"})),
        )
        .await
        .unwrap();
    assert_eq!(
        out.content,
        "call call_42: query=\"rust\" filters=1 boosts=0 limit=10"
    );
}

#[tokio::test]
async fn missing_required_parameter_names_its_type_and_description() {
    let (message, errors) = argument_errors("echo", json!({})).await;
    assert_eq!(
        errors,
        [ArgumentError::Missing {
            param: "word".into(),
            expected: Some("string".into()),
            description: Some("The word".into()),
        }]
    );
    assert_eq!(
        message,
        "invalid arguments for tool `echo`: missing required parameter `word` (expected string): The word"
    );
}

#[tokio::test]
async fn wrong_type_says_what_was_expected_and_what_was_sent() {
    let (message, errors) = argument_errors(
        "convert_temperature",
        json!({"value": "hot", "to": "celsius"}),
    )
    .await;
    assert_eq!(errors.len(), 1);
    assert!(
        message.starts_with(
            "invalid arguments for tool `convert_temperature`: invalid value for parameter `value`: \
             expected number, got string \"hot\""
        ),
        "{message}"
    );
}

#[tokio::test]
async fn invalid_enum_value_lists_the_choices() {
    let (message, _) =
        argument_errors("convert_temperature", json!({"value": 1, "to": "kelvin"})).await;
    assert!(
        message.contains("expected one of \"celsius\", \"fahrenheit\", got string \"kelvin\""),
        "{message}"
    );
}

#[tokio::test]
async fn nested_struct_errors_name_the_field() {
    let (message, _) = argument_errors("get_forecast", json!({"location": {"lat": 1.0}})).await;
    assert!(message.contains("parameter `location`"), "{message}");
    assert!(message.contains("missing field `lon`"), "{message}");
}

#[tokio::test]
async fn an_unknown_field_inside_a_struct_parameter_is_reported_like_a_parameter() {
    let (message, errors) = argument_errors(
        "get_forecast",
        json!({"location": {"lat": 1.0, "lon": 2.0, "lonn": 3.0}}),
    )
    .await;
    assert_eq!(
        errors,
        [ArgumentError::UnknownField {
            param: "location".into(),
            place: "location.lonn".into(),
            valid: vec!["lat".into(), "lon".into()],
        }]
    );
    assert_eq!(
        message,
        "invalid arguments for tool `get_forecast`: unknown field `lonn` at `location.lonn`: \
         did you mean `lon`? (valid fields there: `lat`, `lon`)"
    );
    // The schema the model reads says the same: the object is closed.
    let registry = register_all_tools().unwrap();
    let tool = registry.get("get_forecast").unwrap();
    let schema = tool.input_schema();
    let location = &schema["$defs"]["Location"];
    assert_eq!(location["additionalProperties"], false, "{schema}");
}

#[tokio::test]
async fn unknown_parameter_lists_the_valid_ones() {
    let (message, errors) = argument_errors("echo", json!({"word": "a", "shuot": true})).await;
    assert_eq!(
        errors,
        [ArgumentError::Unknown {
            param: "shuot".into(),
            valid: vec!["word".into(), "shout".into()],
        }]
    );
    assert_eq!(
        message,
        "invalid arguments for tool `echo`: unknown parameter `shuot`: did you mean `shout`? \
         (valid parameters: `word`, `shout`)"
    );
    let (message, _) = argument_errors("do_nothing", json!({"x": 1})).await;
    assert!(
        message.ends_with("unknown parameter `x`: this tool takes no parameters"),
        "{message}"
    );
}

#[tokio::test]
async fn null_for_a_required_parameter() {
    let (message, errors) = argument_errors("echo", json!({"word": null})).await;
    assert!(matches!(&errors[..], [ArgumentError::Null { param, .. }] if param == "word"));
    assert_eq!(
        message,
        "invalid arguments for tool `echo`: parameter `word` is required and cannot be null; send string"
    );
}

#[tokio::test]
async fn every_problem_is_reported_at_once() {
    let (message, errors) = argument_errors(
        "search_records",
        json!({"limit": "ten", "filters": "none", "colour": "red"}),
    )
    .await;
    let params: Vec<&str> = errors.iter().filter_map(ArgumentError::param).collect();
    assert_eq!(params, ["query", "filters", "limit", "colour"]);
    assert!(
        message.starts_with("invalid arguments for tool `search_records` (4 problems):\n- "),
        "{message}"
    );
    assert!(
        message.contains("expected integer >= 0, got string \"ten\""),
        "{message}"
    );
}

#[tokio::test]
async fn handler_errors_are_failures_with_their_message() {
    let err = call("always_fails", json!({"reason": "testing"}))
        .await
        .unwrap_err();
    assert!(!err.is_invalid_arguments());
    assert_eq!(err.to_string(), "failed as asked: testing");
    let err = call(
        "get_forecast",
        json!({"location": {"lat": 0.0, "lon": 0.0}, "days": 9}),
    )
    .await
    .unwrap_err();
    assert_eq!(err.to_string(), "`days` must be between 1 and 7, got 9");
}

#[tokio::test]
async fn tools_from_a_crate_nothing_calls_still_run() {
    assert_eq!(
        call("purge_cache", json!({"token": "t", "prefix": "user:"}))
            .await
            .unwrap(),
        "purged entries starting with `user:`"
    );
    assert_eq!(
        call("restart_service", json!({"service": "db"}))
            .await
            .unwrap(),
        "restarted `db`"
    );
    assert_eq!(
        call("reverse_text", json!({"text": "tool"})).await.unwrap(),
        "loot"
    );
}

#[test]
fn sync_tools_run_without_a_runtime() {
    let echo = tool("echo");
    let out = echo
        .call_blocking(&ToolContext::new(), args(json!({"word": "x"})))
        .expect("echo is sync")
        .unwrap();
    assert_eq!(out.content, "x");
    assert!(
        tool("get_forecast")
            .call_blocking(&ToolContext::new(), Map::new())
            .is_none()
    );
}
