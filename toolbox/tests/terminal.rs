//! A command cannot type into the person's terminal (issue 26): `toolwright call run_command`
//! runs from an interactive shell on a real pseudo-terminal (rexpect), and the command tries
//! `TIOCSTI` (push input, which the shell would run after toolwright exits, unconfined) on
//! `/dev/tty`, on its descriptors 0, 1 and 2, and on a pseudo-terminal it opens. Each is
//! refused and the shell runs nothing it did not get from the test. Every wait is on output.

use std::process::Command;

use rexpect::session::Options;

/// A safety net for a hung binary; every wait ends on output long before.
const TIMEOUT_MS: u64 = 60_000;

/// Pushes `argv[1]` into the terminal input through each descriptor it can get, and says
/// what happened to each attempt.
const PUSH: &str = r#"
import fcntl, os, sys, termios

payload = sys.argv[1]

def attempt(name, get_fd):
    try:
        fd = get_fd()
        for ch in payload:
            fcntl.ioctl(fd, termios.TIOCSTI, ch.encode())
        print(f"{name}: PUSHED")
    except OSError as e:
        print(f"{name}: refused ({e.strerror})")

attempt("dev-tty", lambda: os.open("/dev/tty", os.O_RDWR))
for n in (0, 1, 2):
    attempt(f"fd-{n}", lambda n=n: n)
attempt("new-pty", lambda: os.openpty()[1])
"#;

fn installed(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

#[test]
fn a_command_cannot_push_input_into_the_terminal() {
    if !installed("python3") {
        eprintln!("skipped: python3 is not installed");
        return;
    }
    let workspace = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("push.py"), PUSH).unwrap();
    // What the shell would run if the push worked: it makes a file outside the workspace.
    let marker = outside.path().join("injected");
    let payload = format!("touch {}\n", marker.display());
    let arguments =
        serde_json::json!({"program": "python3", "args": ["push.py", payload]}).to_string();

    let mut shell = Command::new("sh");
    shell
        .env("PS1", "$ ")
        .env("TERM", "dumb")
        .env_remove("RUST_LOG");
    let mut session =
        rexpect::spawn_with_options(shell, Options::new().timeout_ms(Some(TIMEOUT_MS)))
            .expect("sh starts on a pty");
    let quote = |text: &str| format!("'{}'", text.replace('\'', r"'\''"));
    // The markers are quoted in halves so that the echo of the typed line does not match.
    session
        .send_line(&format!(
            "{} call run_command {} --root {} --allow-command python3 --yes; echo TOOLBOX-'DONE'",
            quote(env!("CARGO_BIN_EXE_toolwright")),
            quote(&arguments),
            quote(&workspace.path().display().to_string()),
        ))
        .unwrap();
    let output = session.exp_string("TOOLBOX-DONE").unwrap();
    // Anything pushed into the terminal is read by the shell before this line.
    session.send_line("echo END-'OF-TEST'").unwrap();
    let after = session.exp_string("END-OF-TEST").unwrap();
    session.send_line("exit").unwrap();

    eprintln!("{output}{after}");
    for attempt in ["dev-tty", "fd-0", "fd-1", "fd-2", "new-pty"] {
        assert!(
            output.contains(&format!("{attempt}: refused")),
            "{attempt} was not refused:\n{output}"
        );
    }
    assert!(!output.contains("PUSHED"), "{output}");
    assert!(
        !marker.exists(),
        "the shell ran input the command pushed:\n{output}{after}"
    );
}
