//! `toolwright serve --http --config` with authentication, mounting another `toolwright
//! serve --http` (with its own static tokens and audit log) called as each caller: the
//! configuration's `[upstream.callers]` gives each of the gateway's callers its own token
//! for the upstream from a file of tokens by principal. Two callers of the gateway are two
//! principals in the upstream's audit log (and in the gateway's); a caller without an entry
//! is refused, saying so, and the upstream never sees its call.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

#[path = "support/served.rs"]
mod served;
use served::Served;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_toolwright");
const DEADLINE: Duration = Duration::from_secs(120);

/// `toolwright serve --http` with `args` (tests/support/served.rs).
fn serve(root: &Path, args: &[&str]) -> Served {
    served::serve_http(BIN, root, args)
}

fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// Calls `tool` on `url` as the bearer of `token`: the result, or the error's text.
async fn call_as(url: &str, token: &str, tool: &str, arguments: Value) -> Result<Value, String> {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token),
    );
    let work = async {
        let client = ().serve(transport).await.map_err(|e| e.to_string())?;
        let result = client
            .call_tool(
                CallToolRequestParams::new(tool.to_owned())
                    .with_arguments(arguments.as_object().unwrap().clone()),
            )
            .await
            .map_err(|e| e.to_string());
        let _ = client.cancel().await;
        let result = result?;
        let value = serde_json::to_value(&result).unwrap();
        if result.is_error == Some(true) {
            Err(value.to_string())
        } else {
            Ok(value)
        }
    };
    tokio::time::timeout(DEADLINE, work)
        .await
        .unwrap_or_else(|_| panic!("calling {tool}: not done within {DEADLINE:?}"))
}

/// The `caller` of each line of the audit log at `path`.
fn audited_callers(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|line| line["caller"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_callers_of_the_gateway_are_two_principals_upstream() {
    let secrets = tempfile::tempdir().unwrap();
    let upstream_root = tempfile::tempdir().unwrap();
    let gateway_root = tempfile::tempdir().unwrap();
    let s = secrets.path();

    // The upstream's own tokens: the gateway's, Alice's and Bob's (subjects
    // `upstream.tokens:1..3`).
    let (gateway_up, alice_up, bob_up) = (
        "gateway-at-upstream-0123456789",
        "alice-at-upstream-0123456789",
        "bob-at-upstream-0123456789",
    );
    std::fs::write(
        s.join("upstream.tokens"),
        format!("{gateway_up}\n{alice_up}\n{bob_up}\n"),
    )
    .unwrap();
    let upstream_audit = s.join("upstream.audit");
    let upstream = serve(
        upstream_root.path(),
        &[
            "--auth-token-file",
            s.join("upstream.tokens").to_str().unwrap(),
            "--audit-log",
            upstream_audit.to_str().unwrap(),
        ],
    );

    // The gateway's callers (subjects `gateway.tokens:1..3`), and their upstream tokens.
    let (alice, bob, carol) = (
        "alice-at-gateway-0123456789",
        "bob-at-gateway-0123456789",
        "carol-at-gateway-0123456789",
    );
    std::fs::write(
        s.join("gateway.tokens"),
        format!("{alice} tools:cautious\n{bob} tools:cautious\n{carol} tools:cautious\n"),
    )
    .unwrap();
    std::fs::write(s.join("gateway-at-upstream.token"), gateway_up).unwrap();
    std::fs::write(
        s.join("callers.toml"),
        format!(
            "\"gateway.tokens:1\" = {}\n\"gateway.tokens:2\" = {}\n",
            toml_string(alice_up),
            toml_string(bob_up)
        ),
    )
    .unwrap();
    let config = s.join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[[upstream]]\nnamespace = \"inner\"\nurl = {}\ntoken_file = \"gateway-at-upstream.token\"\n\
             tools = {{ \"*\" = \"cautious\" }}\n\
             [upstream.callers]\nprincipal_tokens = \"callers.toml\"\nidentity_header = \"X-Gateway-Caller\"\n",
            toml_string(&upstream.url)
        ),
    )
    .unwrap();
    let gateway_audit = s.join("gateway.audit");
    let gateway = serve(
        gateway_root.path(),
        &[
            "--config",
            config.to_str().unwrap(),
            "--auth-token-file",
            s.join("gateway.tokens").to_str().unwrap(),
            "--audit-log",
            gateway_audit.to_str().unwrap(),
        ],
    );

    for (token, dir) in [(alice, "made-by-alice"), (bob, "made-by-bob")] {
        let result = call_as(
            &gateway.url,
            token,
            "inner_create_directory",
            json!({"path": dir}),
        )
        .await;
        assert!(result.is_ok(), "{result:?}");
        assert!(upstream_root.path().join(dir).is_dir());
    }
    // Carol has no entry: refused with the reason, and the upstream never ran it.
    let refused = call_as(
        &gateway.url,
        carol,
        "inner_create_directory",
        json!({"path": "made-by-carol"}),
    )
    .await
    .unwrap_err();
    assert!(
        refused.contains("has no token for this upstream"),
        "{refused}"
    );
    assert!(!upstream_root.path().join("made-by-carol").exists());

    // The upstream saw Alice and Bob as themselves, never the gateway, never Carol.
    assert_eq!(
        audited_callers(&upstream_audit),
        ["upstream.tokens:2", "upstream.tokens:3"]
    );
    // The gateway's audit names its own callers, Carol's refusal among them.
    assert_eq!(
        audited_callers(&gateway_audit),
        ["gateway.tokens:1", "gateway.tokens:2", "gateway.tokens:3"]
    );
}

#[test]
fn a_file_of_callers_tokens_a_confined_upstream_could_read_is_refused() {
    let granted = tempfile::tempdir().unwrap();
    let secrets = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let tokens = granted.path().join("callers.toml");
    std::fs::write(&tokens, "\"*\" = \"t-0123456789abcdef\"\n").unwrap();
    let config = secrets.path().join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[[upstream]]\nnamespace = \"hostile\"\ncommand = {}\nsandbox = {{ read = [{}] }}\n\
             [[upstream]]\nnamespace = \"web\"\nurl = \"https://mcp.example.com/mcp\"\n\
             [upstream.callers]\nprincipal_tokens = {}\n",
            toml_string(BIN),
            toml_string(granted.path().to_str().unwrap()),
            toml_string(tokens.to_str().unwrap()),
        ),
    )
    .unwrap();
    let output = Command::new(BIN)
        .args(["serve", "--root"])
        .arg(root.path())
        .arg("--config")
        .arg(&config)
        .env("HOME", root.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the upstream file of tokens by principal (in --config)"),
        "{stderr}"
    );
}
