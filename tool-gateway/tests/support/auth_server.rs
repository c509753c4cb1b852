//! What the tests with an OAuth authorization server in process share (`upstream_oauth`,
//! `upstream_exchange`): the gateway's client and secret, the test keys of
//! `tool-mcp/tests/data`, a JSON answer, the decoding of a token request's form, and the
//! server itself on a loopback port (its RFC 8414 metadata and token endpoint are each
//! test's own handlers).

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use axum::handler::Handler;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::Value;

/// The gateway's client id at the authorization server.
pub const CLIENT_ID: &str = "toolwright-gateway";
/// The gateway's client secret.
pub const SECRET: &str = "client-secret-0123456789abcdef";
/// The audience of the tokens the upstream accepts.
pub const AUDIENCE: &str = "https://tools.example.test";

/// A file of `tool-mcp/tests/data` (test keys, JWKS).
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tool-mcp/tests/data")
        .join(name)
}

/// `secret` in a file `client-secret` of `dir` (with a newline, as an editor leaves it).
pub fn secret_file(dir: &Path, secret: &str) -> PathBuf {
    let path = dir.join("client-secret");
    std::fs::write(&path, format!("{secret}\n")).unwrap();
    path
}

/// A JSON answer (axum's `json` feature is not on).
pub fn json_response(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// `application/x-www-form-urlencoded`, decoded.
pub fn parse_form(body: &str) -> HashMap<String, String> {
    fn decode(text: &str) -> String {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'+' => out.push(b' '),
                b'%' if i + 2 < bytes.len() => {
                    let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
                    out.push(u8::from_str_radix(hex, 16).unwrap());
                    i += 2;
                }
                byte => out.push(byte),
            }
            i += 1;
        }
        String::from_utf8(out).unwrap()
    }
    body.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(name), decode(value))
        })
        .collect()
}

/// An authorization server on a loopback port, serving `metadata` at
/// `/.well-known/oauth-authorization-server` and `token` at `/token` with the state `state`
/// makes from the issuer URL: the issuer URL and that state.
pub async fn start<S, M, MA, T, TA>(
    state: impl FnOnce(&str) -> S,
    metadata: M,
    token: T,
) -> (String, S)
where
    S: Clone + Send + Sync + 'static,
    M: Handler<MA, S>,
    MA: 'static,
    T: Handler<TA, S>,
    TA: 'static,
{
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let state = state(&issuer);
    let app = axum::Router::new()
        .route("/.well-known/oauth-authorization-server", get(metadata))
        .route("/token", post(token))
        .with_state(state.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (issuer, state)
}
