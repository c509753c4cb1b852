//! Named hosts only: a confined program reaches the hosts of its allow-list through the
//! egress proxy, and nothing else. Traffic goes only to loopback servers this test runs;
//! names resolve through a resolver with test answers, so the refusals of other addresses
//! are proven at resolution, before any packet could leave.

use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, TcpListener};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use toolwright_std::egress::{AllowList, Egress, FixedResolver, Refusal};
use toolwright_std::sandbox::Sandbox;

/// A loopback HTTP server that answers every request with `hello from egress`, counting
/// connections.
struct Server {
    port: u16,
    connections: Arc<AtomicUsize>,
}

impl Server {
    fn start() -> Server {
        let listener = any_port_but_the_relays();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let counted = connections.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                counted.fetch_add(1, Ordering::SeqCst);
                std::thread::spawn(move || {
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") {
                        match stream.read(&mut byte) {
                            Ok(1) => head.push(byte[0]),
                            _ => return,
                        }
                    }
                    let body = "hello from egress";
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                });
            }
        });
        Server { port, connections }
    }
}

/// A loopback listener on any port but 3128, the relay's inside a program's namespace (a
/// direct connection there would reach the relay, not this listener, and prove nothing).
fn any_port_but_the_relays() -> TcpListener {
    loop {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        if listener.local_addr().unwrap().port() != 3128 {
            return listener;
        }
    }
}

/// A listener nobody may reach: after the program has exited, nothing waits in its backlog.
fn assert_untouched(listener: &TcpListener) {
    listener.set_nonblocking(true).unwrap();
    let accepted = listener.accept();
    assert!(
        matches!(&accepted, Err(e) if e.kind() == ErrorKind::WouldBlock),
        "a confined program reached a listener it may not: {accepted:?}"
    );
}

/// Runs `curl ARGS` confined by `sandbox`.
fn curl(sandbox: &Sandbox, args: &[&str]) -> Output {
    let mut command = Command::new("curl");
    command.args(["-sS", "--max-time", "120"]).args(args);
    let confined = sandbox.confine(&mut command).unwrap();
    assert!(
        confined.is_confined(),
        "the kernel must confine the program"
    );
    let output = command
        .output()
        .expect("curl is installed (CI installs it)");
    drop(confined);
    output
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

struct Fixture {
    server: Server,
    unlisted: TcpListener,
    unlisted_port: u16,
    resolver: FixedResolver,
    refusals: Arc<Mutex<Vec<Refusal>>>,
    sandbox: Sandbox,
}

fn fixture() -> Fixture {
    let server = Server::start();
    let unlisted = any_port_but_the_relays();
    let unlisted_port = unlisted.local_addr().unwrap().port();
    let port = server.port;
    let ip = |text: &str| text.parse::<IpAddr>().unwrap();
    let resolver = FixedResolver::new()
        .answer("listed.test", [ip("127.0.0.1")])
        // Names that are listed, whose answers lead where the list does not.
        .answer("rebind.test", [ip("127.0.0.1")])
        .answer("metadata.test", [ip("169.254.169.254")])
        .answer("mixed.test", [ip("93.184.216.34"), ip("fd00:ec2::254")])
        .answer("mapped.test", [ip("::ffff:127.0.0.1")]);
    let allowed = AllowList::parse([
        format!("127.0.0.1:{port}"),
        format!("listed.test:{port}"),
        format!("rebind.test:{unlisted_port}"),
        "metadata.test:80".to_owned(),
        "mixed.test:443".to_owned(),
        format!("mapped.test:{unlisted_port}"),
    ])
    .unwrap();
    let refusals = Arc::new(Mutex::new(Vec::new()));
    let sink = refusals.clone();
    let egress = Egress::new(allowed)
        .resolver(resolver.clone())
        .label("egress-test")
        .on_refusal(move |refusal| sink.lock().unwrap().push(refusal.clone()));
    Fixture {
        server,
        unlisted,
        unlisted_port,
        resolver,
        refusals,
        sandbox: Sandbox::new().network_hosts(egress),
    }
}

impl Fixture {
    fn refused(&self, target: &str) -> Refusal {
        let refusals = self.refusals.lock().unwrap();
        refusals
            .iter()
            .find(|refusal| refusal.target == target)
            .cloned()
            .unwrap_or_else(|| panic!("no refusal of {target} in {refusals:?}"))
    }
}

#[test]
fn a_listed_host_is_reached_through_the_proxy_by_name_and_by_address() {
    let f = fixture();
    let port = f.server.port;
    // A tunnel (`CONNECT`), by a listed name that resolves to the listed address.
    let tunnel = curl(
        &f.sandbox,
        &["--proxytunnel", &format!("http://listed.test:{port}/")],
    );
    assert!(tunnel.status.success(), "{tunnel:?}");
    assert_eq!(text(&tunnel.stdout), "hello from egress");
    // A plain request in absolute form, by the listed address.
    let plain = curl(&f.sandbox, &[&format!("http://127.0.0.1:{port}/plain")]);
    assert!(plain.status.success(), "{plain:?}");
    assert_eq!(text(&plain.stdout), "hello from egress");
    assert_eq!(f.server.connections.load(Ordering::SeqCst), 2);
    assert_eq!(f.resolver.asked(), ["listed.test"]);
    assert!(f.refusals.lock().unwrap().is_empty());
}

#[test]
fn unlisted_hosts_ports_and_addresses_are_refused_and_audited() {
    let f = fixture();
    let unlisted = f.unlisted_port;
    let cases: Vec<(Vec<String>, String, &str)> = vec![
        // 127.0.0.1 on a port the list does not give it.
        (
            vec![format!("http://127.0.0.1:{unlisted}/")],
            format!("127.0.0.1:{unlisted}"),
            "a loopback address",
        ),
        (
            vec![
                "--proxytunnel".into(),
                format!("http://127.0.0.1:{unlisted}/"),
            ],
            format!("127.0.0.1:{unlisted}"),
            "a loopback address",
        ),
        // A name nobody listed: refused before it is resolved.
        (
            vec!["https://unlisted.test/".into()],
            "unlisted.test:443".into(),
            "not in the allow-list",
        ),
        // A listed name on another port.
        (
            vec![format!("http://listed.test:{unlisted}/")],
            format!("listed.test:{unlisted}"),
            "not in the allow-list",
        ),
        // DNS rebinding: listed names whose answers are loopback, metadata, mixed, mapped.
        (
            vec![format!("http://rebind.test:{unlisted}/")],
            format!("rebind.test:{unlisted}"),
            "resolves to 127.0.0.1",
        ),
        (
            vec!["http://metadata.test/latest/meta-data/".into()],
            "metadata.test:80".into(),
            "the cloud metadata address",
        ),
        (
            vec!["https://mixed.test/".into()],
            "mixed.test:443".into(),
            "fd00:ec2::254",
        ),
        (
            vec![format!("http://mapped.test:{unlisted}/")],
            format!("mapped.test:{unlisted}"),
            "a loopback address",
        ),
        // Link-local and metadata addresses asked for directly.
        (
            vec!["http://169.254.169.254/latest/meta-data/".into()],
            "169.254.169.254:80".into(),
            "the cloud metadata address",
        ),
        (
            vec!["http://[fe80::1]:80/".into()],
            "[fe80::1]:80".into(),
            "a link-local address",
        ),
        (
            vec!["https://169.254.1.1/".into()],
            "169.254.1.1:443".into(),
            "a link-local address",
        ),
    ];
    for (args, target, reason) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = curl(&f.sandbox, &args);
        let answered = text(&out.stdout) + &text(&out.stderr);
        assert!(
            !answered.contains("hello from egress"),
            "{args:?} reached a server: {answered}"
        );
        assert!(
            !out.status.success() || answered.contains("refused"),
            "{args:?}: {out:?}"
        );
        let refusal = f.refused(target);
        assert!(
            refusal.reason.contains(reason),
            "{target}: {}",
            refusal.reason
        );
        assert_eq!(refusal.program, "egress-test");
    }
    // The refusals of names came from the resolver's answers, which were checked: every
    // listed name was asked, the unlisted one never.
    let asked = f.resolver.asked();
    for name in ["rebind.test", "metadata.test", "mixed.test", "mapped.test"] {
        assert!(
            asked.iter().any(|a| a == name),
            "{name} not asked: {asked:?}"
        );
    }
    assert!(!asked.iter().any(|a| a == "unlisted.test"), "{asked:?}");
    assert!(
        !asked.iter().any(|a| a.starts_with("listed")),
        "a listed name on an unlisted port was resolved: {asked:?}"
    );
    assert_untouched(&f.unlisted);
    assert_eq!(f.server.connections.load(Ordering::SeqCst), 0);
}

#[test]
fn a_direct_connection_around_the_proxy_fails_in_the_kernel() {
    let f = fixture();
    let port = f.server.port;
    // Straight to the listed server, ignoring the proxy variables: the program's network
    // namespace has no route to the host's loopback, and Landlock allows TCP connections to
    // the relay's port only.
    let direct = curl(
        &f.sandbox,
        &["--noproxy", "*", &format!("http://127.0.0.1:{port}/")],
    );
    assert!(!direct.status.success(), "{direct:?}");
    let raw = {
        let mut command = Command::new("bash");
        command.arg("-c").arg(format!(
            "echo hi > /dev/tcp/127.0.0.1/{port} && echo connected; \
             echo hi > /dev/tcp/127.0.0.1/{} && echo connected",
            f.unlisted_port
        ));
        let confined = f.sandbox.confine(&mut command).unwrap();
        let out = command.output().unwrap();
        drop(confined);
        out
    };
    assert!(!text(&raw.stdout).contains("connected"), "{raw:?}");
    assert_eq!(f.server.connections.load(Ordering::SeqCst), 0);
    assert_untouched(&f.unlisted);
    // The environment points at the relay, with nothing exempt.
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("echo \"$HTTPS_PROXY|$http_proxy|$ALL_PROXY|${NO_PROXY-unset}|\"");
    let confined = f.sandbox.confine(&mut command).unwrap();
    let out = command.output().unwrap();
    drop(confined);
    assert_eq!(
        text(&out.stdout).trim(),
        "http://127.0.0.1:3128|http://127.0.0.1:3128|http://127.0.0.1:3128||"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn run_command_reaches_only_the_listed_hosts() {
    let server = Server::start();
    let port = server.port;
    let refusals = Arc::new(Mutex::new(Vec::<Refusal>::new()));
    let sink = refusals.clone();
    let egress = Egress::new(AllowList::parse([format!("127.0.0.1:{port}")]).unwrap())
        .resolver(FixedResolver::new())
        .on_refusal(move |refusal| sink.lock().unwrap().push(refusal.clone()));
    let h = crate::harness::Harness::with(|ws| ws.allow_commands(["curl"]).network_hosts(egress));
    let url = format!("http://127.0.0.1:{port}/");
    let listed = crate::harness::run(
        &h,
        serde_json::json!({"program": "curl", "args": ["-sS", "-f", url]}),
    )
    .await;
    assert_eq!(listed["stdout"], "hello from egress", "{listed}");
    let refused = crate::harness::run(
        &h,
        serde_json::json!({"program": "curl", "args": ["-sS", "-f", "http://169.254.169.254/"]}),
    )
    .await;
    assert_ne!(refused["exit_code"], 0, "{refused}");
    assert_eq!(server.connections.load(Ordering::SeqCst), 1);
    let refusals = refusals.lock().unwrap();
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert_eq!(refusals[0].target, "169.254.169.254:80");
}

/// The proxy alone, through its socket: the cap on connections, the size of a request's
/// head, requests that are not proxy requests.
mod proxy {
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::UnixStream;
    use toolwright_std::egress::{AllowList, Egress, Proxy, ProxyError, ProxyLimits};

    use super::Server;

    async fn ask(path: &std::path::Path, request: &[u8]) -> String {
        let mut stream = UnixStream::connect(path).await.unwrap();
        // A proxy at its cap answers 503 at once and closes, maybe before the request is
        // written: a broken pipe here is that answer, still there to be read.
        let _ = stream.write_all(request).await;
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer).await;
        String::from_utf8_lossy(&answer).into_owned()
    }

    #[tokio::test]
    async fn connections_over_the_cap_are_answered_503_with_the_limit() {
        let server = Server::start();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("proxy.sock");
        let mut limits = ProxyLimits::default();
        limits.max_connections = 2;
        let allowed = AllowList::parse([format!("127.0.0.1:{}", server.port)]).unwrap();
        let _proxy = Proxy::start(Egress::new(allowed).limits(limits), &path).unwrap();
        // Two tunnels held open.
        let mut held = Vec::new();
        for _ in 0..2 {
            let mut stream = UnixStream::connect(&path).await.unwrap();
            let request = format!(
                "CONNECT 127.0.0.1:{0} HTTP/1.1\r\nhost: 127.0.0.1:{0}\r\n\r\n",
                server.port
            );
            stream.write_all(request.as_bytes()).await.unwrap();
            let mut answer = [0u8; 12];
            stream.read_exact(&mut answer).await.unwrap();
            assert_eq!(&answer, b"HTTP/1.1 200");
            held.push(stream);
        }
        let third = ask(&path, b"CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n").await;
        assert!(third.starts_with("HTTP/1.1 503"), "{third}");
        assert!(third.contains("max_connections"), "{third}");
        // A slot comes back when a tunnel closes.
        drop(held.pop());
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        loop {
            let answer = ask(
                &path,
                format!(
                    "GET http://127.0.0.1:{}/ HTTP/1.1\r\nhost: x\r\n\r\n",
                    server.port
                )
                .as_bytes(),
            )
            .await;
            if answer.contains("hello from egress") {
                break;
            }
            assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
            assert!(tokio::time::Instant::now() < deadline, "no slot came back");
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test]
    async fn a_huge_head_and_requests_that_are_not_for_a_proxy_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("proxy.sock");
        let _proxy = Proxy::start(Egress::new(AllowList::default()), &path).unwrap();
        let huge = format!(
            "GET http://a.test/ HTTP/1.1\r\nx-big: {}\r\n\r\n",
            "a".repeat(64 * 1024)
        );
        let answer = ask(&path, huge.as_bytes()).await;
        assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
        let origin = ask(&path, b"GET / HTTP/1.1\r\nhost: a.test\r\n\r\n").await;
        assert!(origin.starts_with("HTTP/1.1 400"), "{origin}");
        let https = ask(
            &path,
            b"GET https://a.test/ HTTP/1.1\r\nhost: a.test\r\n\r\n",
        )
        .await;
        assert!(https.starts_with("HTTP/1.1 400"), "{https}");
        let garbage = ask(&path, b"\x00\x01\x02 not http at all\r\n\r\n").await;
        assert!(
            garbage.is_empty() || garbage.starts_with("HTTP/1.1 400"),
            "{garbage}"
        );
        let numeric = ask(&path, b"CONNECT 2130706433:80 HTTP/1.1\r\n\r\n").await;
        assert!(numeric.starts_with("HTTP/1.1 403"), "{numeric}");
    }

    /// A resolver that answers the listed address once, then the metadata address: a
    /// proxy that resolved twice (once to check, once to connect) would be rebound.
    struct Rebinding {
        calls: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    }

    impl toolwright_std::egress::Resolve for Rebinding {
        fn resolve<'a>(&'a self, _host: &'a str) -> toolwright_std::egress::Resolution<'a> {
            let first = self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0;
            let ip = if first {
                "127.0.0.1"
            } else {
                "169.254.169.254"
            };
            let ip: std::net::IpAddr = ip.parse().unwrap();
            Box::pin(async move { Ok(vec![ip]) })
        }
    }

    #[tokio::test]
    async fn a_name_is_resolved_once_and_reached_at_the_address_checked() {
        let server = Server::start();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("proxy.sock");
        let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let allowed = AllowList::parse([
            format!("127.0.0.1:{}", server.port),
            format!("flip.test:{}", server.port),
        ])
        .unwrap();
        let resolver = Rebinding {
            calls: calls.clone(),
        };
        let _proxy = Proxy::start(Egress::new(allowed).resolver(resolver), &path).unwrap();
        let request = format!(
            "GET http://flip.test:{}/ HTTP/1.1\r\nhost: flip.test\r\n\r\n",
            server.port
        );
        let answer = ask(&path, request.as_bytes()).await;
        assert!(answer.contains("hello from egress"), "{answer}");
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
        // The second question gets the metadata address, and is refused.
        let answer = ask(&path, request.as_bytes()).await;
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
        assert!(answer.contains("metadata"), "{answer}");
        assert_eq!(
            server.connections.load(std::sync::atomic::Ordering::SeqCst),
            1
        );
    }

    /// An upstream that sends a response's head and then nothing, forever: the proxy's idle
    /// timeout ends the response (whatever its length, the stall never ends by itself).
    #[tokio::test]
    async fn a_response_that_stalls_is_ended_by_the_idle_timeout() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut head = [0u8; 1024];
                let _ = std::io::Read::read(&mut stream, &mut head);
                let _ = std::io::Write::write_all(
                    &mut stream,
                    b"HTTP/1.1 200 OK\r\ncontent-length: 1000000\r\n\r\npartial",
                );
                held.push(stream);
            }
        });
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("proxy.sock");
        let mut limits = ProxyLimits::default();
        limits.idle_timeout = Duration::from_millis(50);
        let allowed = AllowList::parse([format!("127.0.0.1:{port}")]).unwrap();
        let _proxy = Proxy::start(Egress::new(allowed).limits(limits), &path).unwrap();
        let request = format!("GET http://127.0.0.1:{port}/ HTTP/1.1\r\nhost: x\r\n\r\n");
        let answer = tokio::time::timeout(Duration::from_secs(300), ask(&path, request.as_bytes()))
            .await
            .expect("the idle timeout ends the stalled response");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.ends_with("partial"), "{answer}");
    }

    #[test]
    fn a_proxy_that_cannot_listen_is_an_error_that_says_the_program_is_not_started() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no/such/dir/proxy.sock");
        let error = Proxy::start(Egress::new(AllowList::default()), &missing).unwrap_err();
        assert!(matches!(error, ProxyError::Bind { .. }), "{error}");
        assert!(error.to_string().contains("not started"), "{error}");
    }
}

/// Run by [`a_program_whose_proxy_cannot_be_reached_is_not_started`], in a child process
/// whose `TMPDIR` is too long for the proxy's socket path.
#[test]
#[ignore = "run by a_program_whose_proxy_cannot_be_reached_is_not_started, with a long TMPDIR"]
fn child_confines_with_a_long_tmpdir() {
    let mut command = Command::new("true");
    let error = Sandbox::new()
        .network_hosts(AllowList::default())
        .confine(&mut command)
        .unwrap_err();
    assert!(
        matches!(error, toolwright_std::sandbox::SandboxError::Failed(_)),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("longer than a UNIX socket"),
        "{error}"
    );
    println!("refused: {error}");
}

#[test]
fn a_program_whose_proxy_cannot_be_reached_is_not_started() {
    let base = tempfile::tempdir().unwrap();
    let long = base.path().join("d".repeat(120));
    std::fs::create_dir(&long).unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "egress::child_confines_with_a_long_tmpdir",
            "--nocapture",
        ])
        .env("TMPDIR", &long)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(text(&out.stdout).contains("refused: "), "{out:?}");
    assert!(text(&out.stdout).contains("1 passed"), "{out:?}");
}
