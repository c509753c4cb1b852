//! Provider formats against real client code: async-openai's types, and round trips of
//! every provider's call parsing and result formatting.

use std::sync::Arc;

use async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionMessageToolCalls, ChatCompletionRequestMessage,
    ChatCompletionResponseMessage, ChatCompletionTools, FunctionCall, Role,
};
use async_openai::types::responses::{
    FunctionToolCall, InputItem, OutputItem, Tool as ResponsesTool,
};
use serde_json::{Value, json};
use toolwright::formats::providers::{anthropic, gemini, openai};
use toolwright::formats::schema::{Format, SchemaOptions, tools_to_schema, tools_to_schema_with};
use toolwright::runtime::ToolFilter;
use toolwright::{Executor, SafetyLevel, ToolCall, ToolResult, register_all_tools};

fn strict_able() -> Vec<toolwright::Tool> {
    register_all_tools()
        .unwrap()
        .list(&ToolFilter::new().include_disabled(true))
        .into_iter()
        .filter(|t| t.name() != "search_records")
        .collect()
}

#[test]
fn every_openai_chat_export_deserializes_into_async_openai_tools() {
    let all = register_all_tools()
        .unwrap()
        .list(&ToolFilter::new().include_disabled(true));
    let plain = tools_to_schema(&all, Format::OpenAiChat);
    let strict = tools_to_schema_with(
        &strict_able(),
        Format::OpenAiChat,
        SchemaOptions::new().strict(true),
    )
    .unwrap();
    for exported in plain.iter().chain(&strict) {
        let tool: ChatCompletionTools =
            serde_json::from_value(exported.clone()).unwrap_or_else(|e| panic!("{exported}: {e}"));
        let ChatCompletionTools::Function(function) = tool else {
            panic!("not a function tool")
        };
        assert_eq!(function.function.name, exported["function"]["name"]);
        assert_eq!(
            function.function.parameters.as_ref(),
            Some(&exported["function"]["parameters"])
        );
        // And it serializes back to what we sent.
        assert_eq!(
            serde_json::to_value(ChatCompletionTools::Function(function)).unwrap(),
            *exported
        );
    }
}

#[test]
fn every_openai_responses_export_deserializes_into_async_openai_tools() {
    let all = register_all_tools()
        .unwrap()
        .list(&ToolFilter::new().include_disabled(true));
    let plain = tools_to_schema(&all, Format::OpenAiResponses);
    let strict = tools_to_schema_with(
        &strict_able(),
        Format::OpenAiResponses,
        SchemaOptions::new().strict(true),
    )
    .unwrap();
    for exported in plain.iter().chain(&strict) {
        let tool: ResponsesTool =
            serde_json::from_value(exported.clone()).unwrap_or_else(|e| panic!("{exported}: {e}"));
        let ResponsesTool::Function(function) = tool else {
            panic!("not a function tool")
        };
        assert_eq!(function.name, exported["name"]);
        assert_eq!(function.strict, exported["strict"].as_bool());
        assert_eq!(function.parameters.as_ref(), Some(&exported["parameters"]));
    }
}

#[test]
fn async_openai_chat_tool_calls_convert_into_our_calls() {
    #[allow(deprecated)]
    let message = ChatCompletionResponseMessage {
        role: Role::Assistant,
        tool_calls: Some(vec![
            ChatCompletionMessageToolCalls::Function(ChatCompletionMessageToolCall {
                id: "call_a".into(),
                function: FunctionCall {
                    name: "echo".into(),
                    arguments: r#"{"word":"hi"}"#.into(),
                },
            }),
            ChatCompletionMessageToolCalls::Function(ChatCompletionMessageToolCall {
                id: "call_b".into(),
                function: FunctionCall {
                    name: "echo".into(),
                    arguments: r#"{"word": "unterminated"#.into(),
                },
            }),
        ]),
        ..Default::default()
    };
    let value = serde_json::to_value(&message).unwrap();
    let calls = openai::parse_chat_tool_calls(&value).unwrap();
    assert_eq!(
        calls,
        [
            ToolCall::new("call_a", "echo", json!({"word": "hi"})),
            ToolCall::new("call_b", "echo", json!(r#"{"word": "unterminated"#)),
        ]
    );
}

#[test]
fn async_openai_responses_function_calls_convert_into_our_calls() {
    let item = OutputItem::FunctionCall(FunctionToolCall {
        arguments: r#"{"word":"hi"}"#.into(),
        call_id: "call_r".into(),
        namespace: None,
        name: "echo".into(),
        id: Some("fc_1".into()),
        status: None,
        caller: None,
        r#async: None,
    });
    let output = json!({"output": [serde_json::to_value(&item).unwrap()]});
    let calls = openai::parse_responses_tool_calls(&output).unwrap();
    assert_eq!(
        calls,
        [ToolCall::new("call_r", "echo", json!({"word": "hi"}))]
    );
}

#[test]
fn our_results_deserialize_into_async_openai_request_messages() {
    let results = [
        ToolResult::success("call_a", "hi"),
        ToolResult::failure("call_b", "bad arguments"),
    ];
    for message in openai::chat_tool_messages(&results) {
        let parsed: ChatCompletionRequestMessage =
            serde_json::from_value(message.clone()).unwrap_or_else(|e| panic!("{message}: {e}"));
        assert!(
            matches!(parsed, ChatCompletionRequestMessage::Tool(_)),
            "{message}"
        );
    }
    for item in openai::responses_tool_outputs(&results) {
        let parsed: InputItem =
            serde_json::from_value(item.clone()).unwrap_or_else(|e| panic!("{item}: {e}"));
        let text = serde_json::to_value(&parsed).unwrap().to_string();
        assert!(text.contains("function_call_output"), "{text}");
    }
}

fn executor() -> Executor {
    Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_safety(SafetyLevel::Cautious)
        .build()
}

#[tokio::test]
async fn openai_chat_round_trip_with_invalid_arguments_missing_ids_and_unknown_tools() {
    let message = json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "echo", "arguments": "{\"word\":\"hi\",\"shout\":true}"}},
            {"id": "call_2", "type": "function", "function": {"name": "echo", "arguments": "{\"word\": "}},
            {"type": "function", "function": {"name": "sort_numbers", "arguments": "{\"numbers\":[3,1,2]}"}},
            {"id": "call_4", "type": "function", "function": {"name": "no_such_tool", "arguments": "{}"}},
            {"id": "call_5", "type": "function", "function": {"name": "do_nothing", "arguments": ""}}
        ]
    });
    let calls = openai::parse_chat_tool_calls(&message).unwrap();
    assert_eq!(
        calls[2].id, "call_2",
        "a missing id is generated from the position"
    );
    let results = executor().execute_batch(calls, Default::default()).await;
    let messages = openai::chat_tool_messages(&results);
    assert_eq!(
        messages[0],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "HI"})
    );
    assert_eq!(messages[1]["tool_call_id"], "call_2");
    assert!(
        messages[1]["content"]
            .as_str()
            .unwrap()
            .starts_with("the arguments for tool `echo` are not valid JSON (EOF while parsing"),
        "{}",
        messages[1]
    );
    assert_eq!(
        messages[2],
        json!({"role": "tool", "tool_call_id": "call_2", "content": "[1,2,3]"})
    );
    assert!(
        messages[3]["content"]
            .as_str()
            .unwrap()
            .starts_with("unknown tool `no_such_tool`")
    );
    assert!(
        messages[4]["content"]
            .as_str()
            .unwrap()
            .contains("above this executor's limit"),
        "{}",
        messages[4]
    );

    // A completion wrapping the message, and a message without tool calls.
    let completion = json!({"id": "x", "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]});
    assert_eq!(openai::parse_chat_tool_calls(&completion).unwrap().len(), 5);
    assert!(
        openai::parse_chat_tool_calls(&json!({"role": "assistant", "content": "hello"}))
            .unwrap()
            .is_empty()
    );
    let err = openai::parse_chat_tool_calls(&json!({"tool_calls": {"id": 1}})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "OpenAI chat message: expected an array at `tool_calls`"
    );
    assert!(openai::parse_chat_tool_calls(&json!([1])).is_err());
}

#[tokio::test]
async fn openai_responses_round_trip() {
    let output = json!([
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "echo", "arguments": "{\"word\":\"a\"}"},
        {"type": "function_call", "id": "fc_2", "name": "echo", "arguments": "not json"},
        {"type": "function_call", "name": "echo", "arguments": "{\"word\":\"c\"}"}
    ]);
    let calls = openai::parse_responses_tool_calls(&output).unwrap();
    let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["call_1", "fc_2", "call_3"]);
    let results = executor().execute_batch(calls, Default::default()).await;
    let items = openai::responses_tool_outputs(&results);
    assert_eq!(
        items[0],
        json!({"type": "function_call_output", "call_id": "call_1", "output": "a"})
    );
    assert!(
        items[1]["output"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );
    assert_eq!(items[2]["output"], "c");
    assert!(openai::parse_responses_tool_calls(&json!({"output": "x"})).is_err());
}

#[tokio::test]
async fn anthropic_round_trip() {
    let message = json!({
        "id": "msg_1", "type": "message", "role": "assistant",
        "content": [
            {"type": "text", "text": "I'll check."},
            {"type": "tool_use", "id": "toolu_1", "name": "echo", "input": {"word": "x"}},
            {"type": "tool_use", "id": "toolu_2", "name": "echo", "input": {"wrd": "x"}},
            {"type": "tool_use", "name": "nope", "input": {}}
        ],
        "stop_reason": "tool_use"
    });
    let calls = anthropic::parse_tool_uses(&message).unwrap();
    assert_eq!(calls[2].id, "toolu_3");
    let results = executor().execute_batch(calls, Default::default()).await;
    let reply = anthropic::tool_results_message(&results);
    assert_eq!(reply["role"], "user");
    assert_eq!(
        reply["content"][0],
        json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"})
    );
    assert_eq!(reply["content"][1]["is_error"], true);
    assert!(
        reply["content"][1]["content"]
            .as_str()
            .unwrap()
            .contains("did you mean `word`?")
    );
    assert_eq!(reply["content"][2]["tool_use_id"], "toolu_3");
    assert!(
        anthropic::parse_tool_uses(&json!({"role": "assistant", "content": "plain"}))
            .unwrap()
            .is_empty()
    );
    assert!(anthropic::parse_tool_uses(&json!({"content": 3})).is_err());
}

#[tokio::test]
async fn gemini_round_trip_with_generated_ids() {
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Calling."},
        {"functionCall": {"name": "summarize_numbers", "args": {"numbers": [1, 2, 3]}}},
        {"functionCall": {"id": "given-id", "name": "echo", "args": {"word": "g"}}},
        {"functionCall": {"name": "echo", "args": {}}}
    ]}}]});
    let calls = gemini::parse_function_calls(&response).unwrap();
    let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["gemini_call_1", "given-id", "gemini_call_3"]);
    // Stable: parsing again gives the same ids.
    assert_eq!(gemini::parse_function_calls(&response).unwrap(), calls);
    let results = executor()
        .execute_batch(calls.clone(), Default::default())
        .await;
    let content = gemini::function_responses(&calls, &results);
    assert_eq!(content["role"], "user");
    assert_eq!(
        content["parts"][0],
        json!({"functionResponse": {"name": "summarize_numbers", "response": {"result": {"count": 3, "mean": 2.0}}}})
    );
    assert_eq!(
        content["parts"][1],
        json!({"functionResponse": {"name": "echo", "id": "given-id", "response": {"result": "g"}}})
    );
    let error = &content["parts"][2]["functionResponse"]["response"]["error"];
    assert!(
        error
            .as_str()
            .unwrap()
            .contains("missing required parameter `word`"),
        "{error}"
    );
    assert!(
        gemini::parse_function_calls(&json!({"candidates": [{"finishReason": "SAFETY"}]}))
            .unwrap()
            .is_empty()
    );
    assert!(gemini::parse_function_calls(&json!({"parts": 1})).is_err());
}

#[test]
fn results_keep_the_calls_ids_through_every_format() {
    let results: Vec<ToolResult> = (0..3)
        .map(|i| ToolResult::success(format!("id-{i}"), "ok"))
        .collect();
    let ids = |values: Vec<Value>, key: &str| -> Vec<String> {
        values
            .iter()
            .map(|v| v[key].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        ids(openai::chat_tool_messages(&results), "tool_call_id"),
        ["id-0", "id-1", "id-2"]
    );
    assert_eq!(
        ids(openai::responses_tool_outputs(&results), "call_id"),
        ["id-0", "id-1", "id-2"]
    );
    let anthropic = anthropic::tool_results_message(&results);
    assert_eq!(
        ids(
            anthropic["content"].as_array().unwrap().clone(),
            "tool_use_id"
        ),
        ["id-0", "id-1", "id-2"]
    );
}
