//! Approving a file edit hunk by hunk through MCP elicitation: toolwright-std's `write_file` and
//! `edit_file` behind the server, rmcp's client answering the form (over an in-memory pipe,
//! the stdio transport).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, Implementation,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use toolwright_core::SafetyLevel;
use toolwright_mcp::McpServer;
use toolwright_runtime::Executor;
use toolwright_std::Workspace;

/// How the client's user answers a form: given the file's path, the form's schema (as JSON),
/// the answer's content (`None` declines).
type Answer = Arc<dyn Fn(&Path, &Value) -> Option<Value> + Send + Sync>;

/// What the client was asked: (message, schema as JSON).
type Asked = Arc<Mutex<Vec<(String, Value)>>>;

#[derive(Clone)]
struct Client {
    file: PathBuf,
    answer: Answer,
    asked: Asked,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("hunk-test-client", "0.0.1"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let schema = serde_json::to_value(&requested_schema).unwrap_or_default();
        let answer = (self.answer)(&self.file, &schema);
        self.asked.lock().unwrap().push((message, schema));
        Ok(match answer {
            Some(content) => ElicitResult::new(ElicitationAction::Accept).with_content(content),
            None => ElicitResult::new(ElicitationAction::Decline),
        })
    }
}

/// Thirty numbered lines: `line 1` to `line 30`.
fn original() -> String {
    (1..=30).map(|i| format!("line {i}\n")).collect()
}

/// `original()` with the lines at `changed` (1-based line numbers) in capitals.
fn with_changes(changed: &[usize]) -> String {
    (1..=30)
        .map(|i| {
            if changed.contains(&i) {
                format!("LINE {i}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect()
}

/// The edit every test proposes: lines 2, 15 and 28, far enough apart to be three hunks.
const CHANGED: [usize; 3] = [2, 15, 28];

/// A workspace holding `f.txt` (`original()`), a server with the standard tools on it, and a
/// client whose user answers with `answer`.
struct Setup {
    _dir: tempfile::TempDir,
    file: PathBuf,
    asked: Asked,
    client: RunningService<RoleClient, Client>,
}

async fn start(answer: impl Fn(&Path, &Value) -> Option<Value> + Send + Sync + 'static) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    std::fs::write(&file, original()).unwrap();
    let executor = Executor::builder(Arc::new(toolwright_std::registry().unwrap()))
        .max_safety(SafetyLevel::Dangerous)
        .state(Workspace::new(dir.path()).unwrap())
        .build();
    let asked = Asked::default();
    let client = Client {
        file: file.clone(),
        answer: Arc::new(answer),
        asked: Arc::clone(&asked),
    };
    let (client_end, server_end) = tokio::io::duplex(256 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(McpServer::new(executor).serve_io(server_read, server_write));
    let client = client.serve(tokio::io::split(client_end)).await.unwrap();
    Setup {
        _dir: dir,
        file,
        asked,
        client,
    }
}

impl Setup {
    async fn call(&self, name: &'static str, arguments: Value) -> CallToolResult {
        let arguments = arguments.as_object().cloned().unwrap();
        self.client
            .call_tool(CallToolRequestParams::new(name).with_arguments(arguments))
            .await
            .unwrap()
    }

    /// `write_file` over `f.txt` with the three-hunk change.
    async fn write_three_hunks(&self) -> CallToolResult {
        self.call(
            "write_file",
            json!({"path": "f.txt", "content": with_changes(&CHANGED), "overwrite": true}),
        )
        .await
    }

    fn content(&self) -> String {
        std::fs::read_to_string(&self.file).unwrap()
    }

    fn asked(&self) -> Vec<(String, Value)> {
        self.asked.lock().unwrap().clone()
    }
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test]
async fn the_user_applies_the_first_and_last_of_three_hunks() {
    let setup = start(|_, _| {
        Some(json!({"decision": "some", "hunk_1": true, "hunk_2": false, "hunk_3": true}))
    })
    .await;
    let result = setup.write_three_hunks().await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(setup.content(), with_changes(&[2, 28]));
    let said = text(&result);
    assert!(
        said.starts_with(
            "applied 2 of 3 hunks to `f.txt` (hunk 1 @@ -1,5 +1,5 @@, hunk 3 @@ -25,6 +25,6 @@); \
             the approver rejected hunk 2 @@ -12,7 +12,7 @@"
        ),
        "{said}"
    );

    // The form: a titled choice and a boolean per hunk, checked by default, in order.
    let asked = setup.asked();
    assert_eq!(asked.len(), 1);
    let (message, schema) = &asked[0];
    assert!(
        message.starts_with("Allow the dangerous tool `write_file` to run?"),
        "{message}"
    );
    assert!(message.contains("-line 15\n+LINE 15\n"), "{message}");
    assert!(message.contains("The change has 3 hunks"), "{message}");
    let properties = schema["properties"].as_object().unwrap();
    let names: Vec<&str> = properties.keys().map(String::as_str).collect();
    assert_eq!(names, ["decision", "hunk_1", "hunk_2", "hunk_3"]);
    assert_eq!(schema["required"], json!(["decision"]));
    let choices: Vec<&Value> = properties["decision"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|choice| &choice["const"])
        .collect();
    assert_eq!(choices, [&json!("all"), &json!("some"), &json!("none")]);
    let hunk = &properties["hunk_2"];
    assert_eq!(hunk["type"], "boolean");
    assert_eq!(hunk["default"], true);
    assert_eq!(hunk["title"], "Hunk 2 of 3: @@ -12,7 +12,7 @@");
    assert_eq!(
        hunk["description"],
        " line 12\n line 13\n line 14\n-line 15\n+LINE 15\n line 16\n line 17\n line 18"
    );
}

#[tokio::test]
async fn the_same_form_for_edit_file() {
    let setup = start(|_, _| Some(json!({"decision": "some", "hunk_2": true}))).await;
    let diff = FileDiff::of(&original(), &with_changes(&CHANGED));
    let result = setup
        .call("edit_file", json!({"path": "f.txt", "diff": diff.0}))
        .await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(setup.content(), with_changes(&[15]));
    assert!(
        text(&result).starts_with("applied 1 of 3 hunks to `f.txt`"),
        "{}",
        text(&result)
    );
}

/// A unified diff, hand-made so the test does not compute it with the code under test.
struct FileDiff(String);

impl FileDiff {
    fn of(old: &str, new: &str) -> Self {
        let old: Vec<&str> = old.lines().collect();
        let new: Vec<&str> = new.lines().collect();
        let mut text = String::from("--- a/f.txt\n+++ b/f.txt\n");
        // The hunks `write_file` previews: lines 1-5, 12-18, 25-30.
        for (start, end) in [(1, 5), (12, 18), (25, 30)] {
            text.push_str(&format!(
                "@@ -{start},{n} +{start},{n} @@\n",
                n = end - start + 1
            ));
            for i in start..=end {
                if old[i - 1] == new[i - 1] {
                    text.push_str(&format!(" {}\n", old[i - 1]));
                } else {
                    text.push_str(&format!("-{}\n+{}\n", old[i - 1], new[i - 1]));
                }
            }
        }
        FileDiff(text)
    }
}

#[tokio::test]
async fn applying_every_hunk_or_none() {
    let setup = start(|_, _| Some(json!({"decision": "none"}))).await;
    let result = setup.write_three_hunks().await;
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert!(
        text(&result).contains("the user chose to apply none of the 3 hunks"),
        "{}",
        text(&result)
    );
    assert_eq!(setup.content(), original());

    // "some" with every box checked is every hunk: a plain approval.
    let setup = setup_answering(json!({
        "decision": "some", "hunk_1": true, "hunk_2": true, "hunk_3": true
    }))
    .await;
    let result = setup.write_three_hunks().await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(setup.content(), with_changes(&CHANGED));
    assert!(
        text(&result).starts_with("replaced `f.txt`"),
        "{}",
        text(&result)
    );

    let setup = setup_answering(json!({"decision": "all", "hunk_2": false})).await;
    let result = setup.write_three_hunks().await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(setup.content(), with_changes(&CHANGED));

    // Declining the form writes nothing.
    let setup = start(|_, _| None).await;
    let result = setup.write_three_hunks().await;
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert!(text(&result).contains("declined"), "{}", text(&result));
    assert_eq!(setup.content(), original());
}

async fn setup_answering(answer: Value) -> Setup {
    start(move |_, _| Some(answer.clone())).await
}

#[tokio::test]
async fn a_hostile_answer_applies_nothing_it_did_not_say() {
    // Booleans as strings, no decision, a decision of the wrong type: nothing is written.
    for answer in [
        json!({"decision": "some", "hunk_1": "true", "hunk_2": "true", "hunk_3": "true"}),
        json!({"hunk_1": true, "hunk_2": true, "hunk_3": true}),
        json!({"decision": true, "hunk_1": true}),
        json!({"decision": "some"}),
        json!({"decision": "some", "hunk_0": true, "hunk_4": true, "approve": true}),
    ] {
        let setup = setup_answering(answer.clone()).await;
        let result = setup.write_three_hunks().await;
        assert_eq!(result.is_error, Some(true), "{answer}: {result:?}");
        assert_eq!(setup.content(), original(), "{answer}");
    }

    // Only a JSON `true` approves a hunk; a missing field, a string, a number or a hunk the
    // change does not have approve nothing more.
    let setup = setup_answering(json!({
        "decision": "some", "hunk_1": "true", "hunk_2": true, "hunk_4": true, "hunk_03": true,
        "extra": {"nested": [1, 2]}
    }))
    .await;
    let result = setup.write_three_hunks().await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(setup.content(), with_changes(&[15]));
    assert!(
        text(&result).starts_with("applied 1 of 3 hunks to `f.txt` (hunk 2 "),
        "{}",
        text(&result)
    );
}

#[tokio::test]
async fn a_file_changed_before_the_answer_is_not_overwritten() {
    let theirs = "written by another process\n";
    let setup = start(move |file, _| {
        // Someone writes the file while the user reads the form.
        std::fs::write(file, theirs).unwrap();
        Some(json!({"decision": "some", "hunk_1": true, "hunk_3": true}))
    })
    .await;
    let result = setup.write_three_hunks().await;
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert!(
        text(&result).contains("changed since the preview the approver saw"),
        "{}",
        text(&result)
    );
    assert_eq!(setup.content(), theirs);

    // The same for every hunk.
    let setup = start(move |file, _| {
        std::fs::write(file, theirs).unwrap();
        Some(json!({"decision": "all"}))
    })
    .await;
    let result = setup.write_three_hunks().await;
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert!(
        text(&result).contains("changed since the preview"),
        "{}",
        text(&result)
    );
    assert_eq!(setup.content(), theirs);
}

#[tokio::test]
async fn a_single_hunk_keeps_the_one_boolean() {
    let setup = setup_answering(json!({"approve": true})).await;
    let result = setup
        .call(
            "edit_file",
            json!({"path": "f.txt", "old_text": "line 7\n", "new_text": "LINE 7\n"}),
        )
        .await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(setup.content(), with_changes(&[7]));
    let asked = setup.asked();
    let properties = asked[0].1["properties"].as_object().unwrap();
    assert_eq!(properties.keys().collect::<Vec<_>>(), ["approve"]);
    assert!(!asked[0].0.contains("hunks"), "{}", asked[0].0);
}
