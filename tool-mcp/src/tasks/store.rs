//! Where tasks are kept: the [`TaskStore`] trait, its bounds ([`TaskLimits`]), its errors,
//! and the store in memory ([`MemoryTaskStore`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use jiff::Timestamp;
use tokio::sync::watch;

use super::record::TaskRecord;

/// How many tasks a store keeps, and how big a result it keeps.
///
/// ```
/// use toolwright_mcp::tasks::TaskLimits;
///
/// let limits = TaskLimits::default().max_per_owner(8).max_result_bytes(256 * 1024);
/// assert_eq!(limits.per_owner(), 8);
/// assert_eq!(limits.total(), TaskLimits::DEFAULT_MAX_TOTAL);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskLimits {
    per_owner: usize,
    total: usize,
    result_bytes: usize,
}

impl TaskLimits {
    /// The most tasks one caller has (unexpired, finished or not) unless set: 64.
    pub const DEFAULT_MAX_PER_OWNER: usize = 64;
    /// The most tasks a store keeps in all unless set: 1024.
    pub const DEFAULT_MAX_TOTAL: usize = 1024;
    /// The largest result kept unless set (its JSON): 1 MiB.
    pub const DEFAULT_MAX_RESULT_BYTES: usize = 1024 * 1024;

    /// The most unexpired tasks one caller may have (at least one); one more is refused.
    #[must_use]
    pub fn max_per_owner(mut self, limit: usize) -> Self {
        self.per_owner = limit.max(1);
        self
    }

    /// The most unexpired tasks the store keeps, every caller's (at least one); one more is
    /// refused.
    #[must_use]
    pub fn max_total(mut self, limit: usize) -> Self {
        self.total = limit.max(1);
        self
    }

    /// The largest result kept, in bytes of its JSON; a task whose result is larger fails
    /// with an error saying so.
    #[must_use]
    pub fn max_result_bytes(mut self, limit: usize) -> Self {
        self.result_bytes = limit;
        self
    }

    /// The most tasks per caller.
    pub fn per_owner(&self) -> usize {
        self.per_owner
    }

    /// The most tasks in all.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The largest result kept, in bytes.
    pub fn result_bytes(&self) -> usize {
        self.result_bytes
    }
}

impl Default for TaskLimits {
    fn default() -> Self {
        TaskLimits {
            per_owner: Self::DEFAULT_MAX_PER_OWNER,
            total: Self::DEFAULT_MAX_TOTAL,
            result_bytes: Self::DEFAULT_MAX_RESULT_BYTES,
        }
    }
}

/// Why a task store refused or failed. Every message says what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The caller already has as many tasks as it may.
    #[error(
        "you already have {limit} tasks on this server, the most one caller may have \
         (`max_per_owner`); a task counts until it expires (its ttlMs after its creation), \
         ended or cancelled alike, so wait until one expires, then call again"
    )]
    OwnerFull {
        /// The limit ([`TaskLimits::max_per_owner`]).
        limit: usize,
    },
    /// The store already keeps as many tasks as it may.
    #[error(
        "this server already keeps {limit} tasks, the most it holds; try again once older \
         tasks have expired (the operator can raise it with `McpServer::task_limits`)"
    )]
    StoreFull {
        /// The limit ([`TaskLimits::max_total`]).
        limit: usize,
    },
    /// A task with this id exists already (ids are random: only a broken random source
    /// makes two alike).
    #[error("a task with id `{id}` exists already; call again for a new id")]
    Duplicate {
        /// The id.
        id: String,
    },
    /// The store could not be reached, or failed.
    #[error(
        "the task store could not {operation}: {source}; check that it is running and \
         reachable from this server"
    )]
    Unavailable {
        /// What it was asked: `create a task`, `read a task`, `write a task`, ...
        operation: &'static str,
        /// What went wrong.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The store holds something under the task's key that is not a task this version can
    /// read.
    #[error(
        "the task store holds something that is not a task under `{key}`: {reason}; give \
         this server its own key prefix, or delete the key"
    )]
    Corrupt {
        /// The key.
        key: String,
        /// Why it did not parse.
        reason: String,
    },
    /// Others changed the task every time this server tried to write it.
    #[error("task `{id}` changed {attempts} times while this server wrote it; try again")]
    Contended {
        /// The task's id.
        id: String,
        /// How many writes were tried.
        attempts: u32,
    },
}

/// Where tasks are kept: in memory ([`MemoryTaskStore`], the default), or shared by the
/// replicas of a server behind a load balancer (`RedisTaskStore` with the `redis` feature),
/// so a task created through one replica is read, answered and cancelled through any.
///
/// A store keeps [`TaskRecord`]s by id, enforces the [`TaskLimits`] when it creates one,
/// forgets a task at its [`expires_at`](TaskRecord::expires_at), and writes a task only
/// over the revision the writer read (a compare-and-set): the server reads, changes and
/// writes again when another replica wrote in between. Who may see a task, and how a task
/// changes, is the server's business, not the store's.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use std::sync::Arc;
/// use toolwright_mcp::tasks::{MemoryTaskStore, TaskStore};
/// use toolwright_mcp::McpServer;
///
/// // Two servers of one process sharing their tasks (replicas would share Redis).
/// let store: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::new());
/// # let executor = toolwright_runtime::Executor::builder(Arc::new(toolwright_runtime::ToolRegistry::new())).build();
/// let a = McpServer::new(executor.clone()).task_store(store.clone());
/// let b = McpServer::new(executor).task_store(store.clone());
/// assert!(store.load("no-such-task").await.unwrap().is_none());
/// # let _ = (a, b);
/// # }
/// ```
#[async_trait::async_trait]
pub trait TaskStore: Send + Sync + fmt::Debug + 'static {
    /// Keeps `task`, a new one (its revision is 0), until its `expires_at`; refuses it when
    /// its owner already has [`TaskLimits::per_owner`] unexpired tasks, or the store
    /// [`TaskLimits::total`]. Returns once a [`load`](Self::load) of it, on any replica,
    /// finds it.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError::OwnerFull`], [`TaskStoreError::StoreFull`],
    /// [`TaskStoreError::Duplicate`]; [`TaskStoreError::Unavailable`] when the store failed.
    async fn create(&self, task: &TaskRecord, limits: &TaskLimits) -> Result<(), TaskStoreError>;

    /// The task with `id`, unless there is none or it expired.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError::Unavailable`], [`TaskStoreError::Corrupt`].
    async fn load(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError>;

    /// Writes `task` in place of the stored task of its id if the stored one's revision is
    /// `expected` (the one the writer read); `task.revision` is the new revision. Keeps the
    /// stored expiry. `Ok(false)` when the task changed since, expired, or is gone.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError::Unavailable`] when the store failed.
    async fn replace(&self, task: &TaskRecord, expected: u64) -> Result<bool, TaskStoreError>;

    /// Returns when the task `id` may have changed since revision `seen`: at once when it
    /// has. Stores that can tell (the memory store) return when it changes; the default
    /// waits `poll` and lets the caller read again (Redis).
    async fn changed(&self, id: &str, seen: u64, poll: Duration) {
        let _ = (id, seen);
        tokio::time::sleep(poll).await;
    }
}

/// Tasks in this process's memory: the default store. Clone an `Arc` of it into several
/// [`McpServer`](crate::McpServer)s to have them share tasks. Expired tasks are never found:
/// all of them are removed when a task is created, and one when it is looked up.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use toolwright_mcp::tasks::{MemoryTaskStore, TaskStore};
///
/// let store = MemoryTaskStore::new();
/// assert_eq!(store.len(), 0);
/// assert!(store.load("unknown").await.unwrap().is_none());
/// # }
/// ```
pub struct MemoryTaskStore {
    tasks: Mutex<HashMap<String, TaskRecord>>,
    /// Bumped at every write, so [`TaskStore::changed`] waits for an event, not a time.
    writes: watch::Sender<u64>,
}

impl fmt::Debug for MemoryTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryTaskStore")
            .field("tasks", &self.len())
            .finish()
    }
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        MemoryTaskStore {
            tasks: Mutex::new(HashMap::new()),
            writes: watch::Sender::new(0),
        }
    }
}

impl MemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many tasks it holds, expired ones not yet removed included.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskRecord>> {
        // A panic while holding the lock cannot leave a half-written record: every write
        // is one insert.
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wrote(&self) {
        self.writes
            .send_modify(|count| *count = count.wrapping_add(1));
    }
}

#[async_trait::async_trait]
impl TaskStore for MemoryTaskStore {
    async fn create(&self, task: &TaskRecord, limits: &TaskLimits) -> Result<(), TaskStoreError> {
        {
            let mut tasks = self.lock();
            let now = Timestamp::now();
            tasks.retain(|_, stored| !stored.is_expired(now));
            if tasks.contains_key(&task.id) {
                return Err(TaskStoreError::Duplicate {
                    id: task.id.clone(),
                });
            }
            let owned = tasks.values().filter(|t| t.owner == task.owner).count();
            if owned >= limits.per_owner() {
                return Err(TaskStoreError::OwnerFull {
                    limit: limits.per_owner(),
                });
            }
            if tasks.len() >= limits.total() {
                return Err(TaskStoreError::StoreFull {
                    limit: limits.total(),
                });
            }
            tasks.insert(task.id.clone(), task.clone());
        }
        self.wrote();
        Ok(())
    }

    async fn load(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        let mut tasks = self.lock();
        if tasks
            .get(id)
            .is_some_and(|task| task.is_expired(Timestamp::now()))
        {
            tasks.remove(id);
            return Ok(None);
        }
        Ok(tasks.get(id).cloned())
    }

    async fn replace(&self, task: &TaskRecord, expected: u64) -> Result<bool, TaskStoreError> {
        let replaced = {
            let mut tasks = self.lock();
            let now = Timestamp::now();
            match tasks.get_mut(&task.id) {
                Some(stored) if stored.revision == expected && !stored.is_expired(now) => {
                    let expires_at = stored.expires_at;
                    *stored = task.clone();
                    stored.expires_at = expires_at;
                    true
                }
                _ => false,
            }
        };
        if replaced {
            self.wrote();
        }
        Ok(replaced)
    }

    async fn changed(&self, id: &str, seen: u64, poll: Duration) {
        let mut writes = self.writes.subscribe();
        loop {
            // Subscribed before reading: a write after the read wakes the wait below.
            let revision = self.lock().get(id).map(|task| task.revision);
            if revision != Some(seen) {
                return;
            }
            // Expiry is no write: wake at the poll interval to see it too.
            tokio::select! {
                changed = writes.changed() => if changed.is_err() { return },
                () = tokio::time::sleep(poll) => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::tasks::record::ANONYMOUS_OWNER;

    fn task(id: &str, owner: &str, ttl: Duration) -> TaskRecord {
        TaskRecord::new(
            id.to_owned(),
            owner.to_owned(),
            "tool".to_owned(),
            ttl,
            Duration::from_secs(1),
        )
    }

    const HOUR: Duration = Duration::from_secs(3600);

    #[tokio::test]
    async fn limits_hold_per_owner_and_in_all() {
        let store = MemoryTaskStore::new();
        let limits = TaskLimits::default().max_per_owner(2).max_total(3);
        store
            .create(&task("a", "alice", HOUR), &limits)
            .await
            .unwrap();
        store
            .create(&task("b", "alice", HOUR), &limits)
            .await
            .unwrap();
        let refused = store.create(&task("c", "alice", HOUR), &limits).await;
        assert!(matches!(
            refused,
            Err(TaskStoreError::OwnerFull { limit: 2 })
        ));
        store
            .create(&task("d", "bob", HOUR), &limits)
            .await
            .unwrap();
        let refused = store.create(&task("e", "carol", HOUR), &limits).await;
        assert!(matches!(
            refused,
            Err(TaskStoreError::StoreFull { limit: 3 })
        ));
        let again = store.create(&task("d", "dave", HOUR), &limits).await;
        assert!(matches!(again, Err(TaskStoreError::Duplicate { .. })));
        assert_eq!(store.len(), 3);
    }

    #[tokio::test]
    async fn expired_tasks_are_not_found_and_make_room() {
        let store = MemoryTaskStore::new();
        let limits = TaskLimits::default().max_total(1);
        store
            .create(&task("old", ANONYMOUS_OWNER, Duration::ZERO), &limits)
            .await
            .unwrap();
        assert!(store.load("old").await.unwrap().is_none());
        assert!(store.is_empty());
        store
            .create(&task("new", ANONYMOUS_OWNER, HOUR), &limits)
            .await
            .unwrap();
        assert_eq!(store.len(), 1);
        assert!(store.load("new").await.unwrap().is_some());
    }

    #[tokio::test]
    async fn writes_go_over_the_revision_read_and_keep_the_expiry() {
        let store = Arc::new(MemoryTaskStore::new());
        let created = task("t", ANONYMOUS_OWNER, HOUR);
        store
            .create(&created, &TaskLimits::default())
            .await
            .unwrap();
        let mut changed = created.clone();
        changed.revision = 1;
        changed.status_message = Some("halfway".into());
        changed.expires_at = Timestamp::MAX;
        assert!(store.replace(&changed, 0).await.unwrap());
        // A writer that read revision 0 is refused now.
        assert!(!store.replace(&changed, 0).await.unwrap());
        let stored = store.load("t").await.unwrap().unwrap();
        assert_eq!(stored.status_message.as_deref(), Some("halfway"));
        assert_eq!(stored.expires_at, created.expires_at);
        assert!(!store.replace(&task("gone", "x", HOUR), 0).await.unwrap());
    }

    #[tokio::test]
    async fn a_waiter_wakes_at_the_write() {
        let store = Arc::new(MemoryTaskStore::new());
        let created = task("t", ANONYMOUS_OWNER, HOUR);
        store
            .create(&created, &TaskLimits::default())
            .await
            .unwrap();
        // Already changed: at once, whatever the poll interval.
        store.changed("t", 7, Duration::from_secs(3600)).await;
        let waiter = tokio::spawn({
            let store = store.clone();
            async move { store.changed("t", 0, Duration::from_secs(3600)).await }
        });
        let mut changed = created;
        changed.revision = 1;
        assert!(store.replace(&changed, 0).await.unwrap());
        tokio::time::timeout(Duration::from_secs(120), waiter)
            .await
            .expect("the waiter did not wake at the write")
            .unwrap();
    }
}
