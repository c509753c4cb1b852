//! An upstream started as a child process, speaking MCP over its stdin and stdout; a
//! `prepare` step (a confinement) runs on the command just before it starts, and its stderr
//! is relayed (`stderr`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::era::Protocol;
use super::error::UpstreamError;
use super::session::{Kept, Upstream};
use super::stderr::relay_stderr;

/// An upstream started as a child process, speaking MCP over its stdin and stdout; made by
/// [`Upstream::stdio`]. What it writes to its stderr reaches ours a line at a time, escaped
/// (no escape sequence of its reaches a terminal) and named after it.
#[derive(Debug, Clone)]
pub struct StdioUpstream {
    command: OsString,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    cwd: Option<PathBuf>,
    prepare: Option<Prepare>,
    protocol: Protocol,
    /// How long it has to open its session.
    handshake: Duration,
}

/// A step run on an upstream's command just before it starts.
type PrepareFn = dyn Fn(&mut std::process::Command) -> std::io::Result<Kept> + Send + Sync;

/// A [`PrepareFn`] shared by the clones of a [`StdioUpstream`].
#[derive(Clone)]
struct Prepare(Arc<PrepareFn>);

impl std::fmt::Debug for Prepare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Prepare(..)")
    }
}

impl StdioUpstream {
    /// Sets an environment variable of the child (the rest are inherited).
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The child's working directory (default: ours).
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Runs `prepare` on the command just before it starts, and keeps what it returns for as
    /// long as the connection is open: how a caller confines the server (toolwright-std's
    /// `Sandbox::confine`, whose guard must outlive the program). An error stops the start.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use toolwright_gateway::upstream::Upstream;
    ///
    /// let upstream = Upstream::stdio("my-mcp-server", ["--stdio"])
    ///     .prepare(|command| {
    ///         // e.g. toolwright_std::sandbox::Sandbox::new().confine(command)
    ///         command.env_remove("AWS_SECRET_ACCESS_KEY");
    ///         Ok(())
    ///     })
    ///     .connect()
    ///     .await?;
    /// # let _ = upstream;
    /// # Ok(())
    /// # }
    /// ```
    pub fn prepare<F, K>(mut self, prepare: F) -> Self
    where
        F: Fn(&mut std::process::Command) -> std::io::Result<K> + Send + Sync + 'static,
        K: Send + Sync + 'static,
    {
        self.prepare = Some(Prepare(Arc::new(move |command| {
            prepare(command).map(|kept| Box::new(kept) as Kept)
        })));
        self
    }

    /// How the session is opened (default [`Protocol::Handshake`], `initialize`): a server
    /// that speaks only MCP 2026-07-28 needs [`Protocol::Discover`].
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use toolwright_gateway::upstream::{Protocol, Upstream};
    ///
    /// let upstream = Upstream::stdio("modern-mcp-server", ["--stdio"])
    ///     .protocol(Protocol::Discover)
    ///     .connect()
    ///     .await?;
    /// # let _ = upstream;
    /// # Ok(())
    /// # }
    /// ```
    pub fn protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// How long the server has to answer `initialize` (or `server/discover`) after it
    /// started (default 60 s): longer for a server that first installs itself (`npx`,
    /// `uvx` on a cold cache).
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolwright_gateway::Upstream;
    ///
    /// let upstream = Upstream::stdio("npx", ["-y", "@modelcontextprotocol/server-everything"])
    ///     .handshake_timeout(Duration::from_secs(600));
    /// # let _ = upstream;
    /// ```
    pub fn handshake_timeout(mut self, timeout: Duration) -> Self {
        self.handshake = timeout;
        self
    }

    /// Starts the command and opens the MCP session ([`protocol`](Self::protocol)).
    ///
    /// # Errors
    ///
    /// [`UpstreamError::Spawn`] when the command does not start (or the
    /// [`prepare`](Self::prepare) step fails),
    /// [`UpstreamError::Handshake`] when it does not answer `initialize` (or `server/discover`,
    /// as [`protocol`](Self::protocol) says) within its
    /// [`handshake_timeout`](Self::handshake_timeout).
    pub async fn connect(self) -> Result<Upstream, UpstreamError> {
        let label = std::iter::once(&self.command)
            .chain(&self.args)
            .map(|part| part.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ");
        let label = toolwright_names::escape::escape(&label).into_owned();
        let mut command = tokio::process::Command::new(&self.command);
        command.args(&self.args);
        for (key, value) in &self.env {
            command.env(key, value);
        }
        if let Some(dir) = &self.cwd {
            command.current_dir(dir);
        }
        let spawn_error = |source| UpstreamError::Spawn {
            command: label.clone(),
            source,
        };
        let kept = match &self.prepare {
            Some(Prepare(prepare)) => Some(prepare(command.as_std_mut()).map_err(spawn_error)?),
            None => None,
        };
        let (transport, stderr) = rmcp::transport::TokioChildProcess::builder(command)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(spawn_error)?;
        if let Some(stderr) = stderr {
            tokio::spawn(relay_stderr(label.clone(), stderr));
        }
        Upstream::connect_keeping(label, transport, kept, self.protocol, self.handshake).await
    }
}

impl Upstream {
    /// An upstream started as `command args...` (found on `PATH` as `std::process::Command`
    /// finds it); set its environment and directory on the [`StdioUpstream`], then
    /// [`connect`](StdioUpstream::connect).
    ///
    /// The server runs with this process's rights and environment unless
    /// [`StdioUpstream::prepare`] confines it: with toolwright-std's `Sandbox` it gets
    /// `run_command`'s walls and sees only what it is granted (the CLI does this for every
    /// stdio upstream that its configuration does not mark `unconfined`).
    pub fn stdio<I, S>(command: impl Into<OsString>, args: I) -> StdioUpstream
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        StdioUpstream {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: Vec::new(),
            cwd: None,
            prepare: None,
            protocol: Protocol::Handshake,
            handshake: super::era::HANDSHAKE,
        }
    }
}
