#![deny(warnings)]

use schemars::JsonSchema;
use serde::Deserialize;
use toolwright::{ToolContext, tool};

const DEFAULT_LIMIT: u32 = 3;

fn default_words() -> Vec<String> {
    vec!["a".to_owned(), "b".to_owned()]
}

/// A parameter type that is not `Serialize`: its default has no JSON form.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Mode {
    Fast,
    Slow,
}

/// Join words.
#[tool]
fn join_words(
    #[arg(default = default_words())]
    mut words: Vec<String>,
    #[arg(default = DEFAULT_LIMIT * 2)]
    limit: u32,
    #[arg(default = Mode::Fast)]
    mode: Mode,
    #[allow(unused_variables)]
    #[arg(default = ',')]
    separator: char,
) -> String {
    words.truncate(limit as usize);
    format!("{}:{mode:?}", words.join(","))
}

fn main() {
    let tool = toolwright::register_all_tools().unwrap().get("join_words").unwrap();
    assert!(tool.required().is_empty());
    let [words, limit, mode, separator] = tool.params() else { panic!() };
    assert_eq!(words.default_value(), Some(&toolwright::serde_json::json!(["a", "b"])));
    assert_eq!(limit.default_value(), Some(&toolwright::serde_json::json!(6)));
    assert_eq!(mode.default_value(), None);
    assert_eq!(separator.default_value(), Some(&toolwright::serde_json::json!(",")));
    assert!(tool.input_schema().get("required").is_none());

    let run = |args: toolwright::serde_json::Value| {
        tool.call_blocking(&ToolContext::new(), args.as_object().unwrap().clone())
            .unwrap()
            .unwrap()
            .content
    };
    assert_eq!(run(toolwright::serde_json::json!({})), "a,b:Fast");
    // `null` takes the default too.
    assert_eq!(run(toolwright::serde_json::json!({"words": null, "mode": "slow"})), "a,b:Slow");
    assert_eq!(run(toolwright::serde_json::json!({"words": ["x", "y", "z"], "limit": 2})), "x,y:Fast");
    assert_eq!(Mode::Slow, Mode::Slow);
}
