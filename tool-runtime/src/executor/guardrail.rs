//! Guardrails: policy code that may stop a call, rewrite its arguments, or redact its
//! output before the model sees it. Unlike hooks (observers), guardrails decide; they run in
//! the order they were added, and one that panics denies.

use serde_json::Value;

use toolwright_core::BoxFuture;
use toolwright_core::SafetyLevel;
use toolwright_core::ToolOutput;

/// The call a guardrail is asked about: the tool, its safety level and the arguments it
/// would run with (unredacted: a guardrail is the application's own policy code).
///
/// ```
/// use toolwright_core::serde_json::json;
/// use toolwright_core::SafetyLevel;
/// use toolwright_runtime::executor::GuardedCall;
///
/// let call = GuardedCall::new("c1", "write_file", SafetyLevel::Dangerous, json!({"path": "a"}));
/// assert_eq!(call.arguments["path"], "a");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct GuardedCall {
    /// The call's id.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The tool's safety level.
    pub safety: SafetyLevel,
    /// The arguments, as a JSON object (after earlier guardrails' rewrites).
    pub arguments: Value,
}

impl GuardedCall {
    /// A call of `tool` with `arguments` (for testing a guardrail on its own).
    pub fn new(
        call_id: impl Into<String>,
        tool: impl Into<String>,
        safety: SafetyLevel,
        arguments: Value,
    ) -> Self {
        GuardedCall {
            call_id: call_id.into(),
            tool: tool.into(),
            safety,
            arguments,
        }
    }
}

/// What a guardrail says before a call runs.
///
/// ```
/// use toolwright_core::serde_json::json;
/// use toolwright_runtime::executor::CallVerdict;
///
/// let narrowed = CallVerdict::Rewrite { arguments: json!({"path": "sandbox/a"}) };
/// assert_ne!(narrowed, CallVerdict::Allow);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum CallVerdict {
    /// Let the call go on (to the next guardrail, then the approval policy).
    Allow,
    /// Refuse it; the model is told `reason`.
    Deny {
        /// Why, for the model.
        reason: String,
    },
    /// Go on with these arguments instead (a JSON object; the tool reads them again, so
    /// arguments that do not fit fail the call like a model's would).
    Rewrite {
        /// The arguments to use.
        arguments: Value,
    },
}

/// What a guardrail says about a call's output, before the model sees it.
///
/// ```
/// use toolwright_core::ToolOutput;
/// use toolwright_runtime::executor::OutputVerdict;
///
/// let redacted = OutputVerdict::Replace(ToolOutput::text("[output withheld: it held a key]"));
/// # let _ = redacted;
/// ```
#[derive(Debug, Clone)]
pub enum OutputVerdict {
    /// Pass the output on unchanged.
    Keep,
    /// Give the model this output instead (a redacted copy, a summary).
    Replace(ToolOutput),
    /// Give the model no output: the call fails with `reason`.
    Withhold {
        /// Why, for the model.
        reason: String,
    },
}

/// Policy code around every call, on the executor
/// ([`ExecutorBuilder::guardrail`](crate::executor::ExecutorBuilder::guardrail)): `check_call` runs after
/// the safety ceiling and before the approval policy (so an approver sees the rewritten
/// arguments), `check_output` after the tool succeeded and before hooks and the model see
/// the result. Both default to letting everything through. A guardrail that panics denies the
/// call (or withholds its output): the executor fails closed.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use std::sync::Arc;
/// use toolwright_core::serde_json::json;
/// use toolwright_runtime::executor::{CallVerdict, GuardedCall, Guardrail, OutputVerdict};
/// use toolwright_core::{tool, BoxFuture, ToolCall, ToolOutput};
/// use toolwright_runtime::{register_all_tools, Executor};
///
/// /// Look up a customer.
/// #[tool]
/// fn lookup_customer(email: String) -> String { format!("{email}: card 4111-1111-1111-1111") }
///
/// /// No lookups outside the company; no card numbers back to the model.
/// struct Privacy;
///
/// impl Guardrail for Privacy {
///     fn check_call(&self, call: GuardedCall) -> BoxFuture<CallVerdict> {
///         let inside = call.arguments["email"].as_str().is_some_and(|e| e.ends_with("@example.com"));
///         Box::pin(async move {
///             if inside { CallVerdict::Allow } else { CallVerdict::Deny { reason: "only example.com customers".into() } }
///         })
///     }
///
///     fn check_output(&self, _call: GuardedCall, output: ToolOutput) -> BoxFuture<OutputVerdict> {
///         Box::pin(async move {
///             if output.content.contains("4111") {
///                 OutputVerdict::Replace(ToolOutput::text(output.content.replace("4111-1111-1111-1111", "[card]")))
///             } else {
///                 OutputVerdict::Keep
///             }
///         })
///     }
/// }
///
/// let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).guardrail(Privacy).build();
/// let ok = executor.execute(ToolCall::new("1", "lookup_customer", json!({"email": "ann@example.com"}))).await;
/// assert_eq!(ok.content, "ann@example.com: card [card]");
/// let denied = executor.execute(ToolCall::new("2", "lookup_customer", json!({"email": "x@evil.test"}))).await;
/// assert_eq!(denied.error.as_deref(), Some("tool `lookup_customer` was not run: only example.com customers"));
/// # }
/// ```
pub trait Guardrail: Send + Sync + 'static {
    /// Decides on a call before the approval policy.
    fn check_call(&self, call: GuardedCall) -> BoxFuture<CallVerdict> {
        let _ = call;
        Box::pin(async { CallVerdict::Allow })
    }

    /// Decides on a successful call's output before the model sees it.
    fn check_output(&self, call: GuardedCall, output: ToolOutput) -> BoxFuture<OutputVerdict> {
        let _ = (call, output);
        Box::pin(async { OutputVerdict::Keep })
    }
}
