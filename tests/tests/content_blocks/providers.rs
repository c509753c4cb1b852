//! Results with content blocks in every provider format: against async-openai's request
//! types for OpenAI, and against the documented shapes for Anthropic and Gemini.

use async_openai::types::chat::{
    ChatCompletionRequestMessage, ChatCompletionRequestUserMessageContent,
    ChatCompletionRequestUserMessageContentPart, InputAudioFormat,
};
use async_openai::types::responses::{
    FunctionCallOutput, FunctionCallOutputItemParam, InputContent, InputItem,
};
use serde_json::{Value, json};
use toolwright::formats::providers::{anthropic, gemini, openai};
use toolwright::model::ToolOutput;
use toolwright::{ToolCall, ToolResult};

use crate::tools::{call, every_block_list, executor};

/// The results of `every_block`, a text tool, a failure and `bitmap`, as the executor gives
/// them.
async fn results() -> (Vec<ToolCall>, Vec<ToolResult>) {
    let calls = vec![
        call("c_blocks", "every_block", json!({"key": "providers"})),
        call("c_text", "read_number", json!({"n": 7})),
        call("c_failed", "read_number", json!({"n": "seven"})),
        call("c_bmp", "bitmap", json!({})),
    ];
    let results = executor()
        .build()
        .execute_batch(calls.clone(), Default::default())
        .await;
    assert!(results[0].success && results[1].success && !results[2].success && results[3].success);
    assert_eq!(
        results[0],
        ToolResult {
            metadata: results[0].metadata.clone(),
            ..ToolResult::from_output("c_blocks", ToolOutput::from_blocks(every_block_list()))
        }
    );
    (calls, results)
}

const PLACEHOLDER_BMP: &str = "[image: image/bmp, 2 bytes]";

#[tokio::test]
async fn openai_chat_tool_messages_are_text_and_media_follow_as_a_user_message() {
    let (_, results) = results().await;
    let plain = openai::chat_tool_messages(&results);
    let with_media = openai::chat_tool_messages_with_media(&results);
    assert_eq!(plain.len(), 4);
    assert_eq!(
        with_media.len(),
        5,
        "the tool messages, then one user message"
    );
    assert_eq!(&with_media[..4], &plain[..]);
    for message in &with_media {
        serde_json::from_value::<ChatCompletionRequestMessage>(message.clone())
            .unwrap_or_else(|e| panic!("{message}: {e}"));
    }
    // The tool message's text says what each block was.
    assert_eq!(plain[0]["content"], results[0].content);
    assert!(
        plain[0]["content"]
            .as_str()
            .unwrap()
            .contains("[image: image/jpeg, 2 bytes]")
    );
    assert_eq!(plain[1]["content"], "7");
    assert_eq!(plain[3]["content"], PLACEHOLDER_BMP);

    let ChatCompletionRequestMessage::User(user) =
        serde_json::from_value(with_media[4].clone()).unwrap()
    else {
        panic!("{}", with_media[4]);
    };
    let ChatCompletionRequestUserMessageContent::Array(parts) = user.content else {
        panic!("{}", with_media[4]);
    };
    assert_eq!(parts.len(), 4, "{}", with_media[4]);
    let ChatCompletionRequestUserMessageContentPart::Text(intro) = &parts[0] else {
        panic!("{:?}", parts[0]);
    };
    assert!(intro.text.contains("`c_blocks`"), "{}", intro.text);
    let ChatCompletionRequestUserMessageContentPart::ImageUrl(image) = &parts[1] else {
        panic!("{:?}", parts[1]);
    };
    assert_eq!(image.image_url.url, "data:image/jpeg;base64,/9g=");
    let ChatCompletionRequestUserMessageContentPart::InputAudio(audio) = &parts[2] else {
        panic!("{:?}", parts[2]);
    };
    assert_eq!(
        (
            audio.input_audio.data.as_str(),
            audio.input_audio.format.clone()
        ),
        ("SUQz", InputAudioFormat::Mp3)
    );
    let ChatCompletionRequestUserMessageContentPart::File(file) = &parts[3] else {
        panic!("{:?}", parts[3]);
    };
    assert_eq!(
        file.file.file_data.as_deref(),
        Some("data:application/pdf;base64,JVBERg==")
    );
    assert_eq!(file.file.filename.as_deref(), Some("r.pdf"));

    // Without media, nothing follows.
    assert_eq!(
        openai::chat_tool_messages_with_media(&results[1..]).len(),
        3
    );
}

#[tokio::test]
async fn openai_responses_outputs_carry_images_and_files() {
    let (_, results) = results().await;
    let items = openai::responses_tool_outputs(&results);
    for item in &items {
        serde_json::from_value::<InputItem>(item.clone()).unwrap_or_else(|e| panic!("{item}: {e}"));
    }
    let first: FunctionCallOutputItemParam = serde_json::from_value(items[0].clone()).unwrap();
    assert_eq!(first.call_id.as_deref(), Some("c_blocks"));
    let FunctionCallOutput::Content(parts) = first.output else {
        panic!("{}", items[0]);
    };
    let kinds: Vec<&str> = parts
        .iter()
        .map(|part| match part {
            InputContent::InputText(_) => "text",
            InputContent::InputImage(_) => "image",
            InputContent::InputFile(_) => "file",
        })
        .collect();
    assert_eq!(kinds, ["text", "image", "text", "text", "text", "file"]);
    let InputContent::InputImage(image) = &parts[1] else {
        unreachable!()
    };
    assert_eq!(
        image.image_url.as_deref(),
        Some("data:image/jpeg;base64,/9g=")
    );
    let InputContent::InputText(audio) = &parts[2] else {
        unreachable!()
    };
    assert_eq!(audio.text, "[audio: audio/mpeg, 3 bytes]");
    let InputContent::InputFile(file) = &parts[5] else {
        unreachable!()
    };
    assert_eq!(
        file.file_data.as_deref(),
        Some("data:application/pdf;base64,JVBERg==")
    );
    assert_eq!(file.filename.as_deref(), Some("r.pdf"));

    assert_eq!(items[1]["output"], "7");
    assert!(items[2]["output"].as_str().unwrap().contains("`n`"));
    assert_eq!(
        items[3]["output"],
        json!([{"type": "input_text", "text": PLACEHOLDER_BMP}])
    );
}

#[tokio::test]
async fn anthropic_tool_results_carry_images_and_documents() {
    let (_, results) = results().await;
    let message = anthropic::tool_results_message(&results);
    let blocks = message["content"].as_array().unwrap();
    assert_eq!(blocks.len(), 4);
    assert_eq!(blocks[0]["type"], "tool_result");
    assert_eq!(blocks[0]["tool_use_id"], "c_blocks");
    assert_eq!(
        blocks[0]["content"],
        json!([
            {"type": "text", "text": "all of them:"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9g="}},
            {"type": "text", "text": "[audio: audio/mpeg, 3 bytes]"},
            {"type": "text", "text": "[resource link: r.pdf <file:///r.pdf> (application/pdf)]"},
            {"type": "text", "text": "[resource: file:///n.txt (text/plain)]\nnotes"},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERg=="}}
        ])
    );
    assert!(blocks[0].get("is_error").is_none());
    assert_eq!(blocks[1]["content"], "7");
    assert_eq!(blocks[2]["is_error"], true);
    assert!(blocks[2]["content"].is_string());
    assert_eq!(
        blocks[3]["content"],
        json!([{"type": "text", "text": PLACEHOLDER_BMP}])
    );
}

#[tokio::test]
async fn gemini_function_responses_carry_inline_data() {
    let (calls, results) = results().await;
    let content = gemini::function_responses(&calls, &results);
    let parts = content["parts"].as_array().unwrap();
    let response = &parts[0]["functionResponse"];
    assert_eq!(response["name"], "every_block");
    assert_eq!(response["id"], "c_blocks");
    assert_eq!(response["response"], json!({"result": results[0].content}));
    assert_eq!(
        response["parts"],
        json!([
            {"inlineData": {"mimeType": "image/jpeg", "data": "/9g="}},
            {"inlineData": {"mimeType": "application/pdf", "data": "JVBERg=="}}
        ])
    );
    assert_eq!(
        parts[1]["functionResponse"],
        json!({"name": "read_number", "id": "c_text", "response": {"result": "7"}})
    );
    assert!(parts[2]["functionResponse"].get("parts").is_none());
    assert!(parts[2]["functionResponse"]["response"]["error"].is_string());
    let bitmap: &Value = &parts[3]["functionResponse"];
    assert_eq!(bitmap["response"], json!({"result": PLACEHOLDER_BMP}));
    assert!(bitmap.get("parts").is_none(), "Gemini does not take BMP");
}
