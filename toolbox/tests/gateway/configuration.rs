//! The configuration file: its mistakes refused with their line, and its `[serve]` options
//! taken, checked and overridden by the command line.

use std::path::Path;

use rmcp::ServiceExt;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};

use crate::support::{BIN, assert_refused, dirs, gateway, run, stderr};

#[test]
fn configuration_mistakes_are_refused_with_their_line_before_anything_starts() {
    let d = dirs();
    let cases = [
        (
            "[[upstream]]\nnamespace = \"a\"\ncomand = \"x\"\n",
            ":3: unknown field `comand`",
        ),
        // Declared resources and prompts (issue 39): checked at load too.
        (
            "[[resources]]\nuri = \"test://x\"\nname = \"x\"\ntxt = \"a\"\n",
            ":4: unknown field `txt`",
        ),
        (
            "[[resources]]\nuri = \"test://x\"\nname = \"x\"\nfile = \"no-such.png\"\n",
            ":1: cannot read the file `no-such.png`",
        ),
        (
            "[[resources]]\nuri = \"test://x\"\nname = \"x\"\ntext = \"a\"\n\n\
             [[resources]]\nuri = \"test://x\"\nname = \"y\"\ntext = \"b\"\n",
            ":6: resource `test://x` is already registered",
        ),
        (
            "[[prompts]]\nname = \"p\"\nmessages = [{ text = \"{who}\" }]\n",
            ":1: `text` uses `{who}`, which names no argument of the prompt",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\n\n[[upstream]]\nnamespace = \"b\"\ncommand = \"y\"\nurl = \"http://127.0.0.1:9/mcp\"\n",
            ":5: an upstream is a `command` (stdio) or a `url` (HTTP), not both",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\n",
            ":1: the upstream `a` needs a `command`",
        ),
        (
            "[[upstream]]\nnamespace = \"Git-Hub\"\ncommand = \"x\"\n",
            "did you mean `git_hub`?",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\n[[upstream]]\nnamespace = \"a\"\ncommand = \"y\"\n",
            ":4: the namespace `a` is already used at",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\ntoken_env = \"T\"\n",
            ":1: `token_file`, `token_env`, `oauth` and `callers` are for an HTTP upstream",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\n\
             oauth = { client_id = \"c\", client_secret_env = \"S\" }\n",
            ":1: `token_file`, `token_env`, `oauth` and `callers` are for an HTTP upstream",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             token_env = \"T\"\noauth = { client_id = \"c\", client_secret_env = \"S\" }\n",
            ":1: give the upstream's credentials in one of `token_file`, `token_env` or `oauth`",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             oauth = { client_id = \"c\", client_secret_env = \"S\", client_secret_file = \"f\" }\n",
            ":4: give the client secret in `oauth.client_secret_file` or `oauth.client_secret_env`, not both",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://127.0.0.1:9/mcp\"\n\n\
             [upstream.oauth]\nclient_id = \"c\"\n",
            ":5: `oauth` needs the client secret's file (`client_secret_file`) or environment \
             variable (`client_secret_env`)",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             oauth = { client_id = \"c\", client_secret = \"hunter2\" }\n",
            ":4: unknown field `client_secret`",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             oauth = { client_id = \"c\", client_secret_env = \"S\", scopes = [\"a b\"] }\n",
            ":4: `oauth.scopes` has `a b`, which is not one scope",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             oauth = { client_id = \"c\", client_secret_env = \"S\", token_url = \"/token\" }\n",
            ":4: `oauth.token_url` is `/token`, not an http:// or https:// URL",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             oauth = { client_id = \"c\", client_secret_env = \"S\", authorization_servers = [\"login\"] }\n",
            ":4: `oauth.authorization_servers` is `login`, not an http:// or https:// URL",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\nmax_tool_bytes = \"big\"\n",
            ":4: invalid type: string",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\nmax_message_bytes = 1024\n",
            ":1: `max_message_bytes` is for an HTTP upstream",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\npins = { t = \"zz\" }\n",
            "is not a tool fingerprint",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\nsafety = \"harmless\"\n",
            ":4: unknown variant `harmless`",
        ),
    ];
    for (text, expected) in cases {
        // `x` and `y` would not start: a refusal must come from the file, not the spawn.
        assert_refused(&d, "bad.toml", text, &["list"], expected);
    }
    let missing = run(
        &["list", "--config", "/nonexistent/gateway.toml"],
        &d.workspace,
    );
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("cannot read the configuration"));
}

/// `serve --config FILE` with `FILE`'s `[serve]` options, and `extra` arguments after
/// them; the tools an MCP client is offered.
async fn served_tools(config: &Path, root: &Path, extra: &[&str]) -> Vec<String> {
    let (config, root) = (config.to_owned(), root.to_owned());
    let extra: Vec<String> = extra.iter().map(|arg| (*arg).to_owned()).collect();
    let transport =
        TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|command| {
            command
                .arg("serve")
                .arg("--root")
                .arg(&root)
                .arg("--config")
                .arg(&config)
                .args(&extra);
        }))
        .unwrap();
    let client = ().serve(transport).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    client.cancel().await.unwrap();
    tools.iter().map(|t| t.name.to_string()).collect()
}

#[tokio::test]
async fn serve_takes_its_options_from_the_configuration_and_the_command_line_wins() {
    let d = dirs();
    let config = gateway(
        &d.config,
        &d.upstream,
        "tools = { \"read_file\" = \"safe\" }\n\n[serve]\nmax_safety = \"safe\"\n",
    );
    let tools = served_tools(&config, &d.workspace, &[]).await;
    assert!(tools.iter().any(|t| t == "inner_read_file"), "{tools:?}");
    assert!(
        !tools
            .iter()
            .any(|t| t == "inner_write_file" || t == "run_command"),
        "the file's max_safety = safe was not applied: {tools:?}"
    );
    let tools = served_tools(&config, &d.workspace, &["--max-safety", "dangerous"]).await;
    assert!(
        tools.iter().any(|t| t == "inner_write_file"),
        "the command line did not win: {tools:?}"
    );
}

#[test]
fn serve_options_in_the_configuration_are_checked_with_their_line() {
    let d = dirs();
    let cases = [
        (
            "[serve]\nmax_safety = \"harmless\"\n",
            ":2: `[serve]` `max_safety`: invalid value 'harmless'",
        ),
        (
            "\n[serve]\nhtp = \"127.0.0.1:0\"\n",
            ":3: `serve` has no option `htp`; did you mean `http`?",
        ),
        (
            "[serve]\nallow_dangerous = \"yes\"\n",
            ":2: `allow_dangerous` takes true or false, not a string",
        ),
        (
            "[serve]\ntimeout = [1, 2]\n",
            ":2: `timeout` takes one value, not a list",
        ),
        (
            "[serve]\nconfig = \"other.toml\"\n",
            ":2: `[serve]` cannot name another configuration",
        ),
        (
            "[serve]\nallow_origin = [\"https://a\"]\n",
            "required arguments were not provided: --http",
        ),
    ];
    let root = d.workspace.to_str().unwrap().to_owned();
    for (text, expected) in cases {
        assert_refused(
            &d,
            "serve.toml",
            text,
            &["serve", "--root", &root],
            expected,
        );
    }
}
