//! run_command under the kernel's confinement: files outside the workspace can be neither
//! read nor written (whatever program is tricked into trying: git aliases, pagers, ssh
//! commands, build scripts, cargo configuration, the environment), no network unless allowed,
//! `.git` read-only unless allowed, a private temporary directory, and timeouts that end every
//! descendant, `setsid` or not.
//!
//! No test depends on timing but the one the issue asks for (a timed-out call returns within
//! its timeout + 1 s): they wait for events and count.

use std::io::ErrorKind;
use std::net::{TcpListener, UdpSocket};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::harness::{Harness, Outside, installed, processes_with_argument, run};

/// A `sleep` argument no other process has: the test's own marker.
fn unique_sleep(test: u32) -> String {
    format!("{}{}.{test}", 100_000 + test, std::process::id())
}

/// Runs git outside the sandbox, in `dir`.
fn git(dir: &std::path::Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        // Not the hostile variables of `kept_environment_probe`.
        .env_remove("GIT_CONFIG_PARAMETERS")
        .env_remove("GIT_CONFIG_COUNT")
        .output()
        .unwrap();
    assert!(status.status.success(), "git {args:?}: {status:?}");
}

/// Whether `stderr` says the kernel refused an access: the file is not in the command's view
/// of the file system, or Landlock or a read-only mount refused it.
fn refused(stderr: &str) -> bool {
    [
        "Permission denied",
        "No such file or directory",
        "Directory nonexistent",
        "Read-only file system",
        "Could not access",
    ]
    .iter()
    .any(|refusal| stderr.contains(refusal))
}

fn sh(script: &str) -> Value {
    json!({"program": script, "shell": true})
}

#[tokio::test]
async fn commands_can_neither_read_nor_write_outside_the_workspace() {
    let outside = Outside::new();
    let o = outside.path();
    let h = Harness::with(|ws| ws.allow_shell(true));
    h.write("inside.txt", "inside\n");
    let out = run(&h, sh("cat inside.txt && echo more >> inside.txt")).await;
    assert_eq!(out["stdout"], "inside\n", "{out}");
    assert_eq!(out["confined"], true, "{out}");
    assert_eq!(h.read("inside.txt"), "inside\nmore\n");
    for attempt in [
        format!("cat {o}/secret"),
        format!("ls {o}"),
        format!("echo pwned > {o}/written"),
        format!("mkdir {o}/dir"),
        format!("ln -s /etc {o}/link"),
        format!("cp inside.txt {o}/copied"),
        format!("mv inside.txt {o}/moved"),
        format!("cd {o} && cat secret"),
    ] {
        let out = run(&h, sh(&attempt)).await;
        assert_ne!(out["exit_code"], 0, "{attempt}: {out}");
        outside.assert_untouched(&out, &attempt);
    }
    assert!(
        h.root().join("inside.txt").exists(),
        "the failed mv kept it"
    );
}

#[tokio::test]
async fn commands_cannot_signal_processes_outside_their_sandbox() {
    let h = Harness::with(|ws| ws.allow_shell(true));
    // Our own process: in a PID namespace the number means nothing, and Landlock's signal
    // scope refuses signals to processes outside the sandbox anyway.
    let out = run(&h, sh(&format!("kill -0 {}", std::process::id()))).await;
    assert_ne!(out["exit_code"], 0, "{out}");
    let out = run(&h, sh("kill -0 $$ && echo alive")).await;
    assert_eq!(out["stdout"], "alive\n", "{out}: it may signal its own");
}

#[tokio::test]
async fn commands_cannot_read_the_environment_of_other_processes() {
    // A process of ours, outside the sandbox, with a secret in its environment.
    let secret = format!("environment-secret-{}", std::process::id());
    let mut outsider = Command::new("sleep")
        .arg(unique_sleep(4))
        .env("TOOLS_STD_SECRET", &secret)
        .spawn()
        .unwrap();
    let h = Harness::with(|ws| ws.allow_shell(true));
    let pid = outsider.id();
    let out = run(
        &h,
        sh(&format!(
            "cat /proc/{pid}/environ; cat /proc/{pid}/cmdline; grep -l TOOLS_STD_SECRET /proc/*/environ"
        )),
    )
    .await;
    outsider.kill().unwrap();
    outsider.wait().unwrap();
    for stream in ["stdout", "stderr"] {
        let text = out[stream].as_str().unwrap();
        assert!(!text.contains(&secret), "{out}");
        assert!(!text.contains(&unique_sleep(4)), "{out}");
    }
}

#[tokio::test]
async fn each_command_gets_a_private_temporary_directory() {
    let h = Harness::with(|ws| ws.allow_shell(true));
    let script = "echo hi > \"$TMPDIR/x\" && cat \"$TMPDIR/x\" && echo \"$TMPDIR\"";
    let first = run(&h, sh(script)).await;
    let second = run(&h, sh(script)).await;
    let lines = |out: &Value| -> Vec<String> {
        out["stdout"]
            .as_str()
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    };
    let (first_lines, second_lines) = (lines(&first), lines(&second));
    assert_eq!(first_lines.len(), 2, "{first}");
    assert_eq!(first_lines[0], "hi");
    assert_ne!(first_lines[1], "/tmp");
    assert_ne!(first_lines[1], second_lines[1], "one directory per call");
    assert!(
        !std::path::Path::new(&first_lines[1]).exists(),
        "removed after the call"
    );
    // Not the shared /tmp.
    let direct = format!("/tmp/tools-std-confine-{}", std::process::id());
    let out = run(&h, sh(&format!("echo x > {direct}"))).await;
    assert_ne!(out["exit_code"], 0, "{out}");
    assert!(!std::path::Path::new(&direct).exists());
}

#[tokio::test]
async fn no_network_unless_allowed() {
    if !installed("bash") {
        eprintln!("skipped: bash is not installed");
        return;
    }
    // TCP is refused by Landlock and seccomp, UDP (which Landlock does not cover) by
    // seccomp: the socket cannot even be created.
    for allowed in [false, true] {
        let h = Harness::with(|ws| ws.allow_commands(["bash"]).allow_network(allowed));
        let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        let script = format!(
            "echo tcp > /dev/tcp/127.0.0.1/{}; t=$?; echo udp > /dev/udp/127.0.0.1/{}; u=$?; echo \"$t $u\"",
            tcp.local_addr().unwrap().port(),
            udp.local_addr().unwrap().port()
        );
        let out = run(&h, json!({"program": "bash", "args": ["-c", script]})).await;
        tcp.set_nonblocking(true).unwrap();
        let mut datagram = [0_u8; 16];
        if allowed {
            assert_eq!(out["stdout"], "0 0\n", "{out}");
            // The connection and the datagram were made before the command returned: they
            // are queued. (Blocking, with a generous bound, for the datagram.)
            assert!(tcp.accept().is_ok(), "the connection arrived");
            udp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            assert_eq!(udp.recv(&mut datagram).unwrap(), 4);
        } else {
            assert_eq!(out["stdout"], "1 1\n", "{out}");
            assert!(
                out["stderr"].as_str().unwrap().contains("ermission denied")
                    || out["stderr"].as_str().unwrap().contains("not permitted"),
                "{out}"
            );
            assert_eq!(
                tcp.accept().unwrap_err().kind(),
                ErrorKind::WouldBlock,
                "no connection arrived"
            );
            udp.set_nonblocking(true).unwrap();
            assert_eq!(
                udp.recv(&mut datagram).unwrap_err().kind(),
                ErrorKind::WouldBlock,
                "no datagram arrived"
            );
        }
    }
}

#[tokio::test]
async fn git_directory_is_read_only_unless_allowed() {
    for allowed in [false, true] {
        let h = Harness::with(|ws| ws.allow_shell(true).allow_git_writes(allowed));
        h.write(".git/config", "[core]\n");
        h.write(".git/hooks/README", "hooks\n");
        h.write("src/lib.rs", "");
        let out = run(&h, sh("echo x > src/x && echo ok")).await;
        assert_eq!(out["stdout"], "ok\n", "{out}");
        assert_eq!(h.read("src/x"), "x\n");
        let attempts = [
            ("echo x > .git/hooks/x", json!(null)),
            ("echo x >> .git/config", json!(null)),
            ("cd .git/hooks && echo x > y", json!(null)),
            ("echo x > hooks/z", json!(".git")),
            ("rm .git/hooks/README", json!(null)),
        ];
        for (attempt, cwd) in attempts {
            let mut arguments = sh(attempt);
            if !cwd.is_null() {
                arguments["cwd"] = cwd.clone();
            }
            let out = run(&h, arguments).await;
            if allowed {
                assert_eq!(out["exit_code"], 0, "{attempt}: {out}");
            } else {
                assert_ne!(out["exit_code"], 0, "{attempt}: {out}");
            }
        }
        let exists = |path: &str| h.root().join(path).exists();
        assert_eq!(exists(".git/hooks/x"), allowed);
        assert_eq!(exists(".git/hooks/y"), allowed);
        assert_eq!(exists(".git/hooks/z"), allowed);
        assert_eq!(exists(".git/hooks/README"), !allowed);
        assert_eq!(h.read(".git/config") == "[core]\n", !allowed);
        if !allowed {
            for attempt in ["rm -rf .git", "mv .git moved"] {
                let out = run(&h, sh(attempt)).await;
                assert_ne!(out["exit_code"], 0, "{attempt}: {out}");
            }
            assert_eq!(h.read(".git/config"), "[core]\n");
            assert!(!exists("moved"));
        }
    }
}

#[tokio::test]
async fn git_cannot_be_tricked_into_escaping() {
    if !installed("git") {
        eprintln!("skipped: git is not installed");
        return;
    }
    let outside = Outside::new();
    let o = outside.path();
    let h = Harness::with(|ws| ws.allow_commands(["git"]));
    git(h.root(), &["init", "-q"]);
    h.write("README", "hello\n");
    git(h.root(), &["add", "README"]);
    git(h.root(), &["commit", "-q", "-m", "init"]);
    let payload = |name: &str| format!("cat {o}/secret; echo pwned > {o}/{name}");
    let attempts: Vec<(&str, Vec<String>)> = vec![
        (
            "an alias that runs a shell",
            vec![
                "-c".into(),
                format!("alias.x=!sh -c '{}'", payload("alias")),
                "x".into(),
            ],
        ),
        (
            "a pager, forced with -p",
            vec![
                "-c".into(),
                format!("core.pager=sh -c '{}'", payload("pager")),
                "-p".into(),
                "log".into(),
            ],
        ),
        (
            "a pager, forced with --paginate",
            vec![
                "-c".into(),
                format!("pager.log=sh -c '{}'", payload("pager2")),
                "--paginate".into(),
                "log".into(),
            ],
        ),
        (
            "core.sshCommand",
            vec![
                "-c".into(),
                format!("core.sshCommand=sh -c '{}' --", payload("ssh")),
                "ls-remote".into(),
                "ssh://git@example.invalid/x".into(),
            ],
        ),
        (
            "core.fsmonitor",
            vec![
                "-c".into(),
                format!("core.fsmonitor=sh -c '{}' --", payload("fsmonitor")),
                "status".into(),
            ],
        ),
        (
            "diff --no-index of an outside file",
            vec![
                "diff".into(),
                "--no-index".into(),
                format!("{o}/secret"),
                "/dev/null".into(),
            ],
        ),
    ];
    for (attempt, args) in attempts {
        let out = run(&h, json!({"program": "git", "args": args})).await;
        outside.assert_untouched(&out, attempt);
        eprintln!(
            "{attempt}: exit {}, stderr {}",
            out["exit_code"], out["stderr"]
        );
        // The pagers do not even start: git pages only a terminal, and the command has
        // none. Every other attempt ran, and the kernel refused it.
        if !attempt.contains("pager") {
            assert!(refused(out["stderr"].as_str().unwrap()), "{attempt}: {out}");
        }
    }
}

#[tokio::test]
async fn cargo_build_scripts_and_configuration_cannot_escape() {
    if !installed("cargo") {
        eprintln!("skipped: cargo is not installed");
        return;
    }
    let outside = Outside::new();
    let o = outside.path();
    let h = Harness::with(|ws| {
        ws.allow_commands(["cargo"])
            .command_timeout(Duration::from_secs(300), Duration::from_secs(600))
    });
    h.write(
        "Cargo.toml",
        "[package]\nname = \"escape\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    h.write(
        "build.rs",
        &format!(
            r#"fn main() {{
    let wrote = std::fs::write("{o}/build-rs", "pwned").is_ok();
    let secret = std::fs::read_to_string("{o}/secret").unwrap_or_default();
    println!("cargo:warning=wrote={{wrote}} read={{secret}}");
}}
"#
        ),
    );
    h.write(
        "src/main.rs",
        "fn main() { println!(\"hello from the sandbox\"); }\n",
    );
    let out = run(
        &h,
        json!({"program": "cargo", "args": ["build", "--offline"]}),
    )
    .await;
    eprintln!(
        "build.rs: exit {}, stderr {}",
        out["exit_code"], out["stderr"]
    );
    outside.assert_untouched(&out, "build.rs");
    assert_eq!(
        out["exit_code"], 0,
        "cargo builds inside the sandbox: {out}"
    );
    assert!(
        out["stderr"]
            .as_str()
            .unwrap()
            .contains("wrote=false read="),
        "the build script ran, and could neither write nor read: {out}"
    );

    let runner = format!(
        "target.'cfg(all())'.runner = [\"sh\", \"-c\", \"{}\", \"--\"]",
        format_args!("cat {o}/secret; echo pwned > {o}/runner")
    );
    let out = run(
        &h,
        json!({"program": "cargo", "args": ["--config", runner, "run", "--offline", "-q"]}),
    )
    .await;
    outside.assert_untouched(&out, "cargo --config runner");
    eprintln!(
        "runner: exit {}, stderr {}",
        out["exit_code"], out["stderr"]
    );
    assert!(
        refused(out["stderr"].as_str().unwrap()),
        "the runner ran, and was refused: {out}"
    );
    let out = run(
        &h,
        json!({"program": "cargo", "args": ["run", "--offline", "-q"]}),
    )
    .await;
    assert_eq!(out["stdout"], "hello from the sandbox\n", "{out}");
}

/// Variables the application keeps for commands (`keep_env`) cannot carry an escape either:
/// this re-runs the test binary with hostile variables set, and
/// [`kept_environment_probe`] runs the commands there.
#[test]
fn kept_environment_variables_cannot_carry_an_escape() {
    if !installed("git") {
        eprintln!("skipped: git is not installed");
        return;
    }
    let outside = Outside::new();
    let o = outside.path();
    let payload = |name: &str| format!("sh -c 'cat {o}/secret; echo pwned > {o}/{name}'");
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "confine::kept_environment_probe",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("TOOLS_STD_CONFINE_PROBE", &o)
        .env(
            "GIT_CONFIG_PARAMETERS",
            // Quoted as git quotes it: ' becomes '\''.
            format!(
                "'alias.x=!{}'",
                payload("parameters").replace('\'', "'\\''")
            ),
        )
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "alias.y")
        .env("GIT_CONFIG_VALUE_0", format!("!{}", payload("count")))
        .env("GIT_SSH_COMMAND", format!("{} --", payload("ssh")))
        .env("GIT_PAGER", payload("pager"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    eprintln!("{stdout}");
    assert!(
        output.status.success() && stdout.contains("probe: 4 attempts"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    outside.assert_untouched(&json!({}), "the environment");
    assert!(!stdout.contains(&outside.secret));
}

/// Run by [`kept_environment_variables_cannot_carry_an_escape`]; does nothing otherwise.
#[tokio::test]
async fn kept_environment_probe() {
    let Some(o) = std::env::var_os("TOOLS_STD_CONFINE_PROBE") else {
        return;
    };
    let o = o.to_string_lossy().into_owned();
    let h = Harness::with(|ws| {
        ws.allow_commands(["git"]).keep_env([
            "GIT_CONFIG_PARAMETERS",
            "GIT_CONFIG_COUNT",
            "GIT_CONFIG_KEY_0",
            "GIT_CONFIG_VALUE_0",
            "GIT_SSH_COMMAND",
            "GIT_PAGER",
        ])
    });
    git(h.root(), &["init", "-q"]);
    let attempts: [&[&str]; 4] = [
        &["x"],
        &["y"],
        &["ls-remote", "ssh://git@example.invalid/x"],
        &["-p", "log"],
    ];
    for args in attempts {
        let out = run(&h, json!({"program": "git", "args": args})).await;
        let names: Vec<_> = std::fs::read_dir(&o).unwrap().collect();
        assert_eq!(names.len(), 1, "git {args:?} wrote outside: {out}");
        if args != ["-p", "log"] {
            assert!(
                refused(out["stderr"].as_str().unwrap()),
                "git {args:?} ran the injected command, which the kernel refused: {out}"
            );
        }
        println!(
            "git {args:?}: exit {}, stderr {}",
            out["exit_code"], out["stderr"]
        );
    }
    println!("probe: {} attempts", attempts.len());
}

#[tokio::test]
async fn a_timeout_ends_setsid_descendants_that_hold_the_output() {
    if !installed("setsid") {
        eprintln!("skipped: setsid is not installed");
        return;
    }
    let h = Harness::with(|ws| ws.allow_shell(true));
    let marker = unique_sleep(1);
    let script = format!("setsid sleep {marker} & echo started; sleep 1000");
    let started = Instant::now();
    let out = run(
        &h,
        json!({"program": script, "shell": true, "timeout_secs": 5}),
    )
    .await;
    let elapsed = started.elapsed();
    eprintln!("a 5 s timeout returned after {elapsed:?}");
    // The command sleeps 1000 s: any bound well below that proves the timeout ended it.
    assert!(
        elapsed < Duration::from_secs(500),
        "returned after {elapsed:?}"
    );
    assert_eq!(out["timed_out"], true, "{out}");
    assert_eq!(out["success"], false);
    assert_eq!(
        out["stdout"], "started\n",
        "output before the kill is kept: {out}"
    );
    assert_eq!(
        processes_with_argument(&marker),
        Vec::<u32>::new(),
        "the setsid grandchild was killed and reaped"
    );
}

#[tokio::test]
async fn a_command_that_exits_leaving_children_on_its_output_returns_and_they_are_killed() {
    let h = Harness::with(|ws| ws.allow_shell(true));
    let (plain, detached) = (unique_sleep(2), unique_sleep(3));
    let setsid = if installed("setsid") { "setsid" } else { "" };
    let script = format!("sleep {plain} & {setsid} sleep {detached} & echo done");
    let out = run(
        &h,
        json!({"program": script, "shell": true, "timeout_secs": 250}),
    )
    .await;
    assert_eq!(
        out["timed_out"], false,
        "it returned when the command exited: {out}"
    );
    assert_eq!(out["exit_code"], 0);
    assert_eq!(out["stdout"], "done\n");
    assert_eq!(processes_with_argument(&plain), Vec::<u32>::new());
    assert_eq!(processes_with_argument(&detached), Vec::<u32>::new());
}

/// Waits (up to a minute, far beyond need) until `done` holds.
async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "never happened: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn cancelling_a_call_ends_everything_it_started() {
    let h = Harness::with(|ws| ws.allow_shell(true));
    let marker = unique_sleep(5);
    let setsid = if installed("setsid") { "setsid" } else { "" };
    let script = format!("{setsid} sleep {marker} & touch ready; sleep 1000");
    let token = toolwright_core::CancellationToken::new();
    let call = h.executor.execute_with(
        toolwright_core::ToolCall::new("test", "run_command", sh(&script)),
        toolwright_runtime::CallOptions::new().cancellation(token.clone()),
    );
    let ready = h.root().join("ready");
    let cancel = async {
        eventually("the command started", || ready.exists()).await;
        // `touch ready` can run before the backgrounded `sleep` has exec'd: wait for it.
        eventually("the detached sleep started", || {
            processes_with_argument(&marker).len() == 1
        })
        .await;
        token.cancel();
    };
    let (report, ()) = tokio::join!(call, cancel);
    let result = report.result;
    assert!(!result.success, "{result:?}");
    eventually("the detached sleep is gone", || {
        processes_with_argument(&marker).is_empty()
    })
    .await;
}
