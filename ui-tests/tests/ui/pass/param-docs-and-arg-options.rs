use toolwright::{ToolContext, tool};

/// Search the web.
///
/// Returns the first results.
#[tool]
fn web_search(
    /// What to look for
    query: String,
    /// Ignored: `description` wins over the doc comment.
    #[arg(rename = "max", description = "How many results", default = 5)]
    limit: u32,
    #[arg(secret)]
    /// The API key
    api_key: String,
    /// The language of the results,
    /// as a BCP 47 tag
    #[arg(default = String::from("en"))]
    lang: String,
    /// A raw identifier keeps its plain name
    r#type: Option<String>,
) -> String {
    format!("{query}/{limit}/{}/{lang}/{}", api_key.len(), r#type.unwrap_or_default())
}

fn main() {
    let tool = toolwright::register_all_tools().unwrap().get("web_search").unwrap();
    // Paragraphs of the doc comment are kept; wrapped lines are joined, as Markdown reads them.
    assert_eq!(tool.description(), "Search the web.\n\nReturns the first results.");
    let names: Vec<&str> = tool.params().iter().map(|p| p.name()).collect();
    assert_eq!(names, ["query", "max", "api_key", "lang", "type"]);
    assert_eq!(tool.required(), ["query", "api_key"]);

    let [query, max, api_key, lang, ty] = tool.params() else { panic!() };
    assert_eq!(query.description(), Some("What to look for"));
    assert_eq!(max.description(), Some("How many results"));
    assert_eq!(max.default_value(), Some(&toolwright::serde_json::json!(5)));
    assert!(!max.is_required() && !max.is_secret());
    assert!(api_key.is_secret());
    assert_eq!(api_key.description(), Some("The API key"));
    assert_eq!(lang.description(), Some("The language of the results, as a BCP 47 tag"));
    assert_eq!(lang.default_value(), Some(&toolwright::serde_json::json!("en")));
    assert!(!ty.is_required());

    let schema = tool.input_schema();
    assert_eq!(schema["properties"]["max"]["default"], 5);
    assert_eq!(schema["properties"]["max"]["description"], "How many results");
    assert!(schema["properties"].get("limit").is_none());

    let args = toolwright::serde_json::json!({"query": "rust", "api_key": "k3y", "type": "news"});
    let out = tool
        .call_blocking(&ToolContext::new(), args.as_object().unwrap().clone())
        .unwrap()
        .unwrap();
    assert_eq!(out.content, "rust/5/3/en/news");
    // The Rust name of a renamed parameter is not accepted.
    let args = toolwright::serde_json::json!({"query": "rust", "api_key": "k", "limit": 1});
    let err = tool
        .call_blocking(&ToolContext::new(), args.as_object().unwrap().clone())
        .unwrap()
        .unwrap_err();
    assert!(err.is_invalid_arguments());
}
