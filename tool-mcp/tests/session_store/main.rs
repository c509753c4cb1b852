//! `RedisSessionStore` against a real `redis-server` (on a Unix socket in a temporary
//! directory), and two rmcp streamable HTTP servers sharing sessions through it.
//!
//! Without `redis-server` installed these tests say so and pass, unless
//! `TOOLWRIGHT_REQUIRE_SERVICES=1` (as in CI), where they fail.

// The layers, lowest first: redis_server (tests/common/redis.rs), support; then replicas,
// store, used_states (each uses only support).
#[path = "../common/redis.rs"]
mod redis_server;
mod replicas;
mod store;
mod support;
mod used_states;
