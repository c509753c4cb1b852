//! Completions of prompt arguments and resource template variables (MCP's
//! `completion/complete`): what a client asks and what a completion function answers.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::tool::BoxFuture;

/// The most values one answer carries (MCP's limit).
pub const MAX_COMPLETIONS: usize = 100;

/// What a client asks to complete: one argument (or template variable), what the person
/// typed so far, and the values already given for the others.
///
/// ```
/// use toolwright_core::CompletionRequest;
/// let request = CompletionRequest::new("language", "ru");
/// assert_eq!((request.argument.as_str(), request.value.as_str()), ("language", "ru"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompletionRequest {
    /// The argument's (or variable's) name.
    pub argument: String,
    /// What was typed so far.
    pub value: String,
    /// The values of the other arguments already resolved.
    pub context: BTreeMap<String, String>,
    /// The authenticated subject asking, when there is one: set by the executor from
    /// its call options (a client's own value is replaced), so a completion that spends
    /// a shared resource (a mounted server's limits) can count it against the caller's
    /// share. `None` for the local user.
    pub caller: Option<String>,
}

impl CompletionRequest {
    /// A request for `argument` with `value` typed so far and no context.
    pub fn new(argument: impl Into<String>, value: impl Into<String>) -> Self {
        CompletionRequest {
            argument: argument.into(),
            value: value.into(),
            context: BTreeMap::new(),
            caller: None,
        }
    }

    /// The same request with `name` already resolved to `value`.
    pub fn with_context(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.context.insert(name.into(), value.into());
        self
    }
}

/// A completion function's answer: at most [`MAX_COMPLETIONS`] values, how many exist in
/// all (when known), and whether there are more than those given.
///
/// ```
/// use toolwright_core::Completions;
///
/// let langs = ["python", "rust", "ruby"];
/// let done = Completions::matching(langs, "ru");
/// assert_eq!(done.values, ["rust", "ruby"]);
/// assert!(!done.has_more);
/// let many = Completions::new((0..150).map(|i| i.to_string()));
/// assert_eq!((many.values.len(), many.total, many.has_more), (100, Some(150), true));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completions {
    /// The values, at most [`MAX_COMPLETIONS`].
    pub values: Vec<String>,
    /// How many values exist in all, when known.
    pub total: Option<u32>,
    /// Whether more values exist than those given.
    pub has_more: bool,
}

impl Completions {
    /// The first [`MAX_COMPLETIONS`] of `values`, with the total and `has_more` set when
    /// there were more.
    pub fn new<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut all = values.into_iter();
        let values: Vec<String> = all.by_ref().take(MAX_COMPLETIONS).map(Into::into).collect();
        let rest = all.count();
        let total = values.len() + rest;
        Completions {
            values,
            total: (rest > 0).then(|| u32::try_from(total).unwrap_or(u32::MAX)),
            has_more: rest > 0,
        }
    }

    /// The `candidates` that start with `prefix` (ignoring ASCII case), as [`new`](Self::new).
    pub fn matching<I, S>(candidates: I, prefix: &str) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let prefix = prefix.to_ascii_lowercase();
        Completions::new(
            candidates
                .into_iter()
                .map(Into::into)
                .filter(|c: &String| c.to_ascii_lowercase().starts_with(&prefix)),
        )
    }

    /// No values.
    pub fn none() -> Self {
        Completions::default()
    }

    /// The same answer cut to [`MAX_COMPLETIONS`] values (`has_more` set when it cut): what
    /// a server sends whatever a completion function returned.
    pub fn capped(mut self) -> Self {
        if self.values.len() > MAX_COMPLETIONS {
            let total = self.values.len();
            self.values.truncate(MAX_COMPLETIONS);
            self.has_more = true;
            self.total = Some(
                self.total
                    .unwrap_or(u32::try_from(total).unwrap_or(u32::MAX)),
            );
        }
        self
    }
}

/// A synchronous completion function (what `.completion(..)` of the builders and
/// `complete(arg = path)` of the macros take).
pub type CompletionFn = Arc<dyn Fn(&CompletionRequest) -> Completions + Send + Sync>;

/// The answer of a completion function, sync or async, as [`Prompt::complete`] and
/// [`Resource::complete`] return it: already capped at [`MAX_COMPLETIONS`] values.
///
/// [`Prompt::complete`]: crate::Prompt::complete
/// [`Resource::complete`]: crate::Resource::complete
pub type CompletionFuture = BoxFuture<Completions>;

/// An asynchronous completion function (what `.completion_async(..)` of the builders take):
/// one that must ask someone else, like a mounted server, without holding a thread.
pub type AsyncCompletionFn = Arc<dyn Fn(CompletionRequest) -> CompletionFuture + Send + Sync>;

/// What completes one argument of a prompt or one variable of a resource template.
#[derive(Clone)]
pub(crate) enum Completer {
    Sync(CompletionFn),
    Async(AsyncCompletionFn),
}

impl Completer {
    /// Runs the function: a sync one now (a panic unwinds to the caller, who catches it),
    /// an async one when the future is polled.
    pub(crate) fn complete(&self, request: &CompletionRequest) -> CompletionFuture {
        match self {
            Completer::Sync(complete) => Box::pin(std::future::ready(complete(request).capped())),
            Completer::Async(complete) => {
                let answer = complete(request.clone());
                Box::pin(async move { answer.await.capped() })
            }
        }
    }
}
