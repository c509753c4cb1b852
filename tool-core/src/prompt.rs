//! Prompts: templates of messages a person picks in a client (MCP's `prompts/*`), defined by
//! `#[prompt]` or at run time with [`Prompt::builder`].

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use toolwright_names::{check_primitive_name, did_you_mean};

use crate::completion::{CompletionFn, CompletionRequest, Completions};
use crate::content::Content;
use crate::context::ToolContext;
use crate::definition::ToolDefinitionError;
use crate::error::ToolError;
use crate::meta::ToolSource;
use crate::safety::SafetyLevel;
use crate::tool::BoxFuture;

/// The arguments of a prompt's get, by name (MCP prompt arguments are strings).
pub type PromptArguments = BTreeMap<String, String>;

/// One argument a prompt takes.
///
/// ```
/// use toolwright_core::PromptArgument;
/// let topic = PromptArgument::new("topic").description("What to write about").required(true);
/// assert!(topic.required);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// A title for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether a get without it fails.
    #[serde(default)]
    pub required: bool,
}

impl PromptArgument {
    /// An optional argument named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        PromptArgument {
            name: name.into(),
            title: None,
            description: None,
            required: false,
        }
    }

    /// The same argument with a title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The same argument with a description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The same argument, required or not.
    pub fn required(mut self, required: bool) -> Self {
        self.required = required;
        self
    }
}

/// Who says a prompt's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptRole {
    /// The person.
    User,
    /// The model.
    Assistant,
}

/// One message of a prompt.
///
/// ```
/// use toolwright_core::{PromptMessage, PromptRole};
/// let m = PromptMessage::user("Review this code.");
/// assert_eq!(m.role, PromptRole::User);
/// assert_eq!(m.content.as_text(), Some("Review this code."));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who says it.
    pub role: PromptRole,
    /// What is said: text, an image, audio, an embedded resource or a link.
    pub content: Content,
}

impl PromptMessage {
    /// A message of `role`.
    pub fn new(role: PromptRole, content: impl Into<Content>) -> Self {
        PromptMessage {
            role,
            content: content.into(),
        }
    }

    /// A message of the person.
    pub fn user(content: impl Into<Content>) -> Self {
        PromptMessage::new(PromptRole::User, content)
    }

    /// A message of the model.
    pub fn assistant(content: impl Into<Content>) -> Self {
        PromptMessage::new(PromptRole::Assistant, content)
    }
}

/// What a prompt's get returns: its messages, and a description of this instance.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PromptOutput {
    /// A description of the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
}

/// What a prompt's handler may return: text (one user message), messages, a whole output.
///
/// ```
/// use toolwright_core::{IntoPromptOutput, PromptMessage};
/// assert_eq!("hi".into_prompt_output().messages, [PromptMessage::user("hi")]);
/// ```
pub trait IntoPromptOutput {
    /// The output.
    fn into_prompt_output(self) -> PromptOutput;
}

impl IntoPromptOutput for PromptOutput {
    fn into_prompt_output(self) -> PromptOutput {
        self
    }
}

impl IntoPromptOutput for PromptMessage {
    fn into_prompt_output(self) -> PromptOutput {
        PromptOutput {
            description: None,
            messages: vec![self],
        }
    }
}

impl IntoPromptOutput for Vec<PromptMessage> {
    fn into_prompt_output(self) -> PromptOutput {
        PromptOutput {
            description: None,
            messages: self,
        }
    }
}

impl IntoPromptOutput for String {
    fn into_prompt_output(self) -> PromptOutput {
        PromptMessage::user(self).into_prompt_output()
    }
}

impl IntoPromptOutput for &str {
    fn into_prompt_output(self) -> PromptOutput {
        PromptMessage::user(self).into_prompt_output()
    }
}

type PromptHandler = Arc<
    dyn Fn(PromptArguments, ToolContext) -> BoxFuture<Result<PromptOutput, ToolError>>
        + Send
        + Sync,
>;

struct PromptInner {
    name: String,
    title: Option<String>,
    description: Option<String>,
    arguments: Vec<PromptArgument>,
    version: Option<String>,
    tags: Vec<String>,
    safety: SafetyLevel,
    source: ToolSource,
    handler: PromptHandler,
    completions: BTreeMap<String, CompletionFn>,
}

/// A prompt: its description, its arguments and the handler that makes its messages. Cheap
/// to clone (one shared allocation).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use toolwright_core::{Completions, Prompt, PromptArgument, ToolContext};
///
/// let review = Prompt::builder("code_review")
///     .description("Review a piece of code.")
///     .argument(PromptArgument::new("language").required(true))
///     .completion("language", |req| Completions::matching(["rust", "python"], &req.value))
///     .handler(|args, _ctx| async move {
///         Ok(format!("Review this {} code.", args["language"]))
///     })
///     .build()
///     .unwrap();
/// let args = [("language".to_owned(), "rust".to_owned())].into();
/// let out = review.get(args, ToolContext::for_primitive("code_review")).await.unwrap();
/// assert_eq!(out.messages[0].content.as_text(), Some("Review this rust code."));
/// let missing = review.get(Default::default(), ToolContext::new()).await.unwrap_err();
/// assert!(missing.to_string().contains("`language`"));
/// # }
/// ```
#[derive(Clone)]
pub struct Prompt {
    inner: Arc<PromptInner>,
}

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("name", &self.inner.name)
            .field("arguments", &self.inner.arguments)
            .field("version", &self.inner.version)
            .finish_non_exhaustive()
    }
}

impl Prompt {
    /// Starts a prompt defined at run time.
    #[track_caller]
    pub fn builder(name: impl Into<String>) -> PromptBuilder {
        let caller = Location::caller();
        PromptBuilder {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            version: None,
            tags: Vec::new(),
            safety: SafetyLevel::Safe,
            source: ToolSource {
                crate_name: "(runtime)".into(),
                module_path: "".into(),
                file: caller.file().to_owned().into(),
                line: caller.line(),
            },
            handler: None,
            completions: BTreeMap::new(),
        }
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Its title for people.
    pub fn title(&self) -> Option<&str> {
        self.inner.title.as_deref()
    }

    /// What it is for.
    pub fn description(&self) -> Option<&str> {
        self.inner.description.as_deref()
    }

    /// Its arguments, in order.
    pub fn arguments(&self) -> &[PromptArgument] {
        &self.inner.arguments
    }

    /// Its version.
    pub fn version(&self) -> Option<&str> {
        self.inner.version.as_deref()
    }

    /// Its tags (filters match them, as tools').
    pub fn tags(&self) -> &[String] {
        &self.inner.tags
    }

    /// How risky a get is (default [`SafetyLevel::Safe`]); a safety ceiling hides a prompt
    /// above it.
    pub fn safety(&self) -> SafetyLevel {
        self.inner.safety
    }

    /// The same prompt with `instance` added to the state of every get's context (replacing
    /// a value of its type there): what binds a `#[tool_set]`'s `#[prompt]` method to one
    /// instance (`ToolSet::prompts`, `ToolRegistry::register_set`).
    pub fn with_shared_state<S: Send + Sync + 'static>(&self, instance: Arc<S>) -> Prompt {
        let inner = &self.inner;
        let handler = Arc::clone(&inner.handler);
        Prompt {
            inner: Arc::new(PromptInner {
                name: inner.name.clone(),
                title: inner.title.clone(),
                description: inner.description.clone(),
                arguments: inner.arguments.clone(),
                version: inner.version.clone(),
                tags: inner.tags.clone(),
                safety: inner.safety,
                source: inner.source.clone(),
                completions: inner.completions.clone(),
                handler: Arc::new(move |input, ctx: ToolContext| {
                    let mut state = ctx.state_map().clone();
                    state.insert_shared(Arc::clone(&instance));
                    handler(input, ctx.with_state(state))
                }),
            }),
        }
    }

    /// Where it was defined.
    pub fn source(&self) -> &ToolSource {
        &self.inner.source
    }

    /// Whether `other` has the same definition (every field but the handler and the
    /// completion functions): registering it again changes nothing.
    pub fn same_definition(&self, other: &Prompt) -> bool {
        let (a, b) = (&self.inner, &other.inner);
        a.name == b.name
            && a.title == b.title
            && a.description == b.description
            && a.arguments == b.arguments
            && a.version == b.version
            && a.tags == b.tags
            && a.safety == b.safety
            && a.completions.keys().eq(b.completions.keys())
    }

    /// Runs the prompt: checks `arguments` (every required one given, none unknown; the
    /// error names the argument), then its handler.
    pub fn get(
        &self,
        arguments: PromptArguments,
        ctx: ToolContext,
    ) -> BoxFuture<Result<PromptOutput, ToolError>> {
        if let Err(error) = self.check_arguments(&arguments) {
            return Box::pin(std::future::ready(Err(error)));
        }
        (self.inner.handler)(arguments, ctx)
    }

    fn check_arguments(&self, arguments: &PromptArguments) -> Result<(), ToolError> {
        let name = &self.inner.name;
        if let Some(missing) = self
            .inner
            .arguments
            .iter()
            .find(|arg| arg.required && !arguments.contains_key(&arg.name))
        {
            return Err(ToolError::new(format!(
                "prompt `{name}` needs the argument `{}`; give it and get the prompt again",
                missing.name
            )));
        }
        if let Some(unknown) = arguments
            .keys()
            .find(|given| !self.inner.arguments.iter().any(|arg| &arg.name == *given))
        {
            let known = self.inner.arguments.iter().map(|arg| arg.name.as_str());
            let hint = did_you_mean(unknown, known)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            return Err(ToolError::new(format!(
                "prompt `{name}` has no argument `{unknown}`{hint}"
            )));
        }
        Ok(())
    }

    /// The completions of the argument `request.argument`; `None` when it has no completion
    /// function. At most [`MAX_COMPLETIONS`](crate::completion::MAX_COMPLETIONS) values.
    pub fn complete(&self, request: &CompletionRequest) -> Option<Completions> {
        let complete = self.inner.completions.get(&request.argument)?;
        Some(complete(request).capped())
    }

    /// The names of the arguments with a completion function.
    pub fn completable_arguments(&self) -> impl Iterator<Item = &str> {
        self.inner.completions.keys().map(String::as_str)
    }
}

/// Builds a [`Prompt`] at run time; see [`Prompt::builder`].
#[must_use = "a builder does nothing until `.build()`"]
pub struct PromptBuilder {
    name: String,
    title: Option<String>,
    description: Option<String>,
    arguments: Vec<PromptArgument>,
    version: Option<String>,
    tags: Vec<String>,
    safety: SafetyLevel,
    source: ToolSource,
    handler: Option<PromptHandler>,
    completions: BTreeMap<String, CompletionFn>,
}

impl PromptBuilder {
    /// What the prompt is for.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// A title for people.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// One more argument.
    pub fn argument(mut self, argument: PromptArgument) -> Self {
        self.arguments.push(argument);
        self
    }

    /// The version.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// The tags.
    pub fn tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// How risky a get is.
    pub fn safety(mut self, safety: SafetyLevel) -> Self {
        self.safety = safety;
        self
    }

    /// Where it is defined (default: the line that called [`Prompt::builder`]).
    pub fn source(mut self, source: ToolSource) -> Self {
        self.source = source;
        self
    }

    /// What makes the messages.
    pub fn handler<F, Fut, O>(mut self, handler: F) -> Self
    where
        F: Fn(PromptArguments, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
        O: IntoPromptOutput,
    {
        self.handler = Some(Arc::new(move |args, ctx| {
            let run = handler(args, ctx);
            Box::pin(async move { run.await.map(IntoPromptOutput::into_prompt_output) })
        }));
        self
    }

    /// The completion function of the argument `argument`.
    pub fn completion<F>(mut self, argument: impl Into<String>, complete: F) -> Self
    where
        F: Fn(&CompletionRequest) -> Completions + Send + Sync + 'static,
    {
        self.completions.insert(argument.into(), Arc::new(complete));
        self
    }

    /// The prompt.
    ///
    /// # Errors
    ///
    /// [`ToolDefinitionError::InvalidPrimitive`] when the name breaks MCP's rule (letters,
    /// digits, `_`, `-`, `.`; 1 to 128), an argument is named twice or is empty, a tag is
    /// empty, a completion names no argument, or there is no handler.
    pub fn build(self) -> Result<Prompt, ToolDefinitionError> {
        let invalid = |reason: String| ToolDefinitionError::InvalidPrimitive {
            kind: "prompt",
            name: self.name.clone(),
            reason,
        };
        check_primitive_name(&self.name)
            .map_err(|why| invalid(format!("its name is not a valid prompt name: {why}")))?;
        for (i, arg) in self.arguments.iter().enumerate() {
            if arg.name.trim().is_empty() {
                return Err(invalid("an argument has an empty name".to_owned()));
            }
            if self.arguments[..i].iter().any(|a| a.name == arg.name) {
                return Err(invalid(format!(
                    "the argument `{}` is given twice; give each argument once",
                    arg.name
                )));
            }
        }
        if self.tags.iter().any(|tag| tag.trim().is_empty()) {
            return Err(invalid("it has an empty tag".to_owned()));
        }
        if let Some(stray) = self
            .completions
            .keys()
            .find(|name| !self.arguments.iter().any(|arg| &arg.name == *name))
        {
            let hint = did_you_mean(stray, self.arguments.iter().map(|a| a.name.as_str()))
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            return Err(invalid(format!(
                "a completion is given for `{stray}`, which is not one of its arguments{hint}"
            )));
        }
        let Some(handler) = self.handler.clone() else {
            return Err(invalid(
                "it has no handler: give one with `.handler(|args, ctx| async move { ... })`"
                    .to_owned(),
            ));
        };
        Ok(Prompt {
            inner: Arc::new(PromptInner {
                name: self.name,
                title: self.title,
                description: self.description,
                arguments: self.arguments,
                version: self.version,
                tags: self.tags,
                safety: self.safety,
                source: self.source,
                handler,
                completions: self.completions,
            }),
        })
    }
}
