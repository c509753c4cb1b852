//! Running a call as a task, on the replica that took the `tools/call`: through the
//! executor as every call runs (policy, approval, hooks, metrics, limits), with the task's
//! own cancellation, progress into the task's status message, the tool's questions and a
//! deferred approval asked through `inputRequests`, and the end written to the store.

use std::sync::Arc;

use rmcp::model::{ElicitRequest, ElicitRequestParams, ElicitationSchema, InputRequest};
use serde_json::{Map, Value, json};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use toolwright_core::client::{
    ClientFuture, ClientPowers, ElicitationRequest, Root, RootsRequest, SampledMessage,
    SamplingRequest,
};
use toolwright_core::{ClientError, Elicitation, SafetyLevel, ToolCall};
use toolwright_formats::schema::mcp_output_schema;
use toolwright_runtime::executor::{CallReport, Outcome, Progress, ResumeError};
use toolwright_runtime::{ApprovalDecision, ApprovalRequest, CallOptions};

use crate::ask::approval::printable;
use crate::content::call_tool_result;
use crate::server::setup::McpServer;
use crate::tasks::handle::{Ending, Interrupted, TaskHandle};

/// Who approves a dangerous call of a task: what `McpServer`'s approval for a plain call
/// decides, except that a client that may approve is asked through the task's
/// `inputRequests` (the call is deferred, and resumed with the answer) instead of a request
/// of the server's own, which a task has no open request to carry.
#[derive(Clone)]
pub(crate) enum TaskApproval {
    /// Defer: the client's user answers the form in `inputRequests`.
    AskTheClient,
    /// The server lets dangerous calls run (`McpServer::allow_dangerous`).
    Approve,
    /// The executor's own approval handler decides.
    Executor,
    /// Refused, for this reason.
    Deny(String),
}

/// How a task starts.
pub(crate) enum Start {
    /// With the call: the task runs it from the beginning.
    Call(ToolCall),
    /// With a call the executor deferred (a plain `tools/call` whose approval was put off),
    /// whose form is already in the task's `inputRequests` under the key.
    Deferred {
        report: Box<CallReport>,
        key: String,
    },
}

/// One task's run.
pub(crate) struct Job {
    pub(crate) server: McpServer,
    pub(crate) handle: Arc<TaskHandle>,
    pub(crate) tool: String,
    /// The caller's safety ceiling.
    pub(crate) ceiling: SafetyLevel,
    pub(crate) approval: TaskApproval,
    /// Whether the client declared elicitation: then a tool may ask its user through the
    /// task.
    pub(crate) elicitation: bool,
    /// Whether the client may answer a deferred approval (it declared elicitation, the
    /// server asks clients, and the caller may approve): otherwise a deferred call stays
    /// pending, for whoever deferred it.
    pub(crate) may_approve: bool,
    /// Whose the call is: its deferred approval counts against this owner's share.
    pub(crate) owner: String,
    /// The caller's share of calls in flight, entered again when the call is resumed after
    /// its approval (the request that made the task is long gone by then).
    pub(crate) share: crate::caller::ShareTicket,
    /// The answers of the call that made the task (`#[tool(ask_first)]`): the run's
    /// questions are answered from them first.
    pub(crate) answers: Option<Arc<crate::ask::rounds::Round>>,
    /// Set when the task asked the executor to defer the approval (`AskTheClient`): a first
    /// run that then did not end pending was refused by a limit of the waiting approvals.
    pub(crate) deferred: Arc<std::sync::atomic::AtomicBool>,
    /// Who made the call (its subject and bearer token), for a tool that acts as the caller.
    pub(crate) caller: Option<toolwright_core::Caller>,
}

/// Where a run stopped.
enum Settled {
    /// The executor's report (a `Pending` one when the deferred call can no longer be
    /// resumed here).
    Report(Box<CallReport>),
    /// Waiting for an answer ended without one.
    Interrupted(Interrupted),
    /// The answer came, but the deferred call could not be resumed.
    NotResumed(ResumeError),
    /// The answer came, but the caller had its share of calls in flight: refused at once.
    Refused(rmcp::ErrorData),
}

impl Job {
    /// Runs the task to its end, and writes the end. `share` (the caller's share of calls in
    /// flight) is held while the call first runs.
    pub(crate) async fn run(self, start: Start, share: Option<crate::caller::ShareSlot>) {
        let done = CancellationToken::new();
        let watcher = {
            let handle = Arc::clone(&self.handle);
            let done = done.clone();
            tokio::spawn(async move { handle.watch(done).await })
        };
        let (report, asked) = {
            // The share is held while the call first runs, and let go here.
            let _share = share;
            match start {
                Start::Call(call) => {
                    let _running = self.server.calls.enter();
                    let report = self
                        .server
                        .executor()
                        .execute_with(call, self.options())
                        .await;
                    if self.deferred.load(std::sync::atomic::Ordering::Relaxed)
                        && report.outcome != Outcome::Pending
                    {
                        crate::refused::LimitRefusals::count(
                            &self.server.refused.pending_approvals,
                        );
                    }
                    (report, None)
                }
                Start::Deferred { report, key } => (*report, Some(key)),
            }
        };
        let settled = self.settle(report, asked).await;
        self.end(settled).await;
        done.cancel();
        let _ = watcher.await;
    }

    /// While the call waits for a person's approval: asks the client through the task,
    /// and resumes the call with the answer.
    async fn settle(&self, mut report: CallReport, mut asked: Option<String>) -> Settled {
        let executor = self.server.executor();
        while report.outcome == Outcome::Pending && self.may_approve {
            let Some(token) = report
                .result
                .metadata
                .pending
                .as_ref()
                .map(|p| p.token.clone())
            else {
                break;
            };
            let Some(waiting) = executor
                .pending_approvals()
                .into_iter()
                .find(|pending| pending.token == token)
            else {
                // Resumed by someone else, or expired: the pending result is the answer.
                break;
            };
            let answer = match asked.take() {
                Some(key) => self.handle.answer(&key).await,
                None => match crate::ask::approval::input_request(&waiting.request) {
                    Ok(form) => {
                        self.handle
                            .request_input("approval", form, waiting_message(&waiting.request))
                            .await
                    }
                    Err(error) => Err(Interrupted::Unaskable(error)),
                },
            };
            let decision = match answer {
                Ok(answer) => crate::ask::approval::decision_from_answer(&waiting.request, &answer),
                Err(Interrupted::Unaskable(error)) => ApprovalDecision::Denied {
                    reason: format!("could not ask the user: {error}"),
                },
                Err(interrupted) => {
                    // Nobody will answer: the call must not run later by its token.
                    let _ = executor.take_pending(&token);
                    return Settled::Interrupted(interrupted);
                }
            };
            // The resumed call counts against its caller's share like any call; over it,
            // refused at once (the call must not run later by its token either).
            let _share = match self.share.enter() {
                Ok(slot) => slot,
                Err(refused) => {
                    let _ = executor.take_pending(&token);
                    return Settled::Refused(refused);
                }
            };
            let _running = self.server.calls.enter();
            report = match executor.resume_with(&token, decision, self.options()).await {
                Ok(report) => report,
                Err(error) => return Settled::NotResumed(error),
            };
        }
        Settled::Report(Box::new(report))
    }

    /// Writes how the task ended.
    async fn end(&self, settled: Settled) {
        let ending = match settled {
            Settled::Interrupted(Interrupted::Cancelled) => Ending::Cancelled,
            Settled::Interrupted(Interrupted::Gone) => {
                tracing::info!(task = %self.handle.id, "a task expired while it waited for the client");
                return;
            }
            Settled::Interrupted(Interrupted::Unaskable(error)) => failed(
                rmcp::ErrorData::internal_error(error, None),
                "the client could not be asked".to_owned(),
            ),
            Settled::Interrupted(Interrupted::Store(error)) => failed(
                rmcp::ErrorData::internal_error(error.to_string(), None),
                "the task store failed".to_owned(),
            ),
            Settled::Refused(error) => {
                let message = format!("`{}` was not resumed: {}", self.tool, error.message);
                failed(error, message)
            }
            Settled::NotResumed(error) => {
                let result =
                    rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(
                        format!("tool `{}` was not run: {error}", self.tool),
                    )]);
                self.completed(&result)
            }
            Settled::Report(report)
                if report.outcome == Outcome::Cancelled
                    && self.handle.cancellation().is_cancelled() =>
            {
                Ending::Cancelled
            }
            Settled::Report(report) if report.outcome == Outcome::UnknownTool => {
                let message = report
                    .result
                    .error
                    .unwrap_or_else(|| format!("unknown tool `{}`", self.tool));
                failed(
                    rmcp::ErrorData::invalid_params(message, Some(json!({"tool": self.tool}))),
                    format!("no tool `{}` to run", self.tool),
                )
            }
            // A crash is an internal failure, not a result (SEP-2663: `failed` is for
            // JSON-RPC errors, `completed` for results, `isError` ones included).
            Settled::Report(report) if report.crashed => {
                let message = report
                    .result
                    .error
                    .unwrap_or_else(|| format!("tool `{}` crashed", self.tool));
                failed(
                    rmcp::ErrorData::internal_error(message, Some(json!({"tool": self.tool}))),
                    format!("`{}` crashed", self.tool),
                )
            }
            Settled::Report(report) => {
                let report = *report;
                // Structured content only where the tool declares an (object) output schema.
                let structured = report.tool.as_ref().and_then(mcp_output_schema).is_some();
                self.completed(&call_tool_result(report.result, structured))
            }
        };
        self.handle.finish(ending).await;
    }

    /// `completed` with `result`, or `failed` when it is larger than the store keeps.
    fn completed(&self, result: &rmcp::model::CallToolResult) -> Ending {
        let limit = self.handle.config.limits.result_bytes();
        let json = match serde_json::to_value(result) {
            Ok(Value::Object(json)) => json,
            Ok(_) | Err(_) => {
                return failed(
                    rmcp::ErrorData::internal_error(
                        "the tool's result could not be written as JSON",
                        None,
                    ),
                    "the result could not be kept".to_owned(),
                );
            }
        };
        let size = serde_json::to_vec(&json).map_or(usize::MAX, |bytes| bytes.len());
        if size > limit {
            return failed(
                rmcp::ErrorData::internal_error(
                    format!(
                        "the result of `{}` is {size} bytes, more than the {limit} bytes this \
                         server keeps for a task; call it for less output (the operator can \
                         raise the limit with `McpServer::task_limits`)",
                        self.tool
                    ),
                    None,
                ),
                "the result was too large to keep".to_owned(),
            );
        }
        Ending::Completed(json)
    }

    /// The options of the task's call (and of its resumption after an approval).
    fn options(&self) -> CallOptions {
        let client = TaskClient {
            handle: Arc::clone(&self.handle),
            elicitation: self.elicitation,
            answers: self.answers.as_ref().map(|round| round.carried()),
        };
        let mut options = CallOptions::new()
            .owner(self.owner.as_str())
            .cancellation(self.handle.cancellation().clone())
            .max_safety(self.ceiling)
            .shared_client(Arc::new(client));
        if let Some(counts) = &self.server.call_counts {
            options = options.call_counts(Arc::clone(counts));
        }
        if let Some(caller) = &self.caller {
            options = options.caller(caller.clone());
        }
        // Progress becomes the task's status message: the latest report is written when
        // the one before it is, so a chatty tool does not queue writes.
        let (progress, mut reports) = watch::channel::<Option<String>>(None);
        let handle = Arc::clone(&self.handle);
        tokio::spawn(async move {
            while reports.changed().await.is_ok() {
                let message = reports.borrow_and_update().clone();
                if let Some(message) = message {
                    handle.report(message).await;
                }
            }
        });
        options = options.progress(move |report| {
            let _ = progress.send(Some(describe(&report)));
        });
        match &self.approval {
            TaskApproval::AskTheClient => {
                let deferred = Arc::clone(&self.deferred);
                options.approval(move |_: ApprovalRequest| {
                    deferred.store(true, std::sync::atomic::Ordering::Relaxed);
                    async { ApprovalDecision::Defer }
                })
            }
            TaskApproval::Approve => {
                options.approval(|_: ApprovalRequest| async { ApprovalDecision::Approved })
            }
            TaskApproval::Executor => options,
            TaskApproval::Deny(reason) => {
                let reason = reason.clone();
                options.approval(move |_: ApprovalRequest| {
                    let reason = reason.clone();
                    async move { ApprovalDecision::Denied { reason } }
                })
            }
        }
    }
}

/// A task's end as a JSON-RPC error.
fn failed(error: rmcp::ErrorData, message: String) -> Ending {
    let error = match serde_json::to_value(&error) {
        Ok(Value::Object(error)) => error,
        _ => Map::new(),
    };
    Ending::Failed { error, message }
}

/// The status message of a task waiting for its approval.
fn waiting_message(request: &ApprovalRequest) -> String {
    format!(
        "waiting for the user to approve the {} tool `{}` (answer the approval request in \
         inputRequests with tasks/update)",
        request.safety,
        printable(&request.tool)
    )
}

/// A progress report as a status message: its message, and how far along.
fn describe(report: &Progress) -> String {
    let amount = match report.total {
        Some(total) => format!("{}/{}", report.progress, total),
        None => report.progress.to_string(),
    };
    match &report.message {
        Some(message) => format!("{} ({amount})", printable(message)),
        None => format!("progress {amount}"),
    }
}

/// What a tool running as a task may ask of the client: its questions go to the task's
/// `inputRequests` (the client answers them with `tasks/update`); it has no request of
/// its own to carry log messages (SEP-2663: not on tasks) or sampling requests.
struct TaskClient {
    handle: Arc<TaskHandle>,
    elicitation: bool,
    /// The answers the call that made the task brought (`#[tool(ask_first)]`), for this run.
    answers: Option<Arc<crate::ask::rounds::Round>>,
}

impl ClientPowers for TaskClient {
    fn elicit(
        &self,
        request: ElicitationRequest,
    ) -> ClientFuture<Result<Elicitation<Value>, ClientError>> {
        if !self.elicitation {
            return Box::pin(async {
                Err(ClientError::NotAvailable {
                    what: "elicitation",
                    why: "the MCP client did not declare the elicitation capability".to_owned(),
                })
            });
        }
        let schema = match serde_json::from_value::<ElicitationSchema>(request.schema) {
            Ok(schema) => schema,
            Err(error) => {
                return Box::pin(async move {
                    Err(ClientError::UnsupportedSchema(format!(
                        "MCP's elicitation schema does not accept it ({error})"
                    )))
                });
            }
        };
        let message = if request.tool.is_empty() {
            printable(&request.message).into_owned()
        } else {
            format!(
                "Tool `{}` asks: {}",
                printable(&request.tool),
                printable(&request.message)
            )
        };
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: schema,
        };
        // Asked in the call that made the task, and answered there: the same question (the
        // same form and words) finds its answer.
        if let Some(round) = &self.answers
            && let Some(answer) = round.answered_elicitation(params.clone(), request.key.as_deref())
        {
            return Box::pin(async move { answer });
        }
        let question = serde_json::to_value(InputRequest::Elicitation(ElicitRequest::new(params)));
        let handle = Arc::clone(&self.handle);
        let tool = request.tool;
        Box::pin(async move {
            let question = question.map_err(|error| {
                ClientError::Protocol(format!("could not write the question: {error}"))
            })?;
            let waiting = format!(
                "waiting for the user to answer a question of `{}` (in inputRequests)",
                printable(&tool)
            );
            match handle.request_input("elicitation", question, waiting).await {
                Ok(answer) => crate::ask::answers::read_elicitation(answer),
                Err(Interrupted::Cancelled | Interrupted::Gone) => Err(ClientError::Cancelled),
                Err(Interrupted::Store(error)) => Err(ClientError::Protocol(error.to_string())),
                Err(Interrupted::Unaskable(error)) => Err(ClientError::Protocol(error)),
            }
        })
    }

    // rmcp marks sampling deprecated (SEP-2577); the 2026-07-28 revision still carries it.
    #[allow(deprecated)]
    fn sample(
        &self,
        request: SamplingRequest,
    ) -> ClientFuture<Result<SampledMessage, ClientError>> {
        // Asked and answered in the call that made the task (`#[tool(ask_first)]`).
        if let Some(round) = &self.answers {
            let answer = crate::client::sampling_params(&request).and_then(|params| {
                round.sample(
                    rmcp::model::CreateMessageRequest::new(params),
                    request.key.as_deref(),
                )
            });
            if !matches!(answer, Err(ClientError::InputRequired)) {
                let answer = answer.and_then(|result| crate::client::sampled(&result));
                return Box::pin(async move { answer });
            }
        }
        Box::pin(async {
            Err(ClientError::NotAvailable {
                what: "sampling",
                why: "a tool running as an MCP task cannot ask the client's model on this server"
                    .to_owned(),
            })
        })
    }

    fn roots(&self, request: RootsRequest) -> ClientFuture<Result<Vec<Root>, ClientError>> {
        // Asked and answered in the call that made the task (`#[tool(ask_first)]`).
        if let Some(round) = &self.answers {
            let answer = round.list_roots(request.key.as_deref());
            if !matches!(answer, Err(ClientError::InputRequired)) {
                return Box::pin(async move { answer });
            }
        }
        Box::pin(async {
            Err(ClientError::NotAvailable {
                what: "roots",
                why: "a tool running as an MCP task cannot ask for the client's roots on this \
                      server (ask for them first: `#[tool(ask_first)]`)"
                    .to_owned(),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_reads_as_a_status_message() {
        let report = |progress: f64, total: Option<f64>, message: Option<&str>| Progress {
            progress,
            total,
            message: message.map(str::to_owned),
        };
        assert_eq!(describe(&report(3.0, Some(10.0), None)), "progress 3/10");
        assert_eq!(describe(&report(0.5, None, None)), "progress 0.5");
        assert_eq!(
            describe(&report(2.0, Some(4.0), Some("copying\u{202e}"))),
            "copying\\u{202e} (2/4)"
        );
    }

    #[test]
    fn answers_are_read_as_elicitation_results() {
        let accepted =
            crate::ask::answers::read_elicitation(json!({"action": "accept", "content": {"x": 1}}))
                .unwrap();
        assert!(matches!(accepted, Elicitation::Accepted(content) if content["x"] == 1));
        assert!(matches!(
            crate::ask::answers::read_elicitation(json!({"action": "decline"})).unwrap(),
            Elicitation::Declined
        ));
        assert!(matches!(
            crate::ask::answers::read_elicitation(json!({"action": "cancel"})).unwrap(),
            Elicitation::Cancelled
        ));
        assert!(matches!(
            crate::ask::answers::read_elicitation(json!("yes")),
            Err(ClientError::InvalidAnswer(_))
        ));
    }
}
