//! One upstream's runner: started, watched and started again with backoff, on its own. Its
//! connection ending is an event ([`Upstream::closed`](crate::Upstream::closed)), not
//! something a timer finds; its tools are withdrawn (`list_changed`) while it is down and
//! mounted again, pins checked again, when it is back.

use std::sync::Arc;
use std::time::Instant;

use toolwright_runtime::ToolRegistry;

use crate::config::UpstreamConfig;
use crate::upstream::MountReport;

use super::status::{Cell, UpstreamState};

/// The longest a `ping` after a failed call is waited for: a live server answers it at
/// once, however long its start may take (`handshake_timeout` goes up to an hour).
const PING_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Where a runner says what a mount did not do (`namespace`, report).
pub(crate) type Reporter = Arc<dyn Fn(&str, &MountReport) + Send + Sync>;

/// Runs `config`'s upstream until `cell.stop` (or, without `restart`, until its first
/// start fails or its connection ends: it is then `Stopped` with its last error); whether
/// its calls in flight finished within its drain bound when it was stopped while up.
pub(crate) async fn run(
    cell: Arc<Cell>,
    config: Arc<UpstreamConfig>,
    registry: Arc<ToolRegistry>,
    reporter: Reporter,
    restart: bool,
) -> bool {
    let supervision = cell.supervision;
    // Failures in a row: the backoff doubles with each.
    let mut failures = 0u32;
    loop {
        cell.update(|life| {
            life.state = UpstreamState::Starting;
            life.starts += 1;
        });
        // Pins and fingerprints are checked by the mount itself, at every start.
        let start = tokio::time::timeout(supervision.handshake_timeout, config.mount(&registry));
        let started = tokio::select! {
            biased;
            () = cell.stop.cancelled() => return stopped(&cell, true),
            started = start => started,
        };
        let error = match started {
            Ok(Ok(mount)) => {
                let mount = Arc::new(mount);
                reporter(&cell.namespace, mount.report());
                let follow = {
                    let (reporter, namespace) = (reporter.clone(), cell.namespace.clone());
                    mount.follow(move |report| match report {
                        Ok(report) => reporter(&namespace, &report),
                        Err(error) => {
                            tracing::warn!(upstream = %namespace, %error, "re-listing failed");
                        }
                    })
                };
                cell.update(|life| {
                    life.state = UpstreamState::Up;
                    life.mount = Some(Arc::clone(&mount));
                });
                tracing::info!(upstream = %cell.namespace, "upstream up");
                let up_since = Instant::now();
                let upstream = mount.upstream();
                let mut ended = "its connection ended (the server exited or closed its transport)";
                let stopping = loop {
                    tokio::select! {
                        biased;
                        () = cell.stop.cancelled() => break true,
                        () = upstream.closed() => break false,
                        // A call failed: a transport that does not end when its server
                        // goes away (HTTP) is asked whether anyone still answers.
                        () = cell.suspect.notified() => {
                            let alive = tokio::select! {
                                () = cell.stop.cancelled() => break true,
                                alive = upstream.answers_ping(supervision.handshake_timeout.min(PING_WAIT)) => alive,
                            };
                            if !alive {
                                ended = "it stopped answering (a call failed, then `ping` did too)";
                                break false;
                            }
                        }
                    }
                };
                follow.abort();
                // Withdrawn first: no new call reaches it, and clients hear `list_changed`.
                drop(mount.unmount());
                if stopping {
                    cell.update(|life| {
                        life.state = UpstreamState::Stopping;
                        life.mount = None;
                    });
                    let drained = cell.drained(supervision.drain_timeout).await;
                    mount.upstream().close().await;
                    return stopped(&cell, drained);
                }
                if up_since.elapsed() >= supervision.healthy_after {
                    failures = 0;
                }
                // The old connection goes before the new one starts.
                upstream.close().await;
                ended.to_owned()
            }
            Ok(Err(error)) => error.to_string(),
            Err(_) => format!(
                "it did not start (connect, answer `initialize`, list its tools) within \
                 {} s (`supervise.handshake_timeout`)",
                supervision.handshake_timeout.as_secs_f64()
            ),
        };
        if !restart {
            cell.failed(UpstreamState::Stopped, &error);
            return true;
        }
        failures = failures.saturating_add(1);
        cell.failed(UpstreamState::Restarting, &error);
        tokio::select! {
            biased;
            () = cell.stop.cancelled() => return stopped(&cell, true),
            () = tokio::time::sleep(supervision.backoff(failures)) => {}
        }
        cell.update(|life| life.restarts += 1);
    }
}

/// Marks the cell stopped; passes `drained` on.
fn stopped(cell: &Cell, drained: bool) -> bool {
    cell.update(|life| {
        life.state = UpstreamState::Stopped;
        life.mount = None;
    });
    tracing::info!(upstream = %cell.namespace, drained, "upstream stopped");
    drained
}
