//! Two replicas, one session: a session started on one is served by another (and by one
//! started later), and it belongs to its caller on every replica.

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::SessionStore;
use toolwright_mcp::{DEFAULT_KEY_PREFIX, McpServer, RedisSessionStore};
use toolwright_runtime::{Executor, register_all_tools};

use crate::support::{
    DEADLINE, PROTOCOL_VERSION, RawClient, Redis, Replica, assert_echoed, assert_tools_listed,
    session_state,
};

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
