//! The mounted server's tools listed, called and served under our policy, and an upstream
//! that does not start (or has no OAuth token) named.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

use crate::support::{BIN, dirs, gateway, run, stderr, toml_string};

#[test]
fn list_shows_the_upstreams_tools_namespaced_and_dangerous_unless_configured() {
    let d = dirs();
    let config = gateway(
        &d.config,
        &d.upstream,
        "tools = { \"read_*\" = \"safe\" }\n",
    );
    let output = run(
        &["list", "--json", "--config", config.to_str().unwrap()],
        &d.workspace,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let tools: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    let safety = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["safety"].as_str().unwrap().to_owned())
    };
    // Our own tools, and the upstream's under the namespace.
    assert_eq!(safety("read_file").as_deref(), Some("safe"));
    assert_eq!(safety("inner_read_file").as_deref(), Some("safe"));
    // What the configuration does not lower stays dangerous, whatever the upstream says.
    assert_eq!(safety("inner_calculate").as_deref(), Some("dangerous"));
    assert_eq!(safety("inner_list_directory").as_deref(), Some("dangerous"));
}

#[test]
fn call_runs_an_upstream_tool_only_when_approved() {
    let d = dirs();
    let config = gateway(&d.config, &d.upstream, "");
    let config = config.to_str().unwrap();
    let root = d.workspace.to_str().unwrap();
    let refused = run(
        &[
            "call",
            "inner_read_file",
            r#"{"path": "note.txt"}"#,
            "--config",
            config,
            "--root",
            root,
        ],
        &d.workspace,
    );
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("approval denied"),
        "{}",
        stderr(&refused)
    );
    assert!(!String::from_utf8_lossy(&refused.stdout).contains("from the upstream"));

    let approved = run(
        &[
            "call",
            "inner_read_file",
            r#"{"path": "note.txt"}"#,
            "--config",
            config,
            "--root",
            root,
            "--yes",
        ],
        &d.workspace,
    );
    assert_eq!(approved.status.code(), Some(0), "{}", stderr(&approved));
    assert!(String::from_utf8_lossy(&approved.stdout).contains("from the upstream"));
}

#[test]
fn an_upstream_that_does_not_start_is_named() {
    let d = dirs();
    let path = d.config.join("gateway.toml");
    std::fs::write(
        &path,
        "[[upstream]]\nnamespace = \"ghost\"\ncommand = \"/nonexistent/mcp-server\"\n",
    )
    .unwrap();
    let output = run(&["list", "--config", path.to_str().unwrap()], &d.workspace);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("the upstream `ghost` did not start"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn an_oauth_upstream_without_a_token_is_named_and_its_secret_is_not() {
    let d = dirs();
    let secret = d.config.join("client.secret");
    std::fs::write(&secret, "client-secret-0123456789\n").unwrap();
    let config = d.config.join("gateway.toml");
    // Nothing listens on port 9: no metadata, no token.
    std::fs::write(
        &config,
        format!(
            "[[upstream]]\nnamespace = \"web\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             oauth = {{ client_id = \"toolwright\", client_secret_file = {} }}\n\
             [[upstream]]\nnamespace = \"other\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             oauth = {{ client_id = \"toolwright\", client_secret_env = \"TOOLWRIGHT_TEST_UNSET\" }}\n",
            toml_string(&secret.display().to_string())
        ),
    )
    .unwrap();
    let output = run(
        &["list", "--config", config.to_str().unwrap()],
        &d.workspace,
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(text.contains("the upstream `web` did not start"), "{text}");
    assert!(
        text.contains("OAuth client credentials for upstream `http://127.0.0.1:9/mcp`"),
        "{text}"
    );
    assert!(!text.contains("client-secret-0123456789"), "{text}");

    // The second upstream alone: its variable is not set.
    let text = std::fs::read_to_string(&config).unwrap();
    let second = &text[text.rfind("[[upstream]]").unwrap()..];
    std::fs::write(&config, second).unwrap();
    let output = run(
        &["list", "--config", config.to_str().unwrap()],
        &d.workspace,
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(
            "could not read the OAuth client secret for upstream `http://127.0.0.1:9/mcp` from \
             the environment variable TOOLWRIGHT_TEST_UNSET"
        ),
        "{}",
        stderr(&output)
    );
}

#[tokio::test]
async fn serve_offers_the_mounted_tools_to_an_mcp_client_under_our_policy() {
    let d = dirs();
    let config = gateway(
        &d.config,
        &d.upstream,
        "tools = { \"read_file\" = \"safe\" }\n",
    );
    let root = d.workspace.clone();
    let transport =
        TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|command| {
            command
                .arg("serve")
                .arg("--root")
                .arg(&root)
                .arg("--config")
                .arg(&config);
        }))
        .unwrap();
    let client = ().serve(transport).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(names.contains(&"inner_read_file"), "{names:?}");
    assert!(names.contains(&"inner_write_file"), "{names:?}");

    let read = client
        .call_tool(
            CallToolRequestParams::new("inner_read_file")
                .with_arguments(json!({"path": "note.txt"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_ne!(read.is_error, Some(true), "{read:?}");
    assert!(
        serde_json::to_string(&read.content)
            .unwrap()
            .contains("from the upstream")
    );

    // Dangerous by default: this client cannot approve (no elicitation), so it is refused
    // and nothing is written upstream.
    let write = client
        .call_tool(
            CallToolRequestParams::new("inner_write_file").with_arguments(
                json!({"path": "pwned.txt", "content": "x"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        )
        .await
        .unwrap();
    assert_eq!(write.is_error, Some(true), "{write:?}");
    assert!(!d.upstream.join("pwned.txt").exists());
    client.cancel().await.unwrap();
}
