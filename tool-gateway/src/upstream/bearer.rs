//! rmcp's reqwest client for streamable HTTP with a bearer token of ours on every request
//! ([`BearerHttpClient`]), whatever gives the token ([`BearerSource`]): the gateway's OAuth
//! client credentials (`oauth`), or a caller's own credentials (`callers`). A request the
//! server answers 401 is sent once more with another token, when the source has one; never
//! twice with the token it refused.

use std::collections::HashMap;
use std::sync::Arc;

use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

/// What a request, or the token for one, ends in.
pub(crate) type Authorised<T> = Result<T, StreamableHttpError<reqwest::Error>>;

/// Where the bearer token of each request comes from.
pub(crate) trait BearerSource: Send + Sync + 'static {
    /// Whom a token was given for, kept from the first try of a request to its retry so
    /// that both are made as the same one (a caller's session may be given a newer
    /// caller's token meanwhile).
    type Holder: Send;

    /// The token of the next request (none: the request carries no `Authorization`), and
    /// whom it is for.
    fn token(&self) -> impl Future<Output = Authorised<(Self::Holder, Option<String>)>> + Send;

    /// The server answered 401 to `rejected`, given for `holder`: the token to try instead
    /// (the same one again, or none, gives the 401 back).
    fn instead_of(
        &self,
        holder: &Self::Holder,
        rejected: &str,
    ) -> impl Future<Output = Authorised<Option<String>>> + Send;
}

/// rmcp's reqwest client for streamable HTTP, with `S`'s token on every request instead of
/// the transport's (which has none).
pub(crate) struct BearerHttpClient<S> {
    http: reqwest::Client,
    source: Arc<S>,
}

// Not derived: a derived `Clone` would ask `S: Clone`, and the source is shared.
impl<S> Clone for BearerHttpClient<S> {
    fn clone(&self) -> Self {
        BearerHttpClient {
            http: self.http.clone(),
            source: self.source.clone(),
        }
    }
}

impl<S: BearerSource> BearerHttpClient<S> {
    /// Requests made with `http`, authorised by `source`.
    pub(crate) fn new(http: reqwest::Client, source: Arc<S>) -> Self {
        BearerHttpClient { http, source }
    }

    /// Runs `call` with the source's token; when the server answers 401, once more with
    /// another one.
    async fn authorised<T, F, Fut>(&self, call: F) -> Authorised<T>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: Future<Output = Authorised<T>>,
    {
        let (holder, token) = self.source.token().await?;
        match call(token.clone()).await {
            Err(StreamableHttpError::AuthRequired(challenge)) => {
                let Some(rejected) = token else {
                    return Err(StreamableHttpError::AuthRequired(challenge));
                };
                let fresh = self.source.instead_of(&holder, &rejected).await?;
                if fresh.as_deref() == Some(rejected.as_str()) {
                    Err(StreamableHttpError::AuthRequired(challenge))
                } else {
                    call(fresh).await
                }
            }
            result => result,
        }
    }
}

type SseStream = futures_core::stream::BoxStream<'static, Result<sse_stream::Sse, SseError>>;

/// Each method is reqwest's, with the source's token instead of the transport's.
impl<S: BearerSource> StreamableHttpClient for BearerHttpClient<S> {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.authorised(|token| {
            self.http.post_message(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.authorised(|token| {
            self.http.post_message_with_max_sse_event_size(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.authorised(|token| {
            self.http.post_message_with_response_limits(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
                limits,
            )
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.authorised(|token| {
            self.http.delete_session(
                uri.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<SseStream, StreamableHttpError<Self::Error>> {
        self.authorised(|token| {
            self.http.get_stream(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<SseStream, StreamableHttpError<Self::Error>> {
        self.authorised(|token| {
            self.http.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use rmcp::transport::streamable_http_client::AuthRequiredError;

    use super::*;

    /// A source whose first token and replacement are given; it records what it was told.
    struct Script {
        first: Option<&'static str>,
        instead: Option<&'static str>,
        refused: Mutex<Vec<(u32, String)>>,
    }

    impl BearerSource for Script {
        type Holder = u32;

        async fn token(&self) -> Authorised<(u32, Option<String>)> {
            Ok((7, self.first.map(str::to_owned)))
        }

        async fn instead_of(&self, holder: &u32, rejected: &str) -> Authorised<Option<String>> {
            self.refused
                .lock()
                .unwrap()
                .push((*holder, rejected.to_owned()));
            Ok(self.instead.map(str::to_owned))
        }
    }

    /// Runs one request through the client, against a server that takes only `accepted`:
    /// the tokens it was sent, whether it succeeded, what the source was told.
    async fn request(
        first: Option<&'static str>,
        instead: Option<&'static str>,
        accepted: &'static str,
    ) -> (Vec<Option<String>>, bool, Vec<(u32, String)>) {
        let source = Arc::new(Script {
            first,
            instead,
            refused: Mutex::default(),
        });
        let client = BearerHttpClient::new(reqwest::Client::new(), source.clone());
        let sent = Mutex::new(Vec::new());
        let result = client
            .authorised(|token| {
                sent.lock().unwrap().push(token.clone());
                async move {
                    if token.as_deref() == Some(accepted) {
                        Ok(())
                    } else {
                        Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(
                            "Bearer".to_owned(),
                        )))
                    }
                }
            })
            .await;
        if let Err(error) = &result {
            assert!(
                matches!(error, StreamableHttpError::AuthRequired(_)),
                "{error}"
            );
        }
        let refused = source.refused.lock().unwrap().clone();
        (sent.into_inner().unwrap(), result.is_ok(), refused)
    }

    #[tokio::test]
    async fn a_refused_token_is_replaced_once_for_the_same_holder() {
        let (sent, ok, refused) = request(Some("old"), Some("new"), "new").await;
        assert_eq!(sent, [Some("old".to_owned()), Some("new".to_owned())]);
        assert!(ok);
        assert_eq!(refused, [(7, "old".to_owned())]);
        // The replacement refused too: the 401 is the answer, not a third try.
        let (sent, ok, _) = request(Some("old"), Some("new"), "other").await;
        assert_eq!(sent.len(), 2);
        assert!(!ok);
    }

    #[tokio::test]
    async fn the_refused_token_or_none_is_never_sent_again() {
        let (sent, ok, refused) = request(Some("old"), Some("old"), "new").await;
        assert_eq!(sent, [Some("old".to_owned())]);
        assert!(!ok);
        assert_eq!(refused.len(), 1);
        // Without a token there is nothing to replace: the source is not asked.
        let (sent, ok, refused) = request(None, Some("new"), "new").await;
        assert_eq!(sent, [None]);
        assert!(!ok);
        assert!(refused.is_empty());
        // An accepted token is sent once, the source never told of a refusal.
        let (sent, ok, refused) = request(Some("good"), None, "good").await;
        assert_eq!(sent, [Some("good".to_owned())]);
        assert!(ok);
        assert!(refused.is_empty());
    }
}
