//! `limits = { ... }` of a confined stdio upstream: nonsense is refused with the key and the
//! line, and what is given reaches the kernel's limits of the started program.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolwright_gateway::{ConfigError, GatewayConfig};
use toolwright_runtime::ToolRegistry;

/// A directory with `gateway.toml` holding `text`; its path.
fn config(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("gateway.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn invalid(error: ConfigError) -> (Option<usize>, String) {
    match error {
        ConfigError::Invalid { line, message, .. } => (line, message),
        other => panic!("not a mistake of the file: {other:?}"),
    }
}

const UPSTREAM: &str = "[[upstream]]\nnamespace = \"a\"\ncommand = \"python3\"\n\n";

#[test]
fn nonsense_limits_are_refused_with_the_key_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "limits = { memory = \"512XB\" }",
            "`limits.memory`",
            "`512XB` is not a size",
        ),
        (
            "limits = { write = \"0MiB\" }",
            "`limits.write`",
            "above zero",
        ),
        ("limits = { memory = -5 }", "`limits.memory`", "above zero"),
        (
            "limits = { processes = 0 }",
            "`limits.processes`",
            "above zero",
        ),
        (
            "limits = { processes = -1 }",
            "`limits.processes`",
            "above zero",
        ),
        (
            "limits = { processes = \"many\" }",
            "`limits.processes`",
            "whole number",
        ),
        ("limits = { cpu = -1.0 }", "`limits.cpu`", "above zero"),
        (
            "limits = { cpu_time = 0 }",
            "`limits.cpu_time`",
            "above zero",
        ),
    ];
    for (limits, key, said) in cases {
        let path = config(dir.path(), &format!("{UPSTREAM}{limits}\n"));
        let (line, message) = invalid(GatewayConfig::load(&path).unwrap_err());
        assert_eq!(line, Some(5), "{limits}: {message}");
        assert!(message.contains(key), "{limits}: {message}");
        assert!(message.contains(said), "{limits}: {message}");
    }
    // An unknown limit is a mistake of its own line too.
    let path = config(
        dir.path(),
        &format!("{UPSTREAM}limits = {{ memroy = \"1GiB\" }}\n"),
    );
    let (line, message) = invalid(GatewayConfig::load(&path).unwrap_err());
    assert_eq!(line, Some(5), "{message}");
    assert!(message.contains("memroy"), "{message}");
}

#[test]
fn limits_are_only_for_a_confined_stdio_upstream() {
    let dir = tempfile::tempdir().unwrap();
    for upstream in [
        "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\nunconfined = true\n",
        "[[upstream]]\nnamespace = \"a\"\nurl = \"http://127.0.0.1:1/mcp\"\n",
    ] {
        let path = config(
            dir.path(),
            &format!("{upstream}limits = {{ memory = \"1GiB\" }}\n"),
        );
        let (_, message) = invalid(GatewayConfig::load(&path).unwrap_err());
        assert!(message.contains("`limits`"), "{message}");
    }
    let path = config(
        dir.path(),
        &format!(
            "{UPSTREAM}limits = {{ memory = \"512MiB\", cpu = 1.0, cpu_time = 60, processes = \
             128, write = 268435456 }}\n"
        ),
    );
    GatewayConfig::load(&path).unwrap();
}

#[tokio::test]
async fn an_upstreams_limits_reach_the_kernel() {
    // Not an MCP server: it writes the limits it runs under to its directory and exits.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let script = "import resource, sys\n\
        limits = [resource.getrlimit(r)[0] for r in (resource.RLIMIT_FSIZE, resource.RLIMIT_CPU)]\n\
        open(sys.argv[1] + '/limits', 'w').write(' '.join(map(str, limits)))\n";
    let text = format!(
        "[[upstream]]\nnamespace = \"a\"\ncommand = \"python3\"\nargs = [\"-c\", {script:?}, {out:?}]\n\
         sandbox = {{ write = [{out:?}] }}\n\
         limits = {{ write = \"1MiB\", cpu_time = 7, processes = 300 }}\n",
        out = out.to_str().unwrap(),
    );
    let path = config(dir.path(), &text);
    let config = GatewayConfig::load(&path).unwrap();
    let registry = Arc::new(ToolRegistry::new());
    assert!(config.mount_all(&registry).await.is_err());
    let written = std::fs::read_to_string(out.join("limits")).unwrap();
    assert_eq!(written, format!("{} 7", 1 << 20));
}
