//! `toolwright_std::sandbox`: a program one starts oneself (an MCP server of someone else's)
//! behind the kernel walls of `run_command`, seeing exactly the paths it was granted. The
//! attacks are made by the program itself, with every path trick it likes.

use std::io::ErrorKind;
use std::net::TcpListener;
use std::os::unix::fs::symlink;
use std::process::{Command, Output};

use toolwright_std::sandbox::{Sandbox, SandboxError};

use crate::harness::processes_with_argument;

/// Runs `script` with `sh -c` in `sandbox`; the program must be confined.
fn sh(sandbox: &Sandbox, script: &str) -> Output {
    let mut command = Command::new("sh");
    command.arg("-c").arg(script);
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

/// A directory the program is given, one it is not (with a secret in it), and a link from
/// the first to the second's secret.
struct Dirs {
    granted: tempfile::TempDir,
    outside: tempfile::TempDir,
    secret: String,
}

fn dirs() -> Dirs {
    let granted = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let secret = format!("top-secret-{}", std::process::id());
    std::fs::write(outside.path().join("secret"), &secret).unwrap();
    std::fs::write(granted.path().join("mine"), "mine\n").unwrap();
    symlink(
        outside.path().join("secret"),
        granted.path().join("link-to-secret"),
    )
    .unwrap();
    symlink(outside.path(), granted.path().join("link-to-outside")).unwrap();
    Dirs {
        granted,
        outside,
        secret,
    }
}

#[test]
fn a_program_reads_what_it_was_granted_and_nothing_else_whatever_path_it_takes() {
    let d = dirs();
    let g = d.granted.path().display().to_string();
    let o = d.outside.path().display().to_string();
    let sandbox = Sandbox::new().read(d.granted.path());
    let out = sh(&sandbox, &format!("cat {g}/mine"));
    assert_eq!(text(&out.stdout), "mine\n", "{out:?}");
    for attempt in [
        "cat /etc/shadow".to_owned(),
        format!("cat {o}/secret"),
        format!("cat {g}/link-to-secret"),
        format!("cat {g}/link-to-outside/secret"),
        format!("cat {g}/../$(basename {o})/secret"),
        format!("cd {g} && cat ../$(basename {o})/secret"),
        "cat /proc/1/root/etc/shadow".to_owned(),
        format!("ls /root /home {o}"),
    ] {
        let out = sh(&sandbox, &attempt);
        assert!(!out.status.success(), "{attempt}: {out:?}");
        let shown = text(&out.stdout) + &text(&out.stderr);
        assert!(!shown.contains(&d.secret), "{attempt} read the secret");
        assert!(!shown.contains("root:"), "{attempt} read /etc/shadow");
    }
}

#[test]
fn a_program_writes_only_where_it_was_granted_to() {
    let d = dirs();
    let readable = tempfile::tempdir().unwrap();
    let g = d.granted.path().display().to_string();
    let o = d.outside.path().display().to_string();
    let r = readable.path().display().to_string();
    let sandbox = Sandbox::new().write(d.granted.path()).read(readable.path());
    let out = sh(&sandbox, &format!("echo new > {g}/new && cat {g}/new"));
    assert_eq!(text(&out.stdout), "new\n", "{out:?}");
    for attempt in [
        format!("echo pwned > {o}/written"),
        format!("echo pwned > {g}/link-to-outside/written"),
        format!("echo pwned > {g}/link-to-secret"),
        format!("echo pwned > {r}/written"),
        "echo pwned > /tmp/written-by-a-sandboxed-program".to_owned(),
        "echo pwned > /etc/written-by-a-sandboxed-program".to_owned(),
        format!("mkdir {o}/dir"),
    ] {
        let out = sh(&sandbox, &attempt);
        assert!(!out.status.success(), "{attempt}: {out:?}");
    }
    let names: Vec<_> = std::fs::read_dir(d.outside.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(names, ["secret"], "something was written outside");
    assert_eq!(
        std::fs::read_to_string(d.outside.path().join("secret")).unwrap(),
        d.secret
    );
    assert_eq!(std::fs::read_dir(readable.path()).unwrap().count(), 0);
    assert!(!std::path::Path::new("/tmp/written-by-a-sandboxed-program").exists());
    assert!(!std::path::Path::new("/etc/written-by-a-sandboxed-program").exists());
}

#[test]
fn a_program_without_the_network_cannot_connect_and_the_listener_sees_nobody() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let sandbox = Sandbox::new();
    // bash's /dev/tcp makes a real socket and connect(2).
    let mut command = Command::new("bash");
    command
        .arg("-c")
        .arg(format!("echo hello > /dev/tcp/127.0.0.1/{port}"));
    let confined = sandbox.confine(&mut command).unwrap();
    assert!(confined.is_confined());
    let out = command.output().unwrap();
    assert!(!out.status.success(), "{out:?}");
    // The program has exited: a connection it made would be waiting in the backlog.
    listener.set_nonblocking(true).unwrap();
    let accepted = listener.accept();
    assert!(
        matches!(&accepted, Err(e) if e.kind() == ErrorKind::WouldBlock),
        "a confined program connected: {accepted:?}"
    );
}

#[test]
fn a_program_with_the_network_can_connect() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut command = Command::new("bash");
    command
        .arg("-c")
        .arg(format!("echo hello > /dev/tcp/127.0.0.1/{port}"));
    let confined = Sandbox::new().network(true).confine(&mut command).unwrap();
    let out = command.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    drop(confined);
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_ok(), "the connection was not made");
}

#[test]
fn a_program_sees_a_clean_environment_and_its_own_temporary_directory() {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("env | cut -d= -f1 | sort; echo made > \"$TMPDIR/file\" && cat \"$HOME/file\"")
        .env("GIVEN", "yes");
    let confined = Sandbox::new().confine(&mut command).unwrap();
    let out = command.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let names: Vec<String> = text(&out.stdout).lines().map(str::to_owned).collect();
    for name in &names {
        assert!(
            [
                "GIVEN", "HOME", "TMPDIR", "PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "PWD",
                "SHLVL", "_", "made"
            ]
            .contains(&name.as_str()),
            "`{name}` reached the program: {names:?}"
        );
    }
    assert!(names.iter().any(|n| n == "GIVEN"), "{names:?}");
    assert!(names.iter().any(|n| n == "made"), "{names:?}");
    assert!(confined.temp_dir().join("file").exists());
}

#[test]
fn what_cannot_be_granted_is_refused_before_anything_runs() {
    let mut command = Command::new("true");
    let missing = Sandbox::new()
        .read("/no/such/directory")
        .confine(&mut command);
    assert!(
        matches!(missing, Err(SandboxError::Path { .. })),
        "{missing:?}"
    );
    let message = missing.unwrap_err().to_string();
    assert!(message.contains("/no/such/directory"), "{message}");
    let root = Sandbox::new().read("/").confine(&mut command);
    assert!(
        matches!(root, Err(SandboxError::WholeFileSystem(_))),
        "{root:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = Sandbox::new().cwd(dir.path()).confine(&mut command);
    assert!(
        matches!(elsewhere, Err(SandboxError::WorkingDirectory(_))),
        "{elsewhere:?}"
    );
}

#[test]
fn killing_the_spawned_process_ends_the_program_and_what_it_started() {
    let marker = format!("{}{}", 200_000, std::process::id());
    let mut command = Command::new("sh");
    // The program starts a child of its own that tries to outlive it, then waits.
    command
        .arg("-c")
        .arg(format!("setsid sleep {marker} & echo started; wait"));
    command.stdout(std::process::Stdio::piped());
    let confined = Sandbox::new().confine(&mut command).unwrap();
    let mut child = command.spawn().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 8];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    assert_eq!(&first, b"started\n");
    wait_until(
        || processes_with_argument(&marker).len() == 1,
        "the child to start",
    );
    child.kill().unwrap();
    child.wait().unwrap();
    drop(confined);
    // The kernel kills a PID namespace's processes when its first one dies.
    wait_until(
        || processes_with_argument(&marker).is_empty(),
        "the program's child to end with it",
    );
}

/// Waits for `done`, failing the test after a minute.
fn wait_until(done: impl Fn() -> bool, what: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !done() {
        assert!(std::time::Instant::now() < deadline, "waited for {what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn a_program_cannot_leave_a_set_user_id_file_for_the_host_to_run() {
    // Outside the view a granted directory is an ordinary one: a set-user-id copy of a shell
    // left there would run as its owner (as root, when the program runs as root) for
    // whoever starts it.
    let granted = tempfile::tempdir().unwrap();
    let g = granted.path().display().to_string();
    let sandbox = Sandbox::new().write(granted.path());
    let out = sh(&sandbox, &format!("cp /bin/sh {g}/plain && echo copied"));
    assert_eq!(text(&out.stdout), "copied\n", "{out:?}");
    for attempt in [
        format!("cp /bin/sh {g}/suid && chmod u+s {g}/suid"),
        format!("cp /bin/sh {g}/sgid && chmod g+s {g}/sgid"),
        format!("chmod 4755 {g}/plain"),
        format!("chmod 2755 {g}/plain"),
        format!("cp -p /bin/su {g}/su-copy 2>/dev/null || cp -p /usr/bin/su {g}/su-copy"),
    ] {
        let out = sh(&sandbox, &attempt);
        assert!(!out.status.success(), "{attempt}: {out:?}");
    }
    // The system calls themselves, with every way of passing a mode.
    let script = format!(
        r#"
import ctypes, os
g = {g:?}
libc = ctypes.CDLL(None, use_errno=True)
made = []
def attempt(name, call):
    try:
        call()
        made.append(name)
    except OSError:
        pass
attempt("open", lambda: os.close(os.open(g + "/open", os.O_CREAT | os.O_WRONLY, 0o4755)))
attempt("open-sgid", lambda: os.close(os.open(g + "/open-sgid", os.O_CREAT | os.O_WRONLY, 0o2755)))
attempt("tmpfile", lambda: os.close(os.open(g, os.O_TMPFILE | os.O_WRONLY, 0o4755)))
attempt("mknod", lambda: os.mknod(g + "/mknod", 0o104755))
fd = os.open(g + "/plain", os.O_RDONLY)
attempt("fchmod", lambda: os.fchmod(fd, 0o4755))
for nr, name in [(90, "chmod"), (268, "fchmodat"), (452, "fchmodat2"), (85, "creat")]:
    if os.uname().machine != "x86_64":
        break
    path = (g + "/plain").encode()
    args = {{"chmod": (path, 0o4755), "creat": ((g + "/creat").encode(), 0o4755),
            "fchmodat": (-100, path, 0o4755), "fchmodat2": (-100, path, 0o4755, 0)}}[name]
    if libc.syscall(nr, *args) >= 0:
        made.append(name)
print("made:", made)
"#
    );
    let out = sh(&sandbox, &format!("python3 -c '{script}'"));
    assert_eq!(text(&out.stdout), "made: []\n", "{out:?}");
    for entry in std::fs::read_dir(granted.path()).unwrap() {
        let entry = entry.unwrap();
        let mode =
            std::os::unix::fs::PermissionsExt::mode(&entry.metadata().unwrap().permissions());
        assert_eq!(
            mode & 0o6000,
            0,
            "{:?} has a set-id bit: {mode:o}",
            entry.file_name()
        );
    }
}

/// Set for [`a_program_and_its_daemons_end_when_the_process_that_started_it_is_killed`]'s
/// helper: the sleeps' argument, which marks the program's processes.
const PARENT_MARKER: &str = "TOOLWRIGHT_TEST_CONFINING_PARENT";

/// Not a test of its own: the process that confines and starts the program, for the test
/// below to kill. It starts a program whose child leaves its session and ignores every
/// signal it can, then waits forever.
#[test]
#[ignore = "a helper of a_program_and_its_daemons_end_when_the_process_that_started_it_is_killed"]
fn confining_parent() {
    let Ok(marker) = std::env::var(PARENT_MARKER) else {
        return;
    };
    let mut command = Command::new("sh");
    command.arg("-c").arg(format!(
        "trap '' HUP TERM INT; (trap '' HUP TERM INT; exec setsid sleep {marker}) & \
         sleep {marker}"
    ));
    command.stdin(std::process::Stdio::null());
    let confined = Sandbox::new().confine(&mut command).unwrap();
    // Waits until the test kills us: the program does not end by itself.
    let _ = command.spawn().unwrap().wait();
    drop(confined);
}

#[test]
fn a_program_and_its_daemons_end_when_the_process_that_started_it_is_killed() {
    // A server whose parent (a gateway) is killed with SIGKILL gets no chance to be stopped:
    // nothing of it may outlive its parent.
    let marker = format!("{}{}", 300_000, std::process::id());
    let mut parent = Command::new(std::env::current_exe().unwrap())
        .args(["programs::confining_parent", "--exact", "--ignored"])
        .env(PARENT_MARKER, &marker)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_until(
        || processes_with_argument(&marker).len() == 2,
        "the program and its daemon to start",
    );
    parent.kill().unwrap();
    parent.wait().unwrap();
    wait_until(
        || processes_with_argument(&marker).is_empty(),
        "the program and its daemon to end with their parent",
    );
}

/// Runs `script` with the system's Python 3 in `sandbox`; its standard output.
fn python(sandbox: &Sandbox, script: &str) -> String {
    let mut command = Command::new("python3");
    command.arg("-c").arg(script);
    let confined = sandbox.confine(&mut command).unwrap();
    assert!(confined.is_confined());
    let out = command.output().unwrap();
    drop(confined);
    assert!(out.status.success(), "{out:?}");
    text(&out.stdout)
}

/// What a program tries against the host's processes, its devices, the kernel's interfaces
/// and our descriptors, each printed as `name: what happened`.
const HOST_ATTACKS: &str = r#"
import ctypes, errno, os, socket, sys
parent, secret_fd, abstract = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
libc = ctypes.CDLL(None, use_errno=True)
def attempt(name, call):
    try:
        print(f"{name}: allowed {call()!r}")
    except OSError as error:
        print(f"{name}: refused {errno.errorcode.get(error.errno)}")
def syscall(nr, *args):
    if libc.syscall(nr, *args) < 0:
        raise OSError(ctypes.get_errno(), "")
attempt("signal our parent", lambda: os.kill(parent, 0))
attempt("signal every process", lambda: os.kill(-1, 0))
attempt("read our parent's environment", lambda: open(f"/proc/{parent}/environ").read())
attempt("list processes", lambda: [p for p in os.listdir("/proc") if p.isdigit() and p != "1"] or os.kill(0, 12345))
attempt("use our descriptor", lambda: os.read(secret_fd, 100))
attempt("find our descriptor", lambda: [fd for fd in os.listdir("/proc/self/fd") if int(fd) > 3] or os.kill(0, 12345))
def connect_abstract():
    with socket.socket(socket.AF_UNIX) as s:
        s.connect("\0" + abstract)
attempt("connect to our abstract socket", connect_abstract)
for device in ["/dev/tty", "/dev/console", "/dev/mem", "/dev/kmsg", "/dev/shm", "/dev/ptmx", "/dev/pts", "/dev/sda", "/dev/vda"]:
    attempt(f"open {device}", lambda: os.close(os.open(device, os.O_RDONLY)))
if os.uname().machine == "x86_64":
    attempt("ptrace our parent", lambda: syscall(101, 16, parent, 0, 0))
    attempt("unshare a user namespace", lambda: syscall(272, 0x10000000))
    attempt("mount", lambda: syscall(165, b"none", b"/tmp", b"tmpfs", 0, 0))
    attempt("setns", lambda: syscall(308, os.open("/proc/self/ns/user", os.O_RDONLY), 0))
    attempt("keyctl", lambda: syscall(250, 0, -3, 0))
    attempt("bpf", lambda: syscall(321, 0, 0, 0))
    attempt("io_uring", lambda: syscall(425, 1, ctypes.create_string_buffer(120)))
    attempt("userfaultfd", lambda: syscall(323, 0))
    attempt("perf_event_open", lambda: syscall(298, 0, 0, -1, -1, 0))
    attempt("clone a user namespace", lambda: syscall(56, 0x10000000 | 17, 0, 0, 0, 0))
"#;

#[test]
fn a_program_cannot_reach_the_hosts_processes_devices_or_our_descriptors() {
    use std::os::fd::AsRawFd;
    use std::os::linux::net::SocketAddrExt;
    // A secret file open without close-on-exec (as a careless parent leaves one), an
    // abstract UNIX socket listening (as an X server or a D-Bus does), and our process.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("secret"), "top-secret").unwrap();
    let secret = std::fs::File::open(dir.path().join("secret")).unwrap();
    rustix::io::fcntl_setfd(&secret, rustix::io::FdFlags::empty()).unwrap();
    let name = format!("toolwright-test-{}", std::process::id());
    let address = std::os::unix::net::SocketAddr::from_abstract_name(&name).unwrap();
    let listener = std::os::unix::net::UnixListener::bind_addr(&address).unwrap();
    listener.set_nonblocking(true).unwrap();
    for network in [false, true] {
        let mut command = Command::new("python3");
        command.arg("-c").arg(HOST_ATTACKS).args([
            std::process::id().to_string(),
            secret.as_raw_fd().to_string(),
            name.clone(),
        ]);
        let confined = Sandbox::new()
            .network(network)
            .confine(&mut command)
            .unwrap();
        let out = command.output().unwrap();
        drop(confined);
        assert!(out.status.success(), "{out:?}");
        let report = text(&out.stdout);
        assert!(report.lines().count() >= 16, "{report}");
        for line in report.lines() {
            assert!(
                line.contains(": refused "),
                "network {network}: {line}\n{report}"
            );
        }
        assert!(!report.contains("top-secret"), "{report}");
        assert!(
            matches!(listener.accept(), Err(e) if e.kind() == ErrorKind::WouldBlock),
            "the program connected to our abstract socket"
        );
    }
}

#[test]
fn a_link_made_in_a_writable_grant_does_not_make_a_read_only_one_writable() {
    // Both on one file system: a hard link from the writable grant to a read-only file
    // would share its inode, and a symbolic one would lead to it.
    let base = tempfile::tempdir().unwrap();
    let (writable, readable) = (base.path().join("writable"), base.path().join("readable"));
    std::fs::create_dir(&writable).unwrap();
    std::fs::create_dir(&readable).unwrap();
    std::fs::write(readable.join("file"), "original").unwrap();
    let (w, r) = (writable.display(), readable.display());
    let sandbox = Sandbox::new().write(&writable).read(&readable);
    for attempt in [
        format!("ln {r}/file {w}/hard && echo pwned > {w}/hard"),
        format!("ln -s {r}/file {w}/soft && echo pwned > {w}/soft"),
        format!("ln -s {r} {w}/dir && echo pwned > {w}/dir/file"),
        format!("mv {r}/file {w}/moved"),
        format!("cd {w} && echo pwned > ../readable/file"),
    ] {
        let out = sh(&sandbox, &attempt);
        assert!(!out.status.success(), "{attempt}: {out:?}");
    }
    assert_eq!(
        std::fs::read_to_string(readable.join("file")).unwrap(),
        "original"
    );
    assert!(!writable.join("hard").exists());
}

#[test]
fn a_fork_bomb_stops_at_the_programs_own_limit() {
    // Each child becomes a `sleep` at once; the parent counts until the kernel refuses a
    // fork (or, were there no limit, stops itself at twice the limit).
    let limit = toolwright_std::sandbox::MAX_TASKS;
    let script = format!(
        r#"
import errno, os, resource
print(*resource.getrlimit(resource.RLIMIT_NPROC))
started = 0
try:
    while started < {twice}:
        if os.fork() == 0:
            os.execv("/bin/sleep", ["sleep", "1000"])
        started += 1
    print("none", started)
except OSError as error:
    print(errno.errorcode.get(error.errno), started)
"#,
        twice = 2 * limit
    );
    let out = python(&Sandbox::new(), &script);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("{limit} {limit}"), "{out}");
    // The kernel exempts root (of the host) from the limit.
    let root = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap()) == 0;
    if !root {
        let (said, started) = lines[1].split_once(' ').unwrap();
        let started: u64 = started.parse().unwrap();
        assert_eq!(said, "EAGAIN", "{out}");
        assert!(started < limit, "{out}");
    }
}

#[test]
fn a_program_cannot_write_the_kernels_settings() {
    // As the host's root (a gateway run as root), a process without capabilities may still
    // write `/proc/sys` and `/proc/sysrq-trigger`, which check only the user: a
    // `core_pattern` of `|program` runs that program as root on the host. Each attempt
    // writes what is there already (`h` only prints the help to the kernel's log), so
    // nothing changes if it is allowed.
    let script = r#"
import errno
for path, value in [
    ("/proc/sys/kernel/core_pattern", None),
    ("/proc/sys/kernel/hostname", None),
    ("/proc/sys/vm/overcommit_memory", None),
    ("/proc/sysrq-trigger", "h"),
]:
    try:
        if value is None:
            value = open(path).read()
        with open(path, "w") as f:
            f.write(value)
        print(path, "written")
    except OSError as error:
        print(path, "refused", errno.errorcode.get(error.errno))
"#;
    for network in [false, true] {
        let out = python(&Sandbox::new().network(network), script);
        assert_eq!(out.lines().count(), 4, "{out}");
        for line in out.lines() {
            assert!(
                [
                    "refused EACCES",
                    "refused EPERM",
                    "refused EROFS",
                    "refused ENOENT"
                ]
                .iter()
                .any(|refused| line.ends_with(refused)),
                "{line}\n{out}"
            );
        }
    }
}

#[test]
fn a_program_cannot_change_the_hosts_devices() {
    // The devices of the view are the host's: as the host's root, their owner, a process
    // without capabilities may still change their mode (`chmod 0 /dev/null` breaks every
    // program of the host) and times. Each attempt sets what is there already.
    let mut script = String::new();
    for device in ["/dev/null", "/dev/zero", "/dev/urandom"] {
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(device).unwrap().permissions(),
        ) & 0o7777;
        script.push_str(&format!(
            "chmod {mode:o} {device} && echo changed {device}; \
             touch -r {device} {device} && echo touched {device}; "
        ));
    }
    script.push_str("echo hello > /dev/null && echo still-writable");
    let out = sh(&Sandbox::new(), &script);
    assert_eq!(text(&out.stdout), "still-writable\n", "{out:?}");
}

#[test]
fn a_grant_swapped_for_a_link_after_it_was_confined_does_not_lead_out() {
    // Between `confine` and the spawn, something that can write the granted directory's
    // parent replaces it by a link to a secret directory: the view, built from paths at the
    // spawn, binds the secret, but Landlock's rules hold the directory that was granted.
    let base = tempfile::tempdir().unwrap();
    let granted = base.path().join("granted");
    let secret_dir = base.path().join("secret");
    std::fs::create_dir(&granted).unwrap();
    std::fs::create_dir(&secret_dir).unwrap();
    let secret = format!("swapped-secret-{}", std::process::id());
    std::fs::write(secret_dir.join("secret"), &secret).unwrap();
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("cat {}/secret", granted.display()));
    let confined = Sandbox::new().read(&granted).confine(&mut command).unwrap();
    std::fs::rename(&granted, base.path().join("old")).unwrap();
    symlink(&secret_dir, &granted).unwrap();
    let out = command.output().unwrap();
    drop(confined);
    assert!(!out.status.success(), "{out:?}");
    assert!(!text(&out.stdout).contains(&secret), "{out:?}");
}

#[test]
fn a_program_cannot_change_a_terminal_it_inherits() {
    // A program started with the person's terminal (`Command::status` passes ours) may
    // write to it, but not turn its echo off, stop it, resize it, flush what was typed or
    // push input.
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    let controller = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
    grantpt(&controller).unwrap();
    unlockpt(&controller).unwrap();
    let name = ptsname(&controller, Vec::new()).unwrap();
    let terminal = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(name.to_str().unwrap())
        .unwrap();
    let before = rustix::termios::tcgetattr(&terminal).unwrap();
    let script = r#"
import errno, fcntl, struct, termios
def attempt(name, call):
    try:
        call()
        print(name, "allowed")
    except (OSError, termios.error) as error:
        print(name, "refused", errno.errorcode.get(error.args[0]))
def echo_off():
    modes = termios.tcgetattr(0)
    modes[3] &= ~termios.ECHO
    termios.tcsetattr(0, termios.TCSANOW, modes)
attempt("echo off", echo_off)
attempt("stop output", lambda: termios.tcflow(0, termios.TCOOFF))
attempt("flush input", lambda: termios.tcflush(0, termios.TCIFLUSH))
attempt("resize", lambda: fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 1, 1, 0, 0)))
attempt("push input", lambda: fcntl.ioctl(0, termios.TIOCSTI, b"x"))
attempt("take it", lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 1))
"#;
    let mut command = Command::new("python3");
    command
        .arg("-c")
        .arg(script)
        .stdin(terminal.try_clone().unwrap());
    let confined = Sandbox::new().confine(&mut command).unwrap();
    let out = command.output().unwrap();
    drop(confined);
    let report = text(&out.stdout);
    assert_eq!(report.lines().count(), 6, "{out:?}");
    for line in report.lines() {
        assert!(line.ends_with("refused EPERM"), "{line}\n{report}");
    }
    let after = rustix::termios::tcgetattr(&terminal).unwrap();
    assert_eq!(before.local_modes, after.local_modes);
}

#[test]
fn a_program_that_takes_all_memory_is_the_first_the_kernel_ends() {
    let out = sh(&Sandbox::new(), "cat /proc/self/oom_score_adj");
    assert_eq!(text(&out.stdout), "1000\n", "{out:?}");
}
