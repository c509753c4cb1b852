//! Authentication and scopes over real HTTP on 127.0.0.1: static tokens, JWTs checked
//! against the test JWKS in `tests/data/`, the RFC 9728 metadata, what each scope lets a
//! caller see and do.

// The layers, lowest first: common, support; then challenges, jwks_url, jwts,
// scopes, session_owners (each uses only those two).
#[path = "../common/mod.rs"]
mod common;

mod challenges;
#[cfg(feature = "jwks-url")]
mod jwks_url;
mod jwts;
mod scopes;
mod session_owners;
mod support;
