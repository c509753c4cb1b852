//! Mounts and connections refused: a bad namespace, a command that does not start, a server
//! that never answers `initialize`.

use std::sync::Arc;

use toolwright_gateway::upstream::{MountOptions, MountUpstream, Upstream};
use toolwright_runtime::ToolRegistry;

use crate::support::{Paging, Raw, connect};

#[tokio::test]
async fn a_bad_namespace_is_refused() {
    let (raw, _events) = Raw::new(Vec::new(), Paging::Pages(1));
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    for namespace in ["", "GitHub", "with-dash", "trailing_"] {
        let error = registry
            .mount(&upstream, MountOptions::new(namespace))
            .await
            .unwrap_err();
        assert!(error.to_string().starts_with("mount namespace"), "{error}");
    }
}

#[tokio::test]
async fn a_command_that_does_not_start_is_an_error() {
    let error = Upstream::stdio("/nonexistent/toolwright-upstream", ["--x"])
        .connect()
        .await
        .unwrap_err();
    assert!(
        error.to_string().starts_with(
            "could not start the upstream MCP server `/nonexistent/toolwright-upstream --x`"
        ),
        "{error}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_server_that_never_answers_initialize_is_given_up() {
    // It reads what we send and answers nothing: connecting fails after the handshake's
    // timeout (the clock is paused, so it advances as soon as everything waits) instead of
    // keeping a gateway from ever starting.
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let silent = tokio::spawn(async move {
        let mut server_io = server_io;
        let mut sink = Vec::new();
        let _ = tokio::io::AsyncReadExt::read_to_end(&mut server_io, &mut sink).await;
    });
    let connected = Upstream::connect_transport("silent", tokio::io::split(client_io)).await;
    let Err(error) = connected else {
        panic!("a server that never answered was connected");
    };
    assert!(
        matches!(
            error,
            toolwright_gateway::upstream::UpstreamError::Handshake { .. }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("initialize"), "{error}");
    silent.abort();
}
