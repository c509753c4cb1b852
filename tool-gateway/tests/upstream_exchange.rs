//! An HTTP upstream called as each caller (feature `oauth`): an authorization server in
//! process implementing the token exchange grant (RFC 8693) beside client credentials, its
//! RFC 8414 metadata, and JWTs signed with the test key of `tests/data`; our own `McpServer`
//! upstream accepting those JWTs, whose `whoami` tool answers the principal it sees; a TCP
//! proxy in front of it recording every byte the gateway sends it. Callers are given to the
//! executor as an authenticated front end gives them (`CallOptions::caller`).
//!
//! What is proven: two callers are seen upstream as two principals; a caller's token never
//! reaches the upstream (not one byte of it through the proxy) nor an authorization server
//! the configuration does not name; an exchanged token is cached per caller and exchanged
//! again once expired; a caller flooding exchanges with new tokens cannot evict another
//! caller's cached token; a call without a caller's token is refused; a file of tokens by
//! principal refuses a principal without an entry and is read again when it changes; the
//! callers' sessions are a bounded pool. Counts only, no timing.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolwright_core::{Caller, CallerToken, SafetyLevel, Tool, ToolCall, ToolResult};
use toolwright_gateway::upstream::{
    ClientCredentials, MountOptions, MountUpstream, TokenExchange, Upstream, UpstreamError,
};
use toolwright_mcp::{AuthConfig, HttpOptions, HttpServer, JwtConfig, McpServer};
use toolwright_runtime::{CallOptions, Executor, ToolRegistry};

const EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";

#[path = "support/auth_server.rs"]
mod auth_server;
#[path = "support/in_process.rs"]
mod in_process;
use auth_server::{AUDIENCE, CLIENT_ID, SECRET, data, json_response, parse_form, secret_file};

type AuthState = auth_server::AuthState<Behaviour>;
type AuthServer = auth_server::AuthServer<Behaviour>;
use in_process::within;

/// A caller's token as the authorization server issued it to the caller (for the
/// gateway, not the upstream): `caller.<subject>.<n>`.
fn caller_token(subject: &str, n: usize) -> String {
    format!("caller.{subject}.{n}-0123456789abcdef")
}

/// A JWT the upstream accepts, for `subject`.
fn upstream_jwt(issuer: &str, subject: &str, jti: &str) -> String {
    let now = jsonwebtoken::get_current_timestamp();
    let claims = json!({
        "iss": issuer, "aud": AUDIENCE, "sub": subject, "iat": now, "exp": now + 3600,
        "scope": "tools:safe", "jti": jti,
    });
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some("ec-1".to_owned());
    let key = EncodingKey::from_ec_pem(&std::fs::read(data("ec-1.pem")).unwrap()).unwrap();
    jsonwebtoken::encode(&header, &claims, &key).unwrap()
}

/// How the authorization server answers.
#[derive(Clone, Copy)]
struct Behaviour {
    /// `expires_in` of exchanged tokens.
    expires_in: u64,
}

/// An authorization server of the client credentials and token exchange grants, whose
/// exchanged tokens expire in `expires_in` seconds.
async fn start_auth(expires_in: u64) -> AuthServer {
    AuthServer::start(
        Behaviour { expires_in },
        &["client_credentials", EXCHANGE],
        token,
    )
    .await
}

impl AuthServer {
    /// The token exchanges asked for.
    fn exchanges(&self) -> Vec<HashMap<String, String>> {
        self.requests()
            .into_iter()
            .filter(|form| form.get("grant_type").map(String::as_str) == Some(EXCHANGE))
            .collect()
    }

    /// The exchanges of `subject_token`.
    fn exchanges_of(&self, subject_token: &str) -> usize {
        self.exchanges()
            .iter()
            .filter(|form| form["subject_token"] == subject_token)
            .count()
    }
}

async fn token(State(state): State<AuthState>, body: String) -> Response {
    let form = parse_form(&body);
    state.requests.lock().unwrap().push(form.clone());
    if form.get("client_id").map(String::as_str) != Some(CLIENT_ID)
        || form.get("client_secret").map(String::as_str) != Some(SECRET)
    {
        return json_response(
            StatusCode::UNAUTHORIZED,
            &json!({"error": "invalid_client"}),
        );
    }
    let n = state.issued.fetch_add(1, Ordering::SeqCst);
    let (subject, expires_in) = match form.get("grant_type").map(String::as_str) {
        Some("client_credentials") => (CLIENT_ID.to_owned(), 3600),
        Some(EXCHANGE) => {
            let subject = form
                .get("subject_token")
                .and_then(|token| token.strip_prefix("caller."))
                .and_then(|rest| rest.split('.').next());
            let (Some(subject), Some(kind)) = (subject, form.get("subject_token_type")) else {
                return json_response(
                    StatusCode::BAD_REQUEST,
                    &json!({"error": "invalid_grant", "error_description": "unknown subject token"}),
                );
            };
            assert_eq!(kind, "urn:ietf:params:oauth:token-type:access_token");
            (subject.to_owned(), state.behaviour.expires_in)
        }
        _ => {
            return json_response(
                StatusCode::BAD_REQUEST,
                &json!({"error": "unsupported_grant_type"}),
            );
        }
    };
    json_response(
        StatusCode::OK,
        &json!({
            "access_token": upstream_jwt(&state.issuer, &subject, &format!("token-{n}")),
            "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
            "token_type": "Bearer",
            "expires_in": expires_in,
        }),
    )
}

/// What the upstream's `hold` tool waits for.
#[derive(Default)]
struct Hold {
    started: tokio::sync::Notify,
    release: tokio::sync::Notify,
}

/// The upstream: `whoami` answers the principal the upstream sees; `hold` waits.
async fn upstream_server(issuer: &str, hold: Arc<Hold>) -> HttpServer {
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register(
            Tool::builder("whoami")
                .description("Who calls.")
                .handler_with_context(|ctx, _: Map<String, Value>| async move {
                    ctx.caller()
                        .map_or_else(|| "nobody".to_owned(), |c| c.subject().to_owned())
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    registry
        .register(
            Tool::builder("hold")
                .description("Waits to be released.")
                .handler(move |_: Map<String, Value>| {
                    let hold = hold.clone();
                    async move {
                        let released = hold.release.notified();
                        hold.started.notify_one();
                        released.await;
                        "released"
                    }
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    let jwt = JwtConfig::from_jwks_file(data("jwks.json"), issuer, AUDIENCE).unwrap();
    McpServer::new(Executor::builder(registry).build())
        .serve_http_with(
            ([127, 0, 0, 1], 0).into(),
            HttpOptions::new().auth(AuthConfig::new().jwt(jwt)),
        )
        .await
        .unwrap()
}

/// A TCP proxy in front of the upstream keeping every byte sent to it.
struct RecordingProxy {
    addr: SocketAddr,
    path: String,
    sent: Arc<Mutex<Vec<u8>>>,
}

impl RecordingProxy {
    async fn start(upstream_url: &str) -> RecordingProxy {
        let rest = upstream_url.strip_prefix("http://").unwrap();
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let target: SocketAddr = host.parse().unwrap();
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let sent: Arc<Mutex<Vec<u8>>> = Arc::default();
        let record = sent.clone();
        tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let record = record.clone();
                tokio::spawn(async move {
                    let Ok(outbound) = tokio::net::TcpStream::connect(target).await else {
                        return;
                    };
                    let (mut in_read, mut in_write) = inbound.into_split();
                    let (mut out_read, mut out_write) = outbound.into_split();
                    let up = async move {
                        let mut buffer = vec![0u8; 16 * 1024];
                        loop {
                            let n = match in_read.read(&mut buffer).await {
                                Ok(0) | Err(_) => break,
                                Ok(n) => n,
                            };
                            record.lock().unwrap().extend_from_slice(&buffer[..n]);
                            if out_write.write_all(&buffer[..n]).await.is_err() {
                                break;
                            }
                        }
                        let _ = out_write.shutdown().await;
                    };
                    let down = async move {
                        let _ = tokio::io::copy(&mut out_read, &mut in_write).await;
                        let _ = in_write.shutdown().await;
                    };
                    tokio::join!(up, down);
                });
            }
        });
        RecordingProxy {
            addr,
            path: path.to_owned(),
            sent,
        }
    }

    fn url(&self) -> String {
        format!("http://{}{}", self.addr, self.path)
    }

    /// Whether `needle` was ever sent to the upstream.
    fn saw(&self, needle: &str) -> bool {
        let sent = self.sent.lock().unwrap();
        sent.windows(needle.len()).any(|w| w == needle.as_bytes())
    }
}

/// A gateway's registry with `upstream` mounted as `web`, and its executor.
async fn gateway(upstream: &Upstream) -> Executor {
    let registry = Arc::new(ToolRegistry::new());
    within(
        "mount",
        registry.mount(
            upstream,
            MountOptions::new("web")
                .safety("whoami", SafetyLevel::Safe)
                .safety("hold", SafetyLevel::Safe),
        ),
    )
    .await
    .unwrap();
    Executor::builder(registry).build()
}

async fn call_as(executor: &Executor, tool: &str, caller: Option<Caller>) -> ToolResult {
    let mut options = CallOptions::new();
    if let Some(caller) = caller {
        options = options.caller(caller);
    }
    within(
        "call",
        executor.execute_with(ToolCall::new("1", tool, json!({})), options),
    )
    .await
    .result
}

fn caller(subject: &str, token: &str) -> Caller {
    Caller::new(subject).with_token(CallerToken::new(token))
}

/// The upstream behind the recording proxy, and the gateway's connection to it: its own
/// session with client credentials, each caller's with an exchanged token.
struct Setup {
    auth: AuthServer,
    proxy: RecordingProxy,
    upstream: Upstream,
    executor: Executor,
    hold: Arc<Hold>,
    _dir: tempfile::TempDir,
}

async fn setup(expires_in: u64, configure: impl Fn(TokenExchange) -> TokenExchange) -> Setup {
    setup_with(expires_in, configure, |upstream| upstream).await
}

async fn setup_with(
    expires_in: u64,
    configure: impl Fn(TokenExchange) -> TokenExchange,
    more: impl Fn(
        toolwright_gateway::upstream::HttpUpstream,
    ) -> toolwright_gateway::upstream::HttpUpstream,
) -> Setup {
    let auth = start_auth(expires_in).await;
    let hold = Arc::new(Hold::default());
    let server = upstream_server(&auth.issuer, hold.clone()).await;
    let proxy = RecordingProxy::start(&server.url()).await;
    let dir = tempfile::tempdir().unwrap();
    let token_url = format!("{}/token", auth.issuer);
    // Through the proxy the upstream's metadata names another URL (rmcp checks it): the
    // token endpoint is given.
    let upstream = within(
        "connect",
        more(
            Upstream::http(proxy.url())
                .client_credentials(
                    ClientCredentials::secret_file(CLIENT_ID, secret_file(dir.path(), SECRET))
                        .token_url(&token_url),
                )
                .token_exchange(configure(
                    TokenExchange::secret_file(CLIENT_ID, secret_file(dir.path(), SECRET))
                        .token_url(&token_url)
                        .scopes(["tools:safe"]),
                )),
        )
        .connect(),
    )
    .await
    .unwrap();
    let executor = gateway(&upstream).await;
    // The server is kept alive by its task; the handle may go.
    std::mem::forget(server);
    Setup {
        auth,
        proxy,
        upstream,
        executor,
        hold,
        _dir: dir,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_callers_are_two_principals_upstream_and_their_tokens_never_reach_it() {
    let s = setup(3600, |exchange| exchange.audience("tools-api")).await;
    let (alice, bob) = (caller_token("alice", 0), caller_token("bob", 0));

    let result = call_as(&s.executor, "web_whoami", Some(caller("alice", &alice))).await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.content, "alice");
    let result = call_as(&s.executor, "web_whoami", Some(caller("bob", &bob))).await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.content, "bob");
    // Alice again: her exchanged token is cached.
    let result = call_as(&s.executor, "web_whoami", Some(caller("alice", &alice))).await;
    assert_eq!(result.content, "alice");

    let exchanges = s.auth.exchanges();
    assert_eq!(exchanges.len(), 2, "one exchange per caller: {exchanges:?}");
    for form in &exchanges {
        assert_eq!(form["resource"], s.proxy.url(), "RFC 8707: the upstream");
        assert_eq!(form["audience"], "tools-api");
        assert_eq!(form["scope"], "tools:safe");
        assert_eq!(form["client_id"], CLIENT_ID);
        assert_eq!(
            form["requested_token_type"],
            "urn:ietf:params:oauth:token-type:access_token"
        );
    }
    assert_eq!(s.auth.exchanges_of(&alice), 1);
    assert_eq!(s.auth.exchanges_of(&bob), 1);
    // Not one byte of a caller's token went to the upstream; exchanged tokens did.
    assert!(
        !s.proxy.saw(&alice),
        "alice's own token reached the upstream"
    );
    assert!(!s.proxy.saw(&bob), "bob's own token reached the upstream");
    assert!(
        !s.proxy.saw("caller."),
        "a caller's token reached the upstream"
    );
    assert!(s.proxy.saw("Bearer ") || s.proxy.saw("bearer "));
    s.upstream.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_without_a_callers_token_is_refused_before_any_exchange() {
    let s = setup(3600, |exchange| exchange).await;
    // A local call (stdio serve, `toolwright call`): no caller at all.
    let result = call_as(&s.executor, "web_whoami", None).await;
    assert!(!result.success);
    let error = result.error.unwrap_or_default();
    assert!(error.contains("no authenticated caller"), "{error}");
    // A caller the front end knows but without a bearer token.
    let result = call_as(&s.executor, "web_whoami", Some(Caller::new("alice"))).await;
    assert!(!result.success);
    let error = result.error.unwrap_or_default();
    assert!(error.contains("no caller's token"), "{error}");
    assert!(s.auth.exchanges().is_empty());
    // Never the gateway's session instead: the upstream saw no call of whoami.
    assert!(
        !s.proxy.saw("\"whoami\""),
        "the call went upstream as the gateway"
    );
    s.upstream.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_exchanged_token_is_exchanged_again() {
    // `expires_in: 0`: expired as soon as it is issued.
    let s = setup(0, |exchange| exchange).await;
    let alice = caller_token("alice", 0);
    for _ in 0..3 {
        let result = call_as(&s.executor, "web_whoami", Some(caller("alice", &alice))).await;
        assert_eq!(result.content, "alice", "{result:?}");
    }
    // Each call's requests (the session's handshake among them) carried a fresh token: at
    // least one exchange per call, never a cached expired one.
    assert!(
        s.auth.exchanges_of(&alice) >= 3,
        "{} exchanges",
        s.auth.exchanges_of(&alice)
    );
    s.upstream.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_flooding_exchanges_cannot_evict_another_callers_token() {
    // Room for two callers' tokens.
    let s = setup(3600, |exchange| exchange.max_cached_tokens(2)).await;
    let alice = caller_token("alice", 0);
    let result = call_as(&s.executor, "web_whoami", Some(caller("alice", &alice))).await;
    assert_eq!(result.content, "alice");
    assert_eq!(s.auth.exchanges_of(&alice), 1);
    // Mallory presents a new token on each of 20 calls: each is exchanged, each replaces
    // Mallory's own entry.
    for n in 0..20 {
        let token = caller_token("mallory", n);
        let result = call_as(&s.executor, "web_whoami", Some(caller("mallory", &token))).await;
        assert_eq!(result.content, "mallory", "{result:?}");
    }
    let result = call_as(&s.executor, "web_whoami", Some(caller("alice", &alice))).await;
    assert_eq!(result.content, "alice");
    assert_eq!(
        s.auth.exchanges_of(&alice),
        1,
        "alice's cached token was evicted by another caller's flood"
    );
    s.upstream.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authorization_server_the_configuration_does_not_name_never_gets_a_token() {
    // The upstream's metadata names the hostile server; the configuration names another.
    let hostile = start_auth(3600).await;
    let named = start_auth(3600).await;
    let server = upstream_server(&hostile.issuer, Arc::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let error = within(
        "connect",
        Upstream::http(server.url())
            .token_exchange(
                TokenExchange::secret_file(CLIENT_ID, secret_file(dir.path(), SECRET))
                    .authorization_server(&named.issuer),
            )
            .connect(),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, UpstreamError::OAuth { .. }), "{error}");
    assert!(
        error.to_string().contains("authorization_server"),
        "{error}"
    );
    assert!(
        hostile.requests().is_empty(),
        "the hostile server got a token request"
    );
    assert!(named.requests().is_empty());

    // Named, the metadata is followed (no proxy: the metadata names this URL).
    let upstream = within(
        "connect",
        Upstream::http(server.url())
            .client_credentials(
                ClientCredentials::secret_file(CLIENT_ID, secret_file(dir.path(), SECRET))
                    .authorization_server(&hostile.issuer),
            )
            .token_exchange(
                TokenExchange::secret_file(CLIENT_ID, secret_file(dir.path(), SECRET))
                    .authorization_server(&hostile.issuer),
            )
            .connect(),
    )
    .await
    .unwrap();
    let executor = gateway(&upstream).await;
    let alice = caller_token("alice", 0);
    let result = call_as(&executor, "web_whoami", Some(caller("alice", &alice))).await;
    assert_eq!(result.content, "alice", "{result:?}");
    assert_eq!(hostile.exchanges_of(&alice), 1);
    assert_eq!(hostile.exchanges()[0]["resource"], server.url());
    upstream.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_callers_sessions_are_a_bounded_pool() {
    let s = setup_with(
        3600,
        |exchange| exchange,
        |http| http.max_caller_sessions(1),
    )
    .await;
    let executor = Arc::new(s.executor);
    let alice = caller_token("alice", 0);
    let bob = caller_token("bob", 0);
    // Alice's call holds the only session.
    let started = s.hold.started.notified();
    let held = {
        let executor = executor.clone();
        let alice = alice.clone();
        tokio::spawn(
            async move { call_as(&executor, "web_hold", Some(caller("alice", &alice))).await },
        )
    };
    within("alice's call starts upstream", started).await;
    let result = call_as(&executor, "web_whoami", Some(caller("bob", &bob))).await;
    assert!(!result.success);
    let error = result.error.unwrap_or_default();
    assert!(error.contains("`max_caller_sessions` (1)"), "{error}");
    s.hold.release.notify_one();
    let result = within("alice's call ends", held).await.unwrap();
    assert_eq!(result.content, "released", "{result:?}");
    // Alice's session is idle now: Bob's takes its place.
    let result = call_as(&executor, "web_whoami", Some(caller("bob", &bob))).await;
    assert_eq!(result.content, "bob", "{result:?}");
    s.upstream.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_of_tokens_by_principal_refuses_a_principal_without_one_and_is_read_again() {
    let auth = start_auth(3600).await;
    let server = upstream_server(&auth.issuer, Arc::default()).await;
    let proxy = RecordingProxy::start(&server.url()).await;
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens.toml");
    let alice_upstream = upstream_jwt(&auth.issuer, "alice", "file-alice");
    std::fs::write(&tokens, format!("alice = \"{alice_upstream}\"\n")).unwrap();
    let upstream = within(
        "connect",
        Upstream::http(proxy.url())
            .client_credentials(
                ClientCredentials::secret_file(CLIENT_ID, secret_file(dir.path(), SECRET))
                    .token_url(format!("{}/token", auth.issuer)),
            )
            .principal_tokens(&tokens)
            .identity_header("X-Caller")
            .connect(),
    )
    .await
    .unwrap();
    let executor = gateway(&upstream).await;

    // No token needed from the caller: its subject picks the entry.
    let result = call_as(&executor, "web_whoami", Some(Caller::new("alice"))).await;
    assert_eq!(result.content, "alice", "{result:?}");
    assert!(
        proxy.saw("x-caller: alice"),
        "the identity header was not sent"
    );
    // Carol has no entry: refused, saying so, never sent as the gateway.
    let result = call_as(&executor, "web_whoami", Some(Caller::new("carol"))).await;
    assert!(!result.success);
    let error = result.error.unwrap_or_default();
    assert!(error.contains("`carol` has no token"), "{error}");
    assert!(!proxy.saw("x-caller: carol"));
    // The file changes: Carol's entry is read.
    let carol_upstream = upstream_jwt(&auth.issuer, "carol", "file-carol");
    std::fs::write(
        &tokens,
        format!("alice = \"{alice_upstream}\"\ncarol = \"{carol_upstream}\"\n# carol added\n"),
    )
    .unwrap();
    let result = call_as(&executor, "web_whoami", Some(Caller::new("carol"))).await;
    assert_eq!(result.content, "carol", "{result:?}");
    // A broken file refuses every call until fixed (no stale token).
    std::fs::write(&tokens, "alice = [broken\n").unwrap();
    let result = call_as(&executor, "web_whoami", Some(Caller::new("alice"))).await;
    assert!(!result.success, "{result:?}");
    assert!(
        result
            .error
            .unwrap_or_default()
            .contains("not a TOML table"),
    );
    // A subject cannot inject a header.
    std::fs::write(&tokens, format!("\"*\" = \"{alice_upstream}\"\n")).unwrap();
    let result = call_as(
        &executor,
        "web_whoami",
        Some(Caller::new("eve\r\nX-Admin: 1")),
    )
    .await;
    assert!(result.success, "{result:?}");
    assert!(proxy.saw("x-caller: eve%0D%0AX-Admin:%201"));
    assert!(!proxy.saw("\r\nX-Admin: 1"));
    assert!(auth.exchanges().is_empty());
    upstream.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_an_authenticated_mcp_server_each_callers_bearer_token_is_exchanged() {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let s = setup(3600, |exchange| exchange).await;
    let (alice, bob) = (caller_token("alice", 0), caller_token("bob", 0));
    // The gateway served over HTTP, its callers authenticated by static tokens.
    let registry = s.executor.registry().clone();
    let front = McpServer::new(Executor::builder(registry).build())
        .serve_http_with(
            ([127, 0, 0, 1], 0).into(),
            HttpOptions::new().auth(
                AuthConfig::new()
                    .token(alice.clone(), ["tools:safe"])
                    .unwrap()
                    .token(bob.clone(), ["tools:safe"])
                    .unwrap(),
            ),
        )
        .await
        .unwrap();
    for token in [&alice, &bob] {
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(front.url()).auth_header(token.clone()),
        );
        let client = within("client", ().serve(transport)).await.unwrap();
        let result = within(
            "call through the front",
            client.call_tool(CallToolRequestParams::new("web_whoami")),
        )
        .await
        .unwrap();
        let text = serde_json::to_value(&result).unwrap().to_string();
        let expected = if token == &alice { "alice" } else { "bob" };
        assert!(text.contains(&format!("\"{expected}\"")), "{text}");
        let _ = client.cancel().await;
    }
    // Each caller's own bearer token went to the authorization server, once, and never
    // to the upstream.
    assert_eq!(s.auth.exchanges_of(&alice), 1);
    assert_eq!(s.auth.exchanges_of(&bob), 1);
    assert!(!s.proxy.saw("caller."));
    s.upstream.close().await;
}
