//! `[upstream.callers]` in a `gateway.toml`: each mistake refused at load with the table's
//! line, and the files of callers' credentials (a file of tokens by principal, the token
//! exchange's client secret) refused when a confined upstream could read them.

use std::path::{Path, PathBuf};

use toolwright_gateway::{Checks, ConfigError, GatewayConfig};

fn config(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("gateway.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn toml_path(path: &Path) -> String {
    format!("{:?}", path.to_str().unwrap())
}

/// The line and message of loading `text` as an upstream's file.
fn refused(text: &str) -> (Option<usize>, String) {
    let dir = tempfile::tempdir().unwrap();
    match GatewayConfig::load(&config(dir.path(), text)).unwrap_err() {
        ConfigError::Invalid { line, message, .. } => (line, message),
        other => panic!("not a mistake of the file: {other:?}"),
    }
}

const HTTP: &str = "[[upstream]]\nnamespace = \"web\"\nurl = \"https://mcp.example.com/mcp\"\n";

#[test]
fn each_mistake_of_callers_names_its_line() {
    let cases = [
        (
            "[upstream.callers]\nprincipal_tokens = \"t.toml\"\n\
             token_exchange = { client_id = \"gw\", client_secret_env = \"S\" }\n",
            "not both",
        ),
        (
            "[upstream.callers]\nmax_sessions = 4\n",
            "needs `token_exchange`",
        ),
        (
            "[upstream.callers]\nidentity_header = \"X Bad\"\n",
            "not an HTTP header name",
        ),
        (
            "[upstream.callers]\nprincipal_tokens = \"t.toml\"\nmax_sessions = 0\n",
            "`callers.max_sessions` is 0",
        ),
        (
            "[upstream.callers]\ntoken_exchange = { client_id = \"gw\" }\n",
            "`callers.token_exchange` needs the client secret",
        ),
        (
            "[upstream.callers]\ntoken_exchange = { client_id = \"gw\", client_secret_env = \"S\", \
             authorization_servers = [\"login.example.com\"] }\n",
            "`callers.token_exchange.authorization_servers` is `login.example.com`",
        ),
        (
            "[upstream.callers]\ntoken_exchange = { client_id = \"gw\", client_secret_env = \"S\", \
             max_cached_tokens = 0 }\n",
            "max_cached_tokens` is 0",
        ),
        (
            "[upstream.callers]\nprincipal_token = \"t.toml\"\n",
            "unknown field `principal_token`",
        ),
    ];
    for (callers, expected) in cases {
        let (line, message) = refused(&format!("{HTTP}{callers}"));
        assert!(message.contains(expected), "{callers}: {message}");
        assert!(line.is_some(), "{callers}: no line");
    }
    // The gateway's OAuth session cannot lend its token to an identity header alone.
    let (_, message) = refused(&format!(
        "{HTTP}oauth = {{ client_id = \"c\", client_secret_env = \"S\" }}\n\
         [upstream.callers]\nidentity_header = \"X-User\"\n"
    ));
    assert!(message.contains("identity_header` alone"), "{message}");
    // Not for a stdio upstream.
    let (_, message) = refused(
        "[[upstream]]\nnamespace = \"local\"\ncommand = \"x\"\n\
         [upstream.callers]\nprincipal_tokens = \"t.toml\"\n",
    );
    assert!(message.contains("`callers` are for"), "{message}");
}

#[test]
fn a_valid_callers_table_loads_with_its_paths_beside_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = config(
        dir.path(),
        &format!(
            "{HTTP}token_file = \"gateway.token\"\n[upstream.callers]\n\
             principal_tokens = \"tokens.toml\"\nidentity_header = \"X-Forwarded-User\"\n\
             max_sessions = 8\n"
        ),
    );
    let config = GatewayConfig::load(&path).unwrap();
    let files: Vec<PathBuf> = config
        .secret_files(None)
        .into_iter()
        .map(|(_, file)| file)
        .collect();
    assert!(files.contains(&dir.path().join("tokens.toml")), "{files:?}");
}

#[test]
fn a_confined_upstream_that_could_read_callers_credentials_is_refused() {
    for (key, what) in [
        (
            "principal_tokens = {}\n",
            "the upstream file of tokens by principal (in --config)",
        ),
        (
            "token_exchange = {{ client_id = \"gw\", client_secret_file = {} }}\n",
            "the upstream token exchange client secret file (in --config)",
        ),
    ] {
        let granted = tempfile::tempdir().unwrap();
        let secret = granted.path().join("callers.secret");
        std::fs::write(&secret, "alice = \"t\"\n").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let callers = key
            .replace("{}", &toml_path(&secret))
            .replace("{{", "{")
            .replace("}}", "}");
        let path = config(
            dir.path(),
            &format!(
                "[[upstream]]\nnamespace = \"hostile\"\ncommand = \"x\"\nsandbox = {{ read = [{}] }}\n\
                 {HTTP}[upstream.callers]\n{callers}",
                toml_path(granted.path()),
            ),
        );
        let error = Checks::new().flag("--config").load(&path).unwrap_err();
        assert!(error.to_string().contains(what), "{key}: {error}");
    }
}
