//! An HTTP upstream called as each caller: every caller of a mounted tool gets its own
//! session with the upstream, opened at its first call with its own credentials, so the
//! upstream sees (and can enforce the permissions of) Alice and Bob, not the gateway. The
//! gateway's own session (the handshake of the mount, `tools/list`, notifications) keeps
//! the gateway's credentials.
//!
//! A caller's credentials for the upstream: a token exchanged for the caller's own
//! (`exchange`, RFC 8693), or its entry in a file of tokens by principal
//! ([`HttpUpstream::principal_tokens`](super::HttpUpstream::principal_tokens)); with
//! neither, the gateway's token, when only the caller's identity is sent
//! ([`HttpUpstream::identity_header`](super::HttpUpstream::identity_header)). The caller's
//! own bearer token is never sent to the upstream.
//!
//! The sessions are a pool the callers share: one per caller, at most
//! `max_caller_sessions`; a new caller takes the place of the session idle longest, and is
//! refused at once, naming the limit, when every session has a call in flight.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use http::{HeaderName, HeaderValue};
use rmcp::transport::streamable_http_client::StreamableHttpError;
use toolwright_core::{Caller, ToolContext, ToolError};

use super::bearer::{Authorised, BearerHttpClient, BearerSource};
use super::session::{CallerLease, PerCaller, Upstream};

/// The default of [`HttpUpstream::max_caller_sessions`](super::HttpUpstream::max_caller_sessions):
/// 256 callers' sessions per upstream.
pub const DEFAULT_MAX_CALLER_SESSIONS: usize = 256;

/// The most bytes of a file of tokens by principal read.
const MAX_TOKEN_FILE_BYTES: u64 = 1024 * 1024;

/// The entry of a file of tokens by principal that every principal without its own uses.
const ANY_PRINCIPAL: &str = "*";

/// Where a caller's token for the upstream comes from.
pub(crate) enum CallerTokens {
    /// Exchanged for the caller's own (RFC 8693).
    #[cfg(feature = "oauth")]
    Exchange(super::exchange::Exchanger),
    /// The caller's entry in a file of tokens by principal.
    File(TokenFile),
    /// The gateway's own token (or none): only the caller's identity is the caller's.
    Gateway(Option<String>),
}

impl CallerTokens {
    /// The token sent as `caller`, if any.
    async fn token_for(&self, caller: &Caller) -> Result<Option<String>, String> {
        match self {
            #[cfg(feature = "oauth")]
            CallerTokens::Exchange(exchanger) => exchanger.token_for(caller).await.map(Some),
            CallerTokens::File(file) => file.token_for(caller.subject()).map(Some),
            CallerTokens::Gateway(token) => Ok(token.clone()),
        }
    }

    /// The upstream answered 401 to `token`: a cached one is not used again.
    fn rejected(&self, caller: &Caller, token: &str) {
        match self {
            #[cfg(feature = "oauth")]
            CallerTokens::Exchange(exchanger) => exchanger.rejected(caller.subject(), token),
            CallerTokens::File(_) | CallerTokens::Gateway(_) => {
                let _ = (caller, token);
            }
        }
    }
}

/// A file of tokens by principal (TOML, or JSON for a `.json` file): `"subject" = "token"`,
/// and `"*"` for every principal without an entry (only when the file says so). Read at
/// each use and parsed again when its content changed (a digest of it, not its time
/// stamps, which a quick rewrite of the same size may keep); a file that cannot be read or
/// parsed refuses every call until it is fixed, never falling back to an older one.
pub(crate) struct TokenFile {
    path: PathBuf,
    loaded: Mutex<Option<Loaded>>,
}

struct Loaded {
    digest: [u8; 32],
    tokens: Arc<HashMap<String, String>>,
}

impl TokenFile {
    /// The file at `path`, read now: a file that cannot be read or parsed fails the start.
    pub(crate) fn open(path: &Path) -> Result<TokenFile, String> {
        let file = TokenFile {
            path: path.to_owned(),
            loaded: Mutex::new(None),
        };
        file.current()?;
        toolwright_mcp::secret::warn_if_readable_by_others(path, "the file of tokens");
        Ok(file)
    }

    /// The tokens as the file now says.
    fn current(&self) -> Result<Arc<HashMap<String, String>>, String> {
        use sha2::Digest as _;
        let shown = self.path.display();
        let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        let read = std::fs::File::open(&self.path).and_then(|file| {
            let mut text = String::new();
            std::io::Read::read_to_string(
                &mut std::io::Read::take(file, MAX_TOKEN_FILE_BYTES + 1),
                &mut text,
            )
            .map(|_| text)
        });
        let text = match read {
            Ok(text) => text,
            Err(e) => {
                // A failure forgets the old tokens: a file being fixed after a token was
                // revoked must not leave the revoked one in use.
                *loaded = None;
                return Err(format!(
                    "cannot read the file of tokens by principal `{shown}`: {e}"
                ));
            }
        };
        if text.len() as u64 > MAX_TOKEN_FILE_BYTES {
            *loaded = None;
            return Err(format!(
                "the file of tokens by principal `{shown}` is over {MAX_TOKEN_FILE_BYTES} bytes"
            ));
        }
        let digest: [u8; 32] = sha2::Sha256::digest(text.as_bytes()).into();
        if let Some(loaded) = loaded.as_ref()
            && loaded.digest == digest
        {
            return Ok(loaded.tokens.clone());
        }
        *loaded = None;
        let tokens = Arc::new(parse_tokens(&self.path, &text)?);
        *loaded = Some(Loaded {
            digest,
            tokens: tokens.clone(),
        });
        Ok(tokens)
    }

    fn token_for(&self, subject: &str) -> Result<String, String> {
        let tokens = self.current()?;
        tokens
            .get(subject)
            .or_else(|| tokens.get(ANY_PRINCIPAL))
            .cloned()
            .ok_or_else(|| {
                format!(
                    "the principal `{}` has no token for this upstream in `{}` (and the file \
                     has no `\"*\"` entry for every other principal); add one to let it call",
                    toolwright_names::escape::escape(subject),
                    self.path.display()
                )
            })
    }
}

/// A file's map of principal to token; each token trimmed and not empty.
fn parse_tokens(path: &Path, text: &str) -> Result<HashMap<String, String>, String> {
    let shown = path.display();
    let map: HashMap<String, String> = if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(text).map_err(|e| {
            format!(
                "the file of tokens by principal `{shown}` is not a JSON object of strings: {e}"
            )
        })?
    } else {
        toml::from_str(text).map_err(|e| {
            format!(
                "the file of tokens by principal `{shown}` is not a TOML table of strings \
                 (`\"subject\" = \"token\"`): {e}"
            )
        })?
    };
    let mut tokens = HashMap::with_capacity(map.len());
    for (subject, token) in map {
        let token = token.trim().to_owned();
        if token.is_empty() || HeaderValue::from_str(&format!("Bearer {token}")).is_err() {
            return Err(format!(
                "the token of `{}` in `{shown}` is empty or not a valid header value",
                toolwright_names::escape::escape(&subject)
            ));
        }
        tokens.insert(subject, token);
    }
    Ok(tokens)
}

/// `subject` as a header value: visible ASCII kept, every other byte (and `%`)
/// percent-encoded, so no subject can end the header or add one.
pub(crate) fn header_value(subject: &str) -> HeaderValue {
    let mut out = String::with_capacity(subject.len());
    for byte in subject.bytes() {
        if (0x21..=0x7e).contains(&byte) && byte != b'%' {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    // Visible ASCII only: always a valid header value.
    HeaderValue::from_str(&out).unwrap_or_else(|_| HeaderValue::from_static("-"))
}

/// How the caller sessions of one upstream are made.
pub(crate) struct CallerSessions {
    url: String,
    label: String,
    max_message_bytes: usize,
    tokens: Arc<CallerTokens>,
    identity_header: Option<HeaderName>,
    max_sessions: usize,
    sessions: Mutex<HashMap<Arc<str>, Arc<CallerSession>>>,
    clock: AtomicU64,
    /// Set when the upstream is closed: no session is opened any more.
    closed: std::sync::atomic::AtomicBool,
    /// How each caller's session is opened: as the gateway's own is.
    protocol: super::era::Protocol,
    /// How long a caller's session may take to open: the gateway's own bound.
    handshake: std::time::Duration,
}

/// One caller's session: its credentials, the connection once made, its use.
struct CallerSession {
    auth: Arc<SessionAuth>,
    upstream: tokio::sync::OnceCell<Upstream>,
    last_used: AtomicU64,
    in_flight: Arc<AtomicUsize>,
}

/// The credentials of one caller's session: the caller as its last call presented it.
struct SessionAuth {
    caller: Mutex<Caller>,
    tokens: Arc<CallerTokens>,
}

impl SessionAuth {
    fn caller(&self) -> Caller {
        self.caller
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// A call's use of its session, ended when dropped.
struct InFlight(Arc<AtomicUsize>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl CallerSessions {
    /// The sessions of the upstream at `url` (`label` escaped), each authorised by
    /// `tokens`, with the caller's identity in `identity_header` when given.
    pub(crate) fn new(
        url: String,
        label: String,
        max_message_bytes: usize,
        tokens: CallerTokens,
        identity_header: Option<HeaderName>,
        max_sessions: usize,
    ) -> Self {
        CallerSessions {
            url,
            label,
            max_message_bytes,
            tokens: Arc::new(tokens),
            identity_header,
            max_sessions: max_sessions.max(1),
            sessions: Mutex::default(),
            clock: AtomicU64::new(0),
            closed: std::sync::atomic::AtomicBool::new(false),
            protocol: super::era::Protocol::Handshake,
            handshake: super::era::HANDSHAKE,
        }
    }

    /// Each caller's session must open within `within` (the upstream's
    /// `handshake_timeout`, as its own session).
    pub(crate) fn handshake(mut self, within: std::time::Duration) -> Self {
        self.handshake = within;
        self
    }

    /// The bound each caller's session opens within (for tests of the plumbing).
    #[cfg(test)]
    pub(crate) fn handshake_bound(&self) -> std::time::Duration {
        self.handshake
    }

    /// Opens each caller's session as `protocol` says (the gateway's own session's choice).
    pub(crate) fn protocol(mut self, protocol: super::era::Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    fn refused(&self, reason: impl std::fmt::Display) -> ToolError {
        ToolError::new(format!(
            "the upstream MCP server `{}` is called as each caller: {reason}",
            self.label
        ))
    }

    /// The entry of `caller`, made if need be (a full pool gives up its idlest session).
    fn entry(&self, caller: &Caller) -> Result<Arc<CallerSession>, ToolError> {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        if self.closed.load(Ordering::Acquire) {
            return Err(self.refused("the upstream was closed"));
        }
        let now = self.clock.fetch_add(1, Ordering::Relaxed);
        if let Some(session) = sessions.get(caller.subject()) {
            session.last_used.store(now, Ordering::Relaxed);
            // The caller's latest token is the one exchanged from now on.
            *session
                .auth
                .caller
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = caller.clone();
            return Ok(session.clone());
        }
        if sessions.len() >= self.max_sessions {
            let idlest = sessions
                .iter()
                .filter(|(_, s)| s.in_flight.load(Ordering::Acquire) == 0)
                .min_by_key(|(_, s)| s.last_used.load(Ordering::Relaxed))
                .map(|(subject, _)| subject.clone());
            let Some(idlest) = idlest else {
                return Err(self.refused(format!(
                    "`max_caller_sessions` ({}) callers have a session with it and each has a \
                     call in flight; try again when one ends, or raise the limit",
                    self.max_sessions
                )));
            };
            if let Some(evicted) = sessions.remove(&idlest)
                && let Some(upstream) = evicted.upstream.get().cloned()
            {
                tokio::spawn(async move { upstream.close().await });
            }
        }
        let session = Arc::new(CallerSession {
            auth: Arc::new(SessionAuth {
                caller: Mutex::new(caller.clone()),
                tokens: self.tokens.clone(),
            }),
            upstream: tokio::sync::OnceCell::new(),
            last_used: AtomicU64::new(now),
            in_flight: Arc::new(AtomicUsize::new(0)),
        });
        sessions.insert(Arc::from(caller.subject()), session.clone());
        Ok(session)
    }

    /// Forgets `session` of `subject` (its handshake failed), unless replaced already.
    fn forget(&self, subject: &str, session: &Arc<CallerSession>) {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        if sessions
            .get(subject)
            .is_some_and(|kept| Arc::ptr_eq(kept, session))
        {
            sessions.remove(subject);
        }
    }

    /// The handshake of a caller's session, as that caller.
    async fn open(&self, auth: Arc<SessionAuth>) -> Result<Upstream, String> {
        use rmcp::transport::StreamableHttpClientTransport;
        use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

        let mut config = StreamableHttpClientTransportConfig::with_uri(self.url.clone());
        config.max_json_response_size = self.max_message_bytes;
        config.max_sse_event_size = self.max_message_bytes;
        if let Some(name) = &self.identity_header {
            config
                .custom_headers
                .insert(name.clone(), header_value(auth.caller().subject()));
        }
        // The caller's token goes where it was sent: no redirects.
        let http = super::client::pooled(reqwest::redirect::Policy::none())
            .map_err(|e| format!("could not make its HTTP client: {e}"))?;
        let transport =
            StreamableHttpClientTransport::with_client(BearerHttpClient::new(http, auth), config);
        let upstream = Upstream::connect_keeping(
            self.label.clone(),
            transport,
            None,
            self.protocol,
            self.handshake,
        )
        .await
        .map_err(|e| e.to_string())?;
        upstream.set_message_limit(self.max_message_bytes);
        Ok(upstream)
    }
}

impl PerCaller for CallerSessions {
    fn session<'a>(
        &'a self,
        ctx: &'a ToolContext,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<CallerLease, ToolError>> + Send + 'a>> {
        Box::pin(async move {
            let Some(caller) = ctx.caller() else {
                return Err(self.refused(
                    "this call has no authenticated caller (a local call: stdio `toolwright \
                     serve`, `toolwright call`); call it through `toolwright serve` over HTTP \
                     with authentication",
                ));
            };
            // Credentials first: a caller without any opens no session.
            self.tokens
                .token_for(caller)
                .await
                .map_err(|reason| self.refused(reason))?;
            let session = self.entry(caller)?;
            session.in_flight.fetch_add(1, Ordering::AcqRel);
            let held = InFlight(session.in_flight.clone());
            let upstream = session
                .upstream
                .get_or_try_init(|| self.open(session.auth.clone()))
                .await;
            match upstream {
                Ok(upstream) => Ok(CallerLease {
                    upstream: upstream.clone(),
                    _held: Box::new(held),
                }),
                Err(reason) => {
                    self.forget(caller.subject(), &session);
                    Err(self.refused(format!("its session for this caller failed: {reason}")))
                }
            }
        })
    }

    fn close(&self) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            let sessions: Vec<Arc<CallerSession>> = {
                let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
                self.closed.store(true, Ordering::Release);
                sessions.drain().map(|(_, session)| session).collect()
            };
            for session in sessions {
                if let Some(upstream) = session.upstream.get() {
                    upstream.close().await;
                }
            }
        })
    }
}

/// A caller's token: a request is made as the caller its session last saw, and retried
/// after a 401 as that same caller (an exchanged token it no longer takes is exchanged
/// again).
impl BearerSource for SessionAuth {
    type Holder = Caller;

    async fn token(&self) -> Authorised<(Caller, Option<String>)> {
        let caller = self.caller();
        let token = self.token_for(&caller).await?;
        Ok((caller, token))
    }

    async fn instead_of(&self, caller: &Caller, rejected: &str) -> Authorised<Option<String>> {
        self.tokens.rejected(caller, rejected);
        self.token_for(caller).await
    }
}

impl SessionAuth {
    async fn token_for(&self, caller: &Caller) -> Authorised<Option<String>> {
        // Said as an I/O error: the transport has no variant of its own without rmcp's
        // `auth`, and the reason is what matters.
        self.tokens
            .token_for(caller)
            .await
            .map_err(|reason| StreamableHttpError::Io(std::io::Error::other(reason)))
    }
}

#[cfg(test)]
mod tests {
    use super::{header_value, parse_tokens};
    use std::path::Path;

    #[test]
    fn a_subject_cannot_break_its_header() {
        assert_eq!(header_value("alice@example.com"), "alice@example.com");
        assert_eq!(header_value("a\r\nX-Admin: 1"), "a%0D%0AX-Admin:%201");
        assert_eq!(header_value("100%é"), "100%25%C3%A9");
    }

    #[test]
    fn a_file_of_tokens_is_checked() {
        let toml = Path::new("tokens.toml");
        let tokens = parse_tokens(toml, "alice = \" a \"\n\"*\" = \"any\"\n").unwrap();
        assert_eq!(tokens["alice"], "a");
        assert_eq!(tokens["*"], "any");
        assert!(parse_tokens(toml, "alice = \"\"").is_err());
        assert!(parse_tokens(toml, "alice = \"a\\nb\"").is_err());
        assert!(parse_tokens(toml, "alice = 3").is_err());
        let json = Path::new("tokens.json");
        assert_eq!(parse_tokens(json, r#"{"bob": "b"}"#).unwrap()["bob"], "b");
    }
}
