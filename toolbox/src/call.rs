//! `toolbox call`: one tool, through the executor, asking on the terminal before a dangerous
//! call (and for a tool's elicitation: `prompt`).

use std::io::{BufRead, IsTerminal, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;
use tool_runtime::{
    ApprovalDecision, ApprovalRequest, CallOptions, Executor, SafetyLevel, ToolCall,
};

use crate::cli::CallArgs;
use crate::ending::{Outcome, UsageError, registry};
use crate::prompt::Terminal;
use crate::spinner::Spinner;
use crate::workspace::workspace;

pub(crate) async fn call(args: CallArgs) -> Result<Outcome, UsageError> {
    let registry = registry()?;
    let arguments = read_arguments(args.arguments.as_deref())?;
    let workspace = workspace(&args.workspace)?;
    let stdin_taken = args.arguments.as_deref() == Some("-");
    // While the user is asked, the spinner keeps quiet.
    let asking = Arc::new(AtomicBool::new(false));
    let asking_flag = Arc::clone(&asking);
    let yes = args.yes;
    let executor = Executor::builder(Arc::new(registry))
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
        // A tool linked into the binary that needs state toolbox does not have is a usage
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
        .execute_report(ToolCall::new("cli", args.name.clone(), arguments), options)
        .await;
    spinner.stop().await;
    let result = report.result;
    if report.outcome == tool_runtime::executor::Outcome::UnknownTool {
        // A name that is not a tool is the user's mistake, not the tool's: a usage error.
        return Err(UsageError(
            result.error.unwrap_or(result.content) + "; `toolbox list` shows them all",
        ));
    }

    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&result).unwrap_or_default()
        );
    } else if result.success {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(result.content.as_bytes());
        if !result.content.ends_with('\n') {
            let _ = out.write_all(b"\n");
        }
    } else {
        eprintln!(
            "error: {}",
            result.error.as_deref().unwrap_or(&result.content)
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

/// Shows the call on stderr and asks on the terminal.
fn ask(request: &ApprovalRequest, stdin_taken: bool) -> ApprovalDecision {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "\n`{}` is {} and needs your approval.",
        request.tool, request.safety
    );
    let _ = writeln!(
        err,
        "arguments: {}",
        serde_json::to_string_pretty(&request.arguments).unwrap_or_default()
    );
    if let Some(preview) = &request.preview {
        let _ = writeln!(err, "\n{preview}");
    }
    // The answer comes from the terminal: stdin if it is one and not used for the arguments,
    // else the controlling terminal.
    let answer = if !stdin_taken && std::io::stdin().is_terminal() {
        let _ = write!(err, "Run it? [y/N] ");
        let _ = err.flush();
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .ok()
            .map(|_| line)
    } else {
        match std::fs::File::open("/dev/tty") {
            Ok(tty) => {
                let _ = write!(err, "Run it? [y/N] ");
                let _ = err.flush();
                let mut line = String::new();
                std::io::BufReader::new(tty)
                    .read_line(&mut line)
                    .ok()
                    .map(|_| line)
            }
            Err(_) => None,
        }
    };
    match answer {
        Some(answer) if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") => {
            ApprovalDecision::Approved
        }
        Some(_) => ApprovalDecision::Denied {
            reason: "you said no".to_owned(),
        },
        None => ApprovalDecision::Denied {
            reason:
                "there is no terminal to ask for approval; pass --yes to approve dangerous tools"
                    .to_owned(),
        },
    }
}
