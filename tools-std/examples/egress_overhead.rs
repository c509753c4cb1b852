//! What named hosts only costs (BENCHMARKS.md, "Egress"): the start of a confined program
//! with an egress proxy against one without network, and a download through the proxy's
//! tunnel against one with the host's network. Loopback only.
//!
//! `cargo run --release -p toolwright-std --example egress_overhead`

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use toolwright_std::egress::AllowList;
use toolwright_std::sandbox::Sandbox;

/// Serves `bytes` of zeros to every connection, after reading the request's head.
fn serve(bytes: usize) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut stream = stream;
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if stream.read(&mut byte).unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(byte[0]);
                }
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-length: {bytes}\r\nconnection: close\r\n\r\n"
                );
                let chunk = vec![0u8; 64 * 1024];
                let mut left = bytes;
                while left > 0 {
                    let n = left.min(chunk.len());
                    if stream.write_all(&chunk[..n]).is_err() {
                        return;
                    }
                    left -= n;
                }
            });
        }
    });
    port
}

fn run(sandbox: &Sandbox, program: &str, args: &[&str]) -> Duration {
    let mut command = Command::new(program);
    command
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let started = Instant::now();
    let confined = sandbox.confine(&mut command).expect("confine");
    let status = command.status().expect("run");
    let took = started.elapsed();
    drop(confined);
    assert!(status.success(), "{program} {args:?} failed");
    took
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    const BYTES: usize = 512 * 1024 * 1024;
    let port = serve(BYTES);
    let listed = AllowList::parse([format!("127.0.0.1:{port}")]).expect("list");
    let none = Sandbox::new();
    let whole = Sandbox::new().network(true);
    let hosts = Sandbox::new().network_hosts(listed);
    let starts = |sandbox: &Sandbox| median((0..40).map(|_| run(sandbox, "true", &[])).collect());
    // Interleaved, so a change of the machine's load hits both alike.
    for round in 1..=2 {
        let (a, b) = (starts(&none), starts(&hosts));
        println!(
            "round {round}: start of `true`, median of 40: no network {:.2} ms, named hosts {:.2} ms ({:.2}x)",
            a.as_secs_f64() * 1e3,
            b.as_secs_f64() * 1e3,
            b.as_secs_f64() / a.as_secs_f64()
        );
        let url = format!("http://127.0.0.1:{port}/");
        let download = |sandbox: &Sandbox, tunnel: bool| {
            let mut args = vec!["-sS", "-o", "/dev/null"];
            if tunnel {
                args.push("--proxytunnel");
            }
            args.push(&url);
            median((0..3).map(|_| run(sandbox, "curl", &args)).collect())
        };
        let direct = download(&whole, false);
        let tunnel = download(&hosts, true);
        let plain = download(&hosts, false);
        let rate = |took: Duration| BYTES as f64 / took.as_secs_f64() / (1024.0 * 1024.0);
        println!(
            "round {round}: 512 MiB download, median of 3: whole network {:.0} MiB/s, \
             CONNECT tunnel {:.0} MiB/s ({:.2}x), plain HTTP {:.0} MiB/s ({:.2}x)",
            rate(direct),
            rate(tunnel),
            rate(tunnel) / rate(direct),
            rate(plain),
            rate(plain) / rate(direct)
        );
    }
}
