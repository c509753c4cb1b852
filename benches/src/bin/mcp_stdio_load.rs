//! A client for MCP servers over stdio, used by `serve_http.sh`.
//!
//! Usage:
//! - `mcp_stdio_load startup SPAWNS [--label NAME] -- COMMAND [ARGS...]`: SPAWNS times,
//!   spawns the server and sends `initialize` at once; prints one JSON line with the
//!   median, fastest and slowest time from the spawn to the `initialize` reply.
//! - `mcp_stdio_load calls SECONDS IN_FLIGHT [--label NAME] -- COMMAND [ARGS...]`: spawns the
//!   server, initializes one session, then sends `tools/call calculate {"expression": "1+2"}`
//!   for SECONDS, keeping IN_FLIGHT calls unanswered at a time (1: one after another);
//!   prints one JSON line: calls per second, p50 and p99 latency, and the server's resident
//!   memory afterwards.
//!
//! The server's standard error is kept and shown if it fails.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use benches::serving::{
    calculate_call, check_calculate_answer, initialize, initialized, labelled, latency_summary,
    message_id, rss_kib,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Semaphore;

/// The longest wait for any one answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a server gets to exit once its input is closed, before it is killed.
const EXIT_TIMEOUT: Duration = Duration::from_secs(5);

struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Server {
    fn spawn(command: &[String]) -> Result<Self, String> {
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", command[0]))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let lines = BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
        let mut err = child.stderr.take().ok_or("no stderr")?;
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let kept = stderr.clone();
        tokio::spawn(async move {
            let mut buffer = [0; 4096];
            while let Ok(n @ 1..) = err.read(&mut buffer).await {
                kept.lock().unwrap().extend_from_slice(&buffer[..n]);
            }
        });
        Ok(Server {
            child,
            stdin,
            lines,
            stderr,
        })
    }

    /// An error message, with the end of what the server wrote to standard error.
    fn failure(&self, what: impl std::fmt::Display) -> String {
        failure(&self.stderr, what)
    }

    async fn send(&mut self, message: &Value) -> Result<(), String> {
        let line = format!("{message}\n");
        match self.stdin.write_all(line.as_bytes()).await {
            Ok(()) => self.stdin.flush().await.map_err(|e| self.failure(e)),
            Err(e) => Err(self.failure(format!("writing to the server: {e}"))),
        }
    }

    /// The next message from the server.
    async fn receive(&mut self) -> Result<Value, String> {
        match tokio::time::timeout(ANSWER_TIMEOUT, self.lines.next_line()).await {
            Err(_) => Err(self.failure("no message from the server in 30 s")),
            Ok(Err(e)) => Err(self.failure(format!("reading from the server: {e}"))),
            Ok(Ok(None)) => Err(self.failure("the server closed its output")),
            Ok(Ok(Some(line))) => serde_json::from_str(&line)
                .map_err(|e| self.failure(format!("{e} in a line from the server: {line:?}"))),
        }
    }

    /// Sends `initialize` and waits for its reply (skipping anything else).
    async fn initialize(&mut self) -> Result<(), String> {
        self.send(&initialize(0, "mcp_stdio_load")).await?;
        loop {
            let message = self.receive().await?;
            if message_id(&message) == Some(0) {
                return match message.get("result") {
                    Some(_) => Ok(()),
                    None => Err(self.failure(format!("initialize failed: {message}"))),
                };
            }
        }
    }

    /// Closes the server's input and waits for it to exit (kills it if it does not).
    async fn stop(self) {
        let Server {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        if tokio::time::timeout(EXIT_TIMEOUT, child.wait())
            .await
            .is_err()
        {
            let _ = child.kill().await;
        }
    }
}

/// An error message, with the end of what the server wrote to standard error.
fn failure(stderr: &Mutex<Vec<u8>>, what: impl std::fmt::Display) -> String {
    let stderr = stderr.lock().unwrap();
    let tail = String::from_utf8_lossy(&stderr[stderr.len().saturating_sub(2000)..]);
    format!("{what}; the server's standard error ends:\n{tail}")
}

async fn startup(command: &[String], spawns: usize) -> Result<Value, String> {
    let mut times = Vec::with_capacity(spawns);
    for _ in 0..spawns {
        let start = Instant::now();
        let mut server = Server::spawn(command)?;
        server.initialize().await?;
        times.push(start.elapsed());
        server.stop().await;
    }
    times.sort();
    let ms = |d: Duration| (d.as_secs_f64() * 1000.0 * 100.0).round() / 100.0;
    Ok(json!({
        "stdio": "spawn to initialize reply",
        "spawns": spawns,
        "median_ms": ms((times[(spawns - 1) / 2] + times[spawns / 2]) / 2),
        "min_ms": ms(times[0]),
        "max_ms": ms(times[times.len() - 1]),
    }))
}

async fn calls(command: &[String], seconds: f64, in_flight: usize) -> Result<Value, String> {
    let mut server = Server::spawn(command)?;
    server.initialize().await?;
    server.send(&initialized()).await?;
    let pid = server.child.id().ok_or("the server exited")?;
    let Server {
        child,
        mut stdin,
        mut lines,
        stderr,
    } = server;
    let sent: Arc<Mutex<HashMap<u64, Instant>>> = Arc::default();
    let slots = Arc::new(Semaphore::new(in_flight));
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(seconds);

    // The writer: a call whenever fewer than IN_FLIGHT are unanswered, until the deadline.
    let writer = {
        let (sent, slots) = (sent.clone(), slots.clone());
        tokio::spawn(async move {
            let mut count = 0u64;
            while Instant::now() < deadline {
                slots.acquire().await.map_err(|e| e.to_string())?.forget();
                count += 1;
                sent.lock().unwrap().insert(count, Instant::now());
                let line = format!("{}\n", calculate_call(count));
                stdin
                    .write_all(line.as_bytes())
                    .await
                    .map_err(|e| e.to_string())?;
                stdin.flush().await.map_err(|e| e.to_string())?;
            }
            Ok::<_, String>((count, stdin))
        })
    };
    // The reader: every answer, until the writer has stopped and all it sent are answered.
    let mut writer = writer;
    let mut latencies = Vec::new();
    let mut total = None;
    let mut stdin = None;
    while total.is_none_or(|total| (latencies.len() as u64) < total) {
        let line = tokio::select! {
            joined = &mut writer, if total.is_none() => {
                let (count, input) = joined
                    .map_err(|e| e.to_string())?
                    .map_err(|e| failure(&stderr, format!("writing to the server: {e}")))?;
                total = Some(count);
                stdin = Some(input);
                continue;
            }
            line = tokio::time::timeout(ANSWER_TIMEOUT, lines.next_line()) => line,
        };
        let line = match line {
            Ok(Ok(Some(line))) => line,
            Ok(Ok(None)) => return Err(failure(&stderr, "the server closed its output")),
            Ok(Err(e)) => return Err(failure(&stderr, e)),
            Err(_) => return Err(failure(&stderr, "no answer in 30 s")),
        };
        let message: Value = serde_json::from_str(&line).map_err(|e| format!("{e}: {line:?}"))?;
        let Some(id) = message_id(&message) else {
            continue; // a notification or log message
        };
        let Some(sent_at) = sent.lock().unwrap().remove(&id) else {
            return Err(format!("an answer to no call: {message}"));
        };
        check_calculate_answer(&message)?;
        latencies.push(sent_at.elapsed());
        slots.add_permits(1);
    }
    let elapsed = start.elapsed();
    let mut line = latency_summary(&mut latencies, elapsed);
    line["stdio"] = json!("tools/call over one session");
    line["in_flight"] = json!(in_flight);
    line["server_rss_kib"] = json!(rss_kib(pid)?);
    let server = Server {
        child,
        stdin: stdin.ok_or("no stdin")?,
        lines,
        stderr,
    };
    server.stop().await;
    Ok(line)
}

const USAGE: &str = "usage: mcp_stdio_load startup SPAWNS [--label NAME] -- COMMAND [ARGS...]\n   \
                     or: mcp_stdio_load calls SECONDS IN_FLIGHT [--label NAME] -- COMMAND [ARGS...]";

#[tokio::main]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let split = args.iter().position(|a| a == "--").ok_or(USAGE)?;
    let (ours, command) = (&args[..split], &args[split + 1..]);
    if command.is_empty() {
        return Err(USAGE.into());
    }
    let (ours, label) = match ours {
        [rest @ .., flag, label] if flag == "--label" => (rest, Some(label.as_str())),
        _ => (ours, None),
    };
    let number = |text: &str| match text.parse::<f64>() {
        Ok(n) if n > 0.0 => Ok(n),
        _ => Err(USAGE.to_owned()),
    };
    let line = match ours {
        [mode, spawns] if mode == "startup" => {
            startup(command, number(spawns)?.ceil() as usize).await?
        }
        [mode, seconds, in_flight] if mode == "calls" => {
            calls(
                command,
                number(seconds)?,
                number(in_flight)?.ceil() as usize,
            )
            .await?
        }
        _ => return Err(USAGE.into()),
    };
    println!("{}", labelled(label, line));
    Ok(())
}
