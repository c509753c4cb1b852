//! A TCP proxy in front of an HTTP upstream that counts the connections made to it, and a
//! look at our own process's sockets to it: whether `TCP_NODELAY` is set on each. What
//! `tests/upstream_pool.rs` and `tests/upstream_oauth.rs` use to show that the gateway
//! keeps its connections to an HTTP upstream alive (a few over many calls, not one per
//! call) without the cause of the ~40 ms stall rmcp avoids by opening one per request
//! (Nagle's algorithm on our side). Counts only: no timing.

use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The proxy: `url()` is the upstream's URL with the proxy's address.
pub struct CountingProxy {
    addr: SocketAddr,
    path: String,
    accepted: Arc<AtomicUsize>,
}

impl CountingProxy {
    /// Listens on a free loopback port and forwards each connection to `upstream_url`'s
    /// host (an `http://127.0.0.1:PORT/...` URL).
    pub async fn start(upstream_url: &str) -> CountingProxy {
        let rest = upstream_url
            .strip_prefix("http://")
            .expect("a plain http:// upstream");
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let target: SocketAddr = host.parse().expect("an IP:PORT upstream");
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let counter = accepted.clone();
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                counter.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await else {
                        return;
                    };
                    // The proxy's own writes must not add the stall the test looks for.
                    let _ = inbound.set_nodelay(true);
                    let _ = outbound.set_nodelay(true);
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                });
            }
        });
        CountingProxy {
            addr,
            path: path.to_owned(),
            accepted,
        }
    }

    /// The upstream's URL through the proxy.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.addr, self.path)
    }

    /// How many TCP connections were made to the proxy so far.
    pub fn connections(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    /// `TCP_NODELAY` of each of this process's open TCP sockets connected to the proxy (the
    /// gateway's client side of the upstream hop), found in `/proc/self/fd`.
    pub fn our_sockets_nodelay(&self) -> Vec<bool> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc/self/fd").unwrap().flatten() {
            let Some(fd) = entry
                .file_name()
                .to_str()
                .and_then(|name| name.parse::<i32>().ok())
            else {
                continue;
            };
            if !std::fs::read_link(entry.path()).is_ok_and(|link| {
                link.to_str()
                    .is_some_and(|link| link.starts_with("socket:"))
            }) {
                continue;
            }
            // SAFETY: the descriptor is only borrowed (never closed: `ManuallyDrop`) to read
            // its peer address and one option; should another thread have closed it since
            // it was listed, both calls fail or read some other descriptor, harmlessly.
            let stream = std::mem::ManuallyDrop::new(unsafe {
                <TcpStream as std::os::fd::FromRawFd>::from_raw_fd(fd)
            });
            if stream.peer_addr().is_ok_and(|peer| peer == self.addr)
                && let Ok(nodelay) = stream.nodelay()
            {
                found.push(nodelay);
            }
        }
        found
    }
}
