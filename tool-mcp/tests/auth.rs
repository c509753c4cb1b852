//! Authentication and scopes over real HTTP on 127.0.0.1: static tokens, JWTs checked
//! against the test JWKS in `tests/data/`, the RFC 9728 metadata, what each scope lets a
//! caller see and do.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use common::{initialize, post, session_id};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use reqwest::StatusCode;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use toolwright_core::{SafetyLevel, tool};
use toolwright_mcp::{AuthConfig, HttpOptions, HttpServer, JwtConfig, McpServer};
use toolwright_runtime::{Executor, register_all_tools};

const ISSUER: &str = "https://login.example.test";
const AUDIENCE: &str = "https://tools.example.test";

const SAFE_TOKEN: &str = "safe-token-0123456789abcdef";
const CAUTIOUS_TOKEN: &str = "cautious-token-0123456789abcdef";
const DANGEROUS_TOKEN: &str = "dangerous-token-0123456789abcdef";
const APPROVER_TOKEN: &str = "approver-token-0123456789abcdef";
const ALL_TOKEN: &str = "all-scopes-token-0123456789abcdef";
const NO_TOOLS_TOKEN: &str = "no-tools-token-0123456789abcdef";

static WIPES: AtomicUsize = AtomicUsize::new(0);

/// Read something.
#[tool(safety = "safe")]
fn look() -> String {
    "looked".to_owned()
}

/// Change something.
#[tool(safety = "cautious")]
fn tweak() -> String {
    "tweaked".to_owned()
}

/// Wipe everything (counts how often it really ran).
#[tool(safety = "dangerous")]
fn wipe() -> String {
    WIPES.fetch_add(1, Ordering::SeqCst);
    "wiped".to_owned()
}

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Static tokens, one per scope combination, from a token file, and JWTs from the test JWKS.
fn auth() -> AuthConfig {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tokens");
    std::fs::write(
        &path,
        format!(
            "# test tokens\n\
             {SAFE_TOKEN} tools:safe\n\
             {CAUTIOUS_TOKEN} tools:cautious\n\
             {DANGEROUS_TOKEN} tools:dangerous\n\
             \n\
             {APPROVER_TOKEN} tools:dangerous tools:approve\n\
             {ALL_TOKEN}\n"
        ),
    )
    .unwrap();
    AuthConfig::new()
        .tokens_from_file(&path)
        .unwrap()
        .token(NO_TOOLS_TOKEN, ["tools:approve"])
        .unwrap()
        .jwt(JwtConfig::from_jwks_file(data("jwks.json"), ISSUER, AUDIENCE).unwrap())
}

async fn start(options: HttpOptions, configure: impl FnOnce(McpServer) -> McpServer) -> HttpServer {
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_safety(SafetyLevel::Dangerous)
        .build();
    configure(McpServer::new(executor))
        .serve_http_with(([127, 0, 0, 1], 0).into(), options.auth(auth()))
        .await
        .unwrap()
}

fn www_authenticate(response: &reqwest::Response) -> String {
    response.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_owned()
}

/// A JWT signed with a key file of `tests/data`, with `kid`.
fn jwt(alg: Algorithm, key_file: &str, kid: &str, claims: &Value) -> String {
    let pem = std::fs::read(data(key_file)).unwrap();
    let key = match alg {
        Algorithm::ES256 => EncodingKey::from_ec_pem(&pem).unwrap(),
        // The public key's bytes as a shared secret: the classic algorithm confusion.
        Algorithm::HS256 => EncodingKey::from_secret(&pem),
        _ => EncodingKey::from_rsa_pem(&pem).unwrap(),
    };
    let mut header = Header::new(alg);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, claims, &key).unwrap()
}

fn claims(change: impl FnOnce(&mut Value)) -> Value {
    let now = jsonwebtoken::get_current_timestamp();
    let mut claims = json!({
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": "alice@example.test",
        "iat": now,
        "nbf": now,
        "exp": now + 3600,
        "scope": "openid tools:cautious",
    });
    change(&mut claims);
    claims
}

#[derive(Clone, Default)]
struct Client {
    /// Whether the client supports elicitation (and then always approves).
    elicitation: bool,
    asked: Arc<Mutex<Vec<String>>>,
    /// `notifications/tools/list_changed` received, and a signal at each.
    list_changed: Arc<AtomicUsize>,
    list_changed_told: Arc<tokio::sync::Notify>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.elicitation {
            ClientCapabilities::builder().enable_elicitation().build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(capabilities, Implementation::new("auth-test", "0.0.1"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = request {
            self.asked.lock().unwrap().push(message);
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": true})))
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.fetch_add(1, Ordering::SeqCst);
        self.list_changed_told.notify_one();
    }
}

impl Client {
    /// Waits until `count` list-changed notifications have arrived; returns how many have.
    async fn list_changes(&self, count: usize) -> usize {
        while self.list_changed.load(Ordering::SeqCst) < count {
            self.list_changed_told.notified().await;
        }
        self.list_changed.load(Ordering::SeqCst)
    }
}

async fn connect(
    http: &HttpServer,
    token: &str,
    client: Client,
) -> RunningService<RoleClient, Client> {
    let config = StreamableHttpClientTransportConfig::with_uri(http.url()).auth_header(token);
    client
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap()
}

async fn toolwright_names(client: &RunningService<RoleClient, Client>) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect()
}

#[tokio::test]
async fn a_missing_token_gets_401_pointing_to_fetchable_metadata() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    let response = initialize(&web, &http.url(), None).await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let metadata_url = format!(
        "http://{}/.well-known/oauth-protected-resource",
        http.local_addr()
    );
    assert_eq!(
        www_authenticate(&response),
        format!("Bearer resource_metadata=\"{metadata_url}\"")
    );
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("Authorization: Bearer")
    );

    let metadata = web.get(&metadata_url).send().await.unwrap();
    assert_eq!(metadata.status(), StatusCode::OK);
    let metadata: Value = metadata.json().await.unwrap();
    assert_eq!(
        metadata,
        json!({
            "resource": format!("http://{}", http.local_addr()),
            "authorization_servers": [ISSUER],
            "bearer_methods_supported": ["header"],
            "scopes_supported": ["tools:safe", "tools:cautious", "tools:dangerous", "tools:approve"],
        })
    );
    // The ops endpoints are not behind authentication.
    let health = web
        .get(format!("http://{}/healthz", http.local_addr()))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    http.shutdown();
}

#[tokio::test]
async fn the_public_resource_url_is_what_the_metadata_names() {
    let http = start(
        HttpOptions::new().resource_url("https://tools.example.test/team/"),
        |s| s,
    )
    .await;
    let web = reqwest::Client::new();
    let response = initialize(&web, &http.url(), None).await;
    assert_eq!(
        www_authenticate(&response),
        "Bearer resource_metadata=\"https://tools.example.test/.well-known/oauth-protected-resource/team\""
    );
    // Served on both well-known paths (RFC 9728's, and the bare one).
    for path in [
        "/.well-known/oauth-protected-resource/team",
        "/.well-known/oauth-protected-resource",
    ] {
        let metadata: Value = web
            .get(format!("http://{}{path}", http.local_addr()))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(metadata["resource"], "https://tools.example.test/team");
    }
    http.shutdown();
}

#[tokio::test]
async fn a_wrong_token_gets_401_invalid_token() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    for token in ["not-a-token-we-know-0123456789", "a.b.c"] {
        let response = initialize(&web, &http.url(), Some(token)).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{token}");
        let challenge = www_authenticate(&response);
        assert!(
            challenge.starts_with("Bearer error=\"invalid_token\", error_description="),
            "{challenge}"
        );
        assert!(
            challenge.contains("resource_metadata=\"http://"),
            "{challenge}"
        );
    }
    http.shutdown();
}

#[tokio::test]
async fn jwts_signed_by_a_jwks_key_are_accepted_and_others_refused() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    let accepted = [
        jwt(Algorithm::ES256, "ec-1.pem", "ec-1", &claims(|_| {})),
        jwt(Algorithm::RS256, "rsa-1.pem", "rsa-1", &claims(|_| {})),
        // `scp` as a list, as some identity providers send it.
        jwt(
            Algorithm::ES256,
            "ec-1.pem",
            "ec-1",
            &claims(|c| {
                c.as_object_mut().unwrap().remove("scope");
                c["scp"] = json!(["tools:safe"]);
            }),
        ),
        // An audience list that names this server.
        jwt(
            Algorithm::ES256,
            "ec-1.pem",
            "ec-1",
            &claims(|c| c["aud"] = json!(["https://other.example.test", AUDIENCE])),
        ),
    ];
    for token in &accepted {
        let response = initialize(&web, &http.url(), Some(token)).await;
        assert_eq!(response.status(), StatusCode::OK, "{token}");
    }

    let now = jsonwebtoken::get_current_timestamp();
    let refused = [
        (
            jwt(
                Algorithm::ES256,
                "ec-1.pem",
                "ec-1",
                &claims(|c| {
                    c["iat"] = json!(now - 7200);
                    c["nbf"] = json!(now - 7200);
                    c["exp"] = json!(now - 3600);
                }),
            ),
            "the token has expired",
        ),
        (
            jwt(
                Algorithm::ES256,
                "ec-1.pem",
                "ec-1",
                &claims(|c| c["aud"] = json!("https://other.example.test")),
            ),
            "the token is meant for another audience",
        ),
        (
            jwt(
                Algorithm::ES256,
                "ec-1.pem",
                "ec-1",
                &claims(|c| c["iss"] = json!("https://evil.example.test")),
            ),
            "the token was issued by another issuer",
        ),
        (
            jwt(
                Algorithm::ES256,
                "ec-1.pem",
                "ec-1",
                &claims(|c| c["nbf"] = json!(now + 7200)),
            ),
            "the token is not valid yet (nbf)",
        ),
        // Signed with a key the JWKS does not have, under the name of one it has.
        (
            jwt(
                Algorithm::ES256,
                "ec-2-not-in-jwks.pem",
                "ec-1",
                &claims(|_| {}),
            ),
            "the token's signature does not verify",
        ),
        // A key id the JWKS does not have.
        (
            jwt(
                Algorithm::ES256,
                "ec-2-not-in-jwks.pem",
                "ec-9",
                &claims(|_| {}),
            ),
            "the token is signed with a key this server does not know",
        ),
        // HMAC with a key the attacker can read, under the name of a public key.
        (
            jwt(Algorithm::HS256, "jwks.json", "ec-1", &claims(|_| {})),
            "does not match its signing key",
        ),
        // An RSA key's name on an EC signature.
        (
            jwt(Algorithm::ES256, "ec-1.pem", "rsa-1", &claims(|_| {})),
            "does not match its signing key",
        ),
        (
            jwt(
                Algorithm::ES256,
                "ec-1.pem",
                "ec-1",
                &claims(|c| {
                    c.as_object_mut().unwrap().remove("exp");
                }),
            ),
            "the token has no `exp` claim",
        ),
    ];
    for (token, reason) in &refused {
        let response = initialize(&web, &http.url(), Some(token)).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{reason}");
        let challenge = www_authenticate(&response);
        assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
        assert!(challenge.contains(reason), "{reason}: {challenge}");
    }
    http.shutdown();
}

#[tokio::test]
async fn a_token_without_a_tools_scope_gets_403_insufficient_scope() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    let jwt_without_tools = jwt(
        Algorithm::ES256,
        "ec-1.pem",
        "ec-1",
        &claims(|c| c["scope"] = json!("openid profile")),
    );
    for token in [NO_TOOLS_TOKEN, jwt_without_tools.as_str()] {
        let response = initialize(&web, &http.url(), Some(token)).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        let challenge = www_authenticate(&response);
        assert!(
            challenge.starts_with("Bearer error=\"insufficient_scope\""),
            "{challenge}"
        );
        assert!(
            challenge.contains("scope=\"tools:safe tools:cautious tools:dangerous\""),
            "{challenge}"
        );
    }
    http.shutdown();
}

#[tokio::test]
async fn scopes_set_which_tools_a_caller_sees_and_calls() {
    let http = start(HttpOptions::new(), |s| s.allow_dangerous(true)).await;
    let before = WIPES.load(Ordering::SeqCst);

    let safe = connect(&http, SAFE_TOKEN, Client::default()).await;
    assert_eq!(toolwright_names(&safe).await, ["look"]);
    for name in ["tweak", "wipe"] {
        let result = safe
            .call_tool(CallToolRequestParams::new(name))
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(true), "{name}");
        let text = &result.content[0].as_text().unwrap().text;
        assert!(text.contains("above this caller's limit of safe"), "{text}");
    }
    let result = safe
        .call_tool(CallToolRequestParams::new("look"))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "looked");
    safe.cancel().await.unwrap();

    // A JWT with `tools:cautious`.
    let token = jwt(Algorithm::ES256, "ec-1.pem", "ec-1", &claims(|_| {}));
    let cautious = connect(&http, &token, Client::default()).await;
    assert_eq!(toolwright_names(&cautious).await, ["look", "tweak"]);
    let result = cautious
        .call_tool(CallToolRequestParams::new("tweak"))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    cautious.cancel().await.unwrap();

    let all = connect(&http, ALL_TOKEN, Client::default()).await;
    assert_eq!(toolwright_names(&all).await, ["look", "tweak", "wipe"]);
    all.cancel().await.unwrap();
    assert_eq!(WIPES.load(Ordering::SeqCst), before);
    http.shutdown();
}

#[tokio::test]
async fn a_caller_s_own_approval_counts_only_with_tools_approve() {
    let http = start(HttpOptions::new(), |s| s).await;
    let before = WIPES.load(Ordering::SeqCst);

    // Without tools:approve: not asked, refused, not run.
    let client = Client {
        elicitation: true,
        ..Client::default()
    };
    let asked = Arc::clone(&client.asked);
    let dangerous = connect(&http, DANGEROUS_TOKEN, client).await;
    let result = dangerous
        .call_tool(CallToolRequestParams::new("wipe"))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let text = &result.content[0].as_text().unwrap().text;
    assert!(
        text.contains("lacks the `tools:approve` scope needed to approve it"),
        "{text}"
    );
    assert!(asked.lock().unwrap().is_empty());
    assert_eq!(WIPES.load(Ordering::SeqCst), before);
    dangerous.cancel().await.unwrap();

    // With it: asked, approved, run.
    let client = Client {
        elicitation: true,
        ..Client::default()
    };
    let asked = Arc::clone(&client.asked);
    let approver = connect(&http, APPROVER_TOKEN, client).await;
    let result = approver
        .call_tool(CallToolRequestParams::new("wipe"))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(asked.lock().unwrap().len(), 1);
    assert_eq!(WIPES.load(Ordering::SeqCst), before + 1);
    approver.cancel().await.unwrap();
    http.shutdown();

    // A server that allows dangerous tools runs it for the caller without tools:approve.
    let http = start(HttpOptions::new(), |s| s.allow_dangerous(true)).await;
    let dangerous = connect(&http, DANGEROUS_TOKEN, Client::default()).await;
    let result = dangerous
        .call_tool(CallToolRequestParams::new("wipe"))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(WIPES.load(Ordering::SeqCst), before + 2);
    dangerous.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn scopes_apply_in_stateless_mode_too() {
    let http = start(HttpOptions::new().stateless(true), |s| s).await;
    let web = reqwest::Client::new();
    let request = |id: u32, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let list = post(&web, &http.url(), &request(1, "tools/list", json!({})))
        .bearer_auth(SAFE_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(list.status(), StatusCode::OK);
    let list: Value = list.json().await.unwrap();
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["look"]);
    let call = post(
        &web,
        &http.url(),
        &request(2, "tools/call", json!({"name": "tweak", "arguments": {}})),
    )
    .bearer_auth(SAFE_TOKEN)
    .send()
    .await
    .unwrap();
    let call: Value = call.json().await.unwrap();
    assert_eq!(call["result"]["isError"], true, "{call}");
    assert!(
        call["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("above this caller's limit of safe"),
        "{call}"
    );
    http.shutdown();
}

#[tokio::test]
async fn a_session_belongs_to_the_token_that_started_it() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    let started = initialize(&web, &http.url(), Some(SAFE_TOKEN)).await;
    assert_eq!(started.status(), StatusCode::OK);
    let session = session_id(&started).unwrap();
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let stolen = post(&web, &http.url(), &list)
        .bearer_auth(ALL_TOKEN)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(stolen.status(), StatusCode::FORBIDDEN);
    assert!(
        stolen
            .text()
            .await
            .unwrap()
            .contains("started with another access token")
    );
    http.shutdown();
}

#[cfg(feature = "jwks-url")]
mod jwks_url {
    use super::*;

    /// Serves the test JWKS on 127.0.0.1; its URL.
    async fn serve_jwks() -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let jwks = std::fs::read_to_string(data("jwks.json")).unwrap();
        let router = axum::Router::new().route(
            "/jwks.json",
            axum::routing::get(move || {
                let jwks = jwks.clone();
                async move { jwks }
            }),
        );
        tokio::spawn(async move { axum::serve(listener, router).await });
        format!("http://{addr}/jwks.json")
    }

    #[tokio::test]
    async fn keys_are_fetched_from_a_jwks_url() {
        let url = serve_jwks().await;
        let jwt_config = JwtConfig::from_jwks_url(&url, ISSUER, AUDIENCE)
            .await
            .unwrap();
        let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
        let http = McpServer::new(executor)
            .serve_http_with(
                ([127, 0, 0, 1], 0).into(),
                HttpOptions::new().auth(AuthConfig::new().jwt(jwt_config)),
            )
            .await
            .unwrap();
        let web = reqwest::Client::new();
        let token = jwt(Algorithm::RS256, "rsa-1.pem", "rsa-1", &claims(|_| {}));
        let response = initialize(&web, &http.url(), Some(&token)).await;
        assert_eq!(response.status(), StatusCode::OK);
        let forged = jwt(
            Algorithm::ES256,
            "ec-2-not-in-jwks.pem",
            "ec-1",
            &claims(|_| {}),
        );
        let response = initialize(&web, &http.url(), Some(&forged)).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        http.shutdown();
    }

    #[tokio::test]
    async fn a_jwks_url_must_be_https_unless_loopback() {
        let error =
            JwtConfig::from_jwks_url("http://login.example.test/jwks.json", ISSUER, AUDIENCE)
                .await
                .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("is not https; signing keys must be fetched over TLS"),
            "{error}"
        );
        // Nothing listens there: the error says it could not be fetched.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
        drop(listener);
        let error = JwtConfig::from_jwks_url(&url, ISSUER, AUDIENCE)
            .await
            .unwrap_err();
        assert!(
            error.to_string().contains("it cannot be fetched"),
            "{error}"
        );
    }
}

#[tokio::test]
async fn list_changed_goes_only_to_sessions_whose_token_sees_the_tool() {
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_safety(SafetyLevel::Dangerous)
        .build();
    let http = McpServer::new(executor.clone())
        .serve_http_with(([127, 0, 0, 1], 0).into(), HttpOptions::new().auth(auth()))
        .await
        .unwrap();
    let (safe_watch, dangerous_watch) = (Client::default(), Client::default());
    let safe = connect(&http, SAFE_TOKEN, safe_watch.clone()).await;
    let dangerous = connect(&http, DANGEROUS_TOKEN, dangerous_watch.clone()).await;
    // A round trip each: the sessions are initialized and subscribed.
    assert_eq!(toolwright_names(&safe).await, ["look"]);
    assert_eq!(
        toolwright_names(&dangerous).await,
        ["look", "tweak", "wipe"]
    );

    // Each phase ends with a change both see; a notification sent for a change a session
    // cannot see would arrive before that one and show in the counts.
    let registry = executor.registry();
    registry.set_enabled("wipe", false).unwrap();
    registry.set_enabled("tweak", false).unwrap();
    registry.set_enabled("look", false).unwrap();
    assert_eq!(dangerous_watch.list_changes(3).await, 3);
    assert_eq!(safe_watch.list_changes(1).await, 1);

    registry.set_enabled("wipe", true).unwrap();
    registry.set_enabled("tweak", true).unwrap();
    registry.set_enabled("look", true).unwrap();
    assert_eq!(dangerous_watch.list_changes(6).await, 6);
    assert_eq!(safe_watch.list_changes(2).await, 2);

    safe.cancel().await.unwrap();
    dangerous.cancel().await.unwrap();
    http.shutdown();
}

/// A JWT signed like [`jwt`], with `extra` added to its header (what `Header` cannot hold).
fn jwt_with_header(extra: Value, claims: &Value) -> String {
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut header = json!({"alg": "ES256", "typ": "JWT", "kid": "ec-1"});
    for (name, value) in extra.as_object().unwrap() {
        header[name] = value.clone();
    }
    let message = format!(
        "{}.{}",
        engine.encode(header.to_string()),
        engine.encode(claims.to_string())
    );
    let pem = std::fs::read(data("ec-1.pem")).unwrap();
    let key = EncodingKey::from_ec_pem(&pem).unwrap();
    let signature = jsonwebtoken::crypto::sign(message.as_bytes(), &key, Algorithm::ES256).unwrap();
    format!("{message}.{signature}")
}

/// RFC 7515, 4.1.11: a header whose `crit` names an extension the server does not
/// understand (it understands none), or a malformed `crit`, makes the token invalid.
#[tokio::test]
async fn a_jwt_with_a_crit_header_is_refused() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    // The control: the same token without `crit` is accepted.
    let plain = jwt_with_header(json!({}), &claims(|_| {}));
    let response = initialize(&web, &http.url(), Some(&plain)).await;
    assert_eq!(response.status(), StatusCode::OK);
    for (extra, reason) in [
        (
            json!({"crit": ["https://example.test/must-check"], "https://example.test/must-check": true}),
            "does not understand",
        ),
        (
            json!({"crit": ["b64"], "b64": false}),
            "does not understand",
        ),
        (json!({"crit": []}), "malformed `crit`"),
        (json!({"crit": "exp"}), "malformed `crit`"),
        (json!({"crit": [1]}), "malformed `crit`"),
    ] {
        let token = jwt_with_header(extra.clone(), &claims(|_| {}));
        let response = initialize(&web, &http.url(), Some(&token)).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{extra}");
        let challenge = www_authenticate(&response);
        assert!(challenge.contains("invalid_token"), "{extra}: {challenge}");
        assert!(challenge.contains(reason), "{extra}: {challenge}");
    }
    http.shutdown();
}

/// A JWT without `sub` is refused (it would share one owner with every other such token).
#[tokio::test]
async fn a_jwt_without_a_subject_is_refused() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    for change in [
        (|c: &mut Value| {
            c.as_object_mut().unwrap().remove("sub");
        }) as fn(&mut Value),
        |c: &mut Value| {
            c.as_object_mut().unwrap().remove("sub");
            c["client_id"] = json!("some-client");
        },
        |c: &mut Value| c["sub"] = json!(""),
    ] {
        let token = jwt(Algorithm::ES256, "ec-1.pem", "ec-1", &claims(change));
        let response = initialize(&web, &http.url(), Some(&token)).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let challenge = www_authenticate(&response);
        assert!(challenge.contains("`sub`"), "{challenge}");
    }
    http.shutdown();
}

/// Owners of JWTs and of static tokens live in separate namespaces: a JWT whose `sub` is a
/// static token's subject (`tokens:2`, line 2 of the token file) does not own that
/// token's sessions.
#[tokio::test]
async fn a_jwt_named_like_a_static_token_does_not_own_its_sessions() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    let started = initialize(&web, &http.url(), Some(SAFE_TOKEN)).await;
    assert_eq!(started.status(), StatusCode::OK);
    let session = session_id(&started).unwrap();
    let impostor = jwt(
        Algorithm::ES256,
        "ec-1.pem",
        "ec-1",
        &claims(|c| {
            c["sub"] = json!("tokens:2");
            c["scope"] = json!("tools:safe");
        }),
    );
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let answer = post(&web, &http.url(), &list)
        .bearer_auth(&impostor)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::FORBIDDEN);
    let ended = web
        .delete(http.url())
        .bearer_auth(&impostor)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status(), StatusCode::FORBIDDEN);
    // The token's own requests still work.
    let answer = post(&web, &http.url(), &list)
        .bearer_auth(SAFE_TOKEN)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_ne!(answer.status(), StatusCode::FORBIDDEN);
    http.shutdown();
}
