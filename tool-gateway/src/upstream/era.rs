//! Which MCP lifecycle the gateway opens an upstream's session with: the `initialize`
//! handshake every server of the handshake era answers, MCP 2026-07-28's `server/discover`
//! (a server that answers only that), or a probe with discover that falls back.

use rmcp::model::ProtocolVersion;
use rmcp::service::ClientLifecycleMode;

/// How a session with an upstream is opened: [`StdioUpstream::protocol`](super::StdioUpstream::protocol),
/// `HttpUpstream::protocol`, `protocol = "..."` in a configuration.
///
/// The default is [`Protocol::Handshake`]: every server of the handshake era answers
/// `initialize`, and so do most 2026-07-28 servers. A server that speaks only MCP
/// 2026-07-28 (answers `server/discover`, refuses `initialize`) needs
/// [`Protocol::Discover`]. [`Protocol::Auto`] is not the default because it cannot
/// always tell a legacy server apart: a legacy HTTP server that answers `server/discover`
/// with HTTP 500 (not a JSON-RPC error, nor a 400, 404, 405, 406 or 415) fails the start
/// instead of being asked `initialize`.
///
/// ```
/// use toolwright_gateway::upstream::Protocol;
///
/// let protocol: Protocol = "2026-07-28".parse()?;
/// assert_eq!(protocol, Protocol::Discover);
/// assert_eq!(protocol.to_string(), "2026-07-28");
/// assert_eq!(Protocol::default(), Protocol::Handshake);
/// assert!("2025-06-18".parse::<Protocol>().is_err());
/// # Ok::<(), toolwright_gateway::upstream::ProtocolParseError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Protocol {
    /// `initialize` and `notifications/initialized` (MCP up to 2025-11-25; `"handshake"`).
    #[default]
    Handshake,
    /// MCP 2026-07-28: `server/discover`, then each request carries its own metadata; a
    /// server that refuses discover is not mounted (`"2026-07-28"`).
    Discover,
    /// `server/discover` first; `initialize` when the server answers it with a JSON-RPC
    /// error (over HTTP, or a 400, 404, 405, 406, 415) or not within 10 seconds (`"auto"`).
    Auto,
}

/// How long an upstream has to open its session (`initialize`, or `server/discover`)
/// unless its builder says otherwise (`handshake_timeout`).
pub(crate) const HANDSHAKE: std::time::Duration = std::time::Duration::from_secs(60);

/// The values `protocol` takes, as written in a configuration.
const VALUES: &str = "\"handshake\" (the default), \"2026-07-28\" or \"auto\"";

impl Protocol {
    /// rmcp's lifecycle for this choice.
    pub(super) fn lifecycle(self) -> ClientLifecycleMode {
        match self {
            Protocol::Handshake => ClientLifecycleMode::Initialize,
            Protocol::Discover => ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
            Protocol::Auto => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: None,
            },
        }
    }

    /// The request that opens the session, as errors name it.
    pub(super) fn opening(self) -> &'static str {
        match self {
            Protocol::Handshake => "`initialize`",
            Protocol::Discover => "`server/discover`",
            Protocol::Auto => "`server/discover` nor `initialize`",
        }
    }

    /// What to try when the session could not be opened this way.
    pub(super) fn hint(self) -> &'static str {
        match self {
            Protocol::Handshake => {
                "if the server speaks only MCP 2026-07-28 (answers `server/discover`, not \
                 `initialize`), set `protocol = \"2026-07-28\"` on this upstream \
                 (`.protocol(Protocol::Discover)` on its builder)"
            }
            Protocol::Discover => {
                "if the server speaks an earlier MCP revision (answers `initialize` only), set \
                 `protocol = \"handshake\"` (the default) or `\"auto\"` on this upstream"
            }
            Protocol::Auto => {
                "set `protocol = \"handshake\"` or `\"2026-07-28\"` on this upstream to say \
                 which the server speaks"
            }
        }
    }
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Protocol::Handshake => "handshake",
            Protocol::Discover => "2026-07-28",
            Protocol::Auto => "auto",
        })
    }
}

/// A `protocol` that is none of `"handshake"`, `"2026-07-28"`, `"auto"`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{given}` is not a protocol; write {VALUES}")]
pub struct ProtocolParseError {
    given: String,
}

impl std::str::FromStr for Protocol {
    type Err = ProtocolParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "handshake" => Ok(Protocol::Handshake),
            "2026-07-28" => Ok(Protocol::Discover),
            "auto" => Ok(Protocol::Auto),
            other => Err(ProtocolParseError {
                given: toolwright_names::escape::escape(other).into_owned(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_reads_back_as_written() {
        for protocol in [Protocol::Handshake, Protocol::Discover, Protocol::Auto] {
            assert_eq!(protocol.to_string().parse::<Protocol>(), Ok(protocol));
        }
        let error = "2026".parse::<Protocol>().unwrap_err().to_string();
        assert!(
            error.contains("`2026`") && error.contains("\"2026-07-28\""),
            "{error}"
        );
        // A control character in what was written does not reach a terminal raw.
        let error = "a\u{1b}[2J".parse::<Protocol>().unwrap_err().to_string();
        assert!(!error.contains('\u{1b}'), "{error:?}");
    }
}
