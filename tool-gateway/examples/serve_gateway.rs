//! A gateway in a few lines of Rust: load `gateway.toml`, run the pre-start checks the
//! `toolwright serve --config` command runs, mount every upstream into a registry, and
//! serve it over MCP on stdio under an executor's policy.
//!
//! ```text
//! # connect, mount, print the mounted tools and exit (what CI runs):
//! PATH="$PWD/target/debug:$PATH" cargo run -p toolwright-gateway --example serve_gateway -- --check
//! # serve over stdio (an MCP client starts this):
//! cargo run -p toolwright-gateway --example serve_gateway -- [CONFIG]
//! ```
//!
//! CONFIG defaults to `tool-gateway/examples/gateway.toml`, which mounts `toolwright serve`.

use std::path::PathBuf;
use std::sync::Arc;

use toolwright_core::SafetyLevel;
use toolwright_gateway::{Checks, Mount};
use toolwright_mcp::McpServer;
use toolwright_runtime::{Executor, ToolRegistry};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut check = false;
    let mut config = None;
    for arg in std::env::args_os().skip(1) {
        match arg.to_str() {
            Some("--check") => check = true,
            _ => config = Some(PathBuf::from(arg)),
        }
    }
    let config = config
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/gateway.toml"));

    // Everything is checked before anything starts: the file (each mistake with its line),
    // the paths an upstream could replace, the secrets a confined upstream could read. A
    // program that serves tools of a workspace, writes an audit log or reads tokens names
    // them here too (`Checks::workspace`, `audit_log`, `secret`).
    let checks = Checks::new();
    checks.refuse_secrets_readable_by_tools()?;
    let config = checks.load(&config)?;

    let registry = Arc::new(ToolRegistry::new());
    let mut mounts: Vec<Arc<Mount>> = Vec::new();
    for upstream in config.upstreams() {
        let mount = upstream.mount(&registry).await?;
        if !mount.report().is_clean() {
            eprintln!("upstream `{}`: {}", upstream.namespace(), mount.report());
        }
        mounts.push(Arc::new(mount));
    }

    if check {
        let mut names = registry.names();
        names.sort();
        for name in &names {
            println!("{name}");
        }
        eprintln!(
            "{} tools mounted from {} upstreams",
            names.len(),
            mounts.len()
        );
        for mount in &mounts {
            mount.upstream().close().await;
        }
        return Ok(());
    }

    // Keep each mount in step with its upstream's `tools/list_changed`.
    for mount in &mounts {
        let namespace = mount.options().namespace().to_owned();
        mount.follow(move |report| match report {
            Ok(report) if !report.is_clean() => eprintln!("upstream `{namespace}`: {report}"),
            Ok(_) => {}
            Err(error) => eprintln!("upstream `{namespace}`: re-listing failed: {error}"),
        });
    }
    let executor = Executor::builder(registry)
        .max_safety(SafetyLevel::Dangerous)
        .build();
    McpServer::new(executor)
        .name("serve-gateway", env!("CARGO_PKG_VERSION"))
        .serve_stdio()
        .await?;
    Ok(())
}
