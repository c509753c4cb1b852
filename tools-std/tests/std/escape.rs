//! The command sandbox as an attacker tries it (issue 26): a confined command must not act on
//! the person, the host, or anything that runs later outside the box.
//!
//! The attacks run in a child process of this test binary ([`attack_probe`], ignored on its
//! own), so its environment (cargo's home with a credentials file) is the test's, and so it
//! can run as root and, through `setpriv`, as an unprivileged user. The parent checks the
//! host's state before and after: the hostname, a token file under `/etc`, a socket under
//! `/run` that nobody may connect to.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::harness::{Harness, installed, run};

/// The attacks, as one Python script: each prints `NAME: refused (...)` or `NAME: ALLOWED`.
const PROBE: &str = r#"
import ctypes, errno, os, platform, socket, sys

libc = ctypes.CDLL(None, use_errno=True)
KEYCTL = {"x86_64": 250, "aarch64": 219}.get(platform.machine())

def attempt(name, action):
    try:
        result = action()
        print(f"{name}: ALLOWED {result!r}"[:200])
    except OSError as e:
        print(f"{name}: refused ({errno.errorcode.get(e.errno, e.errno)})")

def check(result):
    if result < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return result

def open_by_handle():
    class FileHandle(ctypes.Structure):
        _fields_ = [("bytes", ctypes.c_uint), ("type", ctypes.c_int), ("handle", ctypes.c_ubyte * 128)]
    handle = FileHandle(128, 0)
    mount = ctypes.c_int(0)
    check(libc.name_to_handle_at(-100, b".git/config", ctypes.byref(handle), ctypes.byref(mount), 0))
    root = os.open(".", os.O_RDONLY)
    fd = check(libc.open_by_handle_at(root, ctypes.byref(handle), os.O_RDWR))
    os.write(fd, b"[core]\n\tfsmonitor = touch /tmp/pwned\n")
    return "wrote .git/config"

def read(path):
    with open(path) as f:
        return f.read()

def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return "connected"

def capabilities():
    status = read("/proc/self/status")
    sets = [line.split()[1] for line in status.splitlines() if line.startswith("Cap")]
    print("capabilities: " + " ".join(sets))

token, credentials, sock = sys.argv[1:4]
attempt("open_by_handle_at", open_by_handle)
attempt("sethostname", lambda: socket.sethostname("pwned-by-a-command"))
attempt("keyctl", lambda: check(libc.syscall(KEYCTL, 0, -4, 0)))
attempt("vsock", lambda: socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM))
attempt("netlink", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0))
attempt("unshare", lambda: check(libc.unshare(0x10000000)))
attempt("mount", lambda: check(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)))
attempt("shadow", lambda: read("/etc/shadow"))
attempt("token", lambda: read(token))
attempt("credentials", lambda: read(credentials))
attempt("run socket", lambda: connect(sock))
attempt("dev tty", lambda: os.open("/dev/tty", os.O_RDWR))
capabilities()
"#;

/// The attacks of [`PROBE`] that must each be refused.
const ATTACKS: &[&str] = &[
    "open_by_handle_at",
    "sethostname",
    "keyctl",
    "vsock",
    "netlink",
    "unshare",
    "mount",
    "shadow",
    "token",
    "credentials",
    "run socket",
    "dev tty",
];

/// Run by [`attacks_are_refused_as_root_and_as_a_user`] in a child process, with the paths
/// to attack in `TOOLS_STD_ATTACK` (token, credentials, socket, a file for the report).
#[tokio::test]
#[ignore = "run by attacks_are_refused_as_root_and_as_a_user"]
async fn attack_probe() {
    let Ok(paths) = std::env::var("TOOLS_STD_ATTACK") else {
        return;
    };
    let paths: Vec<&str> = paths.split('\n').collect();
    let [token, credentials, socket, report] = paths[..] else {
        panic!("four paths expected: {paths:?}");
    };
    let quarantine = tempfile::tempdir().unwrap();
    let h = Harness::with(|ws| {
        ws.allow_commands(["python3"])
            .quarantine_dir(quarantine.path())
    });
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(h.root())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap();
    assert!(git.success());
    let config_before = h.read(".git/config");
    h.write("probe.py", PROBE);
    let out = run(
        &h,
        json!({"program": "python3", "args": ["probe.py", token, credentials, socket]}),
    )
    .await;
    assert_eq!(h.read(".git/config"), config_before, "{out}");
    std::fs::write(report, out.to_string()).unwrap();
}

/// Runs [`attack_probe`] in a child of this binary (`exe`), with `wrap` before it (`setpriv
/// ...`, or nothing), and returns its `run_command` result.
fn probe_in_child(exe: &Path, wrap: &[&str], home: &Path, paths: &[&Path; 3]) -> Value {
    let report = home.join(format!("report-{}.json", wrap.len()));
    let attack = [paths[0], paths[1], paths[2], &report]
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    let mut command = Command::new(wrap.first().copied().unwrap_or(exe.to_str().unwrap()));
    if !wrap.is_empty() {
        command.args(&wrap[1..]).arg(exe);
    }
    let output = command
        .args([
            "--exact",
            "escape::attack_probe",
            "--ignored",
            "--nocapture",
        ])
        .env("TOOLS_STD_ATTACK", attack)
        .env("HOME", home)
        .env("TMPDIR", home)
        .env("CARGO_HOME", home.join("cargo"))
        // The system's programs only (root's own directories are not the user's).
        .env(
            "PATH",
            "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        )
        .env_remove("XDG_STATE_HOME")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the probe failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap()
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap()
}

/// Asserts that every attack of the probe's output was refused and that the command held
/// no capability.
fn assert_refused(out: &Value, who: &str, secrets: &[&str]) {
    let stdout = out["stdout"].as_str().unwrap();
    eprintln!("{who}:\n{stdout}{}", out["stderr"]);
    assert_eq!(
        out["exit_code"], 0,
        "{who}: the probe ran to its end: {out}"
    );
    for attack in ATTACKS {
        assert!(
            stdout.contains(&format!("{attack}: refused")),
            "{who}: {attack} was not refused: {out}"
        );
    }
    assert!(!stdout.contains("ALLOWED"), "{who}: {out}");
    let caps = stdout
        .lines()
        .find_map(|line| line.strip_prefix("capabilities: "))
        .unwrap_or_else(|| panic!("{who}: no capabilities line: {out}"));
    for set in caps.split(' ') {
        assert_eq!(set, "0000000000000000", "{who}: capabilities {caps}");
    }
    for secret in secrets {
        assert!(!out.to_string().contains(secret), "{who}: leaked: {out}");
    }
}

#[test]
fn attacks_are_refused_as_root_and_as_a_user() {
    if !installed("python3") || !installed("git") {
        eprintln!("skipped: python3 and git are needed");
        return;
    }
    let root = rustix::process::getuid().is_root();
    // A home for the probe's process, readable by everyone (the user run reads it too).
    let home = tempfile::tempdir().unwrap();
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let cargo = home.path().join("cargo");
    std::fs::create_dir_all(cargo.join("bin")).unwrap();
    let credentials = cargo.join("credentials.toml");
    let cargo_token = format!("cio-secret-{}", std::process::id());
    std::fs::write(
        &credentials,
        format!("[registry]\ntoken = \"{cargo_token}\"\n"),
    )
    .unwrap();
    for dir in [home.path().to_path_buf(), cargo.clone(), cargo.join("bin")] {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    std::fs::set_permissions(&credentials, std::fs::Permissions::from_mode(0o644)).unwrap();

    // As root, the places the issue names: a server token under /etc, a socket under /run.
    // Readable by everyone, so only the sandbox keeps a command from them.
    let server_token = format!("toolwright-secret-{}", std::process::id());
    let (etc_dir, run_dir) = if root {
        (
            PathBuf::from(format!(
                "/etc/toolbox/tools-std-test-{}",
                std::process::id()
            )),
            PathBuf::from(format!("/run/tools-std-test-{}", std::process::id())),
        )
    } else {
        (home.path().join("etc"), home.path().join("run"))
    };
    let _cleanup = Cleanup(vec![etc_dir.clone(), run_dir.clone()]);
    for dir in [&etc_dir, &run_dir] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let token = etc_dir.join("token");
    std::fs::write(&token, &server_token).unwrap();
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o644)).unwrap();
    let socket = run_dir.join("redis.sock");
    let listener = UnixListener::bind(&socket).unwrap();
    listener.set_nonblocking(true).unwrap();
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o666)).unwrap();

    let hostname_before = hostname();
    let exe = std::env::current_exe().unwrap();
    let paths = [token.as_path(), credentials.as_path(), socket.as_path()];
    let secrets = [server_token.as_str(), cargo_token.as_str()];

    let out = probe_in_child(&exe, &[], home.path(), &paths);
    assert_refused(&out, if root { "root" } else { "this user" }, &secrets);

    if root && installed("setpriv") {
        // The binary where an unprivileged user can run it.
        let copy = home.path().join("std-tests");
        std::fs::copy(&exe, &copy).unwrap();
        std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
        let out = probe_in_child(
            &copy,
            &[
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "--",
            ],
            home.path(),
            &paths,
        );
        assert_refused(&out, "an unprivileged user", &secrets);
    }

    assert_eq!(hostname(), hostname_before, "the host's hostname changed");
    assert_eq!(std::fs::read_to_string(&token).unwrap(), server_token);
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        Ok((mut stream, _)) => {
            let mut sent = String::new();
            let _ = stream.read_to_string(&mut sent);
            panic!("a command connected to the socket under /run and sent {sent:?}");
        }
        Err(e) => panic!("accept: {e}"),
    }
}

/// Removes directories the test made outside its temporary ones.
struct Cleanup(Vec<PathBuf>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for dir in &self.0 {
            let _ = std::fs::remove_dir_all(dir);
        }
        let _ = std::fs::remove_dir("/etc/toolwright");
    }
}

#[tokio::test]
async fn a_git_repository_a_command_plants_is_quarantined() {
    let quarantine = tempfile::tempdir().unwrap();
    let h = Harness::with(|ws| ws.allow_shell(true).quarantine_dir(quarantine.path()));
    let plant = "mkdir -p sub/.git .git && \
        printf '[core]\\n\\tfsmonitor = touch pwned\\n' > sub/.git/config && \
        cp sub/.git/config .git/config && \
        mkdir -p deep/er && printf 'gitdir: /tmp\\n' > deep/er/.git && echo planted";
    let out = run(&h, json!({"program": plant, "shell": true})).await;
    assert_eq!(out["stdout"], "planted\n", "{out}");
    let quarantined: Vec<&str> = out["quarantined"]
        .as_array()
        .unwrap_or_else(|| panic!("nothing quarantined: {out}"))
        .iter()
        .map(|q| q["path"].as_str().unwrap())
        .collect();
    assert_eq!(quarantined, [".git", "deep/er/.git", "sub/.git"], "{out}");
    for path in [".git", "sub/.git", "deep/er/.git"] {
        assert!(!h.root().join(path).exists(), "{path} is still there");
    }
    // Kept for a person to inspect, under a name git does not look for.
    let moved = out["quarantined"][2]["moved_to"].as_str().unwrap();
    assert!(moved.starts_with(&quarantine.path().display().to_string()));
    assert!(
        std::fs::read_to_string(Path::new(moved).join("config"))
            .unwrap()
            .contains("fsmonitor")
    );
    // A command that leaves none: nothing to report, and the field is absent.
    let out = run(&h, json!({"program": "true", "shell": true})).await;
    assert!(out.get("quarantined").is_none(), "{out}");
}

#[tokio::test]
async fn a_nested_repository_stays_read_only() {
    if !installed("git") {
        eprintln!("skipped: git is not installed");
        return;
    }
    let h = Harness::with(|ws| ws.allow_shell(true));
    std::fs::create_dir_all(h.root().join("vendor/lib")).unwrap();
    let status = Command::new("git")
        .args(["init", "-q"])
        .current_dir(h.root().join("vendor/lib"))
        .status()
        .unwrap();
    assert!(status.success());
    let before = h.read("vendor/lib/.git/config");
    let out = run(
        &h,
        sh(
            "printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> vendor/lib/.git/config; \
            mkdir vendor/lib/.git/hooks/x; mv vendor/lib/.git vendor/lib/moved; echo done",
        ),
    )
    .await;
    assert_eq!(out["stdout"], "done\n", "{out}");
    assert_eq!(h.read("vendor/lib/.git/config"), before, "{out}");
    assert!(!h.root().join("vendor/lib/moved").exists(), "{out}");
    assert!(!h.root().join("vendor/lib/.git/hooks/x").exists(), "{out}");
}

fn sh(script: &str) -> Value {
    json!({"program": script, "shell": true})
}

#[tokio::test]
async fn an_inherited_descriptor_is_not_readable() {
    let outside = tempfile::tempdir().unwrap();
    let secret = format!("inherited-secret-{}", std::process::id());
    let path = outside.path().join("secret");
    std::fs::write(&path, &secret).unwrap();
    // Opened without close-on-exec, as a shell's `exec 7<secret` leaves it to the tool's
    // process.
    let file = std::fs::File::open(&path).unwrap();
    let fd = {
        use std::os::fd::AsRawFd;
        file.as_raw_fd()
    };
    rustix::io::fcntl_setfd(&file, rustix::io::FdFlags::empty()).unwrap();
    let h = Harness::with(|ws| ws.allow_shell(true));
    let out = run(
        &h,
        sh(&format!(
            "cat /dev/fd/{fd}; cat /proc/self/fd/{fd}; ls -l /proc/self/fd; echo end"
        )),
    )
    .await;
    drop(file);
    assert!(out["stdout"].as_str().unwrap().ends_with("end\n"), "{out}");
    assert!(!out.to_string().contains(&secret), "{out}");
}

/// The build toolchains still work confined: a C compiler, git (committing where git writes
/// are allowed), Python and Node (cargo: `confine::cargo_build_scripts_...`).
#[tokio::test]
async fn build_toolchains_work_confined() {
    let h = Harness::with(|ws| ws.allow_shell(true).allow_git_writes(true));
    if installed("cc") {
        h.write(
            "hello.c",
            "#include <stdio.h>\nint main(void) { puts(\"hello from cc\"); return 0; }\n",
        );
        let out = run(&h, sh("cc -o hello hello.c && ./hello")).await;
        assert_eq!(out["stdout"], "hello from cc\n", "{out}");
    }
    if installed("git") {
        let out = run(
            &h,
            sh(
                "git init -q && git add hello.c 2>/dev/null; echo x > f && git add f && \
                git -c user.name=t -c user.email=t@example.com commit -q -m one && \
                echo y >> f && git diff --stat && git status --short && git log --format=%s",
            ),
        )
        .await;
        let stdout = out["stdout"].as_str().unwrap();
        assert!(stdout.contains("1 file changed"), "{out}");
        assert!(stdout.contains(" M f"), "{out}");
        assert!(stdout.ends_with("one\n"), "{out}");
        assert!(
            out.get("quarantined").is_none(),
            "git writes are allowed: {out}"
        );
    }
    if installed("python3") {
        let out = run(
            &h,
            sh("python3 -c 'import json, ssl, sqlite3; print(json.dumps([6*7]))'"),
        )
        .await;
        assert_eq!(out["stdout"], "[42]\n", "{out}");
    }
    if installed("node") {
        let out = run(&h, sh("node -e 'console.log(6 * 7)'")).await;
        assert_eq!(out["stdout"], "42\n", "{out}");
    }
}

#[tokio::test]
async fn the_audit_log_records_what_was_quarantined() {
    use std::sync::Arc;
    use toolwright_core::ToolCall;
    use toolwright_runtime::executor::AuditLog;
    use toolwright_runtime::{ApprovalDecision, ApprovalRequest, Executor};

    let dir = tempfile::tempdir().unwrap();
    let quarantine = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("audit.jsonl");
    let workspace = toolwright_std::Workspace::new(dir.path())
        .unwrap()
        .allow_shell(true)
        .quarantine_dir(quarantine.path());
    let executor = Executor::builder(Arc::new(toolwright_std::registry().unwrap()))
        .state(workspace)
        .approval(|_: ApprovalRequest| async { ApprovalDecision::Approved })
        .hook(AuditLog::new(std::fs::File::create(&log).unwrap()))
        .build();
    let result = executor
        .execute(ToolCall::new(
            "c1",
            "run_command",
            sh("mkdir -p sub/.git && echo '[core] fsmonitor = x' > sub/.git/config"),
        ))
        .await;
    assert!(result.success, "{result:?}");
    let line: Value = serde_json::from_str(std::fs::read_to_string(&log).unwrap().trim()).unwrap();
    assert_eq!(line["quarantined"][0]["path"], "sub/.git", "{line}");
}

/// Runs `git status` outside the sandbox in `dir`, as a person would later; whether it worked
/// does not matter, only what it ran.
fn host_git_status(dir: &Path) {
    let _ = Command::new("git")
        .arg("status")
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .unwrap();
}

#[tokio::test]
async fn a_bare_repository_a_command_plants_does_not_run_on_the_host() {
    if !installed("git") {
        eprintln!("skipped: git is not installed");
        return;
    }
    let quarantine = tempfile::tempdir().unwrap();
    let markers = tempfile::tempdir().unwrap();
    let m = markers.path().display();
    let h = Harness::with(|ws| ws.allow_shell(true).quarantine_dir(quarantine.path()));
    h.write("src/main.rs", "fn main() {}\n");
    // Not named `.git`: a bare repository made of an existing directory, with its work tree
    // above it; one made elsewhere and moved into place; a `.git` file pointing at it.
    let plant = format!(
        "git init -q --bare src && git -C src config core.bare false && \
         git -C src config core.worktree .. && \
         git -C src config core.fsmonitor 'touch {m}/src' && \
         mkdir -p tmp deep sub && git init -q --bare tmp/r && \
         git -C tmp/r config core.bare false && git -C tmp/r config core.worktree ../../sub && \
         git -C tmp/r config core.fsmonitor 'touch {m}/moved' && mv tmp/r deep/moved && \
         printf 'gitdir: ../deep/moved\\n' > sub/.git && echo planted"
    );
    let out = run(&h, sh(&plant)).await;
    assert_eq!(out["stdout"], "planted\n", "{out}");
    // Where a person works afterwards, and where they inspect what was quarantined.
    let mut dirs = vec![
        h.root().to_path_buf(),
        h.root().join("src"),
        h.root().join("sub"),
        h.root().join("deep/moved"),
    ];
    dirs.extend(
        out["quarantined"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|q| PathBuf::from(q["moved_to"].as_str().unwrap())),
    );
    for dir in dirs.iter().filter(|dir| dir.is_dir()) {
        host_git_status(dir);
    }
    let ran: Vec<_> = std::fs::read_dir(markers.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert!(ran.is_empty(), "git ran a planted command: {ran:?} ({out})");
    let quarantined: Vec<&str> = out["quarantined"]
        .as_array()
        .unwrap_or_else(|| panic!("nothing quarantined: {out}"))
        .iter()
        .map(|q| q["path"].as_str().unwrap())
        .collect();
    assert_eq!(quarantined, ["deep/moved", "src", "sub/.git"], "{out}");
}

#[tokio::test]
async fn a_private_key_of_the_host_is_not_readable_by_a_command() {
    let h = Harness::with(|ws| ws.allow_shell(true));
    let mut tried = 0;
    for private in ["/etc/ssl/private", "/etc/pki/tls/private"] {
        let Ok(keys) = std::fs::read_dir(private) else {
            continue;
        };
        let out = run(&h, sh(&format!("ls {private}"))).await;
        assert_ne!(out["exit_code"], 0, "{out}");
        for key in keys.flatten() {
            // Only a key this test can read proves anything (as root, every one).
            let Ok(content) = std::fs::read_to_string(key.path()) else {
                continue;
            };
            let out = run(&h, sh(&format!("cat {}", key.path().display()))).await;
            assert_ne!(out["exit_code"], 0, "{out}");
            let stdout = out["stdout"].as_str().unwrap_or_default();
            assert!(
                content.is_empty() || !stdout.contains(content.trim()),
                "{out}"
            );
            tried += 1;
        }
    }
    // The public part of the same directory is still there.
    if Path::new("/etc/ssl/certs").is_dir() {
        let out = run(&h, sh("ls /etc/ssl/certs > /dev/null && echo listed")).await;
        assert_eq!(out["stdout"], "listed\n", "{out}");
    }
    if tried == 0 {
        eprintln!("no private key this test can read: only the view's unit test applies");
    }
}
