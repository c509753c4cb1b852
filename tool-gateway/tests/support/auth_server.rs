//! What the tests with an OAuth authorization server in process share (`upstream_oauth`,
//! `upstream_exchange`): the gateway's client and secret, the test keys of
//! `tool-mcp/tests/data`, a JSON answer, the decoding of a token request's form, and the
//! server itself on a loopback port with its RFC 8414 metadata (the token endpoint is each
//! test's own handler).

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::handler::Handler;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

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

/// The state of an authorization server: how it answers (`behaviour`, each test's own),
/// and what it was asked.
#[derive(Clone)]
pub struct AuthState<B> {
    pub issuer: String,
    /// The grant types its metadata names.
    pub grant_types: &'static [&'static str],
    pub behaviour: B,
    /// The form of each token request.
    pub requests: Arc<Mutex<Vec<HashMap<String, String>>>>,
    /// How many tokens it issued.
    pub issued: Arc<AtomicUsize>,
}

/// An authorization server on a loopback port: its RFC 8414 metadata, and each test's own
/// token endpoint.
pub struct AuthServer<B> {
    pub issuer: String,
    pub state: AuthState<B>,
}

impl<B: Clone + Send + Sync + 'static> AuthServer<B> {
    /// Serves the metadata (naming `grant_types`, and `client_secret_post`) at
    /// `/.well-known/oauth-authorization-server` and `token` at `/token`.
    pub async fn start<T, TA>(
        behaviour: B,
        grant_types: &'static [&'static str],
        token: T,
    ) -> AuthServer<B>
    where
        T: Handler<TA, AuthState<B>>,
        TA: 'static,
    {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .unwrap();
        let issuer = format!("http://{}", listener.local_addr().unwrap());
        let state = AuthState {
            issuer: issuer.clone(),
            grant_types,
            behaviour,
            requests: Arc::default(),
            issued: Arc::default(),
        };
        let app = axum::Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                get(metadata::<B>),
            )
            .route("/token", post(token))
            .with_state(state.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        AuthServer { issuer, state }
    }

    /// The form of each token request so far.
    pub fn requests(&self) -> Vec<HashMap<String, String>> {
        self.state.requests.lock().unwrap().clone()
    }
}

async fn metadata<B>(State(state): State<AuthState<B>>) -> Response {
    json_response(
        StatusCode::OK,
        &json!({
            "issuer": state.issuer,
            "authorization_endpoint": format!("{}/authorize", state.issuer),
            "token_endpoint": format!("{}/token", state.issuer),
            "grant_types_supported": state.grant_types,
            "token_endpoint_auth_methods_supported": ["client_secret_post"],
        }),
    )
}
