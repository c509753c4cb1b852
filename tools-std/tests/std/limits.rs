//! Resource limits of confined programs, as an attacker tries them: a memory bomb, a fork
//! bomb, a CPU spin and a disk filler each end refused or killed by the kernel, and leave
//! nothing of theirs on the host. Every wait is the program's exit; nothing is timed.

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output};

use serde_json::json;
use toolwright_std::limits::{Limits, Mechanism};
use toolwright_std::sandbox::{Sandbox, limit_mechanisms};

use crate::harness::{Harness, processes_with_argument, run};

/// Runs `script` with python3 under `sandbox`, with `marker` as its first argument (so its
/// processes can be counted on the host), and waits for it to exit.
fn python(sandbox: &Sandbox, script: &str, marker: &str) -> Output {
    let mut command = Command::new("python3");
    command.arg("-c").arg(script).arg(marker);
    let confined = sandbox.confine(&mut command).unwrap();
    assert!(
        confined.is_confined(),
        "the kernel must confine the program"
    );
    let output = command.output().unwrap();
    drop(confined);
    output
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A marker unique to this test run and test.
fn marker(test: &str) -> String {
    format!("toolwright-limits-{test}-{}", std::process::id())
}

/// The host's processes that carry `marker`, at most a generous number of times: the
/// program exited, so none may be left (the kernel killed its PID namespace).
fn assert_none_left(marker: &str) {
    let left = processes_with_argument(marker);
    assert!(left.is_empty(), "processes of the program left: {left:?}");
}

#[test]
fn this_host_enforces_processes_and_memory_in_the_kernel() {
    let found = limit_mechanisms();
    // Root ignores `RLIMIT_NPROC`: a cgroup or the PID namespace must bound processes.
    assert_ne!(found.processes, Mechanism::Unenforced, "{found}");
    assert_ne!(found.memory, Mechanism::Unenforced, "{found}");
}

#[test]
fn a_memory_bomb_is_stopped_and_leaves_nothing() {
    // Touches 8 MiB at a time, up to 2 GiB, under a 128 MiB limit: killed by the cgroup's
    // OOM killer, or refused (`MemoryError`) by `RLIMIT_DATA`.
    let script = r#"
import sys
held = []
try:
    for _ in range(256):
        block = bytearray(8 << 20)
        for i in range(0, len(block), 4096):
            block[i] = 1
        held.append(block)
    print("survived", len(held))
except MemoryError:
    print("refused", len(held))
"#;
    let marker = marker("memory");
    let sandbox = Sandbox::new().limits(Limits::none().memory(128 << 20).processes(64));
    let out = python(&sandbox, script, &marker);
    let said = text(&out.stdout);
    assert!(!said.contains("survived"), "{out:?}");
    let killed = out.status.signal() == Some(libc::SIGKILL);
    let refused = said.starts_with("refused");
    assert!(killed || refused, "{out:?}");
    if refused {
        let held: u64 = said.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!(held * 8 < 128, "{said}");
    }
    assert_none_left(&marker);
}

#[test]
fn a_fork_bomb_stops_at_the_limit_also_as_root() {
    // Each child becomes a `sleep` carrying the marker; the parent forks until the kernel
    // refuses (or stops itself at twice the limit, which fails the test).
    let limit = 400;
    let script = format!(
        r#"
import errno, os, sys
started = 0
try:
    while started < {twice}:
        if os.fork() == 0:
            os.execv("/bin/sleep", ["sleep", "1000", sys.argv[1]])
        started += 1
    print("none", started)
except OSError as error:
    print(errno.errorcode.get(error.errno), started)
"#,
        twice = 2 * limit
    );
    let marker = marker("fork");
    let sandbox = Sandbox::new().limits(Limits::none().processes(limit));
    let out = python(&sandbox, &script, &marker);
    assert!(out.status.success(), "{out:?}");
    let said = text(&out.stdout);
    let (error, started) = said.trim().split_once(' ').unwrap();
    let started: u64 = started.parse().unwrap();
    assert_eq!(error, "EAGAIN", "{said}");
    assert!(started < limit, "{said}");
    // The bomb's processes went with it.
    assert_none_left(&marker);
}

#[test]
fn a_shell_fork_bomb_ends_and_leaves_nothing() {
    // The classic, with the marker in each process's arguments; its parent exits once the
    // bomb is running, and the namespace goes with it.
    let marker = marker("shell-bomb");
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("b() { b \"$1\" | b \"$1\" & }; b \"$0\"; sleep 0; exit 0")
        .arg(&marker);
    let sandbox = Sandbox::new().limits(Limits::none().processes(64));
    let confined = sandbox.confine(&mut command).unwrap();
    let out = command.output().unwrap();
    drop(confined);
    assert!(out.status.success(), "{out:?}");
    assert_none_left(&marker);
}

#[test]
fn a_cpu_spin_is_killed_by_its_cpu_time() {
    let marker = marker("cpu");
    let sandbox = Sandbox::new().limits(Limits::none().cpu_time(1));
    // Without the limit it stops itself after 30 s of CPU time (not of the clock), which
    // fails the test instead of hanging it.
    let spin = "import time\nwhile time.process_time() < 30:\n    pass\nprint('survived')\n";
    let out = python(&sandbox, spin, &marker);
    assert!(!text(&out.stdout).contains("survived"), "{out:?}");
    // `SIGXCPU` at the soft limit (Python does not handle it), `SIGKILL` at the hard one.
    let signal = out.status.signal();
    assert!(
        signal == Some(libc::SIGXCPU) || signal == Some(libc::SIGKILL),
        "{out:?}"
    );
    assert_none_left(&marker);
}

/// Writes one file of `2 * limit` bytes in the granted directory, then many small files in
/// its temporary directory until the kernel refuses; prints what each step got.
const WRITER: &str = r#"
import errno, os, sys
def attempt(name, path, size, count):
    written = 0
    try:
        for i in range(count):
            with open(f"{path}.{i}", "wb") as f:
                f.write(b"x" * size)
            written += size
        print(name, "none", written)
    except OSError as error:
        print(name, errno.errorcode.get(error.errno), written)
attempt("file", sys.argv[2] + "/big", int(sys.argv[3]) * 2, 1)
attempt("temp", os.environ["TMPDIR"] + "/small", int(sys.argv[3]) // 4, 16)
"#;

#[test]
fn writing_beyond_the_limit_fails_with_efbig_and_enospc() {
    let granted = tempfile::tempdir().unwrap();
    let limit: u64 = 1 << 20;
    let marker = marker("write");
    let mut command = Command::new("python3");
    command
        .arg("-c")
        .arg(WRITER)
        .arg(&marker)
        .arg(granted.path())
        .arg(limit.to_string());
    let sandbox = Sandbox::new()
        .write(granted.path())
        .limits(Limits::none().write(limit));
    let confined = sandbox.confine(&mut command).unwrap();
    let out = command.output().unwrap();
    drop(confined);
    assert!(out.status.success(), "{out:?}");
    let said = text(&out.stdout);
    let lines: Vec<&str> = said.lines().collect();
    assert!(lines[0].starts_with("file EFBIG"), "{said}");
    let size = std::fs::metadata(granted.path().join("big.0"))
        .unwrap()
        .len();
    assert!(size <= limit, "{size}");
    // The temporary directory is a tmpfs of the limit's size: 16 quarter-limit files do not
    // fit.
    let temp: Vec<&str> = lines[1].split(' ').collect();
    assert_eq!(&temp[..2], ["temp", "ENOSPC"], "{said}");
    assert!(temp[2].parse::<u64>().unwrap() <= limit, "{said}");
}

#[tokio::test]
async fn run_command_runs_under_the_workspaces_limits() {
    let h = Harness::with(|ws| {
        ws.allow_commands(["python3"])
            .limit_commands(Limits::none().processes(400).write(1 << 20))
    });
    let script = "import resource; print(*resource.getrlimit(resource.RLIMIT_FSIZE))";
    let out = run(&h, json!({"program": "python3", "args": ["-c", script]})).await;
    assert_eq!(out["stdout"], format!("{0} {0}\n", 1 << 20), "{out}");
    let bomb = format!(
        "import os\nn = 0\ntry:\n    while n < 800:\n        if os.fork() == 0:\n            \
         os.execv('/bin/sleep', ['sleep', '1000', '{}'])\n        n += 1\n    print('none', n)\n\
         except OSError as e:\n    print(e.errno, n)\n",
        marker("run_command")
    );
    let out = run(&h, json!({"program": "python3", "args": ["-c", bomb]})).await;
    let said = out["stdout"].as_str().unwrap().to_string();
    let (errno, started) = said.trim().split_once(' ').unwrap();
    assert_eq!(errno, libc::EAGAIN.to_string(), "{out}");
    assert!(started.parse::<u64>().unwrap() < 400, "{out}");
    assert_none_left(&marker("run_command"));
}

#[test]
fn the_default_limits_of_run_command_leave_room_for_a_build() {
    let limits = Limits::run_command_default();
    assert!(limits.memory_bytes().unwrap() >= 256 << 20);
    assert!(limits.processes_max().unwrap() >= 1024);
    assert!(limits.write_bytes().unwrap() >= 1 << 30);
    assert_eq!(limits.cpu_seconds(), None);
}
