//! MCP over stdio, with the JSON-RPC hygiene rmcp's line transport lacks: a line that is not
//! a JSON-RPC message gets its error reply (rmcp drops it silently), and a request that
//! reuses the id of one still in flight is refused (rmcp answers only one of the two).
//!
//! The guard sits between the process's streams and rmcp: incoming lines are checked
//! ([`crate::jsonrpc::check`]) before rmcp reads them; everything written out, rmcp's lines
//! and the guard's errors, goes through one writer, whole lines at a time.
//!
//! `McpServer::serve_stdio` and `serve_io` (and the free `serve_stdio`) are the entrance.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::ServiceExt;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

use toolwright_runtime::Executor;

use crate::error::ServeError;
use crate::jsonrpc::{self, INVALID_REQUEST, Incoming, Rejection};
use crate::server::setup::McpServer;

/// The longest line taken (a message larger than this is refused, not buffered).
const MAX_LINE: usize = 16 * 1024 * 1024;

/// Ids of requests rmcp has not answered yet, as canonical JSON text.
type InFlight = Arc<Mutex<HashSet<String>>>;

/// The two ends rmcp serves on: it reads checked lines from the first and writes to the
/// second. The guard's tasks end when `input` ends and rmcp has closed its output.
pub(crate) fn guard<R, W>(input: R, output: W) -> (DuplexStream, DuplexStream)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (rmcp_reads, checked_in) = tokio::io::duplex(64 * 1024);
    let (rmcp_output, rmcp_writes) = tokio::io::duplex(64 * 1024);
    let in_flight: InFlight = Arc::default();
    let (lines, to_write) = mpsc::channel::<Vec<u8>>(64);

    tokio::spawn(write_lines(output, to_write));
    tokio::spawn(forward_output(
        rmcp_output,
        lines.clone(),
        Arc::clone(&in_flight),
    ));
    tokio::spawn(check_input(input, checked_in, lines, in_flight));
    (rmcp_reads, rmcp_writes)
}

/// Writes each line whole, in the order the lines were sent.
async fn write_lines<W: AsyncWrite + Unpin>(mut output: W, mut lines: mpsc::Receiver<Vec<u8>>) {
    while let Some(mut line) = lines.recv().await {
        if !line.ends_with(b"\n") {
            line.push(b'\n');
        }
        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
            // The client is gone; nothing more can be written.
            return;
        }
    }
}

/// rmcp's output, line by line, to the writer; a response frees its request's id.
async fn forward_output(
    rmcp_output: DuplexStream,
    lines: mpsc::Sender<Vec<u8>>,
    in_flight: InFlight,
) {
    let mut reader = BufReader::new(rmcp_output);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if let Some(id) = jsonrpc::response_id(&line) {
            lock(&in_flight).remove(&id);
        }
        if lines.send(line).await.is_err() {
            return;
        }
    }
}

/// The client's lines, checked; good ones go to rmcp, bad ones get their error reply.
async fn check_input<R: AsyncRead + Unpin>(
    input: R,
    mut checked: DuplexStream,
    lines: mpsc::Sender<Vec<u8>>,
    in_flight: InFlight,
) {
    let mut reader = BufReader::new(input);
    loop {
        let line = match read_line(&mut reader).await {
            Ok(Some(line)) => line,
            // End of input (or a broken stream): closing rmcp's input ends the session.
            Ok(None) | Err(_) => return,
        };
        let Some(line) = line else {
            let rejection = Rejection {
                id: Value::Null,
                code: INVALID_REQUEST,
                message: format!("Invalid Request: the message is larger than {MAX_LINE} bytes"),
            };
            if reply(&lines, &rejection).await.is_err() {
                return;
            }
            continue;
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let verdict = jsonrpc::check(&line).and_then(|incoming| match incoming {
            Incoming::Request { id } if !lock(&in_flight).insert(id.clone()) => Err(Rejection {
                id: serde_json::from_str(&id).unwrap_or(Value::Null),
                code: INVALID_REQUEST,
                message: format!(
                    "Invalid Request: a request with id {id} is still being answered; use a \
                     new id for each request"
                ),
            }),
            // A cancelled request gets no response (the specification says so): its id is
            // free again.
            Incoming::Cancelled { request_id } => {
                lock(&in_flight).remove(&request_id);
                Ok(())
            }
            _ => Ok(()),
        });
        let sent = match verdict {
            Ok(()) => {
                let mut line = line;
                if !line.ends_with(b"\n") {
                    line.push(b'\n');
                }
                checked.write_all(&line).await.is_ok()
            }
            Err(rejection) => reply(&lines, &rejection).await.is_ok(),
        };
        if !sent {
            return;
        }
    }
}

async fn reply(lines: &mpsc::Sender<Vec<u8>>, rejection: &Rejection) -> Result<(), ()> {
    let text = rejection.to_json().to_string().into_bytes();
    lines.send(text).await.map_err(|_| ())
}

/// One line, without reading more than [`MAX_LINE`] bytes of it into memory: `Some(None)`
/// for a line that was too long (the rest of it is skipped), `None` at the end of input.
async fn read_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
) -> std::io::Result<Option<Option<Vec<u8>>>> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(if line.is_empty() && !too_long {
                None
            } else if too_long {
                Some(None)
            } else {
                Some(Some(line))
            });
        }
        let (chunk, found) = match buffer.iter().position(|b| *b == b'\n') {
            Some(end) => (&buffer[..=end], true),
            None => (buffer, false),
        };
        let taken = chunk.len();
        if !too_long {
            if line.len() + taken > MAX_LINE {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        reader.consume(taken);
        if found {
            return Ok(Some(if too_long { None } else { Some(line) }));
        }
    }
}

fn lock(in_flight: &InFlight) -> std::sync::MutexGuard<'_, HashSet<String>> {
    in_flight.lock().unwrap_or_else(PoisonError::into_inner)
}

impl McpServer {
    /// Serves over stdio until the client disconnects.
    ///
    /// # Errors
    ///
    /// When initialization fails or the streams fail.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves newline-delimited JSON-RPC (the stdio transport) on any pair of streams, until
    /// `input` ends: a pipe, a socket, a child's stdio. Lines that are not JSON-RPC messages
    /// get their JSON-RPC error (`-32700`, `-32600`, `-32602` for `tools/call` arguments that
    /// are not an object), and a request reusing the id of one still in flight is refused.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    /// use toolwright_mcp::McpServer;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let server = McpServer::new(Executor::builder(Arc::new(ToolRegistry::new())).build());
    /// let (mut client, server_in) = tokio::io::duplex(4096);
    /// let (server_out, client_out) = tokio::io::duplex(4096);
    /// let serving = tokio::spawn(server.serve_io(server_in, server_out));
    /// client.write_all(b"{not json\n").await.unwrap();
    /// let mut reply = String::new();
    /// BufReader::new(client_out).read_line(&mut reply).await.unwrap();
    /// assert!(reply.contains("-32700"), "{reply}");
    /// drop(client);
    /// let _ = serving.await;
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// When initialization fails or the streams fail.
    pub async fn serve_io<R, W>(self, input: R, output: W) -> Result<(), ServeError>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let running = self
            .for_session()
            .serve(crate::server::stdio::guard(input, output))
            .await
            .map_err(|error| ServeError::Protocol(error.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|error| ServeError::Protocol(error.to_string()))?;
        Ok(())
    }
}

/// Serves `executor` over stdio (the process's stdin and stdout) until the client
/// disconnects. Log to stderr only: stdout carries the protocol.
///
/// # Errors
///
/// When the client does not complete initialization, or the streams fail.
pub async fn serve_stdio(executor: Executor) -> Result<(), ServeError> {
    McpServer::new(executor).serve_stdio().await
}
