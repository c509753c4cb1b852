//! The gateway configuration as a library: loading errors name the file and line, and each
//! pre-start refusal a program calls (or `Checks::load` runs) refuses what the CLI refuses.

use std::path::{Path, PathBuf};

use toolwright_gateway::{Checks, ConfigError, GatewayConfig};

/// A directory with `gateway.toml` holding `text`; its path.
fn config(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("gateway.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A TOML path (quoted, escaped).
fn toml_path(path: &Path) -> String {
    format!("{:?}", path.to_str().unwrap())
}

fn invalid(error: ConfigError) -> (Option<usize>, String) {
    match error {
        ConfigError::Invalid { line, message, .. } => (line, message),
        other => panic!("not a mistake of the file: {other:?}"),
    }
}

#[test]
fn a_toml_mistake_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = config(
        dir.path(),
        "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\nunconfined = true\nsafety = \"harmless\"\n",
    );
    let error = GatewayConfig::load(&path).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with(&format!("{}:5: ", path.display())),
        "{error}"
    );
    let (line, _) = invalid(error);
    assert_eq!(line, Some(5));
}

#[test]
fn an_unknown_key_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = config(
        dir.path(),
        "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\nunconfined = true\ncomand = \"y\"\n",
    );
    let (line, message) = invalid(GatewayConfig::load(&path).unwrap_err());
    assert_eq!(line, Some(5), "{message}");
}

#[test]
fn an_upstream_mistake_names_the_upstream_s_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = config(
        dir.path(),
        "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\nunconfined = true\n\n\
         [[upstream]]\nnamespace = \"b\"\n",
    );
    let (line, message) = invalid(GatewayConfig::load(&path).unwrap_err());
    assert_eq!(line, Some(6));
    assert!(message.contains("needs a `command`"), "{message}");
}

#[test]
fn a_namespace_used_twice_names_both_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = config(
        dir.path(),
        "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\nunconfined = true\n\
         [[upstream]]\nnamespace = \"a\"\ncommand = \"y\"\nunconfined = true\n",
    );
    let (line, message) = invalid(GatewayConfig::load(&path).unwrap_err());
    assert_eq!(line, Some(5));
    assert!(
        message.contains(&format!("already used at {}:1", path.display())),
        "{message}"
    );
}

#[test]
fn an_oauth_mistake_names_the_oauth_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = config(
        dir.path(),
        "[[upstream]]\nnamespace = \"web\"\nurl = \"https://mcp.example.com/mcp\"\n\
         oauth = { client_id = \"c\", client_secret_env = \"S\", scopes = [\"a b\"] }\n",
    );
    let (line, message) = invalid(GatewayConfig::load(&path).unwrap_err());
    assert_eq!(line, Some(4));
    assert!(message.contains("`oauth.scopes` has `a b`"), "{message}");
}

#[test]
fn a_missing_file_is_a_read_error() {
    let dir = tempfile::tempdir().unwrap();
    let error = GatewayConfig::load(&dir.path().join("none.toml")).unwrap_err();
    assert!(matches!(error, ConfigError::Read { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .starts_with("cannot read the configuration")
    );
}

#[test]
fn relative_paths_are_taken_from_the_file_s_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    // `data` exists beside the file, not in the current directory: a grant that resolves
    // is one taken from the file's directory.
    let path = config(
        dir.path(),
        "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\nsandbox = { read = [\"data\"] }\n",
    );
    let config = GatewayConfig::load(&path).unwrap();
    assert_eq!(config.upstreams().count(), 1);
}

#[test]
fn a_path_beneath_what_another_upstream_writes_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("shared");
    std::fs::create_dir_all(shared.join("inner")).unwrap();
    let path = config(
        dir.path(),
        &format!(
            "[[upstream]]\nnamespace = \"writer\"\ncommand = \"x\"\nsandbox = {{ write = [{}] }}\n\
             [[upstream]]\nnamespace = \"reader\"\ncommand = \"y\"\nsandbox = {{ read = [{}] }}\n",
            toml_path(&shared),
            toml_path(&shared.join("inner")),
        ),
    );
    let (line, message) = invalid(GatewayConfig::load(&path).unwrap_err());
    assert_eq!(line, Some(5));
    assert!(
        message.contains("the upstream `writer` may write"),
        "{message}"
    );
}

#[test]
fn the_configuration_readable_by_a_confined_upstream_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = config(
        dir.path(),
        &format!(
            "[[upstream]]\nnamespace = \"hostile\"\ncommand = \"x\"\nsandbox = {{ read = [{}] }}\n",
            toml_path(dir.path()),
        ),
    );
    match GatewayConfig::load(&path).unwrap_err() {
        ConfigError::ExposedToUpstream { what, upstream, .. } => {
            assert_eq!(what, "gateway configuration");
            assert_eq!(upstream, "hostile");
        }
        other => panic!("{other:?}"),
    }
}

/// A configuration whose confined upstream `hostile` may read `granted`, kept elsewhere.
fn granting(granted: &Path) -> (tempfile::TempDir, GatewayConfig) {
    let dir = tempfile::tempdir().unwrap();
    let path = config(
        dir.path(),
        &format!(
            "[[upstream]]\nnamespace = \"hostile\"\ncommand = \"x\"\nsandbox = {{ read = [{}] }}\n",
            toml_path(granted),
        ),
    );
    let config = GatewayConfig::load(&path).unwrap();
    (dir, config)
}

#[test]
fn a_secret_readable_by_a_confined_upstream_is_refused() {
    let granted = tempfile::tempdir().unwrap();
    let token = granted.path().join("token");
    std::fs::write(&token, "secret").unwrap();
    let (_dir, config) = granting(granted.path());
    let error = config
        .refuse_exposed_to_upstreams("token file", &token)
        .unwrap_err();
    assert!(
        matches!(error, ConfigError::ExposedToUpstream { .. }),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .contains("readable by the upstream `hostile`")
    );
    // Elsewhere, nothing to refuse.
    let elsewhere = tempfile::tempdir().unwrap();
    config
        .refuse_exposed_to_upstreams("token file", &elsewhere.path().join("token"))
        .unwrap();
}

#[test]
fn an_audit_log_a_confined_upstream_could_see_is_refused() {
    let granted = tempfile::tempdir().unwrap();
    let (_dir, config) = granting(granted.path());
    let error = config
        .refuse_audit_log_exposed(&granted.path().join("audit.jsonl"))
        .unwrap_err();
    assert!(error.to_string().contains("the audit log"), "{error}");
}

#[test]
fn an_upstream_token_file_a_confined_upstream_could_read_is_refused() {
    let granted = tempfile::tempdir().unwrap();
    let token = granted.path().join("web.token");
    std::fs::write(&token, "secret").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = config(
        dir.path(),
        &format!(
            "[[upstream]]\nnamespace = \"hostile\"\ncommand = \"x\"\nsandbox = {{ read = [{}] }}\n\
             [[upstream]]\nnamespace = \"web\"\nurl = \"https://mcp.example.com/mcp\"\ntoken_file = {}\n",
            toml_path(granted.path()),
            toml_path(&token),
        ),
    );
    let error = Checks::new().flag("--config").load(&path).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the upstream token file (in --config)"),
        "{error}"
    );
}

#[test]
fn checks_refuse_a_secret_or_the_configuration_the_tools_could_read() {
    let root = tempfile::tempdir().unwrap();
    let workspace = toolwright_std::Workspace::new(root.path()).unwrap();
    let token = root.path().join("tokens");
    std::fs::write(&token, "secret").unwrap();
    let checks = Checks::new()
        .workspace(&workspace)
        .secret("token file (--auth-token-file)", &token);
    match checks.refuse_secrets_readable_by_tools().unwrap_err() {
        ConfigError::ReadableByTools {
            what, in_workspace, ..
        } => {
            assert_eq!(what, "token file (--auth-token-file)");
            assert!(in_workspace);
        }
        other => panic!("{other:?}"),
    }
    let path = config(
        root.path(),
        "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\nunconfined = true\n",
    );
    let error = Checks::new()
        .workspace(&workspace)
        .flag("--config")
        .load(&path)
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("refusing to serve: the gateway configuration (--config)"),
        "{error}"
    );
}

#[test]
fn checks_refuse_a_secret_a_confined_upstream_could_read() {
    let granted = tempfile::tempdir().unwrap();
    let token = granted.path().join("tokens");
    std::fs::write(&token, "secret").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = config(
        dir.path(),
        &format!(
            "[[upstream]]\nnamespace = \"hostile\"\ncommand = \"x\"\nsandbox = {{ read = [{}] }}\n",
            toml_path(granted.path()),
        ),
    );
    let error = Checks::new()
        .secret("token file", &token)
        .load(&path)
        .unwrap_err();
    assert!(
        matches!(error, ConfigError::ExposedToUpstream { .. }),
        "{error:?}"
    );
}

#[test]
fn the_pins_of_prompts_and_resources_are_checked_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let fine = format!(
        "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\nunconfined = true\nprimitives = true\n\
         read_safety = \"cautious\"\nprompt_pins = {{ \"greet\" = \"{}\" }}\n\
         resource_pins = {{ \"demo://static/1\" = \"{}\" }}\n",
        "ab".repeat(32),
        "cd".repeat(32)
    );
    let path = config(dir.path(), &fine);
    let loaded = GatewayConfig::load(&path).unwrap();
    let upstream = loaded.upstreams().next().unwrap();
    assert_eq!(upstream.mount_options().unwrap().namespace(), "a");
    let path = config(
        dir.path(),
        "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\nunconfined = true\n\
         resource_pins = { \"demo://static/1\" = \"not-hex\" }\n",
    );
    let (line, message) = invalid(GatewayConfig::load(&path).unwrap_err());
    assert_eq!(line, Some(1), "{message}");
    assert!(
        message.contains("the pin of the resource `demo://static/1`"),
        "{message}"
    );
}
