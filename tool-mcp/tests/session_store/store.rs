//! The store on its own: entries round-trip as JSON under their prefix with a TTL that
//! loads restart; stores sharing a prefix see each other's sessions; what is not a
//! session, a dead socket, a password in the URL are errors that say so (the password
//! hidden).

use std::time::Duration;

use rmcp::transport::streamable_http_server::session::SessionStore;
use serde_json::Value;
use toolwright_mcp::{DEFAULT_KEY_PREFIX, RedisSessionStore, RedisStoreError};

use crate::support::{Redis, json_of, session_state};

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
