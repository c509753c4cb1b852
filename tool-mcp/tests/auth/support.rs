//! What the authentication tests share: the tokens and the JWKS of `tests/data/`, the tools
//! (one safe, one cautious, one dangerous that counts its runs), a server with them, and an
//! MCP client that answers elicitations and counts list changes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    Implementation,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use toolwright_core::{SafetyLevel, tool};
use toolwright_mcp::{AuthConfig, HttpOptions, HttpServer, JwtConfig, McpServer};
use toolwright_runtime::{Executor, register_all_tools};

pub const ISSUER: &str = "https://login.example.test";
pub const AUDIENCE: &str = "https://tools.example.test";

pub const SAFE_TOKEN: &str = "safe-token-0123456789abcdef";
const CAUTIOUS_TOKEN: &str = "cautious-token-0123456789abcdef";
pub const DANGEROUS_TOKEN: &str = "dangerous-token-0123456789abcdef";
pub const APPROVER_TOKEN: &str = "approver-token-0123456789abcdef";
pub const ALL_TOKEN: &str = "all-scopes-token-0123456789abcdef";
pub const NO_TOOLS_TOKEN: &str = "no-tools-token-0123456789abcdef";

pub static WIPES: AtomicUsize = AtomicUsize::new(0);

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

pub fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Static tokens, one per scope combination, from a token file, and JWTs from the test JWKS.
pub fn auth() -> AuthConfig {
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

pub async fn start(
    options: HttpOptions,
    configure: impl FnOnce(McpServer) -> McpServer,
) -> HttpServer {
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_safety(SafetyLevel::Dangerous)
        .build();
    configure(McpServer::new(executor))
        .serve_http_with(([127, 0, 0, 1], 0).into(), options.auth(auth()))
        .await
        .unwrap()
}

pub fn www_authenticate(response: &reqwest::Response) -> String {
    response.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_owned()
}

/// A JWT signed with a key file of `tests/data`, with `kid`.
pub fn jwt(alg: Algorithm, key_file: &str, kid: &str, claims: &Value) -> String {
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

pub fn claims(change: impl FnOnce(&mut Value)) -> Value {
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
pub struct Client {
    /// Whether the client supports elicitation (and then always approves).
    pub elicitation: bool,
    pub asked: Arc<Mutex<Vec<String>>>,
    /// `notifications/tools/list_changed` received, and a signal at each.
    pub list_changed: Arc<AtomicUsize>,
    pub list_changed_told: Arc<tokio::sync::Notify>,
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
    pub async fn list_changes(&self, count: usize) -> usize {
        while self.list_changed.load(Ordering::SeqCst) < count {
            self.list_changed_told.notified().await;
        }
        self.list_changed.load(Ordering::SeqCst)
    }
}

pub async fn connect(
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

pub async fn toolwright_names(client: &RunningService<RoleClient, Client>) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect()
}
