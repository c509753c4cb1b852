//! MCP sessions kept in Redis, so several replicas behind a load balancer serve one session.

use std::fmt;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};
use sha2::Digest as _;

/// The key prefix used unless [`RedisSessionStore::key_prefix`] sets another.
pub const DEFAULT_KEY_PREFIX: &str = "toolwright:mcp:session:";

/// The key prefix of used request states unless [`RedisSessionStore::state_key_prefix`] sets
/// another: apart from the sessions' keys, so no session id a client sends names one.
pub const DEFAULT_STATE_KEY_PREFIX: &str = "toolwright:mcp:used-state:";

/// The time to live used unless [`RedisSessionStore::ttl`] sets another: five minutes,
/// rmcp's default idle expiry of a session
/// (`LocalSessionManager`'s `SessionConfig::DEFAULT_KEEP_ALIVE`).
pub const DEFAULT_TTL: Duration = Duration::from_secs(300);

/// Claims a used request state once, within its owner's share, atomically. KEYS: the
/// record, its owner's set (records scored by expiry, in milliseconds of Redis's clock).
/// ARGV: the time to live in milliseconds, the most unexpired records per owner. Returns 1
/// (claimed here), 0 (claimed before), 2 (the owner's share is full). The record's expiry
/// is set here, once.
const CLAIM_STATE: &str = r"
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 2 end
redis.call('SET', KEYS[1], 1, 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, KEYS[1])
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
";

/// How long to wait for Redis to accept a connection, and for an answer to a command.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(5);
/// Reconnection attempts (with exponential backoff up to [`MAX_RETRY_DELAY`]) before a
/// connection is given up, at start and after Redis went away.
const CONNECT_RETRIES: usize = 4;
const MAX_RETRY_DELAY: Duration = Duration::from_secs(1);

/// An rmcp [`SessionStore`] in Redis: MCP sessions shared by several replicas of a server.
///
/// rmcp's streamable HTTP server writes a session's state (the client's `initialize`
/// parameters) to the store after the handshake. When a request with an `Mcp-Session-Id`
/// reaches a replica that does not hold the session in memory (the load balancer sent it
/// elsewhere, or the replica that held it died), rmcp loads the state from the store and
/// replays the handshake there, so the client goes on without initializing again. A
/// client's `DELETE` removes the entry.
///
/// Each session is one Redis string, `{prefix}{session id}`, holding the state as JSON and
/// expiring [`ttl`](Self::ttl) after it was last written or loaded (five minutes unless set:
/// set it to your idle expiry). A session that stays on the replicas that already hold it
/// does not reach the store, so its entry is not refreshed by that traffic; call
/// [`touch`](Self::touch) on requests to keep busy sessions restorable for longer than the
/// TTL. Available with the `redis` feature.
///
/// ```no_run
/// use std::sync::Arc;
/// use std::time::Duration;
///
/// use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
/// use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
/// use toolwright_mcp::{McpServer, RedisSessionStore};
///
/// # async fn run(server: McpServer) -> Result<(), Box<dyn std::error::Error>> {
/// // Or "redis+unix:///run/redis/redis.sock".
/// let store = RedisSessionStore::connect("redis://127.0.0.1:6379/0")
///     .await?
///     .key_prefix("myapp:mcp:session:")
///     .ttl(Duration::from_secs(30 * 60));
///
/// let mut config = StreamableHttpServerConfig::default();
/// config.session_store = Some(Arc::new(store));
/// let service = StreamableHttpService::new(
///     move || Ok(server.clone()),
///     Arc::new(LocalSessionManager::default()),
///     config,
/// );
/// let router = axum::Router::new().nest_service("/mcp", service);
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8081").await?;
/// axum::serve(toolwright_mcp::nodelay_listener(listener), router).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisSessionStore {
    connection: ConnectionManager,
    /// The URL with any password hidden: for messages and `Debug`.
    url: String,
    prefix: String,
    /// Where used request states are recorded: never under `prefix`, where a session id
    /// would name them.
    state_prefix: String,
    /// The most unexpired used states one owner has recorded.
    states_per_owner: usize,
    ttl: Duration,
}

impl fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("url", &self.url)
            .field("prefix", &self.prefix)
            .field("state_prefix", &self.state_prefix)
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

/// Why the Redis session store could not connect or answer.
///
/// Every message names the store's URL (with any password replaced by `***`) and says what
/// to check.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RedisStoreError {
    /// The URL is not a Redis URL.
    #[error(
        "invalid Redis session store URL `{url}`: {source}; use redis://HOST:PORT/DB \
         (rediss:// is not supported) or redis+unix:///PATH/TO/redis.sock"
    )]
    InvalidUrl {
        /// The URL, password hidden.
        url: String,
        /// What the Redis client said.
        source: redis::RedisError,
    },
    /// Redis did not accept a connection (or refused the credentials).
    #[error(
        "cannot connect to the Redis session store at `{url}`: {source}; check that \
         redis-server is running and listening there, and the URL's database and password"
    )]
    Connect {
        /// The URL, password hidden.
        url: String,
        /// What the Redis client said.
        source: redis::RedisError,
    },
    /// A command failed (Redis went away, timed out or refused it).
    #[error(
        "the Redis session store at `{url}` failed to {operation} session `{session_id}`: \
         {source}; check that redis-server is running and reachable"
    )]
    Command {
        /// The URL, password hidden.
        url: String,
        /// `load`, `store`, `delete` or `touch`.
        operation: &'static str,
        /// The MCP session id.
        session_id: String,
        /// What the Redis client said.
        source: redis::RedisError,
    },
    /// The entry is not a session state this version can read (written by something else
    /// under the same prefix, or by an incompatible version).
    #[error(
        "the Redis session store at `{url}` holds something that is not an MCP session state \
         under `{key}`: {source}; give this server its own key prefix, or delete the key"
    )]
    Corrupt {
        /// The URL, password hidden.
        url: String,
        /// The Redis key.
        key: String,
        /// Why it did not parse.
        source: serde_json::Error,
    },
    /// The session state could not be written as JSON.
    #[error("cannot write MCP session `{session_id}` as JSON: {source}")]
    Serialize {
        /// The MCP session id.
        session_id: String,
        /// What serde said.
        source: serde_json::Error,
    },
}

impl RedisSessionStore {
    /// Connects to Redis at `url`: `redis://[:PASSWORD@]HOST[:PORT][/DB]` or
    /// `redis+unix:///PATH/TO/redis.sock[?db=DB&pass=PASSWORD]` (also `unix:///PATH`).
    ///
    /// The connection is made (and checked) now; later it reconnects by itself when Redis
    /// goes away and comes back. Keys use [`DEFAULT_KEY_PREFIX`] and live [`DEFAULT_TTL`]
    /// unless set with [`key_prefix`](Self::key_prefix) and [`ttl`](Self::ttl).
    ///
    /// # Errors
    ///
    /// [`RedisStoreError::InvalidUrl`] when `url` is not a Redis URL,
    /// [`RedisStoreError::Connect`] when Redis cannot be reached there (after a few tries
    /// with backoff, each given five seconds).
    pub async fn connect(url: &str) -> Result<Self, RedisStoreError> {
        let shown = redact_url(url);
        let client = redis::Client::open(url).map_err(|source| RedisStoreError::InvalidUrl {
            url: shown.clone(),
            source,
        })?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(CONNECT_RETRIES)
            .set_max_delay(MAX_RETRY_DELAY);
        let mut connection = ConnectionManager::new_with_config(client, config)
            .await
            .map_err(|source| RedisStoreError::Connect {
                url: shown.clone(),
                source,
            })?;
        // Connected is not answering: a server that wants a password refuses only now.
        redis::cmd("PING")
            .query_async::<String>(&mut connection)
            .await
            .map_err(|source| RedisStoreError::Connect {
                url: shown.clone(),
                source,
            })?;
        let store = RedisSessionStore {
            connection,
            url: shown,
            prefix: DEFAULT_KEY_PREFIX.to_owned(),
            state_prefix: DEFAULT_STATE_KEY_PREFIX.to_owned(),
            states_per_owner: crate::ask::rounds::DEFAULT_MAX_CLAIMS_PER_OWNER,
            ttl: DEFAULT_TTL,
        };
        tracing::info!(url = %store.url, "MCP sessions are kept in Redis");
        Ok(store)
    }

    /// Puts every key under `prefix` (default [`DEFAULT_KEY_PREFIX`]). Replicas that share
    /// sessions must use the same prefix; different servers on one Redis, different ones.
    #[must_use]
    pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Records used request states under `prefix` (default [`DEFAULT_STATE_KEY_PREFIX`]),
    /// each expiring once, when its state could no longer be presented. It must not start
    /// with the sessions' [`key_prefix`](Self::key_prefix): a session id would then name a
    /// record (and loading the session would move its expiry), so such a store refuses
    /// every state (as it does when the sessions' prefix starts with this one). Replicas use
    /// the same prefix.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), toolwright_mcp::RedisStoreError> {
    /// let store = toolwright_mcp::RedisSessionStore::connect("redis://127.0.0.1:6379/0")
    ///     .await?
    ///     .key_prefix("myapp:mcp:session:")
    ///     .state_key_prefix("myapp:mcp:used-state:");
    /// # let _ = store; Ok(()) }
    /// ```
    #[must_use]
    pub fn state_key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.state_prefix = prefix.into();
        self
    }

    /// The most unexpired used request states one caller has recorded (default
    /// [`DEFAULT_MAX_CLAIMS_PER_OWNER`](crate::DEFAULT_MAX_CLAIMS_PER_OWNER), 1,000; each
    /// lives the request state's TTL): past it, that caller's states are refused, and
    /// nobody else's. Replicas use the same limit.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), toolwright_mcp::RedisStoreError> {
    /// let store = toolwright_mcp::RedisSessionStore::connect("redis://127.0.0.1:6379/0")
    ///     .await?
    ///     .max_states_per_owner(200);
    /// # let _ = store; Ok(()) }
    /// ```
    #[must_use]
    pub fn max_states_per_owner(mut self, limit: usize) -> Self {
        self.states_per_owner = limit;
        self
    }

    /// How long an entry lives after it was last written, loaded or touched (default
    /// [`DEFAULT_TTL`]); set it to the servers' idle expiry of a session. Rounded up to
    /// whole milliseconds, at least one, at most a century.
    #[must_use]
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The Redis URL, with any password replaced by `***`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The key prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The connection to Redis, for a task store on the same server
    /// ([`RedisTaskStore::from_session_store`](crate::RedisTaskStore::from_session_store)).
    pub(crate) fn connection(&self) -> ConnectionManager {
        self.connection.clone()
    }

    /// The time to live of an entry.
    pub fn time_to_live(&self) -> Duration {
        self.ttl
    }

    /// Restarts the time to live of `session_id`'s entry, as activity on the session does
    /// for the servers' idle expiry. Returns whether the entry exists.
    ///
    /// # Errors
    ///
    /// [`RedisStoreError::Command`] when Redis does not answer.
    pub async fn touch(&self, session_id: &str) -> Result<bool, RedisStoreError> {
        let mut command = redis::cmd("PEXPIRE");
        command.arg(self.key(session_id)).arg(self.ttl_millis());
        self.run::<bool>("touch", session_id, command).await
    }

    fn key(&self, session_id: &str) -> String {
        format!("{}{session_id}", self.prefix)
    }

    fn ttl_millis(&self) -> u64 {
        // Redis refuses an expiry that overflows its clock: a century is forever enough.
        const CENTURY_MILLIS: u128 = 100 * 365 * 24 * 60 * 60 * 1000;
        let millis = self
            .ttl
            .as_nanos()
            .div_ceil(1_000_000)
            .clamp(1, CENTURY_MILLIS);
        u64::try_from(millis).unwrap_or(u64::MAX)
    }

    /// Runs one command (or an atomic pipeline); once more after an I/O error, when the
    /// connection manager has reconnected (Redis restarted, an idle connection was closed).
    async fn run<T: redis::FromRedisValue>(
        &self,
        operation: &'static str,
        session_id: &str,
        command: impl Runnable,
    ) -> Result<T, RedisStoreError> {
        let mut connection = self.connection.clone();
        let result = match command.run(&mut connection).await {
            Err(error) if error.is_io_error() || error.is_connection_dropped() => {
                tracing::debug!(%error, url = %self.url, "Redis connection lost; retrying once");
                command.run(&mut connection).await
            }
            other => other,
        };
        result.map_err(|source| RedisStoreError::Command {
            url: self.url.clone(),
            operation,
            session_id: session_id.to_owned(),
            source,
        })
    }

    async fn load_state(&self, session_id: &str) -> Result<Option<SessionState>, RedisStoreError> {
        let key = self.key(session_id);
        let mut pipeline = redis::pipe();
        pipeline
            .atomic()
            .get(&key)
            .cmd("PEXPIRE")
            .arg(&key)
            .arg(self.ttl_millis())
            .ignore();
        let (json,): (Option<String>,) = self.run("load", session_id, pipeline).await?;
        let Some(json) = json else {
            return Ok(None);
        };
        serde_json::from_str(&json)
            .map(Some)
            .map_err(|source| RedisStoreError::Corrupt {
                url: self.url.clone(),
                key,
                source,
            })
    }

    async fn store_state(
        &self,
        session_id: &str,
        state: &SessionState,
    ) -> Result<(), RedisStoreError> {
        let json = serde_json::to_string(state).map_err(|source| RedisStoreError::Serialize {
            session_id: session_id.to_owned(),
            source,
        })?;
        let mut command = redis::cmd("SET");
        command
            .arg(self.key(session_id))
            .arg(json)
            .arg("PX")
            .arg(self.ttl_millis());
        self.run::<()>("store", session_id, command).await
    }

    async fn delete_state(&self, session_id: &str) -> Result<(), RedisStoreError> {
        let mut command = redis::cmd("DEL");
        command.arg(self.key(session_id));
        self.run::<()>("delete", session_id, command).await
    }
}

#[async_trait::async_trait]
impl SessionStore for RedisSessionStore {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        Ok(self.load_state(session_id).await?)
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        Ok(self.store_state(session_id, state).await?)
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        Ok(self.delete_state(session_id).await?)
    }
}

/// Each `requestState` of a multi round-trip request is used once across every replica:
/// its nonce is set in Redis with `SET NX PX` under the store's
/// [`state_key_prefix`](RedisSessionStore::state_key_prefix) (not the sessions' prefix, so
/// no session id names it, and nothing but this claim ever sets its expiry), living as long
/// as the state could be presented.
impl crate::ask::rounds::StateClaims for RedisSessionStore {
    fn claim(
        &self,
        owner: &str,
        nonce: String,
        ttl: std::time::Duration,
    ) -> toolwright_core::BoxFuture<Result<bool, String>> {
        if self.state_prefix.starts_with(&self.prefix)
            || self.prefix.starts_with(&self.state_prefix)
        {
            let message = format!(
                "the server's used-state key prefix `{}` lies inside its session key prefix \
                 `{}` (or holds it), where a session id could name a record; its operator must give \
                 them apart \
                 (`RedisSessionStore::state_key_prefix`)",
                self.state_prefix, self.prefix
            );
            return Box::pin(async move { Err(message) });
        }
        // Each owner's records are counted in a set of its own, named by a digest of the
        // owner (no caller's name reaches a key).
        let owner_key = format!(
            "{}owner:{}",
            self.state_prefix,
            toolwright_core::encoding::hex(&sha2::Sha256::digest(owner.as_bytes()))
        );
        let mut command = redis::cmd("EVAL");
        command
            .arg(CLAIM_STATE)
            .arg(2)
            .arg(format!("{}{nonce}", self.state_prefix))
            .arg(owner_key)
            .arg(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1))
            .arg(self.states_per_owner);
        let mut connection = self.connection.clone();
        let url = self.url.clone();
        let limit = self.states_per_owner;
        Box::pin(async move {
            let claimed: i64 = command
                .query_async(&mut connection)
                .await
                .map_err(|error| {
                    format!("the used-state store (Redis at {url}) failed: {error}")
                })?;
            match claimed {
                1 => Ok(true),
                0 => Ok(false),
                _ => Err(format!(
                    "you already have {limit} multi round-trip requests in flight on these \
                     servers, the most one caller may have \
                     (`RedisSessionStore::max_states_per_owner`); each counts until its \
                     requestState expires, so wait, then call again"
                )),
            }
        })
    }
}

/// A single command or a pipeline, run on the connection manager.
trait Runnable {
    fn run<T: redis::FromRedisValue>(
        &self,
        connection: &mut ConnectionManager,
    ) -> impl Future<Output = redis::RedisResult<T>> + Send;
}

impl Runnable for redis::Cmd {
    fn run<T: redis::FromRedisValue>(
        &self,
        connection: &mut ConnectionManager,
    ) -> impl Future<Output = redis::RedisResult<T>> + Send {
        self.query_async(connection)
    }
}

impl Runnable for redis::Pipeline {
    fn run<T: redis::FromRedisValue>(
        &self,
        connection: &mut ConnectionManager,
    ) -> impl Future<Output = redis::RedisResult<T>> + Send {
        self.query_async(connection)
    }
}

/// Whether a Redis URL carries a password (`redis://:PASSWORD@host`, `redis://user:PASSWORD@host`,
/// or `?pass=` / `?password=` in a `redis+unix://` URL): then it is a secret, to be read from
/// a file or the environment rather than given on a command line, where every user of the
/// machine can read it.
///
/// ```
/// use toolwright_mcp::redis_url_has_password;
/// assert!(redis_url_has_password("redis://:s3cret@127.0.0.1:6379/0"));
/// assert!(redis_url_has_password("redis+unix:///run/redis.sock?db=1&pass=s3cret"));
/// assert!(!redis_url_has_password("redis://127.0.0.1:6379/0"));
/// assert!(!redis_url_has_password("redis://app@127.0.0.1:6379/0"));
/// ```
pub fn redis_url_has_password(url: &str) -> bool {
    redact_url(url) != url
}

/// `url` with the password hidden: `redis://user:secret@host` -> `redis://user:***@host`,
/// and `?pass=secret` / `?password=secret` -> `?pass=***`. A password may hold any
/// character (`/`, `?`, `#` unescaped too): everything up to the last `@` of a URL with a
/// host is the user information.
fn redact_url(url: &str) -> String {
    let (mut out, rest) = match url.split_once("://") {
        Some((scheme, rest)) => (format!("{scheme}://"), rest),
        None => (String::new(), url),
    };
    // `redis+unix:///path` has no host, so no user information: only a query may hold one.
    let rest = match rest.rsplit_once('@') {
        Some((userinfo, after)) if !rest.starts_with('/') => {
            match userinfo.split_once(':') {
                Some((user, _password)) => {
                    out.push_str(user);
                    out.push_str(":***");
                }
                None => out.push_str(userinfo),
            }
            out.push('@');
            after
        }
        _ => rest,
    };
    match rest.split_once('?') {
        Some((path, query)) => {
            out.push_str(path);
            out.push('?');
            let pairs: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((name, _)) if name == "pass" || name == "password" => {
                        format!("{name}=***")
                    }
                    _ => pair.to_owned(),
                })
                .collect();
            out.push_str(&pairs.join("&"));
        }
        None => out.push_str(rest),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_hidden_in_urls() {
        assert_eq!(
            redact_url("redis://127.0.0.1:6379/0"),
            "redis://127.0.0.1:6379/0"
        );
        assert_eq!(
            redact_url("redis://:s3cret@redis.internal:6379/2"),
            "redis://:***@redis.internal:6379/2"
        );
        assert_eq!(
            redact_url("redis://app:p@ss@host/0"),
            "redis://app:***@host/0"
        );
        assert_eq!(redact_url("redis://app@host"), "redis://app@host");
        assert_eq!(
            redact_url("redis://:pa/ss?#word@host:6379/0"),
            "redis://:***@host:6379/0"
        );
        assert_eq!(
            redact_url("redis+unix:///run/redis.sock?db=1&pass=s3cret"),
            "redis+unix:///run/redis.sock?db=1&pass=***"
        );
        assert_eq!(
            redact_url("unix:///run/redis.sock?password=s3cret&db=3"),
            "unix:///run/redis.sock?password=***&db=3"
        );
        assert_eq!(redact_url("not a url"), "not a url");
    }

    #[tokio::test]
    async fn an_invalid_url_is_named_with_its_password_hidden() {
        let error = RedisSessionStore::connect("http://:s3cret@host/")
            .await
            .unwrap_err();
        let message = error.to_string();
        assert!(
            matches!(error, RedisStoreError::InvalidUrl { .. }),
            "{message}"
        );
        assert!(message.contains("`http://:***@host/`"), "{message}");
        assert!(!message.contains("s3cret"), "{message}");
        assert!(message.contains("redis+unix:///"), "{message}");
    }

    #[tokio::test]
    async fn ttls_are_whole_milliseconds_redis_accepts() {
        // A store that is never used: a lazily connecting manager for the arithmetic.
        let client = redis::Client::open("redis://127.0.0.1:1/0").unwrap();
        let connection =
            ConnectionManager::new_lazy_with_config(client, ConnectionManagerConfig::new())
                .unwrap();
        let store = RedisSessionStore {
            connection,
            url: String::new(),
            prefix: DEFAULT_KEY_PREFIX.to_owned(),
            state_prefix: DEFAULT_STATE_KEY_PREFIX.to_owned(),
            states_per_owner: crate::ask::rounds::DEFAULT_MAX_CLAIMS_PER_OWNER,
            ttl: DEFAULT_TTL,
        };
        assert_eq!(store.ttl_millis(), 300_000);
        assert_eq!(store.clone().ttl(Duration::ZERO).ttl_millis(), 1);
        assert_eq!(
            store
                .clone()
                .ttl(Duration::from_nanos(1_000_001))
                .ttl_millis(),
            2
        );
        assert_eq!(
            store.ttl(Duration::MAX).ttl_millis(),
            100 * 365 * 24 * 60 * 60 * 1000
        );
    }

    #[tokio::test]
    async fn tls_urls_are_refused_as_unsupported() {
        let error = RedisSessionStore::connect("rediss://127.0.0.1:6380/0")
            .await
            .unwrap_err();
        let message = error.to_string();
        assert!(
            matches!(error, RedisStoreError::InvalidUrl { .. }),
            "{message}"
        );
        assert!(message.contains("rediss:// is not supported"), "{message}");
    }
}
