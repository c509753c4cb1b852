//! Mount an MCP server's tools into a registry and export them to OpenAI, Anthropic and
//! Gemini formats, under our policy.
//!
//! ```text
//! # the toolwright command's standard tools, in a temporary directory, confined:
//! TOOLWRIGHT_BIN=target/debug/toolwright cargo run -p toolwright-gateway --example mount
//! # without it, an upstream in this process (our own McpServer over a duplex stream):
//! cargo run -p toolwright-gateway --example mount
//! ```

use std::sync::Arc;

use serde_json::{Map, Value, json};
use toolwright_core::{SafetyLevel, Tool};
use toolwright_formats::schema::{Format, tools_to_schema};
use toolwright_gateway::UpstreamError;
use toolwright_gateway::upstream::{MountOptions, MountUpstream, Upstream};
use toolwright_mcp::McpServer;
use toolwright_runtime::{Executor, ToolFilter, ToolRegistry};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Kept until the end: the upstream works in it.
    let root = tempfile::tempdir()?;
    let (upstream, namespace) = match std::env::var_os("TOOLWRIGHT_BIN") {
        Some(bin) => {
            let args = [
                std::ffi::OsString::from("serve"),
                "--root".into(),
                root.path().into(),
            ];
            // Confined as `run_command`'s commands are: the server sees the system, its
            // program (read-only) and its root, and has no network.
            let program = std::fs::canonicalize(&bin)?;
            let sandbox = toolwright_std::sandbox::Sandbox::new()
                .read(program.parent().unwrap_or(&program))
                .write(root.path());
            let upstream = Upstream::stdio(program, args)
                .prepare(move |command| sandbox.confine(command).map_err(std::io::Error::other))
                .connect()
                .await?;
            (upstream, "std")
        }
        None => (in_process().await?, "demo"),
    };
    println!(
        "upstream: {} ({})",
        upstream.server_name(),
        upstream.label()
    );

    let registry = Arc::new(ToolRegistry::new());
    // Read-only tools of a trusted upstream are safe; every other tool stays dangerous,
    // so the executor asks before it runs one (and refuses without an approval handler).
    let mount = registry
        .mount(&upstream, MountOptions::new(namespace).trusted(true))
        .await?;
    print!("{}", mount.report());

    let tools: Vec<Tool> = registry.list(&ToolFilter::default());
    for (format, label) in [
        (Format::OpenAiChat, "OpenAI"),
        (Format::Anthropic, "Anthropic"),
        (Format::Gemini, "Gemini"),
    ] {
        let exported = tools_to_schema(&tools, format);
        let names: Vec<&str> = exported.iter().filter_map(exported_name).collect();
        println!("{label}: {}", names.join(", "));
    }

    for tool in mount.tools() {
        println!(
            "{} -> upstream `{}`: {}",
            tool.name, tool.upstream_name, tool.safety
        );
    }
    upstream.close().await;
    Ok(())
}

/// The tool's name in an exported definition, whatever the format's shape.
fn exported_name(definition: &Value) -> Option<&str> {
    definition
        .get("name")
        .or_else(|| definition.get("function").and_then(|f| f.get("name")))
        .and_then(Value::as_str)
}

/// Our own server with two tools, in this process, as an upstream.
async fn in_process() -> Result<Upstream, UpstreamError> {
    let registry = Arc::new(ToolRegistry::new());
    let echo = Tool::builder("echo")
        .description("Echo the text back.")
        .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
        .handler(|args: Map<String, Value>| async move {
            args.get("text").and_then(Value::as_str).unwrap_or_default().to_owned()
        })
        .build();
    let wipe = Tool::builder("wipe")
        .description("Pretend to delete everything.")
        .safety(SafetyLevel::Dangerous)
        .handler(|_| async { "nothing was deleted" })
        .build();
    for tool in [echo, wipe].into_iter().flatten() {
        let _ = registry.register(tool);
    }
    let server = McpServer::new(Executor::builder(registry).build());
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        use rmcp::ServiceExt;
        if let Ok(running) = server.serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    Upstream::connect_transport("in-process", tokio::io::split(client_io)).await
}
