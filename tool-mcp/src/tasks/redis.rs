//! Tasks kept in Redis ([`RedisTaskStore`]), so the replicas of a server share them.

use std::fmt;

use jiff::Timestamp;
use redis::aio::ConnectionManager;

use super::record::TaskRecord;
use super::store::{TaskLimits, TaskStore, TaskStoreError};
use crate::session_store::{RedisSessionStore, RedisStoreError};

/// The key prefix used unless [`RedisTaskStore::key_prefix`] sets another.
pub const DEFAULT_TASK_KEY_PREFIX: &str = "toolwright:mcp:tasks:";

/// Creates a task unless it exists or a limit is reached, atomically. KEYS: the task, its
/// owner's set, the set of all tasks (sets of ids scored by expiry, in milliseconds).
/// ARGV: now, the limit per owner, the limit in all, the task's JSON, its expiry, its id,
/// its revision. Returns 0 (created), 1 (owner full), 2 (store full), 3 (exists).
const CREATE: &str = r"
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 then return 3 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 1 end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[3]) then return 2 end
redis.call('HSET', KEYS[1], 'rev', ARGV[7], 'data', ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[6])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6])
for i = 2, 3 do
  local last = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
  redis.call('PEXPIREAT', KEYS[i], last[2])
end
return 0
";

/// Writes a task over the revision read. KEYS: the task. ARGV: the revision read, the new
/// revision, the task's JSON. Returns 1 (written) or 0 (changed since, or gone). The key
/// keeps its expiry.
const REPLACE: &str = r"
if redis.call('HGET', KEYS[1], 'rev') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'rev', ARGV[2], 'data', ARGV[3])
return 1
";

/// A [`TaskStore`] in Redis: the replicas of a server behind a load balancer share their
/// tasks, so a task created through one is read, answered and cancelled through any.
///
/// Each task is a hash `{prefix}task:{id}` (its revision and its JSON) that Redis expires
/// at the task's expiry; `{prefix}owner:{owner}` and `{prefix}all` are sorted sets of task
/// ids by expiry, for the limits. Creating a task and writing one over the revision read
/// are Lua scripts, so they are atomic. One Redis server (not a cluster: the keys of one
/// operation may hash to different slots). Available with the `redis` feature.
///
/// Redis cannot tell a replica that a task changed: the replica running a task reads it
/// every [`McpServer::task_poll_interval`](crate::McpServer::task_poll_interval) for a
/// cancel request or an answer another replica wrote.
///
/// ```no_run
/// use std::sync::Arc;
/// use toolwright_mcp::{McpServer, RedisSessionStore, RedisTaskStore};
///
/// # async fn run(executor: toolwright_runtime::Executor) -> Result<(), Box<dyn std::error::Error>> {
/// let sessions = RedisSessionStore::connect("redis://127.0.0.1:6379/0").await?;
/// // The same connection, another key prefix.
/// let tasks = RedisTaskStore::from_session_store(&sessions);
/// let server = McpServer::new(executor).task_store(Arc::new(tasks));
/// # let _ = server;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisTaskStore {
    connection: ConnectionManager,
    url: String,
    prefix: String,
}

impl fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("url", &self.url)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisTaskStore {
    /// Connects to Redis at `url` as [`RedisSessionStore::connect`] does (same URLs, same
    /// checks and retries). Keys start with [`DEFAULT_TASK_KEY_PREFIX`] unless
    /// [`key_prefix`](Self::key_prefix) says otherwise.
    ///
    /// # Errors
    ///
    /// As [`RedisSessionStore::connect`]: [`RedisStoreError::InvalidUrl`],
    /// [`RedisStoreError::Connect`].
    pub async fn connect(url: &str) -> Result<Self, RedisStoreError> {
        let sessions = RedisSessionStore::connect(url).await?;
        Ok(Self::from_session_store(&sessions))
    }

    /// A store on the connection of a session store (its Redis, its reconnections), with
    /// keys of their own ([`DEFAULT_TASK_KEY_PREFIX`]).
    pub fn from_session_store(sessions: &RedisSessionStore) -> Self {
        RedisTaskStore {
            connection: sessions.connection(),
            url: sessions.url().to_owned(),
            prefix: DEFAULT_TASK_KEY_PREFIX.to_owned(),
        }
    }

    /// Puts every key under `prefix` (default [`DEFAULT_TASK_KEY_PREFIX`]). Replicas that
    /// share tasks use the same prefix; different servers on one Redis, different ones.
    #[must_use]
    pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
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

    fn task_key(&self, id: &str) -> String {
        format!("{}task:{id}", self.prefix)
    }

    fn unavailable(&self, operation: &'static str, error: redis::RedisError) -> TaskStoreError {
        TaskStoreError::Unavailable {
            operation,
            source: format!("Redis at `{}`: {error}", self.url).into(),
        }
    }

    /// Runs `command`; once more after an I/O error, when the connection manager has
    /// reconnected.
    async fn run<T: redis::FromRedisValue>(
        &self,
        operation: &'static str,
        command: &redis::Cmd,
    ) -> Result<T, TaskStoreError> {
        let mut connection = self.connection.clone();
        let result = match command.query_async(&mut connection).await {
            Err(error) if error.is_io_error() || error.is_connection_dropped() => {
                tracing::debug!(%error, url = %self.url, "Redis connection lost; retrying once");
                command.query_async(&mut connection).await
            }
            other => other,
        };
        result.map_err(|error| self.unavailable(operation, error))
    }
}

/// Milliseconds since the epoch, within what Redis takes as an expiry.
fn epoch_millis(at: Timestamp) -> i64 {
    // A century from now is forever enough, and far from where Redis's clock overflows.
    const CENTURY_MILLIS: i64 = 100 * 365 * 24 * 60 * 60 * 1000;
    let now = Timestamp::now().as_millisecond();
    at.as_millisecond().min(now.saturating_add(CENTURY_MILLIS))
}

fn serialize(task: &TaskRecord) -> Result<String, TaskStoreError> {
    serde_json::to_string(task).map_err(|error| TaskStoreError::Unavailable {
        operation: "write a task as JSON",
        source: Box::new(error),
    })
}

#[async_trait::async_trait]
impl TaskStore for RedisTaskStore {
    async fn create(&self, task: &TaskRecord, limits: &TaskLimits) -> Result<(), TaskStoreError> {
        let json = serialize(task)?;
        let mut command = redis::cmd("EVAL");
        command
            .arg(CREATE)
            .arg(3)
            .arg(self.task_key(&task.id))
            .arg(format!("{}owner:{}", self.prefix, task.owner))
            .arg(format!("{}all", self.prefix))
            .arg(Timestamp::now().as_millisecond())
            .arg(limits.per_owner())
            .arg(limits.total())
            .arg(json)
            .arg(epoch_millis(task.expires_at))
            .arg(&task.id)
            .arg(task.revision);
        match self.run::<i64>("create a task", &command).await? {
            0 => Ok(()),
            1 => Err(TaskStoreError::OwnerFull {
                limit: limits.per_owner(),
            }),
            2 => Err(TaskStoreError::StoreFull {
                limit: limits.total(),
            }),
            _ => Err(TaskStoreError::Duplicate {
                id: task.id.clone(),
            }),
        }
    }

    async fn load(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        let key = self.task_key(id);
        let mut command = redis::cmd("HGET");
        command.arg(&key).arg("data");
        let Some(json) = self.run::<Option<String>>("read a task", &command).await? else {
            return Ok(None);
        };
        let task: TaskRecord =
            serde_json::from_str(&json).map_err(|error| TaskStoreError::Corrupt {
                key,
                reason: error.to_string(),
            })?;
        // Redis expires it at the same time, give or take the clocks'.
        Ok((!task.is_expired(Timestamp::now())).then_some(task))
    }

    async fn replace(&self, task: &TaskRecord, expected: u64) -> Result<bool, TaskStoreError> {
        let json = serialize(task)?;
        let mut command = redis::cmd("EVAL");
        command
            .arg(REPLACE)
            .arg(1)
            .arg(self.task_key(&task.id))
            .arg(expected)
            .arg(task.revision)
            .arg(json);
        Ok(self.run::<i64>("write a task", &command).await? == 1)
    }
}
