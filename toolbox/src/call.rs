//! `toolwright call`: one tool, through the executor, asking on the terminal before a dangerous
//! call (and for a tool's elicitation: `prompt`).

use std::io::{BufRead, IsTerminal, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;
use toolwright_core::{SafetyLevel, ToolCall};
use toolwright_runtime::{ApprovalDecision, ApprovalRequest, CallOptions, Executor};

// The layers, lowest first (no module imports one listed after it): hunks.
mod hunks;

use crate::shown::visible_lines;

use crate::cli::CallArgs;
use crate::ending::{Outcome, Stop, UsageError, print};
use crate::prompt::Terminal;
use crate::spinner::Spinner;
use crate::workspace::workspace;

pub(crate) async fn call(args: CallArgs) -> Result<Outcome, Stop> {
    let arguments = read_arguments(args.arguments.as_deref())?;
    let workspace = workspace(&args.workspace, args.audit_log.as_deref())?;
    let code_mode = args
        .code_mode
        .bounds(args.timeout.map(Duration::from_secs), None)
        .map_err(UsageError)?;
    let config = args
        .config
        .as_deref()
        .map(|path| {
            let mut checks = toolwright_gateway::Checks::new();
            if let Some(audit) = &args.audit_log {
                checks = checks.audit_log(audit);
            }
            crate::gateway::load(checks, path, args.audit_log.as_deref())
        })
        .transpose()?;
    // Opened before any upstream starts.
    let audit = crate::audit::open(args.audit_log.as_deref())?;
    // Upstreams start concurrently; the call goes as soon as its tool is mounted (with code
    // mode, once every first start ended: a program may call any of their tools).
    let wanted = code_mode.is_none().then_some(args.name.as_str());
    let (registry, mounted) =
        crate::gateway::registry_of(config, code_mode.is_some(), wanted).await?;
    let stdin_taken = args.arguments.as_deref() == Some("-");
    // While the user is asked, the spinner keeps quiet.
    let asking = Arc::new(AtomicBool::new(false));
    let asking_flag = Arc::clone(&asking);
    let yes = args.yes;
    let mut executor = crate::code_mode::enable(Executor::builder(registry), code_mode);
    if let Some(audit) = audit {
        executor = executor.hook(audit);
    }
    let executor = executor
        .max_safety(SafetyLevel::Dangerous)
        .state(workspace)
        .approval(move |request: ApprovalRequest| {
            let asking = Arc::clone(&asking_flag);
            async move {
                if yes {
                    return ApprovalDecision::Approved;
                }
                asking.store(true, Ordering::SeqCst);
                let decision = tokio::task::spawn_blocking(move || ask(&request, stdin_taken))
                    .await
                    .unwrap_or(ApprovalDecision::Denied {
                        reason: "the approval prompt failed".to_owned(),
                    });
                asking.store(false, Ordering::SeqCst);
                decision
            }
        })
        // A tool linked into the binary that needs state toolwright does not have is a usage
        // error naming it, not a panic.
        .try_build()
        .map_err(|e| UsageError(e.to_string()))?;
    // The tool's client: a form on the terminal for elicitation, no sampling.
    let mut options = CallOptions::new().client(Terminal {
        stdin_taken,
        asking: Arc::clone(&asking),
    });
    if let Some(seconds) = args.timeout {
        options = options.timeout(Duration::from_secs(seconds));
    }
    let spinner = Spinner::start(format!("running {}", args.name), asking);
    let report = executor
        .execute_with(ToolCall::new("cli", args.name.clone(), arguments), options)
        .await;
    spinner.stop().await;
    let result = report.result;
    if report.outcome == toolwright_runtime::executor::Outcome::UnknownTool {
        // Perhaps the tool of an upstream that did not start: say which did not, and why.
        mounted.tell_down();
        // A name that is not a tool is the user's mistake, not the tool's: a usage error.
        let hint = crate::code_mode::off_hint(&args.name, args.code_mode.code_mode)
            .unwrap_or_else(|| "`toolwright list` shows them all".to_owned());
        return Err(Stop::Usage(
            result.error.unwrap_or(result.content) + "; " + &hint,
        ));
    }

    if args.json {
        let json = serde_json::to_string_pretty(&result).unwrap_or_default();
        print(|out| writeln!(out, "{json}"))?;
    } else if result.success {
        print(|out| {
            out.write_all(result.content.as_bytes())?;
            if result.content.ends_with('\n') {
                Ok(())
            } else {
                out.write_all(b"\n")
            }
        })?;
    } else {
        // The error may quote the model's arguments or a file: shown as the prompt shows
        // them.
        eprintln!(
            "error: {}",
            visible_lines(result.error.as_deref().unwrap_or(&result.content))
        );
    }
    Ok(if result.success {
        Outcome::Success
    } else {
        Outcome::ToolFailed
    })
}

/// The arguments: JSON text, `@file`, or `-` for stdin; `{}` when absent.
fn read_arguments(given: Option<&str>) -> Result<Value, UsageError> {
    let (text, from) = match given {
        None => return Ok(Value::Object(Default::default())),
        Some("-") => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| UsageError(format!("cannot read the arguments from stdin: {e}")))?;
            (text, "stdin".to_owned())
        }
        Some(path) if path.starts_with('@') => {
            let path = &path[1..];
            let text = std::fs::read_to_string(path)
                .map_err(|e| UsageError(format!("cannot read the arguments from `{path}`: {e}")))?;
            (text, format!("`{path}`"))
        }
        Some(text) => (text.to_owned(), "the command line".to_owned()),
    };
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| UsageError(format!("the arguments from {from} are not valid JSON: {e}")))?;
    if !value.is_object() {
        return Err(UsageError(format!(
            "the arguments from {from} must be a JSON object of named parameters, like '{{\"path\": \"README.md\"}}'"
        )));
    }
    Ok(value)
}

/// Shows the call on stderr and asks on the terminal (see [`approval_prompt`]).
fn ask(request: &ApprovalRequest, stdin_taken: bool) -> ApprovalDecision {
    let mut err = std::io::stderr().lock();
    let colors = hunks::use_colors(
        std::io::stderr().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
        std::env::var_os("TERM").as_deref(),
    );
    approval_prompt(request, answers(stdin_taken).as_mut(), &mut err, colors)
}

/// Shows the call on `out` and reads the answer from `input` (`None`: there is no terminal,
/// which denies): a file change hunk by hunk (as `git add -p`, see [`hunks::ask_hunks`]),
/// anything else once (`Run it? [y/N]`).
fn approval_prompt(
    request: &ApprovalRequest,
    input: Option<&mut impl BufRead>,
    out: &mut impl Write,
    colors: bool,
) -> ApprovalDecision {
    let _ = writeln!(
        out,
        "\n`{}` is {} and needs your approval.",
        request.tool, request.safety
    );
    let Some(input) = input else {
        show_call(request, out);
        return ApprovalDecision::Denied {
            reason:
                "there is no terminal to ask for approval; pass --yes to approve dangerous tools"
                    .to_owned(),
        };
    };
    let change = request
        .change
        .as_ref()
        .filter(|change| !change.hunks.is_empty());
    if let Some(change) = change {
        // The hunks are the whole of what the call would do: shown instead of the
        // arguments (which hold the same text again).
        let count = change.hunks.len();
        // A link is named as what it leads to: the file really changed.
        let link = change
            .requested
            .as_deref()
            .map(|requested| format!(" (`{}` is a link to it)", visible_lines(requested)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "It changes `{}`{link} in {count} {}: answer for each.\n",
            visible_lines(&change.path),
            if count == 1 { "hunk" } else { "hunks" }
        );
        return hunks::ask_hunks(change, input, out, colors);
    }
    show_call(request, out);
    let _ = write!(out, "Run it? [y/N] ");
    let _ = out.flush();
    let mut answer = String::new();
    match input.read_line(&mut answer) {
        Ok(n) if n > 0 && matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") => {
            ApprovalDecision::Approved
        }
        _ => ApprovalDecision::Denied {
            reason: "you said no".to_owned(),
        },
    }
}

/// The call's arguments and its preview (a file change as one diff), with what a model
/// wrote in them unable to drive the terminal (escapes, carriage returns, bidi controls).
fn show_call(request: &ApprovalRequest, err: &mut impl Write) {
    let arguments = serde_json::to_string_pretty(&request.arguments).unwrap_or_default();
    let _ = writeln!(err, "arguments: {}", visible_lines(&arguments));
    if let Some(preview) = &request.preview {
        let _ = writeln!(err, "\n{}", visible_lines(preview));
    }
}

/// Where the answers come from: stdin if it is a terminal and does not carry the arguments,
/// else the controlling terminal; `None` when there is no terminal.
fn answers(stdin_taken: bool) -> Option<Box<dyn BufRead>> {
    if !stdin_taken && std::io::stdin().is_terminal() {
        return Some(Box::new(std::io::stdin().lock()));
    }
    let tty = std::fs::File::open("/dev/tty").ok()?;
    Some(Box::new(std::io::BufReader::new(tty)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolwright_core::file_change::FileChange;

    fn request(change: Option<FileChange>) -> ApprovalRequest {
        serde_json::from_value(serde_json::json!({
            "call_id": "1",
            "tool": "write_file",
            "description": "Write a file.",
            "safety": "dangerous",
            "arguments": {"path": "a.txt"},
            "preview": "the preview",
            "change": change,
        }))
        .unwrap()
    }

    fn prompt(request: &ApprovalRequest, answers: Option<&str>) -> (ApprovalDecision, String) {
        let mut out = Vec::new();
        let mut input = answers.map(str::as_bytes);
        let decision = approval_prompt(request, input.as_mut(), &mut out, false);
        (decision, String::from_utf8(out).unwrap())
    }

    #[test]
    fn a_call_without_a_change_is_asked_once() {
        let request = request(None);
        let (decision, out) = prompt(&request, Some("y\n"));
        assert_eq!(decision, ApprovalDecision::Approved);
        assert!(out.contains("arguments: {"), "{out}");
        assert!(out.contains("\nthe preview\nRun it? [y/N] "), "{out}");
        let (decision, _) = prompt(&request, Some("\n"));
        assert!(matches!(decision, ApprovalDecision::Denied { .. }));
    }

    #[test]
    fn a_change_is_asked_hunk_by_hunk() {
        let change = FileChange::between("a.txt", "a\n", "b\n");
        let (decision, out) = prompt(&request(Some(change)), Some("n\n"));
        assert_eq!(
            decision,
            ApprovalDecision::Denied {
                reason: hunks::REJECTED_ALL.to_owned()
            }
        );
        assert!(
            out.contains("It changes `a.txt` in 1 hunk: answer for each."),
            "{out}"
        );
        assert!(
            out.contains("(1/1) Apply this hunk [y,n,a,d,q,?]? "),
            "{out}"
        );
        // The hunks are shown, not the arguments or the preview's text.
        assert!(!out.contains("arguments:"), "{out}");
        assert!(!out.contains("the preview"), "{out}");
    }

    #[test]
    fn what_a_model_wrote_cannot_drive_the_terminal() {
        // A path that would set the clipboard (OSC 52), erase the line above, or reorder
        // what follows; in the arguments, the preview and a change's path.
        let hostile = "a\u{1b}]52;c;Y3VybCBldmlsfHNo\u{7}\u{1b}[1A\u{1b}[2K\r\u{202e}\u{9b}\u{200b}\u{e0041}\u{2028}\u{fe0f}.txt";
        let mut call = request(None);
        call.arguments = serde_json::json!({"path": hostile, "content": "x\u{85}"});
        call.preview = Some(format!("create `{hostile}`\nsecond line"));
        let (_, out) = prompt(&call, Some("n\n"));
        for raw in [
            '\u{1b}',
            '\u{7}',
            '\r',
            '\u{202e}',
            '\u{9b}',
            '\u{85}',
            '\u{200b}',
            '\u{e0041}',
            '\u{2028}',
            '\u{fe0f}',
        ] {
            assert!(!out.contains(raw), "{raw:?} reached the terminal: {out:?}");
        }
        assert!(
            out.contains("^[]52;c;Y3VybCBldmlsfHNo^G^[[1A^[[2K^M"),
            "{out}"
        );
        assert!(out.contains("\nsecond line\n"), "{out}");
        let change = FileChange::between(hostile, "a\n", "b\n");
        let (_, out) = prompt(&request(Some(change)), Some("n\n"));
        assert!(!out.contains('\u{1b}'), "{out:?}");
        assert!(out.contains("It changes `a^[]52;"), "{out}");
    }

    #[test]
    fn without_a_terminal_the_call_is_shown_and_denied() {
        let change = FileChange::between("a.txt", "a\n", "b\n");
        let (decision, out) = prompt(&request(Some(change)), None);
        let ApprovalDecision::Denied { reason } = decision else {
            panic!("{decision:?}");
        };
        assert!(reason.contains("pass --yes"), "{reason}");
        assert!(out.contains("the preview"), "{out}");
        assert!(!out.contains("Apply this hunk"), "{out}");
    }
}
