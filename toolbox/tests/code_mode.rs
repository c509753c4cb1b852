//! `toolwright serve --code-mode` (and `[serve.code_mode]` of a configuration) against
//! rmcp's client: `run_code` is offered only with the switch; a program's tool calls go
//! through the server's policy for the caller who ran it (approvals by the real tool's
//! name, the caller's ceiling, the configured bounds), mounted tools included. Needs
//! /usr/bin/python3, which CI has.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};

#[path = "support/served.rs"]
mod served;
use served::Served;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_toolwright");

/// A client that can be asked (MCP elicitation): it approves the tools named in `approve`
/// and denies the others, recording each tool it was asked about, in order.
#[derive(Clone, Default)]
struct Approver {
    approve: Vec<&'static str>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Approver {
    fn approving(tools: &[&'static str]) -> Self {
        Approver {
            approve: tools.to_vec(),
            asked: Arc::default(),
        }
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

impl ClientHandler for Approver {
    fn get_info(&self) -> ClientConfig {
        let capabilities = ClientCapabilities::builder().enable_elicitation().build();
        ClientConfig::new(capabilities, Implementation::new("code-mode-test", "0.0.1"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        // "Allow the dangerous tool `NAME` to run? ...": the tool is the first quoted name
        // (the preview after it may name others).
        let tool = message.split('`').nth(1).unwrap_or_default().to_owned();
        let yes = self.approve.contains(&tool.as_str());
        self.asked.lock().unwrap().push(tool);
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": yes})))
    }
}

type Client = RunningService<RoleClient, Approver>;

/// `toolwright serve --root ROOT ARGS...` over stdio, as `approver`'s client.
async fn serve(root: &Path, args: &[&str], approver: Approver) -> Client {
    let root = root.to_owned();
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let transport =
        TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|command| {
            command
                .arg("serve")
                .arg("--root")
                .arg(&root)
                .args(&args)
                .env("HOME", &root);
        }))
        .unwrap();
    approver.serve(transport).await.unwrap()
}

async fn listed(client: &Client) -> Vec<String> {
    let tools = client.list_all_tools().await.unwrap();
    tools.iter().map(|tool| tool.name.to_string()).collect()
}

/// A call's outcome: whether it was an error (a protocol error counts), and its text.
async fn call(client: &Client, name: &str, arguments: Value) -> (bool, String) {
    let request = CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().cloned().unwrap());
    match client.call_tool(request).await {
        Ok(result) => {
            let text = result
                .content
                .iter()
                .filter_map(|block| block.as_text().map(|text| text.text.clone()))
                .collect::<Vec<_>>()
                .join("\n");
            (result.is_error == Some(true), text)
        }
        Err(error) => (true, error.to_string()),
    }
}

/// Runs `code` with `run_code`: what the program did (`CodeOutput` as JSON).
async fn run(client: &Client, code: &str) -> Value {
    let (error, text) = call(client, "run_code", json!({ "code": code })).await;
    assert!(!error, "run_code failed: {text}");
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("not a program's output: {text}"))
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    dir
}

fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

fn toolwright_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[tokio::test]
async fn without_the_switch_run_code_is_neither_listed_nor_callable() {
    let dir = workspace();
    let client = serve(dir.path(), &[], Approver::approving(&["run_code"])).await;
    let tools = listed(&client).await;
    assert!(!tools.iter().any(|tool| tool == "run_code"), "{tools:?}");
    assert_eq!(
        tools.len(),
        toolwright_std::TOOL_NAMES.len() - 1,
        "{tools:?}"
    );
    // Not a tool that refuses: no tool at all, and nobody is asked.
    let (error, text) = call(&client, "run_code", json!({"code": "open('x', 'w')"})).await;
    assert!(error && text.contains("unknown tool `run_code`"), "{text}");
    assert!(client.service().asked().is_empty());
    assert!(!dir.path().join("x").exists());
    // Nor can a search find it.
    let (_, found) = call(&client, "search_tools", json!({"query": "run python code"})).await;
    assert!(!found.contains("run_code"), "{found}");
    let instructions = client
        .peer_info()
        .and_then(|info| info.instructions.clone());
    let instructions = instructions.unwrap_or_default();
    assert!(!instructions.contains("run_code"), "{instructions}");
    client.cancel().await.unwrap();

    let client = serve(dir.path(), &["--code-mode"], Approver::default()).await;
    let tools = listed(&client).await;
    assert!(tools.iter().any(|tool| tool == "run_code"), "{tools:?}");
    assert_eq!(tools.len(), toolwright_std::TOOL_NAMES.len(), "{tools:?}");
    // The instructions tell the model what run_code is for.
    let instructions = client
        .peer_info()
        .and_then(|info| info.instructions.clone());
    let instructions = instructions.unwrap_or_default();
    assert!(
        instructions.contains("run_code runs a short Python program"),
        "{instructions}"
    );
    client.cancel().await.unwrap();

    // `list`, `schema` and `call` say the same.
    let names = |output: &Output| -> Vec<String> {
        let tools: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
        tools
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let off = toolwright_in(dir.path(), &["list", "--json"]);
    assert!(!names(&off).contains(&"run_code".to_owned()));
    let on = toolwright_in(dir.path(), &["list", "--json", "--code-mode"]);
    assert!(names(&on).contains(&"run_code".to_owned()));
    let schema = toolwright_in(
        dir.path(),
        &["schema", "--format", "openai", "--tool", "run_code"],
    );
    assert_eq!(schema.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&schema.stderr).contains("only with --code-mode"));
    let refused = toolwright_in(dir.path(), &["call", "-y", "run_code", r#"{"code": "1"}"#]);
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("only with --code-mode"), "{said}");
}

#[tokio::test]
async fn a_program_calls_two_tools_and_returns_their_combined_result() {
    let dir = workspace();
    let approver = Approver::approving(&["run_code"]);
    let client = serve(dir.path(), &["--code-mode"], approver).await;
    let output = run(
        &client,
        "a = read_file(path='a.txt')\n\
         b = calculate(expression='6*7')\n\
         {'a': a, 'b': b}",
    )
    .await;
    assert_eq!(output["success"], true, "{output}");
    assert_eq!(output["confined"], true, "{output}");
    assert_eq!(output["calls_made"], 2, "{output}");
    let result = &output["result"];
    assert!(result["a"].to_string().contains("alpha"), "{output}");
    assert!(result["b"].to_string().contains("42"), "{output}");
    // Safe tools: only run_code itself was asked about.
    assert_eq!(client.service().asked(), ["run_code"]);
    client.cancel().await.unwrap();

    // The same from the command line's `call`.
    let root = dir.path().to_str().unwrap();
    let output = toolwright_in(
        dir.path(),
        &[
            "call",
            "--root",
            root,
            "--code-mode",
            "-y",
            "run_code",
            r#"{"code": "calculate(expression='2+3') * 2"}"#,
        ],
    );
    let printed: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(printed["result"], 10, "{printed}");
}

#[tokio::test]
async fn a_dangerous_tool_called_from_a_program_asks_under_its_own_name() {
    let dir = workspace();
    // run_code is approved, write_file is not: the program runs, the write does not.
    let approver = Approver::approving(&["run_code"]);
    let client = serve(dir.path(), &["--code-mode"], approver).await;
    let output = run(
        &client,
        "try:\n\
         \x20   write_file(path='note.txt', content='pwned')\n\
         \x20   said = 'written'\n\
         except ToolCallError as refusal:\n\
         \x20   said = str(refusal)\n\
         said",
    )
    .await;
    assert!(!dir.path().join("note.txt").exists());
    let said = output["result"].as_str().unwrap_or_default();
    assert!(said.contains("write_file"), "{output}");
    assert_ne!(said, "written");
    assert_eq!(client.service().asked(), ["run_code", "write_file"]);
    client.cancel().await.unwrap();

    // Approved by its real name, it runs.
    let approver = Approver::approving(&["run_code", "write_file"]);
    let client = serve(dir.path(), &["--code-mode"], approver).await;
    let output = run(&client, "write_file(path='note.txt', content='hi')\n'done'").await;
    assert_eq!(output["result"], "done", "{output}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("note.txt")).unwrap(),
        "hi"
    );
    assert_eq!(client.service().asked(), ["run_code", "write_file"]);
    client.cancel().await.unwrap();

    // A caller who says no to run_code: no program runs.
    let client = serve(dir.path(), &["--code-mode"], Approver::default()).await;
    let (error, text) = call(
        &client,
        "run_code",
        json!({"code": "open('denied.txt', 'w').write('x')"}),
    )
    .await;
    assert!(error && text.contains("run_code"), "{text}");
    assert!(!dir.path().join("denied.txt").exists());
    assert_eq!(client.service().asked(), ["run_code"]);
    client.cancel().await.unwrap();
}

/// `toolwright serve --http` with `args` (tests/support/served.rs).
fn serve_http(root: &Path, args: &[&str]) -> Served {
    served::serve_http(BIN, root, args)
}

async fn connect(url: &str, token: &str, approver: Approver) -> Client {
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token);
    approver
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap()
}

const CAUTIOUS_TOKEN: &str = "cautious-caller-token-0123456789";
const FULL_TOKEN: &str = "approving-caller-token-0123456789";

#[tokio::test]
async fn a_program_reaches_only_what_its_caller_was_offered() {
    let dir = workspace();
    let secrets = tempfile::tempdir().unwrap();
    let tokens = secrets.path().join("tokens");
    std::fs::write(
        &tokens,
        format!(
            "{CAUTIOUS_TOKEN} tools:safe tools:cautious\n\
             {FULL_TOKEN} tools:safe tools:cautious tools:dangerous tools:approve\n"
        ),
    )
    .unwrap();
    let served = serve_http(
        dir.path(),
        &["--code-mode", "--auth-token-file", tokens.to_str().unwrap()],
    );

    // Under a cautious ceiling, run_code is not listed, not found, and not run.
    let cautious = connect(
        &served.url,
        CAUTIOUS_TOKEN,
        Approver::approving(&["run_code"]),
    )
    .await;
    let tools = listed(&cautious).await;
    assert!(!tools.iter().any(|tool| tool == "run_code"), "{tools:?}");
    let (_, found) = call(
        &cautious,
        "search_tools",
        json!({"query": "run python code"}),
    )
    .await;
    assert!(!found.contains("run_code"), "{found}");
    let (error, text) = call(
        &cautious,
        "run_code",
        json!({"code": "open('cautious.txt', 'w').write('x')"}),
    )
    .await;
    assert!(error, "{text}");
    assert!(!dir.path().join("cautious.txt").exists());
    assert!(cautious.service().asked().is_empty());
    cautious.cancel().await.unwrap();

    // The full caller's program gets exactly the tools its list shows (run_code aside),
    // and a forged name reaches nothing: not a tool of another list, not run_code again,
    // not the server's own meta-tools.
    let full = connect(&served.url, FULL_TOKEN, Approver::approving(&["run_code"])).await;
    let mut offered: Vec<String> = listed(&full)
        .await
        .into_iter()
        .filter(|tool| tool != "run_code")
        .collect();
    offered.sort();
    let output = run(
        &full,
        "said = []\n\
         for name in ['no_such_tool', 'run_code', 'call_tool', 'inner_read_file', '../read_file']:\n\
         \x20   try:\n\
         \x20       call_tool(name, {'code': 'open(\"forged.txt\", \"w\")', 'path': 'a.txt'})\n\
         \x20       said.append(name + ': ran')\n\
         \x20   except ToolCallError as refusal:\n\
         \x20       said.append(name + ': ' + str(refusal))\n\
         said",
    )
    .await;
    let mut stubs: Vec<String> = output["tools_offered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| name.as_str().unwrap().to_owned())
        .collect();
    stubs.sort();
    assert_eq!(stubs, offered);
    let said = output["result"].as_array().unwrap();
    assert_eq!(said.len(), 5, "{output}");
    for line in said {
        let line = line.as_str().unwrap();
        assert!(line.contains("is not offered to this program"), "{line}");
    }
    assert_eq!(output["calls_made"], 0, "{output}");
    assert_eq!(output["calls_refused"], 5, "{output}");
    assert!(!dir.path().join("forged.txt").exists());
    assert_eq!(full.service().asked(), ["run_code"]);
    full.cancel().await.unwrap();
}

#[tokio::test]
async fn the_bounds_of_the_configuration_apply() {
    let dir = workspace();
    let config_dir = tempfile::tempdir().unwrap();
    let config = config_dir.path().join("serve.toml");
    std::fs::write(
        &config,
        "[serve.code_mode]\nmax_calls = 2\nmax_output_bytes = \"1KiB\"\n",
    )
    .unwrap();
    let client = serve(
        dir.path(),
        &["--config", config.to_str().unwrap()],
        Approver::approving(&["run_code"]),
    )
    .await;
    // The table alone turned code mode on.
    assert!(listed(&client).await.iter().any(|tool| tool == "run_code"));
    let output = run(
        &client,
        "got = []\n\
         for n in range(3):\n\
         \x20   try:\n\
         \x20       got.append(calculate(expression=f'{n}+1'))\n\
         \x20   except ToolCallError as refusal:\n\
         \x20       got.append(str(refusal))\n\
         print('x' * 5000)\n\
         got",
    )
    .await;
    assert_eq!(output["calls_made"], 2, "{output}");
    assert_eq!(output["calls_refused"], 1, "{output}");
    let third = output["result"][2].as_str().unwrap_or_default();
    assert!(
        third.contains("at most 2 tool calls") && third.contains("max_calls"),
        "{output}"
    );
    assert_eq!(output["stdout"].as_str().unwrap().len(), 1024, "{output}");
    assert_eq!(output["stdout_truncated"], true);
    client.cancel().await.unwrap();
}

#[test]
fn a_bad_bound_is_refused_at_load_with_its_key_and_line() {
    let dir = workspace();
    let config_dir = tempfile::tempdir().unwrap();
    let config = config_dir.path().join("serve.toml");
    let root = dir.path().to_str().unwrap();
    let cases = [
        (
            "[serve.code_mode]\n\nmax_calls = 0\n",
            ":3: `[serve]` `code_mode.max_calls`: invalid value '0'",
        ),
        (
            "[serve]\nmax_safety = \"cautious\"\ncode_mode = true\n",
            "--max-safety cautious serves no dangerous tool",
        ),
        (
            "[serve.code_mode]\ntimeout = 301\n",
            ":2: `[serve]` `code_mode.timeout`: invalid value '301'",
        ),
        (
            "[serve.code_mode]\nmax_cals = 2\n",
            ":2: `[serve.code_mode]` has no option `max_cals`; did you mean `max_calls`?",
        ),
        (
            "[serve.code_mode]\nmax_request_bytes = \"lots\"\n",
            ":2: `[serve]` `code_mode.max_request_bytes`: invalid value 'lots'",
        ),
        (
            "[serve.code_mode]\npython = \"/nonexistent/python3\"\n",
            ":2: `[serve]` `code_mode.python`: invalid value '/nonexistent/python3'",
        ),
        (
            "[serve.code_mode]\npython = \"python3\"\n",
            "is not an absolute path",
        ),
        (
            "[serve.code_mode]\nmax_calls = [1, 2]\n",
            ":2: `code_mode.max_calls` takes one value, not a list",
        ),
        (
            "[serve]\ncode_mode = \"yes\"\n",
            ":2: `code_mode` takes true or false, not a string",
        ),
        (
            "[serve]\ncode_mode_max_calls = 3\n",
            ":2: `[serve]` `code_mode_max_calls`: the following required arguments were not provided: --code-mode",
        ),
        (
            "[serve]\ntimeout = 5\n[serve.code_mode]\ntimeout = 10\n",
            "--code-mode-timeout 10 (`timeout` of `[serve.code_mode]`) is longer than --timeout 5",
        ),
        (
            "[serve.max_safety]\nlevel = \"safe\"\n",
            ":1: `max_safety` takes a value, not a table",
        ),
        // Only a switch with options of its own is a table: not a prefix of other options.
        (
            "[serve.max]\nsafety = \"safe\"\n",
            ":1: `serve` has no option `max`",
        ),
        (
            "[serve.allow_dangerous]\nreally = true\n",
            ":1: `allow_dangerous` takes true or false, not a table",
        ),
    ];
    for (text, expected) in cases {
        std::fs::write(&config, text).unwrap();
        let output = toolwright_in(
            dir.path(),
            &[
                "serve",
                "--root",
                root,
                "--config",
                config.to_str().unwrap(),
            ],
        );
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{text}: {said}");
        assert!(said.contains(expected), "{text}: {said}");
    }
}

#[tokio::test]
async fn with_search_first_lists_a_program_reaches_every_offered_tool() {
    let dir = workspace();
    let client = serve(
        dir.path(),
        &["--code-mode", "--discovery", "search", "--core", "run_code"],
        Approver::approving(&["run_code"]),
    )
    .await;
    let tools = listed(&client).await;
    assert_eq!(
        tools,
        ["run_code", "search_tools", "describe_tool", "call_tool"]
    );
    // Not listed, but offered: a program calls it as the model would through call_tool;
    // the meta-tool itself, and run_code again, are out of its reach.
    let output = run(
        &client,
        "create_directory(path='made')\n\
         said = []\n\
         for name in ['call_tool', 'run_code']:\n\
         \x20   try:\n\
         \x20       call_tool(name, {'name': 'run_code', 'arguments': {'code': '1'}, 'code': '1'})\n\
         \x20       said.append('ran')\n\
         \x20   except ToolCallError as refusal:\n\
         \x20       said.append(str(refusal))\n\
         said",
    )
    .await;
    assert!(dir.path().join("made").is_dir());
    let said = output["result"].as_array().unwrap();
    assert_eq!(said.len(), 2, "{output}");
    assert!(
        said.iter().all(|line| line
            .as_str()
            .unwrap()
            .contains("is not offered to this program")),
        "{output}"
    );
    let offered = output["tools_offered"].as_array().unwrap();
    assert!(
        offered.iter().any(|name| name == "create_directory"),
        "{output}"
    );
    assert!(
        !offered
            .iter()
            .any(|name| name == "call_tool" || name == "run_code")
    );
    assert_eq!(client.service().asked(), ["run_code"]);

    // Found by search and run through call_tool, as a client that calls only listed tools
    // would.
    let (error, text) = call(
        &client,
        "call_tool",
        json!({"name": "run_code", "arguments": {"code": "calculate(expression='20+1') * 2"}}),
    )
    .await;
    assert!(!error, "{text}");
    let output: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(output["result"], 42, "{output}");
    assert_eq!(client.service().asked(), ["run_code", "run_code"]);
    client.cancel().await.unwrap();
}

/// A configuration mounting `toolwright serve --root <upstream>` as `inner` (confined to
/// its program and root), its `read_file` safe; written in `config_dir`.
fn gateway(config_dir: &Path, upstream: &Path) -> PathBuf {
    let path = config_dir.join("gateway.toml");
    let program = Path::new(BIN).parent().unwrap().display().to_string();
    let root = toml_string(&upstream.display().to_string());
    std::fs::write(
        &path,
        format!(
            "[[upstream]]\nnamespace = \"inner\"\ncommand = {}\nargs = [\"serve\", \"--root\", \
             {root}]\nsandbox = {{ read = [{}], write = [{root}] }}\n\
             tools = {{ \"read_file\" = \"safe\" }}\n\n[serve]\ncode_mode = true\n",
            toml_string(BIN),
            toml_string(&program)
        ),
    )
    .unwrap();
    path
}

#[tokio::test]
async fn a_program_calls_a_mounted_tool_under_its_own_policy() {
    let dir = workspace();
    let upstream = tempfile::tempdir().unwrap();
    std::fs::write(upstream.path().join("note.txt"), "from the upstream\n").unwrap();
    let config_dir = tempfile::tempdir().unwrap();
    let config = gateway(config_dir.path(), upstream.path());
    let client = serve(
        dir.path(),
        &["--config", config.to_str().unwrap()],
        Approver::approving(&["run_code"]),
    )
    .await;
    let output = run(
        &client,
        "note = inner_read_file(path='note.txt')\n\
         try:\n\
         \x20   inner_write_file(path='pwned.txt', content='x')\n\
         \x20   wrote = 'written'\n\
         except ToolCallError as refusal:\n\
         \x20   wrote = str(refusal)\n\
         {'note': note, 'wrote': wrote}",
    )
    .await;
    assert!(
        output["result"]["note"]
            .to_string()
            .contains("from the upstream"),
        "{output}"
    );
    // The mounted write_file is dangerous (the operator did not say otherwise): asked for
    // under its own name, denied, and nothing is written upstream.
    assert_ne!(output["result"]["wrote"], "written", "{output}");
    assert!(!upstream.path().join("pwned.txt").exists());
    assert_eq!(client.service().asked(), ["run_code", "inner_write_file"]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn two_callers_programs_at_once_each_ask_their_own_client() {
    let dir = workspace();
    let secrets = tempfile::tempdir().unwrap();
    let tokens = secrets.path().join("tokens");
    let alice = "alice-approving-token-0123456789";
    let bob = "bob-denying-token-0123456789abcd";
    std::fs::write(
        &tokens,
        format!("{alice}\n{bob} tools:safe tools:cautious tools:dangerous tools:approve\n"),
    )
    .unwrap();
    let served = serve_http(
        dir.path(),
        &["--code-mode", "--auth-token-file", tokens.to_str().unwrap()],
    );
    let yes = connect(
        &served.url,
        alice,
        Approver::approving(&["run_code", "write_file"]),
    )
    .await;
    let no = connect(&served.url, bob, Approver::approving(&["run_code"])).await;
    // Each program writes its own file after a few safe calls, both running at once: an
    // approval must come from the client of the program's own caller.
    let program = |name: &str| {
        format!(
            "for n in range(5):\n\
             \x20   calculate(expression=f'{{n}}*2')\n\
             try:\n\
             \x20   write_file(path='{name}.txt', content='{name}')\n\
             \x20   said = 'written'\n\
             except ToolCallError as refusal:\n\
             \x20   said = str(refusal)\n\
             said"
        )
    };
    let (alice_program, bob_program) = (program("alice"), program("bob"));
    let (alice_output, bob_output) =
        tokio::join!(run(&yes, &alice_program), run(&no, &bob_program));
    assert_eq!(alice_output["result"], "written", "{alice_output}");
    assert_ne!(bob_output["result"], "written", "{bob_output}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("alice.txt")).unwrap(),
        "alice"
    );
    assert!(!dir.path().join("bob.txt").exists());
    assert_eq!(yes.service().asked(), ["run_code", "write_file"]);
    assert_eq!(no.service().asked(), ["run_code", "write_file"]);
    assert_eq!(alice_output["calls_made"], 6);
    assert_eq!(bob_output["calls_made"], 6);
    yes.cancel().await.unwrap();
    no.cancel().await.unwrap();
}
