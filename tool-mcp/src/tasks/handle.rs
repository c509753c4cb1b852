//! One task as the replica running it sees it ([`TaskHandle`]): its writes to the store,
//! its questions to the client (`inputRequests`, answered by `tasks/update` on any
//! replica), and the cancellation it watches for. And the tasks this replica runs
//! ([`Running`]), so a `tasks/cancel` or `tasks/update` that reaches it acts at once.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use jiff::Timestamp;
use rmcp::model::TaskStatus;
use serde_json::Value;
use std::time::Duration;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::record::TaskRecord;
use super::store::TaskStoreError;
use super::store::{MemoryTaskStore, TaskLimits, TaskStore};

/// How long a task is kept from its creation unless [`McpServer::task_ttl`](crate::McpServer::task_ttl) says otherwise:
/// one hour. A call still running then is cancelled.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(60 * 60);

/// How often clients are told to poll a task unless [`McpServer::task_poll_interval`](crate::McpServer::task_poll_interval) says
/// otherwise: every second. It is also how often a replica running a task reads it for what
/// other replicas wrote, when its store cannot tell it.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// What a server does with tasks: whether it makes them, where it keeps them, for how
/// long; and the tasks this replica runs.
#[derive(Clone)]
pub(crate) struct TaskConfig {
    pub(crate) enabled: bool,
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) ttl: Duration,
    pub(crate) poll_interval: Duration,
    pub(crate) limits: TaskLimits,
    pub(crate) running: Arc<Running>,
}

impl Default for TaskConfig {
    fn default() -> Self {
        TaskConfig {
            enabled: true,
            store: Arc::new(MemoryTaskStore::new()),
            ttl: DEFAULT_TASK_TTL,
            poll_interval: DEFAULT_POLL_INTERVAL,
            limits: TaskLimits::default(),
            running: Arc::default(),
        }
    }
}

/// How many times a write is tried when others keep writing the same task in between.
const MAX_WRITE_ATTEMPTS: u32 = 64;

/// The tasks this replica runs, by id. Each [`McpServer::new`](crate::McpServer::new) has
/// its own: two servers are two replicas, even in one process.
#[derive(Default)]
pub(crate) struct Running {
    tasks: Mutex<HashMap<String, Arc<Local>>>,
}

/// What a replica knows of a task it runs, beyond the store: how to stop it and how to
/// wake it.
#[derive(Default)]
pub(crate) struct Local {
    /// Cancels the task's call (and its waits for answers).
    pub(crate) cancel: CancellationToken,
    /// Told when an answer or a cancel request for the task was written here.
    pub(crate) changed: Notify,
}

impl Running {
    /// Registers a task this replica runs, until the returned registration is dropped.
    pub(crate) fn register(self: &Arc<Self>, id: &str) -> Registration {
        let local = Arc::new(Local::default());
        self.lock().insert(id.to_owned(), Arc::clone(&local));
        Registration {
            running: Arc::clone(self),
            id: id.to_owned(),
            local,
        }
    }

    /// The task `id`, if this replica runs it.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Local>> {
        self.lock().get(id).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Local>>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A task registered in [`Running`]; unregisters it when dropped.
pub(crate) struct Registration {
    running: Arc<Running>,
    id: String,
    pub(crate) local: Arc<Local>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.running.lock().remove(&self.id);
    }
}

/// Why a task stopped waiting for the client.
#[derive(Debug)]
pub(crate) enum Interrupted {
    /// The client cancelled the task (`tasks/cancel`, here or on another replica).
    Cancelled,
    /// The task is gone from the store: it expired.
    Gone,
    /// The store failed.
    Store(TaskStoreError),
    /// The question could not be written (a form rmcp refuses to build).
    Unaskable(String),
}

/// How a task ends.
pub(crate) enum Ending {
    /// `completed`, with the `CallToolResult`.
    Completed(rmcp::model::JsonObject),
    /// `failed`, with the JSON-RPC error and what to tell the client about it.
    Failed {
        error: rmcp::model::JsonObject,
        message: String,
    },
    /// `cancelled`.
    Cancelled,
}

/// One task, run by this replica.
pub(crate) struct TaskHandle {
    pub(crate) config: TaskConfig,
    pub(crate) id: String,
    pub(crate) registration: Registration,
    /// The last input request key used (keys are never reused in a task's lifetime).
    keys: AtomicU32,
}

impl TaskHandle {
    pub(crate) fn new(config: TaskConfig, id: String, registration: Registration) -> TaskHandle {
        TaskHandle {
            config,
            id,
            registration,
            keys: AtomicU32::new(0),
        }
    }

    /// A key for a new input request, unique in the task: `approval-3`, `elicitation-4`.
    pub(crate) fn next_key(&self, kind: &str) -> String {
        let n = self.keys.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{kind}-{n}")
    }

    /// Cancels the task's call.
    pub(crate) fn cancel(&self) {
        self.registration.local.cancel.cancel();
    }

    /// The cancellation of the task's call.
    pub(crate) fn cancellation(&self) -> &CancellationToken {
        &self.registration.local.cancel
    }

    /// Reads the task, lets `change` change it (it says whether it did), and writes it over
    /// the revision read, again until no other replica wrote in between. `Ok(None)`: the
    /// task is gone (expired). The record returned is the one stored.
    pub(crate) async fn modify(
        &self,
        mut change: impl FnMut(&mut TaskRecord) -> bool + Send,
    ) -> Result<Option<TaskRecord>, TaskStoreError> {
        modify(&self.config, &self.id, &mut change).await
    }

    /// Says what the task is doing (its progress), while it works; a cancel request seen
    /// in passing (or the task's expiry) stops the call.
    pub(crate) async fn report(&self, message: String) {
        let written = self
            .modify(|task| {
                if task.status != TaskStatus::Working
                    || task.status_message.as_deref() == Some(message.as_str())
                {
                    return false;
                }
                task.status_message = Some(message.clone());
                true
            })
            .await;
        match written {
            Ok(Some(task)) if task.cancel_requested => self.cancel(),
            Ok(Some(_)) => {}
            Ok(None) => self.cancel(),
            Err(error) => {
                tracing::warn!(task = %self.id, %error, "could not write a task's progress")
            }
        }
    }

    /// Asks the client `request` (an `InputRequest` as JSON) under a new key of `kind`, and
    /// waits for its answer, written by `tasks/update` here or on another replica. The task
    /// is `input_required` meanwhile, with `message` as its status message.
    pub(crate) async fn request_input(
        &self,
        kind: &str,
        request: Value,
        message: String,
    ) -> Result<Value, Interrupted> {
        let key = self.next_key(kind);
        self.ask(&key, request, message).await?;
        self.answer(&key).await
    }

    /// Puts the request under `key` in the task's `inputRequests`.
    pub(crate) async fn ask(
        &self,
        key: &str,
        request: Value,
        message: String,
    ) -> Result<(), Interrupted> {
        let written = self
            .modify(|task| {
                if task.status.is_terminal() {
                    return false;
                }
                task.input_requests.insert(key.to_owned(), request.clone());
                task.status = TaskStatus::InputRequired;
                task.status_message = Some(message.clone());
                true
            })
            .await
            .map_err(Interrupted::Store)?;
        match written {
            None => Err(Interrupted::Gone),
            Some(task) if task.cancel_requested => Err(Interrupted::Cancelled),
            Some(_) => Ok(()),
        }
    }

    /// Waits for the answer under `key`, and takes it (the request leaves
    /// `inputRequests`; with none left, the task works again).
    pub(crate) async fn answer(&self, key: &str) -> Result<Value, Interrupted> {
        let local = &self.registration.local;
        loop {
            // Armed before the read: a write after it still wakes the wait below.
            let notified = local.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let mut taken = None;
            let written = self
                .modify(|task| {
                    let Some(answer) = task.input_responses.remove(key) else {
                        return false;
                    };
                    task.input_requests.remove(key);
                    if task.input_requests.is_empty() && task.status == TaskStatus::InputRequired {
                        task.status = TaskStatus::Working;
                        task.status_message = None;
                    }
                    taken = Some(answer);
                    true
                })
                .await
                .map_err(Interrupted::Store)?;
            let Some(task) = written else {
                return Err(Interrupted::Gone);
            };
            if let Some(answer) = taken {
                return Ok(answer);
            }
            if task.cancel_requested || task.status.is_terminal() {
                return Err(Interrupted::Cancelled);
            }
            tokio::select! {
                () = local.cancel.cancelled() => return Err(Interrupted::Cancelled),
                () = &mut notified => {}
                () = self.config.store.changed(&self.id, task.revision, self.config.poll_interval) => {}
            }
        }
    }

    /// Ends the task (unless it already ended): its result or error is kept until it
    /// expires, its questions are withdrawn.
    pub(crate) async fn finish(&self, ending: Ending) {
        let (status, result, error, message) = match ending {
            Ending::Completed(result) => (TaskStatus::Completed, Some(result), None, None),
            Ending::Failed { error, message } => {
                (TaskStatus::Failed, None, Some(error), Some(message))
            }
            Ending::Cancelled => (
                TaskStatus::Cancelled,
                None,
                None,
                Some("cancelled at the client's request".to_owned()),
            ),
        };
        let written = self
            .modify(|task| {
                if task.status.is_terminal() {
                    return false;
                }
                task.status = status;
                task.result.clone_from(&result);
                task.error.clone_from(&error);
                task.status_message.clone_from(&message);
                task.input_requests.clear();
                task.input_responses.clear();
                true
            })
            .await;
        match written {
            Ok(Some(_)) => tracing::debug!(task = %self.id, status = ?status, "task ended"),
            Ok(None) => tracing::info!(
                task = %self.id,
                "a task ended after it expired; its result is not kept (raise the task TTL \
                 for calls this long)"
            ),
            Err(error) => tracing::warn!(task = %self.id, %error, "could not write a task's end"),
        }
    }

    /// Until `done`: watches the store for what other replicas write (a cancel request),
    /// and for the task's expiry, and stops the call at either.
    pub(crate) async fn watch(&self, done: CancellationToken) {
        let local = &self.registration.local;
        loop {
            let seen = match self.config.store.load(&self.id).await {
                Ok(None) => {
                    tracing::info!(task = %self.id, "a running task expired; its call is cancelled");
                    self.cancel();
                    return;
                }
                Ok(Some(task)) if task.cancel_requested => {
                    self.cancel();
                    return;
                }
                Ok(Some(task)) if task.status.is_terminal() => return,
                Ok(Some(task)) => Some(task.revision),
                Err(error) => {
                    tracing::warn!(task = %self.id, %error, "could not read a running task");
                    None
                }
            };
            let changed = async {
                match seen {
                    Some(seen) => {
                        self.config
                            .store
                            .changed(&self.id, seen, self.config.poll_interval)
                            .await;
                    }
                    None => tokio::time::sleep(self.config.poll_interval).await,
                }
            };
            tokio::select! {
                () = done.cancelled() => return,
                () = local.cancel.cancelled() => return,
                () = changed => {}
            }
        }
    }
}

/// [`TaskHandle::modify`] for any task of the store.
pub(crate) async fn modify(
    config: &TaskConfig,
    id: &str,
    change: &mut (dyn FnMut(&mut TaskRecord) -> bool + Send),
) -> Result<Option<TaskRecord>, TaskStoreError> {
    for _ in 0..MAX_WRITE_ATTEMPTS {
        let Some(mut task) = config.store.load(id).await? else {
            return Ok(None);
        };
        let read = task.revision;
        if !change(&mut task) {
            return Ok(Some(task));
        }
        task.revision = read.wrapping_add(1);
        task.updated_at = Timestamp::now();
        if config.store.replace(&task, read).await? {
            return Ok(Some(task));
        }
    }
    Err(TaskStoreError::Contended {
        id: id.to_owned(),
        attempts: MAX_WRITE_ATTEMPTS,
    })
}
