//! A transport that says when it ended: the upstream's side closed (a stdio child exited, an
//! HTTP stream ended) is an event a supervisor waits on, not something found by polling.

use std::borrow::Cow;

use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio_util::sync::CancellationToken;

/// `inner`, cancelling `ended` once its receiving side ends (no more messages will come).
pub(super) struct Ending<T> {
    inner: T,
    ended: CancellationToken,
}

impl<T> Ending<T> {
    pub(super) fn new(inner: T, ended: CancellationToken) -> Self {
        Ending { inner, ended }
    }
}

impl<T> Drop for Ending<T> {
    fn drop(&mut self) {
        // The service loop dropped the transport: nothing more will be read either way.
        self.ended.cancel();
    }
}

impl<T> Transport<RoleClient> for Ending<T>
where
    T: Transport<RoleClient>,
{
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await;
        if message.is_none() {
            self.ended.cancel();
        }
        message
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
