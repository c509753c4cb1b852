//! An upstream over streamable HTTP authorised by OAuth 2.0 client credentials (feature
//! `upstream-oauth`): an authorization server in process (its RFC 8414 metadata and a
//! `/token` endpoint that checks the grant and the client, and issues JWTs signed with the
//! test key of `tests/data`), and our own `McpServer` accepting those JWTs, which points to
//! it in its RFC 9728 metadata. The token endpoint counts its requests: a token the server
//! refuses, and one that has expired, are replaced by a new one (no timing: the first token
//! is signed by a key the server does not know; `expires_in: 0` is expired at once).

#[path = "support/counting_proxy.rs"]
mod counting_proxy;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Map, Value, json};
use toolwright_core::{Tool, ToolCall};
use toolwright_gateway::upstream::{
    ClientCredentials, MountOptions, MountUpstream, Upstream, UpstreamError,
};
use toolwright_mcp::{AuthConfig, HttpOptions, HttpServer, JwtConfig, McpServer};
use toolwright_runtime::{Executor, ToolRegistry};

#[path = "support/auth_server.rs"]
mod auth_server;
#[path = "support/in_process.rs"]
mod in_process;
use auth_server::{AUDIENCE, CLIENT_ID, SECRET, data, json_response, parse_form, secret_file};

type AuthState = auth_server::AuthState<Behaviour>;
type AuthServer = auth_server::AuthServer<Behaviour>;
use in_process::within;

/// How the authorization server answers.
#[derive(Clone, Copy, Default)]
struct Behaviour {
    /// The first token is signed with a key the MCP server does not know.
    first_token_refused: bool,
    /// `expires_in` of each token (3600 when `None`).
    expires_in: Option<u64>,
}

/// An authorization server of the client credentials grant answering as `behaviour` says.
async fn start_auth(behaviour: Behaviour) -> AuthServer {
    AuthServer::start(behaviour, &["client_credentials"], token).await
}

async fn token(State(state): State<AuthState>, body: String) -> Response {
    let form = parse_form(&body);
    state.requests.lock().unwrap().push(form.clone());
    if form.get("grant_type").map(String::as_str) != Some("client_credentials") {
        return json_response(
            StatusCode::BAD_REQUEST,
            &json!({"error": "unsupported_grant_type"}),
        );
    }
    if form.get("client_id").map(String::as_str) != Some(CLIENT_ID)
        || form.get("client_secret").map(String::as_str) != Some(SECRET)
    {
        return json_response(
            StatusCode::UNAUTHORIZED,
            &json!({"error": "invalid_client", "error_description": "unknown client"}),
        );
    }
    let n = state.issued.fetch_add(1, Ordering::SeqCst);
    let (key_file, kid) = if n == 0 && state.behaviour.first_token_refused {
        ("ec-2-not-in-jwks.pem", "ec-2")
    } else {
        ("ec-1.pem", "ec-1")
    };
    let now = jsonwebtoken::get_current_timestamp();
    let claims = json!({
        "iss": state.issuer,
        "aud": AUDIENCE,
        "sub": CLIENT_ID,
        "iat": now,
        "exp": now + 3600,
        "scope": "tools:safe",
        // Each token differs from the one before.
        "jti": format!("token-{n}"),
    });
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some(kid.to_owned());
    let key = EncodingKey::from_ec_pem(&std::fs::read(data(key_file)).unwrap()).unwrap();
    let access_token = jsonwebtoken::encode(&header, &claims, &key).unwrap();
    json_response(
        StatusCode::OK,
        &json!({
            "access_token": access_token,
            "token_type": "Bearer",
            "expires_in": state.behaviour.expires_in.unwrap_or(3600),
            "scope": "tools:safe",
        }),
    )
}

fn registry() -> Arc<ToolRegistry> {
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register(
            Tool::builder("echo")
                .description("Echo the text.")
                .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
                .handler(|args: Map<String, Value>| async move {
                    args["text"].as_str().unwrap_or_default().to_owned()
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    registry
}

/// Our MCP server, accepting the authorization server's JWTs (and naming it in its
/// protected resource metadata).
async fn mcp_server(issuer: &str) -> HttpServer {
    let jwt = JwtConfig::from_jwks_file(data("jwks.json"), issuer, AUDIENCE).unwrap();
    McpServer::new(Executor::builder(registry()).build())
        .serve_http_with(
            ([127, 0, 0, 1], 0).into(),
            HttpOptions::new().auth(AuthConfig::new().jwt(jwt)),
        )
        .await
        .unwrap()
}

/// Mounts the upstream and calls its `echo`.
async fn mount_and_call(upstream: &Upstream) {
    let registry = Arc::new(ToolRegistry::new());
    within(
        "mount",
        registry.mount(
            upstream,
            MountOptions::new("web").safety("echo", toolwright_core::SafetyLevel::Safe),
        ),
    )
    .await
    .unwrap();
    let result = within(
        "call",
        Executor::builder(registry.clone())
            .build()
            .execute(ToolCall::new(
                "1",
                "web_echo",
                json!({"text": "with oauth"}),
            )),
    )
    .await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.content, "with oauth");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mounts_with_client_credentials_found_from_the_metadata() {
    let auth = start_auth(Behaviour::default()).await;
    let http = mcp_server(&auth.issuer).await;
    let dir = tempfile::tempdir().unwrap();
    let credentials = ClientCredentials::secret_file(CLIENT_ID, secret_file(dir.path(), SECRET))
        .scopes(["tools:safe"])
        .authorization_server(&auth.issuer);
    let shown = format!("{credentials:?}");
    assert!(shown.contains("client-secret>"), "{shown}");
    assert!(!shown.contains(SECRET), "{shown}");

    let upstream = within(
        "connect",
        Upstream::http(http.url())
            .client_credentials(credentials)
            .connect(),
    )
    .await
    .unwrap();
    mount_and_call(&upstream).await;
    upstream.close().await;

    let requests = auth.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    let request = &requests[0];
    assert_eq!(request["grant_type"], "client_credentials");
    assert_eq!(request["client_id"], CLIENT_ID);
    assert_eq!(request["scope"], "tools:safe");
    assert_eq!(request["resource"], http.url());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_the_server_refuses_is_replaced_once() {
    let auth = start_auth(Behaviour {
        first_token_refused: true,
        ..Behaviour::default()
    })
    .await;
    let http = mcp_server(&auth.issuer).await;
    let dir = tempfile::tempdir().unwrap();
    let upstream = within(
        "connect",
        Upstream::http(http.url())
            .client_credentials(
                ClientCredentials::secret_file(CLIENT_ID, secret_file(dir.path(), SECRET))
                    .authorization_server(&auth.issuer),
            )
            .connect(),
    )
    .await
    .unwrap();
    // The handshake's first request was refused (401) and sent again with a new token.
    assert_eq!(auth.requests().len(), 2);
    mount_and_call(&upstream).await;
    assert_eq!(auth.requests().len(), 2, "the second token is kept");
    upstream.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_token_is_not_sent_again() {
    let auth = start_auth(Behaviour {
        expires_in: Some(0),
        ..Behaviour::default()
    })
    .await;
    let http = mcp_server(&auth.issuer).await;
    let dir = tempfile::tempdir().unwrap();
    let upstream = within(
        "connect",
        Upstream::http(http.url())
            .client_credentials(
                ClientCredentials::secret_file(CLIENT_ID, secret_file(dir.path(), SECRET))
                    .authorization_server(&auth.issuer),
            )
            .connect(),
    )
    .await
    .unwrap();
    let after_connect = auth.requests().len();
    assert!(after_connect >= 2, "{after_connect} token requests");
    mount_and_call(&upstream).await;
    let after_call = auth.requests().len();
    assert!(after_call > after_connect, "{after_call} token requests");
    upstream.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_or_missing_credentials_are_refused_without_the_secret() {
    let auth = start_auth(Behaviour::default()).await;
    let http = mcp_server(&auth.issuer).await;
    let dir = tempfile::tempdir().unwrap();
    let wrong = "wrong-secret-9876543210";
    let error = within(
        "connect with a wrong secret",
        Upstream::http(http.url())
            .client_credentials(
                ClientCredentials::secret_file(CLIENT_ID, secret_file(dir.path(), wrong))
                    .authorization_server(&auth.issuer),
            )
            .connect(),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, UpstreamError::OAuth { .. }), "{error}");
    let message = error.to_string();
    assert!(message.contains(&http.url()), "{message}");
    assert!(message.contains("invalid_client"), "{message}");
    assert!(!message.contains(wrong), "{message}");
    assert_eq!(auth.requests().len(), 1);

    // A variable that is not set: said so, before any request.
    let error = Upstream::http(http.url())
        .client_credentials(ClientCredentials::secret_env(
            CLIENT_ID,
            "TOOLWRIGHT_UPSTREAM_TEST_NO_SUCH_SECRET",
        ))
        .connect()
        .await
        .unwrap_err();
    assert!(
        matches!(error, UpstreamError::ClientSecret { .. }),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .contains("the environment variable TOOLWRIGHT_UPSTREAM_TEST_NO_SUCH_SECRET"),
        "{error}"
    );
    assert_eq!(auth.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_url_is_used_and_needed_without_metadata() {
    let auth = start_auth(Behaviour::default()).await;
    // A server that takes static tokens only names no authorization server.
    let http = McpServer::new(Executor::builder(registry()).build())
        .serve_http_with(
            ([127, 0, 0, 1], 0).into(),
            HttpOptions::new().auth(
                AuthConfig::new()
                    .token("static-token-0123456789abcdef", ["tools:safe"])
                    .unwrap(),
            ),
        )
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let secret = secret_file(dir.path(), SECRET);
    let error = within(
        "connect without metadata",
        Upstream::http(http.url())
            .client_credentials(ClientCredentials::secret_file(CLIENT_ID, &secret))
            .connect(),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, UpstreamError::OAuth { .. }), "{error}");
    assert!(error.to_string().contains("token_url"), "{error}");
    assert_eq!(auth.requests().len(), 0, "no secret sent to a guess");

    // A token URL the secret would cross the network to in clear: refused, unasked.
    let error = Upstream::http(http.url())
        .client_credentials(
            ClientCredentials::secret_file(CLIENT_ID, &secret).token_url("http://192.0.2.1/token"),
        )
        .connect()
        .await
        .unwrap_err();
    assert!(matches!(error, UpstreamError::OAuth { .. }), "{error}");
    assert!(error.to_string().contains("not an https:// URL"), "{error}");

    // With the token URL given, the JWT server takes the token.
    let jwt_server = mcp_server(&auth.issuer).await;
    let upstream = within(
        "connect with a token URL",
        Upstream::http(jwt_server.url())
            .client_credentials(
                ClientCredentials::secret_file(CLIENT_ID, &secret)
                    .token_url(format!("{}/token", auth.issuer)),
            )
            .connect(),
    )
    .await
    .unwrap();
    mount_and_call(&upstream).await;
    assert_eq!(auth.requests().len(), 1);
    upstream.close().await;
}

/// The attack: a hostile upstream's metadata names an authorization server of its choosing
/// (another origin, which the configuration does not name). The gateway used to post the
/// client secret there; now it refuses before sending anything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_secret_never_goes_to_an_authorization_server_the_upstream_chooses() {
    let attacker = start_auth(Behaviour::default()).await;
    let hostile = mcp_server(&attacker.issuer).await;
    let dir = tempfile::tempdir().unwrap();
    let error = within(
        "connect to the hostile upstream",
        Upstream::http(hostile.url())
            .client_credentials(ClientCredentials::secret_file(
                CLIENT_ID,
                secret_file(dir.path(), SECRET),
            ))
            .connect(),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, UpstreamError::OAuth { .. }), "{error}");
    let message = error.to_string();
    assert!(message.contains("authorization_server"), "{message}");
    assert!(!message.contains(SECRET), "{message}");
    assert_eq!(
        attacker.requests().len(),
        0,
        "the attacker's authorization server received the client secret"
    );

    // Another trusted server named does not make the attacker's trusted either.
    let error = within(
        "connect naming another authorization server",
        Upstream::http(hostile.url())
            .client_credentials(
                ClientCredentials::secret_file(CLIENT_ID, secret_file(dir.path(), SECRET))
                    .authorization_server("https://login.example.test"),
            )
            .connect(),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, UpstreamError::OAuth { .. }), "{error}");
    assert_eq!(attacker.requests().len(), 0);
}

/// The OAuth upstream's hop keeps its connections too, with `TCP_NODELAY`: 100 calls
/// through a proxy counting connections take a handful, not one per call as rmcp's client
/// did (`tests/upstream_pool.rs` says why a few, for a plain HTTP upstream).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_reuse_a_few_connections_with_nodelay() {
    const CALLS: usize = 100;
    let auth = start_auth(Behaviour::default()).await;
    let http = mcp_server(&auth.issuer).await;
    let proxy = counting_proxy::CountingProxy::start(&http.url()).await;
    let dir = tempfile::tempdir().unwrap();
    let upstream = within(
        "connect",
        Upstream::http(proxy.url())
            .client_credentials(
                ClientCredentials::secret_file(CLIENT_ID, secret_file(dir.path(), SECRET))
                    .scopes(["tools:safe"])
                    .token_url(format!("{}/token", auth.issuer)),
            )
            .connect(),
    )
    .await
    .unwrap();
    let registry = Arc::new(ToolRegistry::new());
    within(
        "mount",
        registry.mount(
            &upstream,
            MountOptions::new("web").safety("echo", toolwright_core::SafetyLevel::Safe),
        ),
    )
    .await
    .unwrap();
    let executor = Executor::builder(registry.clone()).build();
    for n in 0..CALLS {
        let text = format!("call {n}");
        let result = within(
            "call",
            executor.execute(ToolCall::new(
                n.to_string(),
                "web_echo",
                json!({"text": text}),
            )),
        )
        .await;
        assert!(result.success, "{result:?}");
        assert_eq!(result.content, text);
    }
    let connections = proxy.connections();
    eprintln!("{CALLS} calls: {connections} connections");
    // Fewer than one per call: kept. Not as few as for a plain HTTP upstream: against this
    // server a kept connection often carries only two to four calls (a known gap, in
    // BENCHMARKS.md's Gateway section).
    assert!(
        connections < CALLS,
        "{CALLS} calls took {connections} connections: the upstream hop does not keep them"
    );
    let nodelay = proxy.our_sockets_nodelay();
    assert!(
        !nodelay.is_empty(),
        "no open socket of ours to the upstream"
    );
    assert!(nodelay.iter().all(|&set| set), "{nodelay:?}");
    assert_eq!(auth.requests().len(), 1);
    upstream.close().await;
}
