//! Issue 18's small output slips: counts singular or plural, the time zone named once, and
//! every documented bound of a parameter in its schema.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolwright_core::ToolCall;
use toolwright_formats::schema::{Format, tools_to_schema};
use toolwright_runtime::{ApprovalDecision, ApprovalRequest, Executor};

use crate::harness::Harness;

#[tokio::test]
async fn one_is_singular() {
    let h = Harness::with(|ws| ws.max_read_bytes(1000));
    assert_eq!(
        h.ok("write_file", json!({"path": "one.txt", "content": "x"}))
            .await,
        "created `one.txt` (1 byte)"
    );
    assert_eq!(h.ok("list_directory", json!({})).await, "one.txt (1 byte)");
    h.write("lines.txt", "a\nb\nc\n");
    assert_eq!(
        h.ok(
            "read_file",
            json!({"path": "lines.txt", "offset": 2, "limit": 1})
        )
        .await,
        "b\n\n[showing line 2; the file continues: call read_file with offset=3 to read on]"
    );
    let error = h
        .err("read_file", json!({"path": "one.txt", "offset": 5}))
        .await;
    assert!(
        error.ends_with("`one.txt` has 1 line; offset 5 is past the end"),
        "{error}"
    );
    let found = h
        .ok(
            "search_files",
            json!({"pattern": "[abc]", "path": "lines.txt", "max_matches": 1}),
        )
        .await;
    assert!(
        found.ends_with("[stopped after 1 match: narrow the pattern, the path or the glob]\n"),
        "{found}"
    );
    h.write("dir/only.txt", "");
    h.write("empty.bin", "\0");
    let error = h.err("read_file", json!({"path": "empty.bin"})).await;
    assert!(error.contains("is a binary file (1 byte)"), "{error}");
}

#[tokio::test]
async fn previews_count_in_the_singular_too() {
    let h = Harness::new();
    h.write("dir/only.txt", "");
    h.write("one.txt", "x");
    let seen: Arc<Mutex<Vec<Option<String>>>> = Arc::default();
    let log = Arc::clone(&seen);
    let executor = Executor::builder(Arc::new(toolwright_std::registry().unwrap()))
        .state(toolwright_std::Workspace::new(h.root()).unwrap())
        .approval(move |request: ApprovalRequest| {
            log.lock().unwrap().push(request.preview.clone());
            async {
                ApprovalDecision::Denied {
                    reason: "just looking".into(),
                }
            }
        })
        .build();
    for (name, arguments) in [
        ("write_file", json!({"path": "new.txt", "content": "x"})),
        ("delete_path", json!({"path": "dir", "recursive": true})),
        ("delete_path", json!({"path": "one.txt"})),
    ] {
        let result = executor.execute(ToolCall::new("1", name, arguments)).await;
        assert!(!result.success);
    }
    assert_eq!(
        *seen.lock().unwrap(),
        [
            Some("create `new.txt` (1 byte, 1 line)".to_owned()),
            Some("delete the directory `dir` and the entry inside it".to_owned()),
            Some("delete the file `one.txt` (1 byte)".to_owned()),
        ]
    );
}

#[tokio::test]
async fn current_time_names_the_zone_once() {
    let h = Harness::new();
    let utc = h.ok("current_time", json!({})).await;
    assert!(utc.ends_with(", UTC)"), "{utc}");
    assert_eq!(utc.matches("UTC").count(), 1, "{utc}");
}

static LEAST: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"(?:counting from|at least) (\d+)").unwrap());
static RANGE: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"\b(\d+) to (\d+)\b").unwrap());

fn bound(pattern: &regex::Regex, text: &str) -> Option<u64> {
    pattern.captures(text)?[1].parse().ok()
}

/// Every integer parameter of every tool in toolwright-std, with the least value its description
/// promises; a new one must be added here (with its bound in the schema).
#[test]
fn documented_bounds_are_in_the_schemas() {
    let expected = [
        ("read_file", "offset", 1),
        ("read_file", "limit", 1),
        ("list_directory", "depth", 1),
        ("search_files", "max_matches", 1),
        ("run_command", "timeout_secs", 1),
        ("run_code", "timeout_secs", 1),
        ("search_tools", "limit", 1),
    ];
    let registry = toolwright_std::registry().unwrap();
    let tools: Vec<_> = toolwright_std::TOOL_NAMES
        .iter()
        .map(|name| registry.get(name).unwrap())
        .collect();
    let mut found = Vec::new();
    for exported in tools_to_schema(&tools, Format::Mcp) {
        let name = exported["name"].as_str().unwrap().to_owned();
        let properties = exported["inputSchema"]["properties"].as_object().unwrap();
        for (param, schema) in properties {
            if schema["type"] != "integer" && schema["type"] != json!(["integer", "null"]) {
                continue;
            }
            let description = schema["description"].as_str().unwrap_or_default();
            let minimum = schema["minimum"].as_u64();
            // Whatever a description says of the bounds, the schema says too.
            if let Some(least) = bound(&LEAST, description) {
                assert_eq!(minimum, Some(least), "{name}.{param}: {schema}");
            }
            if let Some(caps) = RANGE.captures(description) {
                assert_eq!(minimum, caps[1].parse().ok(), "{name}.{param}: {schema}");
                assert_eq!(
                    schema["maximum"].as_u64(),
                    caps[2].parse().ok(),
                    "{name}.{param}: {schema}"
                );
            }
            found.push((name.clone(), param.clone(), minimum.unwrap_or(0)));
        }
    }
    found.sort();
    let mut expected: Vec<(String, String, u64)> = expected
        .iter()
        .map(|(tool, param, min)| ((*tool).to_owned(), (*param).to_owned(), *min))
        .collect();
    expected.sort();
    assert_eq!(found, expected);
}

/// `offset` counts from 1, as documented: the schema says `minimum: 1` and 0 is refused
/// with a message naming the bound (not read silently as 1).
#[tokio::test]
async fn read_file_offset_counts_from_one() {
    let h = Harness::new();
    h.write("a.txt", "first\nsecond\n");
    let error = h
        .err("read_file", json!({"path": "a.txt", "offset": 0}))
        .await;
    assert!(
        error.contains("`offset`") || error.contains("/offset"),
        "{error}"
    );
    assert!(
        error.contains("expected integer >= 1, got number 0"),
        "{error}"
    );
    assert_eq!(
        h.ok("read_file", json!({"path": "a.txt", "offset": 2}))
            .await,
        "second\n"
    );
}
