//! The reqwest client of HTTP upstreams: connections kept alive between calls, with
//! `TCP_NODELAY` set.
//!
//! rmcp's own client turns pooling off (`pool_max_idle_per_host(0)`) to dodge a ~40 ms stall
//! on a reused connection: Nagle's algorithm holding back a small write until the peer
//! acknowledges the previous one, while the peer delays that acknowledgement. Without
//! pooling every call pays a TCP connect and close (and a TLS handshake over HTTPS). With
//! `TCP_NODELAY` our writes never wait for an acknowledgement, which removes the stall's
//! cause on our side, so connections are kept (`tests/upstream_pool.rs` counts them and
//! checks the option on our sockets).

use std::time::Duration;

/// How long an idle connection to an upstream is kept before it is closed.
const IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// The most redirects followed for one request (rmcp's default client's limit).
const MAX_REDIRECTS: usize = 10;

/// A pooled client with `TCP_NODELAY`, following redirects as `redirect` says.
pub(super) fn pooled(
    redirect: reqwest::redirect::Policy,
) -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .tcp_nodelay(true)
        .pool_idle_timeout(IDLE_TIMEOUT)
        .redirect(redirect)
        .build()
}

/// The redirects rmcp's default client follows, kept as they were when the gateway used
/// that client: same-origin 307 and 308 only (they keep the method and the body, so the
/// JSON-RPC message arrives intact; a cross-origin one would send the session id and the
/// bearer token to another host), at most [`MAX_REDIRECTS`]; any other is returned as it
/// is and fails the request.
pub(super) fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(
            attempt.status(),
            reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|original| original.origin() == attempt.url().origin());
        if !keeps_body || !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    })
}
