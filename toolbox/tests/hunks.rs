//! `toolwright call` approving a file change hunk by hunk, on a real pseudo-terminal (rexpect):
//! the binary runs with stdin, stdout and stderr on a pty, each answer is sent after its
//! prompt shows, and every wait is on output (the timeout is only a safety net).

use std::path::Path;
use std::process::Command;

use rexpect::process::WaitStatus;
use rexpect::session::{Options, PtySession};

/// A safety net for a hung binary; every wait ends on output long before.
const TIMEOUT_MS: u64 = 60_000;

/// Thirty lines.
fn original() -> String {
    (1..=30).map(|n| format!("line {n}\n")).collect()
}

/// `original` with the changes of the hunks given (1, 2, 3): lines 2, 15 and 28, each more
/// than six unchanged lines from the next, so three hunks.
fn changed(hunks: &[usize]) -> String {
    let mut text = original();
    for hunk in hunks {
        text = match hunk {
            1 => text.replace("line 2\n", "line two\n"),
            2 => text.replace("line 15\n", "line fifteen\n"),
            3 => text.replace("line 28\n", "line twenty-eight\n"),
            _ => unreachable!("there are three hunks"),
        };
    }
    text
}

/// A workspace with `f.txt` as `original()`.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), original()).unwrap();
    dir
}

/// `write_file`'s arguments that overwrite `f.txt` with all three changes.
fn write_all_three() -> String {
    serde_json::json!({"path": "f.txt", "content": changed(&[1, 2, 3]), "overwrite": true})
        .to_string()
}

/// `toolwright call <tool> <arguments> --root <root>` on a pty, with `TERM=xterm` and, when
/// `no_color`, `NO_COLOR=1`.
fn spawn(tool: &str, arguments: &str, root: &Path, no_color: bool) -> Pty {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolwright"));
    command
        .args(["call", tool, arguments, "--root"])
        .arg(root)
        .env("TERM", "xterm")
        .env_remove("NO_COLOR")
        .env_remove("RUST_LOG");
    if no_color {
        command.env("NO_COLOR", "1");
    }
    let session = rexpect::spawn_with_options(command, Options::new().timeout_ms(Some(TIMEOUT_MS)))
        .expect("toolwright starts on a pty");
    Pty {
        session,
        seen: String::new(),
    }
}

/// A running `toolwright` and everything it printed so far.
struct Pty {
    session: PtySession,
    seen: String,
}

impl Pty {
    /// Waits until `needle` shows.
    fn expect(&mut self, needle: &str) {
        match self.session.exp_string(needle) {
            Ok(before) => {
                self.seen.push_str(&before);
                self.seen.push_str(needle);
            }
            Err(error) => panic!("waiting for {needle:?}: {error}\nso far: {:?}", self.seen),
        }
    }

    /// Waits for the prompt of hunk `n` (of 3) and answers it.
    fn answer(&mut self, n: usize, answer: &str) {
        self.expect(&format!("({n}/3) Apply this hunk [y,n,a,d,q,?]? "));
        self.session.send_line(answer).unwrap();
    }

    /// Waits for the end: everything printed, and the exit status.
    fn finish(mut self) -> (String, i32) {
        match self.session.exp_eof() {
            Ok(rest) => self.seen.push_str(&rest),
            Err(error) => panic!("waiting for the end: {error}\nso far: {:?}", self.seen),
        }
        match self.session.process().wait() {
            Ok(WaitStatus::Exited(_, code)) => (self.seen, code),
            other => panic!("toolwright did not exit: {other:?}\n{}", self.seen),
        }
    }
}

fn file(dir: &tempfile::TempDir) -> String {
    std::fs::read_to_string(dir.path().join("f.txt")).unwrap()
}

/// Whether `text` holds an SGR escape sequence (a colour or a style): `ESC [ digits;... m`.
fn has_colours(text: &str) -> bool {
    text.split("\x1b[").skip(1).any(|after| {
        let end = after
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(after.len());
        after[end..].starts_with('m')
    })
}

#[test]
fn y_n_y_applies_the_first_and_third_hunks() {
    let dir = workspace();
    let mut pty = spawn("write_file", &write_all_three(), dir.path(), true);
    pty.expect("`write_file` is dangerous and needs your approval.");
    pty.expect("It changes `f.txt` in 3 hunks: answer for each.");
    pty.expect("@@ -1,5 +1,5 @@");
    pty.expect("+line two");
    pty.answer(1, "y");
    pty.expect("+line fifteen");
    pty.answer(2, "n");
    pty.expect("+line twenty-eight");
    pty.answer(3, "y");
    let (out, status) = pty.finish();
    assert_eq!(status, 0, "{out}");
    assert_eq!(file(&dir), changed(&[1, 3]));
    assert!(
        out.contains(
            "applied 2 of 3 hunks to `f.txt` (hunk 1 @@ -1,5 +1,5 @@, hunk 3 @@ -25,6 +25,6 @@); \
             the approver rejected hunk 2 @@ -12,7 +12,7 @@"
        ),
        "{out}"
    );
}

#[test]
fn edit_file_asks_per_hunk_too() {
    let dir = workspace();
    // One replacement that spans the three changed lines: three hunks all the same.
    let old_text: String = original()
        .lines()
        .skip(1)
        .take(27)
        .map(|l| format!("{l}\n"))
        .collect();
    let new_text = old_text
        .replace("line 2\n", "line two\n")
        .replace("line 15\n", "line fifteen\n")
        .replace("line 28\n", "line twenty-eight\n");
    let arguments =
        serde_json::json!({"path": "f.txt", "old_text": old_text, "new_text": new_text})
            .to_string();
    let mut pty = spawn("edit_file", &arguments, dir.path(), true);
    pty.expect("`edit_file` is dangerous and needs your approval.");
    pty.answer(1, "n");
    pty.answer(2, "y");
    pty.answer(3, "n");
    let (out, status) = pty.finish();
    assert_eq!(status, 0, "{out}");
    assert_eq!(file(&dir), changed(&[2]));
    assert!(out.contains("applied 1 of 3 hunks to `f.txt`"), "{out}");
    assert!(out.contains("the approver rejected hunk 1 @@"), "{out}");
}

#[test]
fn a_applies_this_and_every_remaining_hunk() {
    let dir = workspace();
    let mut pty = spawn("write_file", &write_all_three(), dir.path(), true);
    pty.answer(1, "y");
    pty.answer(2, "a");
    let (out, status) = pty.finish();
    assert_eq!(status, 0, "{out}");
    assert_eq!(file(&dir), changed(&[1, 2, 3]));
    // The third hunk is not asked about.
    assert!(!out.contains("(3/3)"), "{out}");
}

#[test]
fn d_writes_nothing_and_the_call_is_denied() {
    let dir = workspace();
    let mut pty = spawn("write_file", &write_all_three(), dir.path(), true);
    pty.answer(1, "d");
    let (out, status) = pty.finish();
    assert_eq!(status, 1, "{out}");
    assert_eq!(file(&dir), original());
    assert!(!out.contains("(2/3)"), "{out}");
    assert!(
        out.contains("approval denied (you rejected every hunk)"),
        "{out}"
    );
}

#[test]
fn q_stops_asking_and_keeps_the_hunks_already_accepted() {
    let dir = workspace();
    let mut pty = spawn("write_file", &write_all_three(), dir.path(), true);
    pty.answer(1, "y");
    pty.answer(2, "q");
    let (out, status) = pty.finish();
    assert_eq!(status, 0, "{out}");
    assert_eq!(file(&dir), changed(&[1]));
    assert!(!out.contains("(3/3)"), "{out}");
    assert!(out.contains("applied 1 of 3 hunks"), "{out}");
}

#[test]
fn an_invalid_answer_asks_again_and_question_mark_prints_help() {
    let dir = workspace();
    let mut pty = spawn("write_file", &write_all_three(), dir.path(), true);
    pty.answer(1, "maybe");
    pty.expect("`maybe` is not an answer: y, n, a, d or q (? for help)");
    pty.answer(1, "?");
    pty.expect("y - apply this hunk");
    pty.expect("a - apply this hunk and all the remaining ones");
    pty.expect("q - quit: do not apply this hunk nor any of the remaining ones");
    pty.answer(1, "n");
    pty.answer(2, "n");
    pty.answer(3, "y");
    let (out, status) = pty.finish();
    assert_eq!(status, 0, "{out}");
    assert_eq!(file(&dir), changed(&[3]));
}

#[test]
fn the_end_of_input_applies_none_of_the_remaining_hunks() {
    let dir = workspace();
    let mut pty = spawn("write_file", &write_all_three(), dir.path(), true);
    pty.answer(1, "y");
    pty.expect("(2/3) Apply this hunk [y,n,a,d,q,?]? ");
    // Ctrl-D on an empty line: the end of input.
    pty.session.send_control('d').unwrap();
    pty.expect("(end of input: the remaining hunks are not applied)");
    let (out, status) = pty.finish();
    assert_eq!(status, 0, "{out}");
    assert_eq!(file(&dir), changed(&[1]));
}

#[test]
fn added_lines_are_green_removed_red_headers_cyan_on_a_colour_terminal() {
    let dir = workspace();
    let mut pty = spawn("write_file", &write_all_three(), dir.path(), false);
    pty.expect("\x1b[36m@@ -1,5 +1,5 @@\x1b[0m");
    pty.expect("\x1b[31m-line 2\x1b[0m");
    pty.expect("\x1b[32m+line two\x1b[0m");
    pty.answer(1, "a");
    let (out, status) = pty.finish();
    assert_eq!(status, 0, "{out}");
    assert_eq!(file(&dir), changed(&[1, 2, 3]));
}

#[test]
fn no_color_means_no_colours() {
    let dir = workspace();
    let mut pty = spawn("write_file", &write_all_three(), dir.path(), true);
    pty.expect("+line two");
    pty.answer(1, "a");
    let (out, status) = pty.finish();
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("-line 2\r\n+line two\r\n"), "{out:?}");
    assert!(!has_colours(&out), "{out:?}");
}

#[test]
fn a_call_without_a_change_still_asks_once() {
    let dir = workspace();
    let arguments = r#"{"path": "new.txt", "content": "hi\n"}"#;
    let mut pty = spawn("write_file", arguments, dir.path(), true);
    pty.expect("create `new.txt` (3 bytes, 1 line)");
    pty.expect("Run it? [y/N] ");
    pty.session.send_line("y").unwrap();
    let (out, status) = pty.finish();
    assert_eq!(status, 0, "{out}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("new.txt")).unwrap(),
        "hi\n"
    );
}

#[test]
fn a_call_on_a_terminal_runs() {
    // Logs on a terminal are coloured: toolwright once panicked there for want of the feature.
    let dir = workspace();
    let pty = spawn("calculate", r#"{"expression": "6 * 7"}"#, dir.path(), false);
    let (out, status) = pty.finish();
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("42"), "{out}");
}

#[test]
fn yes_applies_every_hunk_without_asking() {
    let dir = workspace();
    let output = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["call", "write_file", &write_all_three(), "--yes", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(!err.contains("Apply this hunk"), "{err}");
    assert_eq!(file(&dir), changed(&[1, 2, 3]));
}

/// A write through a symbolic link names the file it really changes (issue 27), and a link
/// into `.git` is refused before the person is asked.
#[test]
fn a_link_is_named_as_the_file_it_leads_to() {
    let dir = workspace();
    std::os::unix::fs::symlink("f.txt", dir.path().join("notes.txt")).unwrap();
    let arguments =
        serde_json::json!({"path": "notes.txt", "content": changed(&[1, 2, 3]), "overwrite": true})
            .to_string();
    let mut pty = spawn("write_file", &arguments, dir.path(), true);
    pty.expect("It changes `f.txt` (`notes.txt` is a link to it) in 3 hunks: answer for each.");
    pty.answer(1, "y");
    pty.answer(2, "y");
    pty.answer(3, "n");
    let (out, status) = pty.finish();
    assert_eq!(status, 0, "{out}");
    assert_eq!(file(&dir), changed(&[1, 2]));

    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join(".git/config"), "[core]\n").unwrap();
    std::os::unix::fs::symlink(".git/config", dir.path().join("cfg")).unwrap();
    let arguments = serde_json::json!({"path": "cfg", "content": "[core]\n\tfsmonitor = x\n", "overwrite": true})
        .to_string();
    let pty = spawn("write_file", &arguments, dir.path(), true);
    let (out, status) = pty.finish();
    assert_ne!(status, 0, "{out}");
    assert!(out.contains("is a link to `.git/config`"), "{out}");
    assert!(!out.contains("Apply this hunk"), "nobody is asked: {out}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".git/config")).unwrap(),
        "[core]\n"
    );
}
