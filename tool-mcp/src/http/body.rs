//! A response body that holds a guard until it is sent.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;

/// A response whose body holds `guard` until it is sent (or dropped).
pub(crate) fn hold_until_sent<G: Send + Sync + Unpin + 'static>(
    response: Response,
    guard: G,
) -> Response {
    response.map(|body| {
        Body::new(Holding {
            body,
            _guard: guard,
        })
    })
}

struct Holding<G> {
    body: Body,
    _guard: G,
}

impl<G: Unpin> http_body::Body for Holding<G> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
