//! Used request states: kept where no session id reaches them, and each caller's records
//! bounded by its own share on every replica.

use std::time::Duration;

use rmcp::transport::streamable_http_server::session::SessionStore;
use toolwright_mcp::{
    DEFAULT_KEY_PREFIX, DEFAULT_STATE_KEY_PREFIX, RedisSessionStore, StateClaims,
};

use crate::support::Redis;

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
