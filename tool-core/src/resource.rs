//! Resources: read-only context a client reads by URI (MCP's `resources/*`), at a fixed URI
//! or under a URI template, defined by `#[resource]` or at run time with
//! [`Resource::builder`].

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::sync::Arc;

use serde::Serialize;
use toolwright_names::did_you_mean;
use toolwright_names::uri_template::{UriTemplate, UriVariables, has_scheme, is_template};

use crate::completion::{Completer, CompletionFuture, CompletionRequest, Completions};
use crate::context::ToolContext;
use crate::definition::ToolDefinitionError;
use crate::error::ToolError;
use crate::meta::ToolSource;
use crate::output::Json;
use crate::safety::SafetyLevel;
use crate::tool::BoxFuture;

/// Where a resource is: one URI, or every URI a template matches.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ResourceUri {
    /// One URI.
    Fixed(String),
    /// A template (`notes://{id}`).
    Template(UriTemplate),
}

impl ResourceUri {
    /// The URI or the template as written (the registry's key).
    pub fn as_str(&self) -> &str {
        match self {
            ResourceUri::Fixed(uri) => uri,
            ResourceUri::Template(template) => template.as_str(),
        }
    }

    /// Whether it is a template.
    pub fn is_template(&self) -> bool {
        matches!(self, ResourceUri::Template(_))
    }
}

impl fmt::Display for ResourceUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One read: the URI asked for and, for a template, its variables' values (decoded).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourceRequest {
    /// The URI asked for.
    pub uri: String,
    /// The template's variables (empty for a fixed URI).
    pub variables: UriVariables,
}

impl ResourceRequest {
    /// A request for `uri` with no variables.
    pub fn new(uri: impl Into<String>) -> Self {
        ResourceRequest {
            uri: uri.into(),
            variables: UriVariables::new(),
        }
    }

    /// The value of the variable `name` (a template's handler reads its values so).
    ///
    /// # Errors
    ///
    /// A [`ToolError`] naming the variable when it has no value.
    pub fn variable(&self, name: &str) -> Result<&str, ToolError> {
        self.variables.get(name).ok_or_else(|| {
            ToolError::new(format!(
                "the URI `{}` gives no value for `{name}`",
                self.uri
            ))
        })
    }
}

/// The body of a resource's contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    /// Text.
    Text(String),
    /// Bytes (sent base64-encoded).
    Blob(Vec<u8>),
}

/// One item of a read's answer.
///
/// ```
/// use toolwright_core::{ResourceBody, ResourceContents};
/// let c = ResourceContents::text("notes://1", "hello").with_mime_type("text/plain");
/// assert_eq!(c.body, ResourceBody::Text("hello".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceContents {
    /// Its URI.
    pub uri: String,
    /// Its MIME type.
    pub mime_type: Option<String>,
    /// Its body.
    pub body: ResourceBody,
}

impl ResourceContents {
    /// Text at `uri`.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Text(text.into()),
        }
    }

    /// Bytes at `uri`.
    pub fn blob(uri: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Blob(bytes.into()),
        }
    }

    /// The same contents with a MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The body's length in bytes.
    pub fn byte_len(&self) -> usize {
        match &self.body {
            ResourceBody::Text(text) => text.len(),
            ResourceBody::Blob(bytes) => bytes.len(),
        }
    }
}

/// What a resource's handler may return: text or bytes (at the URI read, with the
/// resource's MIME type), whole contents, or [`Json`] (`application/json`).
///
/// ```
/// use toolwright_core::{IntoResourceContents, ResourceBody};
/// let c = "hi".to_owned().into_resource_contents("notes://1", Some("text/plain")).unwrap();
/// assert_eq!((c[0].uri.as_str(), c[0].mime_type.as_deref()), ("notes://1", Some("text/plain")));
/// ```
pub trait IntoResourceContents {
    /// The contents, for a read of `uri` of a resource declaring `mime_type`.
    ///
    /// # Errors
    ///
    /// When the value cannot be turned into contents (JSON that does not serialize).
    fn into_resource_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ToolError>;
}

impl IntoResourceContents for String {
    fn into_resource_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ToolError> {
        Ok(vec![ResourceContents {
            uri: uri.to_owned(),
            mime_type: mime_type.map(str::to_owned),
            body: ResourceBody::Text(self),
        }])
    }
}

impl IntoResourceContents for &str {
    fn into_resource_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ToolError> {
        self.to_owned().into_resource_contents(uri, mime_type)
    }
}

impl IntoResourceContents for Vec<u8> {
    fn into_resource_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ToolError> {
        Ok(vec![ResourceContents {
            uri: uri.to_owned(),
            mime_type: mime_type.map(str::to_owned),
            body: ResourceBody::Blob(self),
        }])
    }
}

impl IntoResourceContents for ResourceContents {
    fn into_resource_contents(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ToolError> {
        Ok(vec![self])
    }
}

impl IntoResourceContents for Vec<ResourceContents> {
    fn into_resource_contents(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ToolError> {
        Ok(self)
    }
}

impl<T: Serialize> IntoResourceContents for Json<T> {
    fn into_resource_contents(
        self,
        uri: &str,
        _: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ToolError> {
        let text = serde_json::to_string(&self.0).map_err(|error| {
            ToolError::with_context("the resource could not be serialized to JSON", error)
        })?;
        Ok(vec![
            ResourceContents::text(uri, text).with_mime_type("application/json"),
        ])
    }
}

type ResourceHandler = Arc<
    dyn Fn(ResourceRequest, ToolContext) -> BoxFuture<Result<Vec<ResourceContents>, ToolError>>
        + Send
        + Sync,
>;

/// What a resource's subscription hook is told: its URI has its first subscriber, or lost
/// its last one (over every session of a server).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Subscription {
    /// The first subscriber of the URI arrived (a refusal refuses the subscription).
    Started,
    /// The last subscriber of the URI left (unsubscribed, or its session closed).
    Ended,
}

type SubscribeHook =
    Arc<dyn Fn(String, Subscription) -> BoxFuture<Result<(), ToolError>> + Send + Sync>;

struct ResourceInner {
    uri: ResourceUri,
    name: String,
    title: Option<String>,
    description: Option<String>,
    mime_type: Option<String>,
    size: Option<u64>,
    safety: SafetyLevel,
    version: Option<String>,
    tags: Vec<String>,
    source: ToolSource,
    handler: ResourceHandler,
    completions: BTreeMap<String, Completer>,
    on_subscribe: Option<SubscribeHook>,
}

/// A resource at a fixed URI or under a template, with the handler that reads it. Cheap to
/// clone (one shared allocation). Reads are [`SafetyLevel::Safe`] unless declared otherwise.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use toolwright_core::{Resource, ResourceBody, ResourceRequest, ToolContext};
///
/// let note = Resource::builder("note", "notes://{id}")
///     .mime_type("text/markdown")
///     .handler(|req, _ctx| async move { Ok(format!("# Note {}", req.variable("id")?)) })
///     .build()
///     .unwrap();
/// let vars = note.matches("notes://7").unwrap();
/// let read = note.read(ResourceRequest { uri: "notes://7".into(), variables: vars }, ToolContext::new()).await.unwrap();
/// assert_eq!(read[0].body, ResourceBody::Text("# Note 7".into()));
/// assert_eq!(read[0].mime_type.as_deref(), Some("text/markdown"));
/// # }
/// ```
#[derive(Clone)]
pub struct Resource {
    inner: Arc<ResourceInner>,
}

impl fmt::Debug for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resource")
            .field("uri", &self.inner.uri.as_str())
            .field("name", &self.inner.name)
            .finish_non_exhaustive()
    }
}

impl Resource {
    /// Starts a resource defined at run time: `uri` is a template when it has a `{`.
    #[track_caller]
    pub fn builder(name: impl Into<String>, uri: impl Into<String>) -> ResourceBuilder {
        let caller = Location::caller();
        ResourceBuilder {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            safety: SafetyLevel::Safe,
            version: None,
            tags: Vec::new(),
            source: ToolSource {
                crate_name: "(runtime)".into(),
                module_path: "".into(),
                file: caller.file().to_owned().into(),
                line: caller.line(),
            },
            handler: None,
            completions: BTreeMap::new(),
            on_subscribe: None,
        }
    }

    /// Its URI or template.
    pub fn uri(&self) -> &ResourceUri {
        &self.inner.uri
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Its title for people.
    pub fn title(&self) -> Option<&str> {
        self.inner.title.as_deref()
    }

    /// What it holds.
    pub fn description(&self) -> Option<&str> {
        self.inner.description.as_deref()
    }

    /// The MIME type of its contents.
    pub fn mime_type(&self) -> Option<&str> {
        self.inner.mime_type.as_deref()
    }

    /// Its size in bytes, when known.
    pub fn size(&self) -> Option<u64> {
        self.inner.size
    }

    /// How risky a read is (default [`SafetyLevel::Safe`]).
    pub fn safety(&self) -> SafetyLevel {
        self.inner.safety
    }

    /// Its version.
    pub fn version(&self) -> Option<&str> {
        self.inner.version.as_deref()
    }

    /// Its tags.
    pub fn tags(&self) -> &[String] {
        &self.inner.tags
    }

    /// The same resource with `instance` added to the state of every read's context (replacing
    /// a value of its type there): what binds a `#[tool_set]`'s `#[resource]` method to one
    /// instance (`ToolSet::resources`, `ToolRegistry::register_set`).
    pub fn with_shared_state<S: Send + Sync + 'static>(&self, instance: Arc<S>) -> Resource {
        let inner = &self.inner;
        let handler = Arc::clone(&inner.handler);
        Resource {
            inner: Arc::new(ResourceInner {
                uri: inner.uri.clone(),
                name: inner.name.clone(),
                title: inner.title.clone(),
                description: inner.description.clone(),
                mime_type: inner.mime_type.clone(),
                size: inner.size,
                safety: inner.safety,
                version: inner.version.clone(),
                tags: inner.tags.clone(),
                source: inner.source.clone(),
                completions: inner.completions.clone(),
                on_subscribe: inner.on_subscribe.clone(),
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

    /// Whether `other` has the same definition (every field but the handler).
    pub fn same_definition(&self, other: &Resource) -> bool {
        let (a, b) = (&self.inner, &other.inner);
        a.uri == b.uri
            && a.name == b.name
            && a.title == b.title
            && a.description == b.description
            && a.mime_type == b.mime_type
            && a.size == b.size
            && a.safety == b.safety
            && a.version == b.version
            && a.tags == b.tags
            && a.completions.keys().eq(b.completions.keys())
    }

    /// The variables `uri` gives when it is this resource: empty for the fixed URI itself,
    /// the template's values for a match, `None` otherwise.
    pub fn matches(&self, uri: &str) -> Option<UriVariables> {
        match &self.inner.uri {
            ResourceUri::Fixed(fixed) => (fixed == uri).then(UriVariables::new),
            ResourceUri::Template(template) => template.matches(uri),
        }
    }

    /// Reads it.
    pub fn read(
        &self,
        request: ResourceRequest,
        ctx: ToolContext,
    ) -> BoxFuture<Result<Vec<ResourceContents>, ToolError>> {
        (self.inner.handler)(request, ctx)
    }

    /// The completions of the template variable `request.argument`; `None` when it has no
    /// completion function.
    pub fn complete(&self, request: &CompletionRequest) -> Option<CompletionFuture> {
        let completer = self.inner.completions.get(&request.argument)?;
        Some(completer.complete(request))
    }

    /// Tells its subscription hook that `uri` (one of its URIs) gained its first subscriber
    /// or lost its last one; `None` when it has no hook (a subscription is then only
    /// counted by the server). See [`ResourceBuilder::on_subscribe`].
    pub fn subscription_changed(
        &self,
        uri: &str,
        change: Subscription,
    ) -> Option<BoxFuture<Result<(), ToolError>>> {
        let hook = self.inner.on_subscribe.as_ref()?;
        Some(hook(uri.to_owned(), change))
    }

    /// Whether it has a subscription hook ([`ResourceBuilder::on_subscribe`]).
    pub fn has_subscription_hook(&self) -> bool {
        self.inner.on_subscribe.is_some()
    }

    /// The names of the variables with a completion function.
    pub fn completable_variables(&self) -> impl Iterator<Item = &str> {
        self.inner.completions.keys().map(String::as_str)
    }
}

/// Builds a [`Resource`] at run time; see [`Resource::builder`].
#[must_use = "a builder does nothing until `.build()`"]
pub struct ResourceBuilder {
    uri: String,
    name: String,
    title: Option<String>,
    description: Option<String>,
    mime_type: Option<String>,
    size: Option<u64>,
    safety: SafetyLevel,
    version: Option<String>,
    tags: Vec<String>,
    source: ToolSource,
    handler: Option<ResourceHandler>,
    completions: BTreeMap<String, Completer>,
    on_subscribe: Option<SubscribeHook>,
}

impl ResourceBuilder {
    /// What it holds.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// A title for people.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The MIME type of its contents.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Its size in bytes.
    pub fn size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// How risky a read is.
    pub fn safety(mut self, safety: SafetyLevel) -> Self {
        self.safety = safety;
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

    /// Where it is defined (default: the line that called [`Resource::builder`]).
    pub fn source(mut self, source: ToolSource) -> Self {
        self.source = source;
        self
    }

    /// What reads it.
    pub fn handler<F, Fut, O>(mut self, handler: F) -> Self
    where
        F: Fn(ResourceRequest, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
        O: IntoResourceContents,
    {
        self.handler = Some(Arc::new(move |request: ResourceRequest, ctx| {
            let uri = request.uri.clone();
            let run = handler(request, ctx);
            Box::pin(async move {
                let value = run.await?;
                // `build` fills in the resource's MIME type where the contents have none.
                value.into_resource_contents(&uri, None)
            })
        }));
        self
    }

    /// The completion function of the template variable `variable`.
    pub fn completion<F>(mut self, variable: impl Into<String>, complete: F) -> Self
    where
        F: Fn(&CompletionRequest) -> Completions + Send + Sync + 'static,
    {
        self.completions
            .insert(variable.into(), Completer::Sync(Arc::new(complete)));
        self
    }

    /// An asynchronous completion function of the variable `variable`: for completions that
    /// must wait on something (a database, a mounted server) without holding a thread.
    ///
    /// ```
    /// # use toolwright_core::completion::{CompletionRequest, Completions};
    /// # let builder = toolwright_core::Resource::builder("city", "cities://{city}").handler(|_, _| async { Ok("hi") });
    /// let built = builder
    ///     .completion_async("city", |request: CompletionRequest| async move {
    ///         Completions::matching(["Lisbon", "London"], &request.value)
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # let _ = built;
    /// ```
    pub fn completion_async<F, Fut>(mut self, variable: impl Into<String>, complete: F) -> Self
    where
        F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Completions> + Send + 'static,
    {
        let complete = Arc::new(move |request| -> CompletionFuture { Box::pin(complete(request)) });
        self.completions
            .insert(variable.into(), Completer::Async(complete));
        self
    }

    /// A hook told when one of its URIs gains its first subscriber
    /// ([`Subscription::Started`]) and after it loses its last one ([`Subscription::Ended`]),
    /// counted over every session of a server: what forwards a subscription once per URI
    /// to where the updates come from (a mounted server). An error (or a panic) at
    /// `Started` refuses the subscription, its message told to the client; at `Ended` it is
    /// logged.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use toolwright_core::{Resource, Subscription};
    ///
    /// let watched = Arc::new(AtomicUsize::new(0));
    /// let counter = Arc::clone(&watched);
    /// let feed = Resource::builder("feed", "feed://{id}")
    ///     .handler(|_, _| async { Ok("...") })
    ///     .on_subscribe(move |_uri: String, change: Subscription| {
    ///         let counter = Arc::clone(&counter);
    ///         async move {
    ///             match change {
    ///                 Subscription::Started => counter.fetch_add(1, Ordering::SeqCst),
    ///                 Subscription::Ended => counter.fetch_sub(1, Ordering::SeqCst),
    ///             };
    ///             Ok(())
    ///         }
    ///     })
    ///     .build()
    ///     .unwrap();
    /// assert!(feed.has_subscription_hook());
    /// ```
    pub fn on_subscribe<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(String, Subscription) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), ToolError>> + Send + 'static,
    {
        self.on_subscribe = Some(Arc::new(move |uri, change| Box::pin(hook(uri, change))));
        self
    }

    /// The resource.
    ///
    /// # Errors
    ///
    /// [`ToolDefinitionError::InvalidPrimitive`] when the name is empty or holds a control
    /// character, the URI has no scheme, the template does not parse, a completion names no
    /// variable of the template, or there is no handler.
    pub fn build(self) -> Result<Resource, ToolDefinitionError> {
        let invalid = |reason: String| ToolDefinitionError::InvalidPrimitive {
            kind: "resource",
            name: self.name.clone(),
            reason,
        };
        if self.name.trim().is_empty() || self.name.chars().any(char::is_control) {
            return Err(invalid(
                "its name is empty or holds a control character".to_owned(),
            ));
        }
        let uri = if is_template(&self.uri) {
            ResourceUri::Template(UriTemplate::parse(&self.uri).map_err(|error| {
                invalid(format!(
                    "its URI template `{}` is invalid: {error}",
                    self.uri
                ))
            })?)
        } else {
            if !has_scheme(&self.uri) || self.uri.chars().any(char::is_control) {
                return Err(invalid(format!(
                    "its URI `{}` does not start with a scheme (`notes://...`)",
                    self.uri
                )));
            }
            ResourceUri::Fixed(self.uri.clone())
        };
        let variables: Vec<&str> = match &uri {
            ResourceUri::Template(template) => {
                template.variables().map(|v| v.name.as_str()).collect()
            }
            ResourceUri::Fixed(_) => Vec::new(),
        };
        if let Some(stray) = self
            .completions
            .keys()
            .find(|name| !variables.contains(&name.as_str()))
        {
            let hint = did_you_mean(stray, variables.iter().copied())
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            return Err(invalid(format!(
                "a completion is given for `{stray}`, which is not a variable of its URI{hint}"
            )));
        }
        if self.tags.iter().any(|tag| tag.trim().is_empty()) {
            return Err(invalid("it has an empty tag".to_owned()));
        }
        let Some(inner_handler) = self.handler.clone() else {
            return Err(invalid(
                "it has no handler: give one with `.handler(|request, ctx| async move { ... })`"
                    .to_owned(),
            ));
        };
        // Contents without a MIME type of their own take the resource's.
        let handler: ResourceHandler = match self.mime_type.clone() {
            None => inner_handler,
            Some(mime) => Arc::new(move |request, ctx| {
                let run = inner_handler(request, ctx);
                let mime = mime.clone();
                Box::pin(async move {
                    let mut contents = run.await?;
                    for item in &mut contents {
                        item.mime_type.get_or_insert_with(|| mime.clone());
                    }
                    Ok(contents)
                })
            }),
        };
        Ok(Resource {
            inner: Arc::new(ResourceInner {
                uri,
                name: self.name,
                title: self.title,
                description: self.description,
                mime_type: self.mime_type,
                size: self.size,
                safety: self.safety,
                version: self.version,
                tags: self.tags,
                source: self.source,
                handler,
                completions: self.completions,
                on_subscribe: self.on_subscribe,
            }),
        })
    }
}
