//! How much of a model's context the tool list takes, for 50, 500 and 5,000 tools: the full
//! list, the deferred lists (Anthropic `defer_loading` with its tool search; OpenAI Responses
//! namespaces with `tool_search`), and the search-first list (a core plus `search_tools`, for
//! Chat Completions and Gemini). Bytes of the JSON the model sees
//! (`DeferredTools::model_visible`), and tokens with OpenAI's o200k_base tokenizer
//! (`tiktoken-rs`; Anthropic's tokenizer is not published, so its rows count o200k tokens
//! too). Deterministic: counts, not timings.
//!
//! `cargo run -p benches --bin context_size` (BENCHMARKS.md, "Context size of the tool
//! list").

use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;
use toolwright_core::Tool;
use toolwright_formats::discovery::{DeferPlan, Grouping, SearchTool, export_deferred};
use toolwright_formats::schema::{Format, tools_to_schema};

const SERVICES: [&str; 20] = [
    "github",
    "gitlab",
    "jira",
    "linear",
    "slack",
    "gmail",
    "calendar",
    "drive",
    "notion",
    "stripe",
    "hubspot",
    "salesforce",
    "zendesk",
    "sentry",
    "datadog",
    "postgres",
    "s3",
    "kubernetes",
    "figma",
    "twilio",
];
const VERBS: [(&str, &str); 10] = [
    ("list", "List"),
    ("get", "Get one"),
    ("create", "Create a new"),
    ("update", "Update the fields of an existing"),
    ("delete", "Delete an existing"),
    ("search", "Search, by free text, for"),
    ("archive", "Archive an existing"),
    ("comment_on", "Add a comment to an existing"),
    ("assign", "Assign to a person an existing"),
    ("export", "Export as CSV every matching"),
];
const OBJECTS: [&str; 25] = [
    "issue",
    "pull_request",
    "message",
    "channel",
    "event",
    "file",
    "page",
    "customer",
    "invoice",
    "ticket",
    "alert",
    "dashboard",
    "table",
    "bucket",
    "pod",
    "deployment",
    "design",
    "call",
    "contact",
    "deal",
    "project",
    "label",
    "milestone",
    "webhook",
    "user",
];

/// The `n`-th generated tool: `{service}_{verb}_{object}`, a sentence of description, two to
/// four parameters with their own descriptions, in the service's category. Realistic in size
/// (a mounted MCP server's tool is typically 300 to 700 bytes of schema).
fn generated(n: usize) -> Tool {
    let service = SERVICES[n % SERVICES.len()];
    let (verb, verb_text) = VERBS[(n / SERVICES.len()) % VERBS.len()];
    let object = OBJECTS[(n / (SERVICES.len() * VERBS.len())) % OBJECTS.len()];
    let round = n / (SERVICES.len() * VERBS.len() * OBJECTS.len());
    let name = if round == 0 {
        format!("{service}_{verb}_{object}")
    } else {
        format!("{service}_{verb}_{object}_{round}")
    };
    let mut properties = serde_json::Map::new();
    properties.insert(
        format!("{object}_id"),
        json!({"type": "string", "description": format!("The id of the {object} in {service}, as returned by the list tool")}),
    );
    properties.insert(
        "workspace".into(),
        json!({"type": "string", "description": format!("The {service} workspace or organisation to act in; the default one when left out")}),
    );
    if n.is_multiple_of(2) {
        properties.insert(
            "limit".into(),
            json!({"type": "integer", "minimum": 1, "maximum": 100, "description": "How many results to return at most (default 20)"}),
        );
    }
    if n.is_multiple_of(3) {
        properties.insert(
            "fields".into(),
            json!({"type": "array", "items": {"type": "string"}, "description": "Which fields to return; all of them when left out"}),
        );
    }
    Tool::builder(name)
        .description(format!(
            "{verb_text} {object} in {service}. Returns the {object} as JSON, with its id, title, owner and timestamps."
        ))
        .categories([service])
        .priority(if n < 5 { 100 } else { 0 })
        .input_schema(json!({
            "type": "object",
            "properties": properties,
            "required": [format!("{object}_id")],
        }))
        .handler(|_| async { "ok" })
        .build()
        .unwrap_or_else(|error| panic!("generated tool {n}: {error}"))
}

/// Bytes and tokens of a tool list as JSON.
fn measure(tools: &[Value], bpe: &CoreBPE) -> (usize, usize) {
    let text = serde_json::to_string(tools).unwrap_or_default();
    (text.len(), bpe.encode_ordinary(&text).len())
}

fn main() {
    let bpe = tiktoken_rs::o200k_base().unwrap_or_else(|error| panic!("o200k_base: {error}"));
    let core = DeferPlan::new().core_priority_at_least(100);
    println!("| tools | list | bytes | o200k tokens | vs full |");
    println!("|---:|---|---:|---:|---:|");
    for count in [50, 500, 5_000] {
        let tools: Vec<Tool> = (0..count).map(generated).collect();
        let (full_bytes, full_tokens) = measure(&tools_to_schema(&tools, Format::Anthropic), &bpe);
        let mut rows = vec![("full list (Anthropic)".to_owned(), full_bytes, full_tokens)];
        let (b, t) = measure(&tools_to_schema(&tools, Format::OpenAiResponses), &bpe);
        rows.push(("full list (OpenAI Responses)".into(), b, t));
        let lists = [
            (
                "deferred, Anthropic BM25 search, 5 core",
                Format::Anthropic,
                core.clone().search(SearchTool::ProviderBm25),
            ),
            (
                "deferred, OpenAI tool_search, no namespaces, 5 core",
                Format::OpenAiResponses,
                core.clone(),
            ),
            (
                "deferred, OpenAI tool_search, 20 namespaces (by mount), 5 core",
                Format::OpenAiResponses,
                core.clone().group_by(Grouping::Prefixes(
                    SERVICES.iter().map(|s| (*s).to_owned()).collect(),
                )),
            ),
            (
                "search-first (Chat Completions): 5 core + search_tools",
                Format::OpenAiChat,
                core.clone(),
            ),
        ];
        for (label, format, plan) in lists {
            let list = export_deferred(&tools, format, &plan)
                .unwrap_or_else(|error| panic!("{label}: {error}"));
            let (b, t) = measure(&list.model_visible(), &bpe);
            rows.push((label.to_owned(), b, t));
        }
        // What one search that loads five tools adds, in any of the deferred lists: their
        // definitions (OpenAI's `tool_search_output`, or what Anthropic appends for five
        // `tool_reference`s; for Chat Completions, the next request's five loaded tools).
        let (b, t) = measure(&tools_to_schema(&tools[5..10], Format::Anthropic), &bpe);
        rows.push(("+ one search loading 5 tools".into(), b, t));
        for (label, bytes, tokens) in rows {
            println!(
                "| {count} | {label} | {bytes} | {tokens} | {:.3} |",
                tokens as f64 / full_tokens as f64
            );
        }
    }
}
