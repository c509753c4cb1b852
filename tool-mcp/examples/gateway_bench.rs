//! The gateway's cost: `tools/call` of a trivial upstream tool through `toolwright serve
//! --config` against the same call made directly to the upstream, over stdio and over
//! streamable HTTP, from 1 and 16 clients, in one run (`benches/gateway.sh`, BENCHMARKS.md).
//!
//! ```text
//! # the upstream alone: one safe tool, `echo`, over stdio or HTTP
//! gateway_bench upstream
//! gateway_bench upstream --http 127.0.0.1:0      # prints its http://127.0.0.1:PORT/mcp
//! # the benchmark: M calls per client after W warm-up calls, R rounds (direct and gateway
//! # alternate), against the given toolwright
//! gateway_bench run --toolwright target/release/toolwright [--calls M] [--warmup W]
//!     [--rounds R] [--clients 1,16] [--transports stdio,http]
//! ```
//!
//! Over stdio every client starts its own process: the upstream (direct), or `toolwright
//! serve --config` mounting the upstream over stdio (gateway; so two processes per
//! client). Over HTTP one upstream serves everyone (direct), or one `toolwright serve --http
//! --config` mounting that upstream over HTTP stands in front of it (gateway). Each client
//! is an rmcp client on its own connection making one call at a time; a call's latency is
//! from sending `tools/call` to its result. Throughput is all calls over the wall time from
//! the moment every client is connected and warm to the last result.
//!
//! Prints one JSON line per measurement and a markdown table. Never asserts a time: `run`
//! fails only when a call fails or a process does not start within its deadline.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use toolwright_core::{SafetyLevel, Tool};
use toolwright_mcp::McpServer;
use toolwright_runtime::{Executor, ToolRegistry};

type Error = Box<dyn std::error::Error + Send + Sync>;
type Client = RunningService<rmcp::RoleClient, ()>;

/// How long a process may take to start and say where it listens, and a client to connect.
const START_DEADLINE: Duration = Duration::from_secs(120);
/// How long one call may take before the run fails (never a measurement's limit).
const CALL_DEADLINE: Duration = Duration::from_secs(60);
/// The namespace the gateway mounts the upstream under.
const NAMESPACE: &str = "bench";

#[tokio::main]
async fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("upstream") => upstream(&args[1..]).await,
        Some("run") => run(Options::parse(&args[1..])?).await,
        _ => {
            Err("usage: gateway_bench upstream [--http ADDR] | run --toolwright PATH [...]".into())
        }
    }
}

/// The trivial upstream: one safe tool that answers its `text` argument.
async fn upstream(args: &[String]) -> Result<(), Error> {
    let registry = Arc::new(ToolRegistry::new());
    registry.register(
        Tool::builder("echo")
            .description("Answer the text given.")
            .safety(SafetyLevel::Safe)
            .input_schema(json!({
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"]
            }))
            .handler(|args: Map<String, Value>| async move {
                args.get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            })
            .build()?,
    )?;
    let server = McpServer::new(Executor::builder(registry).build()).name("echo-upstream", "1");
    match args {
        [] => Ok(server.serve_stdio().await?),
        [flag, addr] if flag == "--http" => {
            let http = server.serve_http(addr.parse()?).await?;
            println!("echo upstream listening on {}", http.url());
            Ok(http.wait().await?)
        }
        _ => Err("usage: gateway_bench upstream [--http ADDR]".into()),
    }
}

struct Options {
    toolwright: PathBuf,
    calls: usize,
    warmup: usize,
    rounds: usize,
    clients: Vec<usize>,
    transports: Vec<String>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Self, Error> {
        let mut options = Options {
            toolwright: PathBuf::new(),
            calls: 2000,
            warmup: 50,
            rounds: 3,
            clients: vec![1, 16],
            transports: vec!["stdio".to_owned(), "http".to_owned()],
        };
        let mut rest = args.iter();
        while let Some(flag) = rest.next() {
            let value = rest.next().ok_or_else(|| format!("{flag} needs a value"))?;
            match flag.as_str() {
                "--toolwright" => options.toolwright = PathBuf::from(value),
                "--calls" => options.calls = value.parse()?,
                "--warmup" => options.warmup = value.parse()?,
                "--rounds" => options.rounds = value.parse()?,
                "--clients" => {
                    options.clients = value.split(',').map(str::parse).collect::<Result<_, _>>()?;
                }
                "--transports" => {
                    options.transports = value.split(',').map(str::to_owned).collect();
                }
                other => return Err(format!("unknown option {other}").into()),
            }
        }
        if options.toolwright.as_os_str().is_empty() {
            return Err("give --toolwright PATH".into());
        }
        if options.calls == 0 || options.rounds == 0 || options.clients.contains(&0) {
            return Err("--calls, --rounds and each of --clients must be at least 1".into());
        }
        for transport in &options.transports {
            if transport != "stdio" && transport != "http" {
                return Err(format!("unknown transport {transport} (stdio, http)").into());
            }
        }
        Ok(options)
    }
}

/// One measured cell: all rounds of one (transport, path, clients) pooled.
#[derive(Default)]
struct Cell {
    latencies: Vec<Duration>,
    calls: usize,
    wall: Duration,
}

impl Cell {
    fn percentile(&self, p: f64) -> Duration {
        let mut sorted = self.latencies.clone();
        sorted.sort_unstable();
        let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
        sorted[rank.clamp(1, sorted.len()) - 1]
    }

    fn throughput(&self) -> f64 {
        self.calls as f64 / self.wall.as_secs_f64()
    }
}

/// How a client reaches the tool.
#[derive(Clone)]
enum Target {
    /// Each client starts `program args...` and talks to it over stdio.
    Spawn { program: PathBuf, args: Vec<String> },
    /// Each client connects to this streamable HTTP endpoint.
    Http(String),
}

async fn run(options: Options) -> Result<(), Error> {
    let me = std::env::current_exe()?;
    let work = tempfile::tempdir()?;
    // The gateway's workspace, apart from its configuration (serve refuses a configuration
    // its own tools could read).
    let root = work.path().join("root");
    std::fs::create_dir(&root)?;
    let mut processes = Vec::new();
    let mut rows = Vec::new();

    for transport in &options.transports {
        let (direct, gateway) = if transport == "stdio" {
            let config = work.path().join("stdio.toml");
            std::fs::write(
                &config,
                // Confined, as `toolwright` runs a stdio upstream by default: it sees its
                // own program's directory.
                format!(
                    "[[upstream]]\nnamespace = \"{NAMESPACE}\"\ncommand = {}\nargs = [\"upstream\"]\ntools = {{ \"echo\" = \"safe\" }}\nsandbox = {{ read = [{}] }}\n",
                    toml_string(&me),
                    toml_string(me.parent().unwrap_or(&me))
                ),
            )?;
            (
                Target::Spawn {
                    program: me.clone(),
                    args: vec!["upstream".to_owned()],
                },
                Target::Spawn {
                    program: options.toolwright.clone(),
                    args: vec![
                        "serve".to_owned(),
                        "--root".to_owned(),
                        root.display().to_string(),
                        "--config".to_owned(),
                        config.display().to_string(),
                    ],
                },
            )
        } else {
            let (upstream, url) = start_http(&me, &["upstream", "--http", "127.0.0.1:0"]).await?;
            processes.push(upstream);
            let config = work.path().join("http.toml");
            std::fs::write(
                &config,
                format!(
                    "[[upstream]]\nnamespace = \"{NAMESPACE}\"\nurl = {}\ntools = {{ \"echo\" = \"safe\" }}\n",
                    toml_string(Path::new(&url))
                ),
            )?;
            let root = root.display().to_string();
            let config = config.display().to_string();
            let (gateway, gateway_url) = start_http(
                &options.toolwright,
                &[
                    "serve",
                    "--http",
                    "127.0.0.1:0",
                    "--root",
                    &root,
                    "--config",
                    &config,
                ],
            )
            .await?;
            processes.push(gateway);
            (Target::Http(url), Target::Http(gateway_url))
        };
        for &clients in &options.clients {
            let mut cells = [Cell::default(), Cell::default()];
            for _ in 0..options.rounds {
                for (index, (target, tool)) in [
                    (&direct, "echo".to_owned()),
                    (&gateway, format!("{NAMESPACE}_echo")),
                ]
                .into_iter()
                .enumerate()
                {
                    let round = measure(target, &tool, clients, &options).await?;
                    let cell = &mut cells[index];
                    cell.latencies.extend(round.latencies);
                    cell.calls += round.calls;
                    cell.wall += round.wall;
                }
            }
            for (path, cell) in ["direct", "gateway"].iter().zip(&cells) {
                println!(
                    "{}",
                    json!({
                        "transport": transport, "path": path, "clients": clients,
                        "calls": cell.calls, "rounds": options.rounds,
                        "calls_per_s": cell.throughput(),
                        "p50_ms": ms(cell.percentile(50.0)), "p99_ms": ms(cell.percentile(99.0)),
                    })
                );
            }
            rows.push((transport.clone(), clients, cells));
        }
    }
    for mut process in processes {
        let _ = process.kill().await;
    }

    println!();
    println!(
        "| transport | clients | direct p50 ms | gateway p50 ms | added p50 ms | direct p99 ms | gateway p99 ms | added p99 ms | direct calls/s | gateway calls/s | throughput gateway/direct |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (transport, clients, [direct, gateway]) in &rows {
        let (d50, g50) = (ms(direct.percentile(50.0)), ms(gateway.percentile(50.0)));
        let (d99, g99) = (ms(direct.percentile(99.0)), ms(gateway.percentile(99.0)));
        println!(
            "| {transport} | {clients} | {d50:.3} | {g50:.3} | {:+.3} | {d99:.3} | {g99:.3} | {:+.3} | {:.0} | {:.0} | {:.2}x |",
            g50 - d50,
            g99 - d99,
            direct.throughput(),
            gateway.throughput(),
            gateway.throughput() / direct.throughput(),
        );
    }
    Ok(())
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn toml_string(path: &Path) -> String {
    serde_json::to_string(&path.display().to_string()).unwrap_or_default()
}

/// Starts `program args...` and waits for it to print an `http://127.0.0.1:PORT/mcp` URL
/// (on stdout or stderr); both streams are read to the end afterwards so the pipes never
/// fill.
async fn start_http(
    program: &Path,
    args: &[&str],
) -> Result<(tokio::process::Child, String), Error> {
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let (found, mut url) = tokio::sync::mpsc::channel::<String>(2);
    for stream in [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Unpin + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Unpin + Send>),
    ]
    .into_iter()
    .flatten()
    {
        let found = found.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stream).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(start) = line.find("http://127.0.0.1:") {
                    let rest = &line[start..];
                    let end = rest.find("/mcp").map_or(rest.len(), |i| i + 4);
                    let _ = found.try_send(rest[..end].to_owned());
                }
            }
        });
    }
    drop(found);
    match tokio::time::timeout(START_DEADLINE, url.recv()).await {
        Ok(Some(url)) => Ok((child, url)),
        Ok(None) => Err(format!("{} exited without printing its URL", program.display()).into()),
        Err(_) => Err(format!(
            "{} printed no URL within {START_DEADLINE:?}",
            program.display()
        )
        .into()),
    }
}

async fn connect(target: &Target) -> Result<Client, Error> {
    let client = match target {
        Target::Spawn { program, args } => {
            let mut command = tokio::process::Command::new(program);
            command.args(args).stderr(Stdio::null());
            tokio::time::timeout(START_DEADLINE, ().serve(TokioChildProcess::new(command)?))
                .await??
        }
        Target::Http(url) => {
            tokio::time::timeout(
                START_DEADLINE,
                ().serve(StreamableHttpClientTransport::from_uri(url.clone())),
            )
            .await??
        }
    };
    Ok(client)
}

async fn call(client: &Client, tool: &str, n: usize) -> Result<(), Error> {
    let text = format!("call {n}");
    let mut arguments = Map::new();
    arguments.insert("text".to_owned(), Value::String(text.clone()));
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    let result = tokio::time::timeout(CALL_DEADLINE, client.call_tool(params)).await??;
    let answered = result
        .content
        .first()
        .and_then(|block| block.as_text())
        .is_some_and(|block| block.text == text);
    if result.is_error == Some(true) || !answered {
        return Err(format!("{tool} answered {result:?}").into());
    }
    Ok(())
}

/// One round: `clients` clients connect and warm up, then all make `options.calls` calls
/// at once, one at a time each.
async fn measure(
    target: &Target,
    tool: &str,
    clients: usize,
    options: &Options,
) -> Result<Cell, Error> {
    let mut connected = Vec::with_capacity(clients);
    for _ in 0..clients {
        let client = connect(target).await?;
        for n in 0..options.warmup {
            call(&client, tool, n).await?;
        }
        connected.push(client);
    }
    let start = Arc::new(tokio::sync::Barrier::new(clients + 1));
    let mut tasks = Vec::with_capacity(clients);
    for client in connected {
        let start = Arc::clone(&start);
        let tool = tool.to_owned();
        let calls = options.calls;
        tasks.push(tokio::spawn(async move {
            start.wait().await;
            let mut latencies = Vec::with_capacity(calls);
            for n in 0..calls {
                let began = Instant::now();
                call(&client, &tool, n).await?;
                latencies.push(began.elapsed());
            }
            Ok::<_, Error>((latencies, Instant::now(), client))
        }));
    }
    start.wait().await;
    let began = Instant::now();
    let mut cell = Cell::default();
    let mut last = began;
    let mut done = Vec::with_capacity(clients);
    for task in tasks {
        let (latencies, finished, client) = task.await??;
        cell.latencies.extend(latencies);
        last = last.max(finished);
        done.push(client);
    }
    cell.wall = last - began;
    cell.calls = cell.latencies.len();
    // Closed once every client is done, outside the time measured.
    for client in done {
        let _ = client.cancel().await;
    }
    Ok(cell)
}
