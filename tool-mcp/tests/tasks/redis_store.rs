//! The same, with the tasks in a real `redis-server` (on a Unix socket in a temporary
//! directory). Without `redis-server` installed these tests say so and pass, unless
//! `TOOLWRIGHT_REQUIRE_SERVICES=1` (as in CI), where they fail.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CancelTaskParams, TaskStatus};
use serde_json::json;
use tokio::sync::Notify;
use toolwright_core::{ToolContext, tool};
use toolwright_mcp::RedisTaskStore;
use toolwright_mcp::tasks::{TaskLimits, TaskStore, TaskStoreError};
use toolwright_mcp::{HttpOptions, McpServer};

use crate::redis_server::Redis;
use crate::support::{
    Stopped, TASKS, call_as_task, connect, executor, result_text, serve, signalled, status,
    wait_for,
};

static REDIS_ENTERED: Notify = Notify::const_new();
static REDIS_STOPPED: Notify = Notify::const_new();

/// Hold until cancelled (for the Redis test).
#[tool(task = "required")]
async fn hold_in_redis(ctx: &ToolContext) -> String {
    let _stopped = Stopped(&REDIS_STOPPED);
    REDIS_ENTERED.notify_one();
    ctx.cancelled().await;
    "cancelled".to_owned()
}

#[tokio::test]
async fn replicas_share_tasks_through_redis() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let store = |prefix: &str| {
        let url = redis.url();
        let prefix = prefix.to_owned();
        async move {
            Arc::new(
                RedisTaskStore::connect(&url)
                    .await
                    .unwrap()
                    .key_prefix(prefix),
            )
        }
    };
    let executor = executor();
    let first = serve(
        McpServer::new(executor.clone())
            .task_store(store("test:tasks:").await)
            .task_poll_interval(Duration::from_millis(20)),
        HttpOptions::new(),
    )
    .await;
    let second = serve(
        McpServer::new(executor)
            .task_store(store("test:tasks:").await)
            .task_poll_interval(Duration::from_millis(20)),
        HttpOptions::new(),
    )
    .await;
    let on_first = connect(&first, TASKS).await;
    let on_second = connect(&second, TASKS).await;

    let id = call_as_task(&on_first, "add_as_task", json!({"a": 40, "b": 2}))
        .await
        .task
        .task_id;
    let done = wait_for(&on_second, &id, "completed", |task| {
        status(task).is_terminal()
    })
    .await;
    assert_eq!(result_text(&done), "42");
    let mut connection = redis.connection().await;
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("test:tasks:*")
        .query_async(&mut connection)
        .await
        .unwrap();
    assert!(keys.contains(&format!("test:tasks:task:{id}")), "{keys:?}");
    let ttl: i64 = redis::cmd("PTTL")
        .arg(format!("test:tasks:task:{id}"))
        .query_async(&mut connection)
        .await
        .unwrap();
    assert!(ttl > 0 && ttl <= 3_600_000, "{ttl}");

    // Cancelled through the second replica: the first sees it in Redis and stops.
    let id = call_as_task(&on_first, "hold_in_redis", json!({}))
        .await
        .task
        .task_id;
    signalled(&REDIS_ENTERED, "the call starting").await;
    on_second
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .unwrap();
    signalled(&REDIS_STOPPED, "the call stopping").await;
    let ended = wait_for(&on_second, &id, "ended", |task| status(task).is_terminal()).await;
    assert_eq!(status(&ended), TaskStatus::Cancelled);

    on_first.cancel().await.unwrap();
    on_second.cancel().await.unwrap();
    first.shutdown();
    second.shutdown();
}

#[tokio::test]
async fn the_redis_store_keeps_its_limits_and_revisions() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let store = RedisTaskStore::connect(&redis.url()).await.unwrap();
    let limits = TaskLimits::default().max_per_owner(1).max_total(2);
    let record = |id: &str, owner: &str| -> toolwright_mcp::tasks::TaskRecord {
        serde_json::from_value(json!({
            "id": id, "owner": owner, "tool": "t", "status": "working",
            "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
            "expires_at": "2100-01-01T00:00:00Z", "ttl_ms": 1000, "poll_interval_ms": 1000,
            "revision": 0,
        }))
        .unwrap()
    };
    store.create(&record("a", "alice"), &limits).await.unwrap();
    assert!(matches!(
        store.create(&record("a", "bob"), &limits).await,
        Err(TaskStoreError::Duplicate { .. })
    ));
    assert!(matches!(
        store.create(&record("b", "alice"), &limits).await,
        Err(TaskStoreError::OwnerFull { limit: 1 })
    ));
    store.create(&record("c", "bob"), &limits).await.unwrap();
    assert!(matches!(
        store.create(&record("d", "carol"), &limits).await,
        Err(TaskStoreError::StoreFull { limit: 2 })
    ));

    let mut changed = store.load("a").await.unwrap().unwrap();
    changed.revision = 1;
    changed.status_message = Some("halfway".to_owned());
    assert!(store.replace(&changed, 0).await.unwrap());
    assert!(!store.replace(&changed, 0).await.unwrap());
    let stored = store.load("a").await.unwrap().unwrap();
    assert_eq!(stored.status_message.as_deref(), Some("halfway"));
    assert_eq!(stored.revision, 1);
    assert!(store.load("nothing").await.unwrap().is_none());

    // An expired task is not found.
    let mut old = record("e", "dave");
    old.expires_at = "2000-01-01T00:00:00Z".parse().unwrap();
    let _ = store.create(&old, &TaskLimits::default()).await;
    assert!(store.load("e").await.unwrap().is_none());
}
