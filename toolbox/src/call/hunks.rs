//! The approval prompt for a file change, hunk by hunk, as `git add -p` asks: each hunk is
//! shown and answered `y`, `n`, `a`, `d`, `q` or `?`.
//!
//! The prompt is a function over any input and output, so it is tested without a terminal;
//! `call::ask` gives it the terminal.

use std::ffi::OsStr;
use std::io::{BufRead, Write};

use anstyle::{AnsiColor, Style};
use toolwright_core::file_change::{FileChange, Hunk, LineKind};
use toolwright_runtime::ApprovalDecision;

use crate::shown::visible;

/// What the keys do, shown for `?`.
pub(crate) const HELP: &str = "\
y - apply this hunk
n - do not apply this hunk
a - apply this hunk and all the remaining ones
d - do not apply this hunk nor any of the remaining ones
q - quit: do not apply this hunk nor any of the remaining ones (hunks already answered y are applied)
? - print help";

/// The reason given to the model when no hunk was accepted.
pub(crate) const REJECTED_ALL: &str = "you rejected every hunk";

/// Whether to colour the diff: only on a terminal (`stderr_is_terminal`), when `NO_COLOR` is
/// unset or empty (<https://no-color.org>) and `TERM` is not `dumb`.
pub(crate) fn use_colors(
    stderr_is_terminal: bool,
    no_color: Option<&OsStr>,
    term: Option<&OsStr>,
) -> bool {
    stderr_is_terminal
        && no_color.is_none_or(OsStr::is_empty)
        && term.is_none_or(|term| term != "dumb")
}

/// One answer to `Apply this hunk [y,n,a,d,q,?]?`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Yes,
    No,
    All,
    Done,
    Quit,
    Help,
}

impl Answer {
    /// The answer a line gives, if it is one: a key (or `yes`/`no`), in any case.
    fn parse(line: &str) -> Option<Answer> {
        match line.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => Some(Answer::Yes),
            "n" | "no" => Some(Answer::No),
            "a" => Some(Answer::All),
            "d" => Some(Answer::Done),
            "q" => Some(Answer::Quit),
            "?" => Some(Answer::Help),
            _ => None,
        }
    }
}

/// The styles of the diff's parts; plain when colours are off.
struct Palette {
    file: Style,
    header: Style,
    added: Style,
    removed: Style,
}

impl Palette {
    fn new(colors: bool) -> Palette {
        if !colors {
            return Palette {
                file: Style::new(),
                header: Style::new(),
                added: Style::new(),
                removed: Style::new(),
            };
        }
        Palette {
            file: Style::new().bold(),
            header: Style::new().fg_color(Some(AnsiColor::Cyan.into())),
            added: Style::new().fg_color(Some(AnsiColor::Green.into())),
            removed: Style::new().fg_color(Some(AnsiColor::Red.into())),
        }
    }

    fn line(&self, kind: LineKind) -> Style {
        match kind {
            LineKind::Context => Style::new(),
            LineKind::Added => self.added,
            LineKind::Removed => self.removed,
        }
    }
}

/// Shows `change` on `out` hunk by hunk and reads an answer for each from `input`, like
/// `git add -p`: `y` applies the hunk, `n` does not, `a` applies it and all the remaining
/// ones, `d` and `q` apply neither it nor any remaining one (`q` keeps the hunks already
/// answered `y`, as git does; for one file `d` and `q` are the same), `?` shows the keys.
/// Anything else asks again; the end of input applies none of the remaining hunks.
///
/// No hunk accepted denies the call, every hunk approves it, some give
/// [`ApprovalDecision::ApprovedHunks`].
pub(crate) fn ask_hunks(
    change: &FileChange,
    input: &mut impl BufRead,
    out: &mut impl Write,
    colors: bool,
) -> ApprovalDecision {
    let palette = Palette::new(colors);
    let total = change.hunks.len();
    let path = visible(&change.path);
    let _ = writeln!(
        out,
        "{style}--- a/{path}\n+++ b/{path}{style:#}",
        style = palette.file
    );
    let mut accepted = Vec::new();
    // Set once `a`, `d` or `q` decided every remaining hunk (true: apply them).
    let mut rest: Option<bool> = None;
    for (at, hunk) in change.hunks.iter().enumerate() {
        if let Some(apply) = rest {
            if apply {
                accepted.push(hunk.index);
            }
            continue;
        }
        show_hunk(hunk, &palette, out);
        loop {
            let _ = write!(out, "({}/{total}) Apply this hunk [y,n,a,d,q,?]? ", at + 1);
            let _ = out.flush();
            let mut line = String::new();
            match input.read_line(&mut line) {
                Ok(0) | Err(_) => {
                    let _ = writeln!(out, "\n(end of input: the remaining hunks are not applied)");
                    rest = Some(false);
                    break;
                }
                Ok(_) => {}
            }
            match Answer::parse(&line) {
                Some(Answer::Yes) => accepted.push(hunk.index),
                Some(Answer::No) => {}
                Some(Answer::All) => {
                    accepted.push(hunk.index);
                    rest = Some(true);
                }
                Some(Answer::Done | Answer::Quit) => rest = Some(false),
                Some(Answer::Help) => {
                    let _ = writeln!(out, "{HELP}");
                    continue;
                }
                None => {
                    let _ = writeln!(
                        out,
                        "`{}` is not an answer: y, n, a, d or q (? for help)",
                        visible(line.trim())
                    );
                    continue;
                }
            }
            break;
        }
    }
    decision(total, accepted)
}

/// The decision for `accepted` hunks (indices, in order) out of `total`.
fn decision(total: usize, accepted: Vec<usize>) -> ApprovalDecision {
    if accepted.is_empty() {
        ApprovalDecision::Denied {
            reason: REJECTED_ALL.to_owned(),
        }
    } else if accepted.len() == total {
        ApprovalDecision::Approved
    } else {
        ApprovalDecision::ApprovedHunks { hunks: accepted }
    }
}

/// A hunk as in a unified diff, in colour when the palette has them.
fn show_hunk(hunk: &Hunk, palette: &Palette, out: &mut impl Write) {
    let _ = writeln!(
        out,
        "{style}{}{style:#}",
        visible(&hunk.header),
        style = palette.header
    );
    for line in &hunk.lines {
        let style = palette.line(line.kind);
        let _ = writeln!(
            out,
            "{style}{}{}{style:#}",
            line.kind.prefix(),
            visible(&line.text)
        );
        if line.no_newline {
            let _ = writeln!(out, "\\ No newline at end of file");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three changed lines, each far from the others: three hunks.
    fn three_hunks() -> FileChange {
        let old: String = (1..=30).map(|n| format!("line {n}\n")).collect();
        let new = old
            .replace("line 2\n", "line two\n")
            .replace("line 15\n", "line fifteen\n")
            .replace("line 28\n", "line twenty-eight\n");
        let change = FileChange::between("notes.txt", &old, &new);
        assert_eq!(change.hunks.len(), 3);
        change
    }

    fn run(answers: &str, colors: bool) -> (ApprovalDecision, String) {
        let mut out = Vec::new();
        let decision = ask_hunks(&three_hunks(), &mut answers.as_bytes(), &mut out, colors);
        (decision, String::from_utf8(out).unwrap())
    }

    #[test]
    fn each_hunk_is_answered_on_its_own() {
        let (decision, out) = run("y\nn\ny\n", false);
        assert_eq!(
            decision,
            ApprovalDecision::ApprovedHunks { hunks: vec![0, 2] }
        );
        assert!(
            out.starts_with(
                "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,5 +1,5 @@\n line 1\n-line 2\n+line two\n"
            ),
            "{out}"
        );
        for n in 1..=3 {
            assert!(
                out.contains(&format!("({n}/3) Apply this hunk [y,n,a,d,q,?]? ")),
                "{out}"
            );
        }
        assert!(out.contains("+line twenty-eight\n"), "{out}");
        assert!(!out.contains('\x1b'), "{out}");
    }

    #[test]
    fn every_hunk_approves_and_none_denies() {
        assert_eq!(run("y\ny\nY\n", false).0, ApprovalDecision::Approved);
        assert_eq!(run("yes\nyes\nyes\n", false).0, ApprovalDecision::Approved);
        let denied = ApprovalDecision::Denied {
            reason: REJECTED_ALL.to_owned(),
        };
        assert_eq!(run("n\nno\nN\n", false).0, denied);
        assert_eq!(run("d\n", false).0, denied);
        assert_eq!(run("q\n", false).0, denied);
    }

    #[test]
    fn a_takes_the_rest_d_and_q_drop_it() {
        let (decision, out) = run("n\na\n", false);
        assert_eq!(
            decision,
            ApprovalDecision::ApprovedHunks { hunks: vec![1, 2] }
        );
        // The third hunk is not asked about.
        assert!(!out.contains("(3/3)"), "{out}");
        assert_eq!(run("a\n", false).0, ApprovalDecision::Approved);
        // q keeps the hunks answered y before it, as git does; so does d.
        assert_eq!(
            run("y\nq\n", false).0,
            ApprovalDecision::ApprovedHunks { hunks: vec![0] }
        );
        assert_eq!(
            run("y\nd\n", false).0,
            ApprovalDecision::ApprovedHunks { hunks: vec![0] }
        );
    }

    #[test]
    fn anything_else_asks_again_and_help_lists_the_keys() {
        let (decision, out) = run("maybe\n\n?\ny\nn\nn\n", false);
        assert_eq!(decision, ApprovalDecision::ApprovedHunks { hunks: vec![0] });
        assert!(
            out.contains("`maybe` is not an answer: y, n, a, d or q (? for help)"),
            "{out}"
        );
        assert!(out.contains("`` is not an answer"), "{out}");
        assert!(out.contains(HELP), "{out}");
        assert_eq!(out.matches("(1/3) Apply this hunk").count(), 4, "{out}");
    }

    #[test]
    fn the_end_of_input_applies_none_of_the_remaining_hunks() {
        let (decision, out) = run("y\n", false);
        assert_eq!(decision, ApprovalDecision::ApprovedHunks { hunks: vec![0] });
        assert!(
            out.contains("(end of input: the remaining hunks are not applied)"),
            "{out}"
        );
        assert!(!out.contains("(3/3)"), "{out}");
        assert_eq!(
            run("", false).0,
            ApprovalDecision::Denied {
                reason: REJECTED_ALL.to_owned()
            }
        );
    }

    #[test]
    fn colours_mark_headers_added_and_removed_lines() {
        let (_, out) = run("y\ny\ny\n", true);
        assert!(out.contains("\x1b[36m@@ -1,5 +1,5 @@\x1b[0m\n"), "{out:?}");
        assert!(out.contains("\x1b[32m+line two\x1b[0m\n"), "{out:?}");
        assert!(out.contains("\x1b[31m-line 2\x1b[0m\n"), "{out:?}");
        // Context lines stay plain.
        assert!(out.contains("\n line 1\n"), "{out:?}");
    }

    #[test]
    fn colours_only_on_a_terminal_without_no_color_or_a_dumb_term() {
        let xterm = Some(OsStr::new("xterm-256color"));
        assert!(use_colors(true, None, xterm));
        assert!(use_colors(true, None, None));
        assert!(use_colors(true, Some(OsStr::new("")), xterm));
        assert!(!use_colors(false, None, xterm));
        assert!(!use_colors(true, Some(OsStr::new("1")), xterm));
        assert!(!use_colors(true, None, Some(OsStr::new("dumb"))));
    }

    #[test]
    fn control_characters_in_the_file_are_shown_not_obeyed() {
        let change = FileChange::between("x.txt", "a\n", "\x1b[2Ka\x08\tb\u{9b}\x7f\n");
        let mut out = Vec::new();
        let _ = ask_hunks(&change, &mut "y\n".as_bytes(), &mut out, false);
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("+^[[2Ka^H\tb\\u{9b}^?\n"), "{out:?}");

        // A right-to-left override would show `cost = 1; // admin` reordered.
        let change = FileChange::between("x.txt", "a\n", "if ok \u{202e}{ admin }\u{2066}\n");
        let mut out = Vec::new();
        let _ = ask_hunks(&change, &mut "y\n".as_bytes(), &mut out, false);
        let out = String::from_utf8(out).unwrap();
        assert!(
            out.contains("+if ok \\u{202e}{ admin }\\u{2066}\n"),
            "{out:?}"
        );
    }
}
