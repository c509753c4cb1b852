//! Mounting another MCP server's tools (and its prompts, resources and skills) into a
//! [`ToolRegistry`](toolwright_runtime::ToolRegistry), under our policy.
//!
//! [`Upstream`] is a connection to an MCP server (rmcp's client): a command started as a
//! child process ([`Upstream::stdio`]) or, with the `http` feature, a streamable HTTP URL
//! (`Upstream::http`: a bearer token or, with `oauth`, OAuth 2.0 client
//! credentials, `HttpUpstream::client_credentials`). [`MountUpstream::mount`] lists its
//! tools (every page, within [`MountOptions::max_tools`] and [`MountOptions::max_pages`])
//! and registers each as a runtime tool whose handler forwards the call upstream. Then
//! every layer of the executor applies to it as to our own tools: ceilings, guardrails,
//! approval, limits, timeouts, hooks, metrics.
//!
//! - **Names.** A tool is registered as `{namespace}_{normalise(name)}` ([`normalise`],
//!   [`mounted_name`]): `github` + `searchRepositories` -> `github_search_repositories`.
//!   Two upstream names that come out the same, or a name another tool has, are reported
//!   in the [`MountReport`] and not mounted; [`Mount`] keeps the mapping both ways, and the
//!   upstream's own name is what the forward call uses.
//! - **Safety.** Upstream tools are `dangerous` unless [`MountOptions::safety`] says
//!   otherwise (an exact name or a `*` glob). Annotations are someone else's hints: only
//!   for an upstream marked [`trusted`](MountOptions::trusted) does `readOnlyHint: true`
//!   lower a tool to `safe` and `destructiveHint: false` to `cautious`.
//! - **Schemas.** The upstream's `inputSchema` and `outputSchema` are the tool's, checked by
//!   the tool builder as any runtime tool's; one it refuses (an input schema that is not an
//!   object schema, say) leaves the tool unmounted, reported with the builder's reason.
//!   They are served as written, never rebuilt (`ToolBuilder::foreign_schema`): what a
//!   client reads accepts exactly what the upstream's accepts.
//! - **Limits.** [`MountOptions::max_concurrent`] and [`MountOptions::rate`] bound the
//!   upstream's calls at once and per period, each caller (the call's authenticated
//!   subject) to a share of them; a call over one is refused before it is sent, naming the
//!   upstream, the limit and its value.
//! - **Fingerprints.** Each tool's [`Fingerprint`] (SHA-256 of the canonical JSON of its
//!   name, description, schemas and annotations) is kept; a tool whose pinned fingerprint
//!   ([`MountOptions::pin`]) differs is registered disabled and reported.
//!   [`Mount::refresh`] lists again: new tools added, vanished ones removed, changed ones
//!   reported; [`Mount::follow`] does after each `notifications/tools/list_changed`.
//! - **Descriptions.** A mounted tool's description starts with where it comes from
//!   (`[Tool `x` of the upstream MCP server `s`, mounted as `ns`.]`), then the upstream's
//!   own with the characters a reader must not see raw escaped; its preview (what an
//!   approval shows) names the upstream, the tool and the arguments.
//! - **Callers.** An HTTP upstream may be called as each caller instead of as the gateway
//!   (`HttpUpstream::token_exchange`, `HttpUpstream::principal_tokens`,
//!   `HttpUpstream::identity_header`): each caller (`toolwright_core::ToolContext::caller`,
//!   given by an authenticated front end) gets a session of its own with the upstream,
//!   whose requests carry that caller's token (exchanged for the caller's own, RFC 8693, or
//!   from a file of tokens by principal); the gateway's own session lists and follows. A
//!   call without a caller's credentials is refused; the caller's own token goes only to
//!   the authorization server, never upstream.
//! - **Eras.** The session is opened as the upstream's [`Protocol`] says: `initialize`
//!   (the default, every handshake-era server), MCP 2026-07-28's `server/discover` (a
//!   server that answers only that), or discover falling back to `initialize`.
//! - **Calls.** Structured content and content blocks (text, image, audio, resource links,
//!   embedded resources) come back as they were sent; `isError: true` is a tool error with
//!   the upstream's text; a cancelled call cancels the upstream request; the upstream's
//!   progress is the call's progress.
//! - **The upstream's own requests.** Its elicitation (forms) and sampling requests go to
//!   the client of the call they belong to, through the call's
//!   [`ToolContext`](toolwright_core::ToolContext): the call whose response stream they
//!   arrived on (streamable HTTP marks it), else the only mounted call in flight on the
//!   connection; with none, or several and nothing to tell them apart, a question is
//!   declined and sampling refused, never sent to another call's client. A question says
//!   which upstream asks and is bounded and escaped. Log messages go to `tracing` and to
//!   the only running call's client. Input requests of an MCP 2026-07-28 upstream are
//!   answered the same way and the call repeated, at most eight rounds. Only elicitation
//!   and sampling are declared to the upstream.
//! - **Prompts, resources, skills.** Unless [`MountOptions::primitives`] is off, the
//!   upstream's prompts, resources, resource templates and skills (SEP-2640) are mounted
//!   beside its tools, as runtime `Prompt`s, `Resource`s and `Skill`s whose handlers forward
//!   upstream, each list bounded and paged as the tools' is. A prompt is named as a tool is
//!   (`{namespace}_{normalise(name)}`). A resource's URI is placed in the namespace
//!   ([`mounted_uri`]): `scheme:rest` becomes `{namespace}+scheme:rest` (with `-` for `_`,
//!   which a scheme may not hold), and `skill://path` becomes `skill://{namespace}/path`, so
//!   an upstream can name neither one of our resources nor another upstream's; a URI that
//!   cannot be placed (no scheme) is not mounted. The URIs of what a read or a prompt
//!   returns are placed the same way, and a URI outside the namespace is never sent
//!   upstream. Names and URIs that collide with ours, or with each other, are reported
//!   and not mounted; fingerprints and pins ([`MountOptions::pin_prompt`],
//!   [`MountOptions::pin_resource`]) work as for tools. They are read at
//!   [`MountOptions::read_safety`] (default `safe`). Completions of their arguments are
//!   the upstream's; a skill's files are read upstream and checked against the digest and
//!   size it listed. [`Mount::subscribe`] subscribes upstream for one of our clients, and
//!   the upstream's `notifications/resources/updated` for a subscribed URI becomes
//!   `ToolRegistry::notify_resource_updated`, for any other URI nothing. The upstream's
//!   `list_changed` of prompts and resources refreshes the mount as its tools' does. The
//!   resource links and embedded resources of a mounted tool's result name the mounted
//!   URIs too. An upstream that declares no tools is not asked for them.

// The layers, lowest first (no module imports one listed after it): error, names, uris,
// fingerprint, content, forward, ending, era, session, list, requests, stderr, stdio, client,
// bearer, oauth, exchange, callers, http, limits, options, report, mountable, shelf, mount.
#[cfg(feature = "http")]
mod bearer;
#[cfg(feature = "http")]
mod callers;
#[cfg(feature = "http")]
mod client;
mod content;
mod ending;
mod era;
mod error;
#[cfg(feature = "oauth")]
mod exchange;
mod fingerprint;
mod forward;
#[cfg(feature = "http")]
mod http;
mod limits;
mod list;
mod mount;
mod mountable;
mod names;
#[cfg(feature = "oauth")]
mod oauth;
mod options;
mod report;
mod requests;
mod session;
mod shelf;
mod stderr;
mod stdio;
mod uris;

#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use callers::DEFAULT_MAX_CALLER_SESSIONS;
pub use era::{Protocol, ProtocolParseError};
pub use error::UpstreamError;
#[cfg(feature = "oauth")]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
pub use exchange::{DEFAULT_MAX_CACHED_TOKENS, TokenExchange};
pub use fingerprint::{Fingerprint, FingerprintParseError};
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use http::{DEFAULT_MAX_MESSAGE_BYTES, HttpUpstream};
pub use limits::{Rate, RateParseError};
pub use list::ListCut;
pub use mount::{Mount, MountUpstream};
pub use names::{mounted_name, normalise};
#[cfg(feature = "oauth")]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
pub use oauth::ClientCredentials;
pub use options::{DEFAULT_MAX_MOUNT_BYTES, DEFAULT_MAX_TOOL_BYTES, MountOptions};
pub use report::{
    FingerprintChange, MountReport, MountedPrimitive, MountedTool, PrimitiveKind, PrimitivesReport,
    SkipReason, Skipped,
};
pub use session::{ToolListChanges, Upstream};
pub use stdio::StdioUpstream;
pub use uris::mounted_uri;
