//! `RedisSessionStore` against a real `redis-server` (on a Unix socket in a temporary
//! directory), and two rmcp streamable HTTP servers sharing sessions through it.
//!
//! Without `redis-server` installed these tests say so and pass, unless
//! `TOOLWRIGHT_REQUIRE_SERVICES=1` (as in CI), where they fail.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Once};
use std::time::Duration;

use rmcp::model::{ClientCapabilities, Implementation, InitializeRequestParams};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{SessionState, SessionStore};
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use toolwright_core::tool;
use toolwright_mcp::{
    DEFAULT_KEY_PREFIX, DEFAULT_STATE_KEY_PREFIX, McpServer, RedisSessionStore, RedisStoreError,
    StateClaims,
};
use toolwright_runtime::{Executor, register_all_tools};

/// How long anything may take before a test gives up: generous, so a loaded machine
/// does not fail a test; nothing is asserted on durations.
const DEADLINE: Duration = Duration::from_secs(120);

/// Say a greeting back, twice.
#[tool]
fn echo_twice(text: String) -> String {
    format!("{text} {text}")
}

// ---------------------------------------------------------------------------------------
// A redis-server of our own.

/// A `redis-server` on a Unix socket in a temporary directory, killed on drop.
struct Redis {
    child: Child,
    dir: tempfile::TempDir,
}

impl Redis {
    /// Starts one and waits until it answers PING; `None` (after saying why) when
    /// `redis-server` is not installed and the environment does not require it.
    async fn start() -> Option<Redis> {
        let binary = redis_server_binary()?;
        let dir = tempfile::tempdir().unwrap();
        let log = std::fs::File::create(dir.path().join("redis.log")).unwrap();
        let child = Command::new(&binary)
            .args(["--port", "0", "--unixsocket"])
            .arg(dir.path().join("redis.sock"))
            .args([
                "--unixsocketperm",
                "700",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .args(["--daemonize", "no", "--logfile", ""])
            .arg("--dir")
            .arg(dir.path())
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let mut redis = Redis { child, dir };
        redis.wait_until_ready().await;
        Some(redis)
    }

    fn url(&self) -> String {
        format!(
            "redis+unix://{}",
            self.dir.path().join("redis.sock").display()
        )
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("redis.log")).unwrap_or_default()
    }

    /// Polls PING on the socket until it answers (the event), failing at once if the
    /// server exits, or after the overall deadline.
    async fn wait_until_ready(&mut self) {
        let client = redis::Client::open(self.url()).unwrap();
        let started = tokio::time::Instant::now();
        loop {
            if let Ok(mut connection) = client.get_multiplexed_async_connection().await
                && let Ok(answer) = redis::cmd("PING")
                    .query_async::<String>(&mut connection)
                    .await
            {
                assert_eq!(answer, "PONG");
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "redis-server exited ({status}) before answering:\n{}",
                    self.log()
                );
            }
            assert!(
                started.elapsed() < DEADLINE,
                "redis-server did not answer PING at {}:\n{}",
                self.url(),
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// A plain connection, to look at what the store wrote.
    async fn connection(&self) -> redis::aio::MultiplexedConnection {
        redis::Client::open(self.url())
            .unwrap()
            .get_multiplexed_async_connection()
            .await
            .unwrap()
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn redis_server_binary() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .map(|dir| dir.join("redis-server"))
        .find(|candidate| candidate.is_file());
    if found.is_none() {
        if std::env::var("TOOLWRIGHT_REQUIRE_SERVICES").as_deref() == Ok("1") {
            panic!(
                "redis-server is not installed and TOOLWRIGHT_REQUIRE_SERVICES=1: install it \
                 (`apt-get install redis-server`) to run the session store tests"
            );
        }
        // Straight to stderr, past the test harness's capture, once: a skip must be seen.
        static SAID: Once = Once::new();
        SAID.call_once(|| {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: redis-server is not installed, so the Redis session store tests \
                 that need it pass without running (`apt-get install redis-server`; \
                 TOOLWRIGHT_REQUIRE_SERVICES=1 makes this a failure)"
            );
        });
    }
    found
}

fn session_state(client_name: &str) -> SessionState {
    SessionState::new(InitializeRequestParams::new(
        ClientCapabilities::default(),
        Implementation::new(client_name, "1.0.0"),
    ))
}

fn json_of(state: &SessionState) -> Value {
    serde_json::to_value(state).unwrap()
}

// ---------------------------------------------------------------------------------------
// The store on its own.

#[tokio::test]
async fn store_load_delete_round_trip() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let store = RedisSessionStore::connect(&redis.url()).await.unwrap();
    assert_eq!(store.prefix(), DEFAULT_KEY_PREFIX);
    assert!(store.load("unknown").await.unwrap().is_none());

    let state = session_state("round-trip");
    store.store("s-1", &state).await.unwrap();
    let loaded = store.load("s-1").await.unwrap().unwrap();
    assert_eq!(json_of(&loaded), json_of(&state));

    // Stored as JSON, under the prefix.
    let mut connection = redis.connection().await;
    let raw: String = redis::cmd("GET")
        .arg("toolwright:mcp:session:s-1")
        .query_async(&mut connection)
        .await
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&raw).unwrap(),
        json_of(&state)
    );

    store.delete("s-1").await.unwrap();
    assert!(store.load("s-1").await.unwrap().is_none());
    // Deleting what is not there is not an error (a DELETE may come twice).
    store.delete("s-1").await.unwrap();
}

#[tokio::test]
async fn entries_have_a_ttl_that_loads_and_touches_restart() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let store = RedisSessionStore::connect(&redis.url())
        .await
        .unwrap()
        .key_prefix("test:ttl:")
        .ttl(Duration::from_secs(600));
    assert_eq!(store.time_to_live(), Duration::from_secs(600));
    store.store("s-ttl", &session_state("ttl")).await.unwrap();

    let mut connection = redis.connection().await;
    let ttl = |connection: &mut redis::aio::MultiplexedConnection| {
        let mut connection = connection.clone();
        async move {
            redis::cmd("TTL")
                .arg("test:ttl:s-ttl")
                .query_async::<i64>(&mut connection)
                .await
                .unwrap()
        }
    };
    let set = ttl(&mut connection).await;
    assert!(set > 0 && set <= 600, "TTL after store: {set}");

    // Shorten it by hand, then a load restarts it (10 vs 600 s: not a timing assertion).
    let _: () = redis::cmd("EXPIRE")
        .arg("test:ttl:s-ttl")
        .arg(10)
        .query_async(&mut connection)
        .await
        .unwrap();
    assert!(store.load("s-ttl").await.unwrap().is_some());
    let after_load = ttl(&mut connection).await;
    assert!(after_load > 10, "TTL after load: {after_load}");

    let _: () = redis::cmd("EXPIRE")
        .arg("test:ttl:s-ttl")
        .arg(10)
        .query_async(&mut connection)
        .await
        .unwrap();
    assert!(store.touch("s-ttl").await.unwrap());
    let after_touch = ttl(&mut connection).await;
    assert!(after_touch > 10, "TTL after touch: {after_touch}");
    assert!(!store.touch("no-such-session").await.unwrap());

    // A load of a missing session creates nothing.
    assert!(store.load("no-such-session").await.unwrap().is_none());
    let exists: i64 = redis::cmd("EXISTS")
        .arg("test:ttl:no-such-session")
        .query_async(&mut connection)
        .await
        .unwrap();
    assert_eq!(exists, 0);
}

/// A used request state was recorded under the session prefix: a request with
/// `Mcp-Session-Id: state:<nonce>` made a replica "restore" it, resetting its expiry to the
/// session's idle time, so the same approved retry was accepted again once it lapsed. The
/// records now live in a key space no session id names, with the expiry their claim set.
#[tokio::test]
async fn used_states_are_kept_where_no_session_id_reaches_them() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    // Sessions live two hours: longer than any state (15 minutes at most here).
    let store = RedisSessionStore::connect(&redis.url())
        .await
        .unwrap()
        .ttl(Duration::from_secs(7200));
    let nonce = "00112233445566778899aabbccddeeff";
    let state_ttl = Duration::from_secs(900);
    assert!(store.claim("owner", nonce.into(), state_ttl).await.unwrap());
    assert!(!store.claim("owner", nonce.into(), state_ttl).await.unwrap());

    let mut connection = redis.connection().await;
    let exists = |key: String| {
        let mut connection = connection.clone();
        async move {
            redis::cmd("EXISTS")
                .arg(key)
                .query_async::<i64>(&mut connection)
                .await
                .unwrap()
        }
    };
    let record = format!("{DEFAULT_STATE_KEY_PREFIX}{nonce}");
    assert_eq!(exists(record.clone()).await, 1);
    assert_eq!(
        exists(format!("{DEFAULT_KEY_PREFIX}state:{nonce}")).await,
        0
    );

    // What a replica does for `Mcp-Session-Id: state:<nonce>`: no session, and the record's
    // expiry is not moved (900 s vs 7200 s: not a timing assertion).
    assert!(
        store
            .load(&format!("state:{nonce}"))
            .await
            .unwrap()
            .is_none()
    );
    assert!(!store.touch(&format!("state:{nonce}")).await.unwrap());
    let pttl: i64 = redis::cmd("PTTL")
        .arg(&record)
        .query_async(&mut connection)
        .await
        .unwrap();
    assert!(
        pttl > 0 && pttl <= 900_000,
        "the record's expiry moved: {pttl}"
    );

    // A used-state prefix a session id could reach is refused, not used.
    let inside = RedisSessionStore::connect(&redis.url())
        .await
        .unwrap()
        .state_key_prefix(format!("{DEFAULT_KEY_PREFIX}state:"));
    let refused = inside
        .claim("owner", "ffeeddcc".into(), state_ttl)
        .await
        .unwrap_err();
    assert!(refused.contains("state_key_prefix"), "{refused}");
}

/// Each request state sent back is recorded as used; replicas sharing Redis keep at most
/// `max_states_per_owner` unexpired records per caller, so one caller sending states back
/// without answers exhausts only its own share, on every replica.
#[tokio::test]
async fn one_callers_used_states_fill_only_its_share_on_every_replica() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let connect = || async {
        RedisSessionStore::connect(&redis.url())
            .await
            .unwrap()
            .state_key_prefix("test:share:used-state:")
            .max_states_per_owner(2)
    };
    let (one, two) = (connect().await, connect().await);
    let ttl = Duration::from_secs(900);
    assert!(one.claim("mallory", "aa01".into(), ttl).await.unwrap());
    assert!(two.claim("mallory", "aa02".into(), ttl).await.unwrap());
    let refused = one.claim("mallory", "aa03".into(), ttl).await.unwrap_err();
    assert!(
        refused.contains("2 multi round-trip") && refused.contains("max_states_per_owner"),
        "{refused}"
    );
    // A replay is still a replay, not a refusal by the share.
    assert!(!two.claim("mallory", "aa01".into(), ttl).await.unwrap());
    // Alice's state is recorded.
    assert!(two.claim("alice", "bb01".into(), ttl).await.unwrap());
    // No owner's name reaches a key.
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("test:share:*")
        .query_async(&mut redis.connection().await)
        .await
        .unwrap();
    assert!(keys.iter().all(|key| !key.contains("mallory")), "{keys:?}");
}

#[tokio::test]
async fn two_stores_see_each_others_sessions() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let a = RedisSessionStore::connect(&redis.url()).await.unwrap();
    let b = RedisSessionStore::connect(&redis.url()).await.unwrap();
    let state = session_state("shared");
    a.store("shared-1", &state).await.unwrap();
    assert_eq!(
        json_of(&b.load("shared-1").await.unwrap().unwrap()),
        json_of(&state)
    );
    b.delete("shared-1").await.unwrap();
    assert!(a.load("shared-1").await.unwrap().is_none());

    // Another prefix is another set of sessions.
    let other = RedisSessionStore::connect(&redis.url())
        .await
        .unwrap()
        .key_prefix("other-app:");
    a.store("shared-2", &state).await.unwrap();
    assert!(other.load("shared-2").await.unwrap().is_none());
    assert!(b.load("shared-2").await.unwrap().is_some());
}

#[tokio::test]
async fn an_entry_that_is_not_a_session_is_an_error_naming_the_key() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let store = RedisSessionStore::connect(&redis.url()).await.unwrap();
    let mut connection = redis.connection().await;
    let _: () = redis::cmd("SET")
        .arg("toolwright:mcp:session:garbage")
        .arg("not json")
        .query_async(&mut connection)
        .await
        .unwrap();
    let error = store.load("garbage").await.unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("`toolwright:mcp:session:garbage`"),
        "{message}"
    );
    assert!(message.contains(&redis.url()), "{message}");
    assert!(message.contains("key prefix"), "{message}");
}

/// Needs no redis-server: nothing listens on the socket.
#[tokio::test]
async fn a_dead_socket_is_an_error_naming_the_url() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!(
        "redis+unix://{}",
        dir.path().join("nobody-listens.sock").display()
    );
    let error = RedisSessionStore::connect(&url).await.unwrap_err();
    let message = error.to_string();
    assert!(
        matches!(error, RedisStoreError::Connect { .. }),
        "{message}"
    );
    assert!(message.contains(&format!("`{url}`")), "{message}");
    assert!(
        message.contains("check that redis-server is running"),
        "{message}"
    );
}

#[tokio::test]
async fn a_password_in_the_url_is_not_shown() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("nobody-listens.sock");
    let url = format!("redis+unix://{}?pass=hunter2", socket.display());
    let message = RedisSessionStore::connect(&url)
        .await
        .unwrap_err()
        .to_string();
    assert!(!message.contains("hunter2"), "{message}");
    assert!(
        message.contains(&format!("{}?pass=***", socket.display())),
        "{message}"
    );
}

// ---------------------------------------------------------------------------------------
// Two rmcp servers, one session.

/// An rmcp streamable HTTP server (no toolwright) serving `McpServer` at `/mcp`.
struct Replica {
    addr: SocketAddr,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Replica {
    async fn start(store: Option<Arc<dyn SessionStore>>) -> Replica {
        let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
        let server = McpServer::new(executor);
        let stop = CancellationToken::new();
        let mut config =
            StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
        config.session_store = store;
        let service: StreamableHttpService<McpServer, LocalSessionManager> =
            StreamableHttpService::new(
                move || Ok(server.clone()),
                Arc::new(LocalSessionManager::default()),
                config,
            );
        let router = axum::Router::new().nest_service("/mcp", service);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let until = stop.clone();
        let task = tokio::spawn(async move {
            axum::serve(toolwright_mcp::nodelay_listener(listener), router)
                .with_graceful_shutdown(async move { until.cancelled_owned().await })
                .await
        });
        Replica { addr, stop, task }
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Stops it and waits until it no longer serves.
    async fn shut_down(self) {
        self.stop.cancel();
        tokio::time::timeout(DEADLINE, self.task)
            .await
            .expect("the replica did not stop")
            .unwrap()
            .unwrap();
    }
}

/// A client speaking JSON-RPC over plain POSTs, so each request can go to any replica.
struct RawClient {
    http: reqwest::Client,
    next_id: u64,
    /// The bearer token sent with every request, if any.
    token: Option<String>,
}

const PROTOCOL_VERSION: &str = "2025-06-18";

/// One answer: its status, its session id header, and the JSON-RPC message in its body.
struct Answer {
    status: reqwest::StatusCode,
    session_id: Option<String>,
    body: String,
}

impl Answer {
    /// The JSON-RPC response carried by the body (JSON, or the SSE event holding it).
    fn message(&self) -> Value {
        if let Ok(value) = serde_json::from_str::<Value>(&self.body) {
            return value;
        }
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|message| message.get("id").is_some())
            .unwrap_or_else(|| panic!("no JSON-RPC response in: {}", self.body))
    }
}

impl RawClient {
    fn new() -> RawClient {
        RawClient {
            http: reqwest::Client::builder()
                .timeout(DEADLINE)
                .build()
                .unwrap(),
            next_id: 1,
            token: None,
        }
    }

    fn with_token(token: &str) -> RawClient {
        RawClient {
            token: Some(token.to_owned()),
            ..RawClient::new()
        }
    }

    /// A `DELETE` or `GET` of `session`, with this client's token; its status.
    async fn send(&self, method: reqwest::Method, url: &str, session: &str) -> reqwest::StatusCode {
        let mut request = self
            .http
            .request(method, url)
            .header("Accept", "text/event-stream")
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", PROTOCOL_VERSION);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        request.send().await.unwrap().status()
    }

    async fn post(&self, url: &str, session_id: Option<&str>, body: &Value) -> Answer {
        let mut request = self
            .http
            .post(url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("MCP-Protocol-Version", PROTOCOL_VERSION)
            .body(body.to_string());
        if let Some(id) = session_id {
            request = request.header("Mcp-Session-Id", id);
        }
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let session_id = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = response.text().await.unwrap();
        Answer {
            status,
            session_id,
            body,
        }
    }

    async fn request(
        &mut self,
        url: &str,
        session_id: Option<&str>,
        method: &str,
        params: Value,
    ) -> Answer {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.post(url, session_id, &body).await
    }

    /// `initialize` and `notifications/initialized`; returns the session id.
    async fn initialize(&mut self, url: &str) -> String {
        let answer = self
            .request(
                url,
                None,
                "initialize",
                json!({
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "replica-test", "version": "1.0.0"}
                }),
            )
            .await;
        assert_eq!(answer.status, 200, "initialize: {}", answer.body);
        // Named after the program by default: this test's, `session_store-<hash>`.
        assert!(
            answer.message()["result"]["serverInfo"]["name"]
                .as_str()
                .is_some_and(|name| name.starts_with("session_store-")),
            "{}",
            answer.body
        );
        let session_id = answer
            .session_id
            .expect("initialize gave no Mcp-Session-Id");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let answer = self.post(url, Some(&session_id), &initialized).await;
        assert_eq!(answer.status, 202, "initialized: {}", answer.body);
        session_id
    }

    async fn list_tools(&mut self, url: &str, session_id: &str) -> Answer {
        self.request(url, Some(session_id), "tools/list", json!({}))
            .await
    }

    async fn echo(&mut self, url: &str, session_id: &str, text: &str) -> Answer {
        self.request(
            url,
            Some(session_id),
            "tools/call",
            json!({"name": "echo_twice", "arguments": {"text": text}}),
        )
        .await
    }
}

fn assert_tools_listed(answer: &Answer, server: &str) {
    assert_eq!(
        answer.status, 200,
        "tools/list on {server}: {}",
        answer.body
    );
    let message = answer.message();
    let names: Vec<&str> = message["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("tools/list on {server}: {message}"))
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(names, ["echo_twice"], "tools/list on {server}");
}

fn assert_echoed(answer: &Answer, text: &str, server: &str) {
    assert_eq!(
        answer.status, 200,
        "tools/call on {server}: {}",
        answer.body
    );
    let message = answer.message();
    assert_eq!(
        message["result"]["isError"], false,
        "tools/call on {server}: {message}"
    );
    assert_eq!(
        message["result"]["content"][0]["text"],
        format!("{text} {text}"),
        "tools/call on {server}: {message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_started_on_one_replica_is_served_by_another() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    // Each replica has its own store (its own connection), as separate processes would.
    let store_a = RedisSessionStore::connect(&redis.url()).await.unwrap();
    let store_b = RedisSessionStore::connect(&redis.url()).await.unwrap();
    let store_c = RedisSessionStore::connect(&redis.url()).await.unwrap();
    let a = Replica::start(Some(Arc::new(store_a.clone()))).await;
    let b = Replica::start(Some(Arc::new(store_b))).await;
    let mut client = RawClient::new();

    let session = client.initialize(&a.url()).await;
    // rmcp wrote the session to Redis after the handshake.
    assert!(store_a.load(&session).await.unwrap().is_some());

    // B never saw this session: it restores it from Redis and serves it.
    assert_tools_listed(&client.list_tools(&b.url(), &session).await, "B");
    assert_echoed(
        &client.echo(&b.url(), &session, "hello").await,
        "hello",
        "B",
    );
    // And A still serves it too: requests may alternate.
    assert_echoed(
        &client.echo(&a.url(), &session, "again").await,
        "again",
        "A",
    );

    // A goes away; B carries on with the session.
    a.shut_down().await;
    assert_echoed(
        &client.echo(&b.url(), &session, "after A").await,
        "after A",
        "B",
    );

    // A replica started after A died has never seen the session either, and serves it.
    let c = Replica::start(Some(Arc::new(store_c))).await;
    assert_echoed(&client.echo(&c.url(), &session, "on C").await, "on C", "C");

    // The control: a replica without the store does not know the session (404), which is
    // what the store fixes.
    let lone = Replica::start(None).await;
    let answer = client.echo(&lone.url(), &session, "lost").await;
    assert_eq!(answer.status, 404, "without the store: {}", answer.body);

    // The client ends the session (on B): the entry is gone, so a new replica refuses it.
    let ended = client
        .http
        .delete(b.url())
        .header("Mcp-Session-Id", &session)
        .header("MCP-Protocol-Version", PROTOCOL_VERSION)
        .send()
        .await
        .unwrap();
    assert!(ended.status().is_success(), "DELETE: {}", ended.status());
    assert!(store_a.load(&session).await.unwrap().is_none());
    let d = Replica::start(Some(Arc::new(store_a))).await;
    let answer = client.echo(&d.url(), &session, "ended").await;
    assert_eq!(answer.status, 404, "after DELETE: {}", answer.body);

    for replica in [b, c, lone, d] {
        replica.shut_down().await;
    }
}

// ---------------------------------------------------------------------------------------
// Sessions belong to their caller on every replica.

const TOKEN_A: &str = "token-a-0123456789abcdef0123456789";
const TOKEN_B: &str = "token-b-0123456789abcdef0123456789";

/// A toolwright-mcp HTTP server with two static tokens, sharing sessions through `store`.
async fn authenticated_replica(store: RedisSessionStore) -> toolwright_mcp::HttpServer {
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
    let auth = toolwright_mcp::AuthConfig::new()
        .token(TOKEN_A, ["tools:safe"])
        .unwrap()
        .token(TOKEN_B, ["tools:safe"])
        .unwrap();
    let options = toolwright_mcp::HttpOptions::new()
        .auth(auth)
        .session_store(Arc::new(store));
    McpServer::new(executor)
        .serve_http_with("127.0.0.1:0".parse().unwrap(), options)
        .await
        .unwrap()
}

/// Token A opens a session on replica 1; token B, valid too, cannot use it on replica 2
/// (which has never seen it): not for a call, not for the GET stream, not to end it. The
/// owner is stored with the session in Redis, so replica 2 knows it; A itself is served
/// there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_callers_token_cannot_take_a_session_over_on_another_replica() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let store_1 = RedisSessionStore::connect(&redis.url()).await.unwrap();
    let store_2 = RedisSessionStore::connect(&redis.url()).await.unwrap();
    let one = authenticated_replica(store_1.clone()).await;
    let two = authenticated_replica(store_2).await;
    let mut alice = RawClient::with_token(TOKEN_A);
    let mut mallory = RawClient::with_token(TOKEN_B);

    let session = alice.initialize(&one.url()).await;
    let answer = mallory.echo(&two.url(), &session, "mine now").await;
    assert_eq!(answer.status, 403, "B's call on replica 2: {}", answer.body);
    assert!(
        answer.body.contains("another access token"),
        "{}",
        answer.body
    );
    let answer = mallory.list_tools(&one.url(), &session).await;
    assert_eq!(answer.status, 403, "B's call on replica 1: {}", answer.body);
    assert_eq!(
        mallory
            .send(reqwest::Method::GET, &two.url(), &session)
            .await,
        403,
        "B's GET stream on replica 2"
    );
    assert_eq!(
        mallory
            .send(reqwest::Method::DELETE, &two.url(), &session)
            .await,
        403,
        "B's DELETE on replica 2"
    );
    // Replica 2 knew the owner from Redis, where it is stored with the session (hashed: no
    // token, no subject).
    let raw: String = redis::cmd("GET")
        .arg(format!("{DEFAULT_KEY_PREFIX}{session}"))
        .query_async(&mut redis.connection().await)
        .await
        .unwrap();
    assert!(
        raw.contains("\"dev.toolbox/sessionOwner\":\"static:"),
        "{raw}"
    );
    assert!(!raw.contains(TOKEN_A), "{raw}");

    // The session is still there, and still A's, on both replicas.
    assert!(store_1.load(&session).await.unwrap().is_some());
    assert_echoed(&alice.echo(&two.url(), &session, "hi").await, "hi", "2");
    assert_echoed(&alice.echo(&one.url(), &session, "yo").await, "yo", "1");
    // After replica 2 restored it for A, B is still refused there.
    let answer = mallory.echo(&two.url(), &session, "now?").await;
    assert_eq!(answer.status, 403, "B after the restore: {}", answer.body);

    // A ends it on replica 2.
    let status = alice
        .send(reqwest::Method::DELETE, &two.url(), &session)
        .await;
    assert!(status.is_success(), "A's DELETE: {status}");
    assert!(store_1.load(&session).await.unwrap().is_none());

    for server in [one, two] {
        server.shutdown();
        tokio::time::timeout(DEADLINE, server.wait())
            .await
            .expect("a replica did not stop")
            .unwrap();
    }
}

/// A session in the store without a recorded owner (opened without a token, or by an older
/// version) is refused to every token on an authenticated replica.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_session_without_an_owner_is_refused_to_tokens() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let store = RedisSessionStore::connect(&redis.url()).await.unwrap();
    store
        .store("legacy-session", &session_state("old-client"))
        .await
        .unwrap();
    let server = authenticated_replica(store).await;
    let mut alice = RawClient::with_token(TOKEN_A);
    let answer = alice.echo(&server.url(), "legacy-session", "hi").await;
    assert_eq!(answer.status, 403, "{}", answer.body);
    assert!(answer.body.contains("no recorded owner"), "{}", answer.body);
    server.shutdown();
    tokio::time::timeout(DEADLINE, server.wait())
        .await
        .expect("the server did not stop")
        .unwrap();
}
