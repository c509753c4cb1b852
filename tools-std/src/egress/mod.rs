//! Named hosts only: the network of a confined program that may reach a list of hosts.
//!
//! The program gets no network of its own (its own network namespace, holding only a
//! loopback). A relay inside that namespace listens on its loopback and passes each
//! connection to a proxy of ours ([`Proxy`]) over a UNIX socket in the program's view; the
//! program finds the relay in `HTTP_PROXY`, `HTTPS_PROXY` and `ALL_PROXY`. The proxy takes
//! `CONNECT host:port` and plain HTTP requests in absolute form, matches the name the program
//! asked for against the [`AllowList`], resolves it itself, checks every address it gets and
//! connects only to one it checked; everything else is refused with `403`, logged, and handed
//! to the [`Egress::on_refusal`] sink (the CLI's audit log).
//!
//! ```
//! use toolwright_std::egress::{AllowList, Egress, FixedResolver};
//!
//! let egress = Egress::new(AllowList::parse(["api.github.com:443"])?)
//!     .resolver(FixedResolver::new().answer("api.github.com", ["140.82.112.6".parse()?]))
//!     .on_refusal(|refusal| eprintln!("{refusal}"))
//!     .label("github-mcp");
//! assert_eq!(egress.allowed().rules().len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The layers, lowest first (no module imports one listed after it): rules, resolve, proxy.
#[cfg(unix)]
mod proxy;
mod resolve;
mod rules;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

#[cfg(unix)]
pub use proxy::{Proxy, ProxyError};
pub use resolve::{FixedResolver, Resolution, Resolve, SystemResolver};
pub use rules::{AllowList, HostRule, RuleError};

/// One connection the proxy refused: who asked, for what, and why. Each becomes a line of
/// the audit log where the application wires [`Egress::on_refusal`] to it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Refusal {
    /// The program or upstream the proxy serves ([`Egress::label`]).
    pub program: String,
    /// What it asked for: `host:port`.
    pub target: String,
    /// Why it was refused.
    pub reason: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: connection to {} refused: {}",
            self.program, self.target, self.reason
        )
    }
}

/// Where refusals go (besides `tracing`).
pub type RefusalSink = Arc<dyn Fn(&Refusal) + Send + Sync>;

/// The proxy's bounds, per confined program.
///
/// ```
/// let limits = toolwright_std::egress::ProxyLimits::default();
/// assert_eq!(limits.max_connections, 64);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProxyLimits {
    /// Connections at once (tunnels included); more are answered `503` (default 64).
    pub max_connections: usize,
    /// Bytes of a request's head (request line and headers, default 16 KiB); more is a
    /// `431`.
    pub max_header_bytes: usize,
    /// How long a request's head may take to arrive (default 30 s).
    pub header_timeout: Duration,
    /// How long a tunnel or a plain request may stay without a byte either way (default
    /// 5 min).
    pub idle_timeout: Duration,
    /// How long connecting to an allowed address may take (default 30 s).
    pub connect_timeout: Duration,
}

impl Default for ProxyLimits {
    fn default() -> ProxyLimits {
        ProxyLimits {
            max_connections: 64,
            max_header_bytes: 16 * 1024,
            header_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(300),
            connect_timeout: Duration::from_secs(30),
        }
    }
}

/// The network a confined program may reach: an [`AllowList`], how names resolve, where
/// refusals go, and the proxy's bounds. `Sandbox::network_hosts` and
/// `Workspace::network_hosts` take one (or an `AllowList`).
#[derive(Clone)]
pub struct Egress {
    allowed: AllowList,
    resolver: Arc<dyn Resolve>,
    sink: Option<RefusalSink>,
    label: String,
    limits: ProxyLimits,
}

impl fmt::Debug for Egress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Egress")
            .field("allowed", &self.allowed)
            .field("label", &self.label)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl From<AllowList> for Egress {
    fn from(allowed: AllowList) -> Egress {
        Egress::new(allowed)
    }
}

impl Egress {
    /// Only the hosts of `allowed`, resolved by the system, refusals only logged.
    pub fn new(allowed: AllowList) -> Egress {
        Egress {
            allowed,
            resolver: Arc::new(SystemResolver),
            sink: None,
            label: "confined program".to_owned(),
            limits: ProxyLimits::default(),
        }
    }

    /// Resolves names with `resolver` (default: the system's).
    pub fn resolver(mut self, resolver: impl Resolve) -> Egress {
        self.resolver = Arc::new(resolver);
        self
    }

    /// Hands every refusal to `sink` too (the audit log).
    pub fn on_refusal(mut self, sink: impl Fn(&Refusal) + Send + Sync + 'static) -> Egress {
        self.sink = Some(Arc::new(sink));
        self
    }

    /// Names the program in refusals (default: `confined program`).
    pub fn label(mut self, label: impl Into<String>) -> Egress {
        self.label = label.into();
        self
    }

    /// The proxy's bounds (default: [`ProxyLimits::default`]).
    pub fn limits(mut self, limits: ProxyLimits) -> Egress {
        self.limits = limits;
        self
    }

    /// The hosts allowed.
    pub fn allowed(&self) -> &AllowList {
        &self.allowed
    }

    /// Logs `refusal` and hands it to the sink.
    fn refuse(&self, target: &str, reason: String) -> Refusal {
        let refusal = Refusal {
            program: self.label.clone(),
            target: target.to_owned(),
            reason,
        };
        tracing::warn!(
            program = %refusal.program,
            target = %refusal.target,
            reason = %refusal.reason,
            "egress refused"
        );
        if let Some(sink) = &self.sink {
            sink(&refusal);
        }
        refusal
    }
}
