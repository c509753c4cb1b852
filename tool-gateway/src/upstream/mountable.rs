//! The runtime `Prompt`s, `Resource`s and `Skill`s that stand for an upstream's in our
//! registry: built from the upstream's definitions (names and URIs placed in the namespace,
//! descriptions saying where they come from, escaped and bounded), with handlers that
//! forward upstream (`requests`) and put what comes back in the namespace too.

use std::sync::Arc;

use rmcp::model::{
    Prompt as McpPrompt, Reference, Resource as McpResource, ResourceContents as McpContents,
    ResourceTemplate as McpTemplate, Skill as McpSkill, SkillResources,
};
use serde_json::Value;
use toolwright_core::{
    CompletionRequest, Completions, Prompt, PromptArgument, PromptArguments, PromptMessage,
    PromptOutput, PromptRole, Resource, ResourceBody, ResourceContents, ResourceRequest,
    SafetyLevel, Skill, SkillFile, Subscription, ToolContext, ToolError,
};
use toolwright_runtime::ToolRegistry;

use super::content::{from_block, rewrite_uris};
use super::limits::Limiter;
use super::list::Listed;
use super::names::mounted_name;
use super::options::MountOptions;
use super::report::{PrimitiveKind, SkipReason};
use super::requests::Failure;
use super::session::{Declared, Upstream};
use super::uris::{mounted_uri, upstream_uri};

/// The most bytes of an upstream's description kept in a mounted prompt's or resource's.
const MAX_DESCRIPTION: usize = 4096;

/// What building and registering needs.
pub(super) struct Context<'a> {
    pub(super) registry: &'a Arc<ToolRegistry>,
    pub(super) upstream: &'a Upstream,
    pub(super) options: &'a MountOptions,
    /// What the upstream declared.
    pub(super) declared: Declared,
    /// What a mounted resource's subscription hook forwards to (the mount's counting).
    pub(super) forward_subscription: &'a ForwardSubscription,
    /// The upstream's limits, shared with its tools: a `prompts/get`, `resources/read` or
    /// `completion/complete` takes a place as a call does.
    pub(super) limiter: &'a Arc<Limiter>,
}

/// Forwards one subscription of our URI more (`true`) or less, counted by the mount: the
/// first subscribes upstream, the last unsubscribes.
pub(super) type ForwardSubscription =
    Arc<dyn Fn(String, bool) -> toolwright_core::BoxFuture<Result<(), ToolError>> + Send + Sync>;

impl Context<'_> {
    pub(super) fn namespace(&self) -> &str {
        &self.options.namespace
    }

    fn safety(&self) -> SafetyLevel {
        self.options.read_safety
    }

    /// Where a mounted thing comes from, then the upstream's own description (escaped,
    /// bounded).
    fn describe(&self, kind: PrimitiveKind, upstream_name: &str, own: Option<&str>) -> String {
        let mut text = format!(
            "[The {kind} `{}` of the upstream MCP server `{}`, mounted as `{}`.]",
            toolwright_names::escape::escape(upstream_name),
            self.upstream.server_name(),
            self.namespace()
        );
        let own = own.map(str::trim).unwrap_or_default();
        if !own.is_empty() {
            text.push(' ');
            text.push_str(&super::forward::bounded(own, MAX_DESCRIPTION));
        }
        text
    }
}

/// A kind of definition mounted from an upstream's list.
pub(super) trait Mountable: Listed + Clone + Send + Sync + 'static {
    const KIND: PrimitiveKind;
    /// The name or URI it is served under; `None` when none can be made of it.
    fn key(&self, namespace: &str) -> Option<String>;
    /// Builds and registers it under `key`.
    fn register(&self, cx: &Context<'_>, key: &str) -> Result<Vec<String>, SkipReason>;
}

impl Mountable for McpPrompt {
    const KIND: PrimitiveKind = PrimitiveKind::Prompt;

    fn key(&self, namespace: &str) -> Option<String> {
        mounted_name(namespace, &self.name)
    }

    fn register(&self, cx: &Context<'_>, key: &str) -> Result<Vec<String>, SkipReason> {
        let upstream = cx.upstream.clone();
        let namespace = cx.namespace().to_owned();
        let name: Arc<str> = Arc::from(self.name.as_str());
        let limiter = Arc::clone(cx.limiter);
        let mut builder = Prompt::builder(key.to_owned())
            .description(cx.describe(Self::KIND, &self.name, self.description.as_deref()))
            .safety(cx.safety());
        if let Some(title) = &self.title {
            builder = builder.title(super::forward::bounded(title, 200));
        }
        for argument in self.arguments.iter().flatten() {
            let mut ours = PromptArgument::new(argument.name.clone());
            ours.required = argument.required.unwrap_or(false);
            ours.description = argument
                .description
                .as_deref()
                .map(|d| super::forward::bounded(d, MAX_DESCRIPTION));
            ours.title = argument
                .title
                .as_deref()
                .map(|t| super::forward::bounded(t, 200));
            builder = builder.argument(ours);
            if !cx.declared.completions {
                continue;
            }
            // Completions of the argument are the upstream's.
            let (upstream, name, limiter) = (upstream.clone(), name.clone(), limiter.clone());
            builder = builder.completion_async(argument.name.clone(), move |request| {
                let (upstream, name) = (upstream.clone(), name.clone());
                let reference = Reference::for_prompt(name.to_string());
                let admitted = admit_completion(&limiter, &request);
                async move { complete(&upstream, reference, request, admitted).await }
            });
        }
        let prompt = builder
            .handler(move |arguments: PromptArguments, ctx: ToolContext| {
                let (upstream, name, namespace) =
                    (upstream.clone(), name.clone(), namespace.clone());
                // Admitted before anything is sent; the place is held until it ends.
                let admitted = limiter.admit(ctx.caller().map(toolwright_core::Caller::subject));
                async move {
                    let _permit = admitted?;
                    get_prompt(&upstream, &namespace, &ctx, &name, arguments).await
                }
            })
            .build()
            .map_err(|e| SkipReason::InvalidDefinition(e.to_string()))?;
        cx.registry
            .register_prompt(prompt)
            .map_err(|e| SkipReason::Registry(e.to_string()))?;
        Ok(Vec::new())
    }
}

impl Mountable for McpResource {
    const KIND: PrimitiveKind = PrimitiveKind::Resource;

    fn key(&self, namespace: &str) -> Option<String> {
        mounted_uri(namespace, &self.uri)
    }

    fn register(&self, cx: &Context<'_>, key: &str) -> Result<Vec<String>, SkipReason> {
        let shape = Shape {
            name: &self.name,
            title: self.title.as_deref(),
            description: cx.describe(Self::KIND, &self.uri, self.description.as_deref()),
            mime_type: self.mime_type.as_deref(),
            size: self.size,
            ..Shape::default()
        };
        let resource = resource(cx, key, shape)?;
        cx.registry
            .register_resource(resource)
            .map_err(|e| SkipReason::Registry(e.to_string()))?;
        Ok(Vec::new())
    }
}

impl Mountable for McpTemplate {
    const KIND: PrimitiveKind = PrimitiveKind::ResourceTemplate;

    fn key(&self, namespace: &str) -> Option<String> {
        mounted_uri(namespace, &self.uri_template)
    }

    fn register(&self, cx: &Context<'_>, key: &str) -> Result<Vec<String>, SkipReason> {
        let shape = Shape {
            name: &self.name,
            title: self.title.as_deref(),
            description: cx.describe(Self::KIND, &self.uri_template, self.description.as_deref()),
            mime_type: self.mime_type.as_deref(),
            template: Some(&self.uri_template),
            ..Shape::default()
        };
        let resource = resource(cx, key, shape)?;
        cx.registry
            .register_resource(resource)
            .map_err(|e| SkipReason::Registry(e.to_string()))?;
        Ok(Vec::new())
    }
}

impl Mountable for McpSkill {
    const KIND: PrimitiveKind = PrimitiveKind::Skill;

    fn key(&self, namespace: &str) -> Option<String> {
        mounted_uri(namespace, &self.uri)
    }

    fn register(&self, cx: &Context<'_>, key: &str) -> Result<Vec<String>, SkipReason> {
        // A skill whose listing does not hold up (its files outside its folder, a digest
        // that is not one) is not mounted.
        self.validate()
            .map_err(|e| SkipReason::InvalidDefinition(e.to_string()))?;
        let SkillResources::Files(listed) = &self.resources else {
            return Err(SkipReason::InvalidDefinition(
                "its files are `dynamic`, which a gateway does not mount".to_owned(),
            ));
        };
        let mut files = Vec::with_capacity(listed.len());
        let mut registered = Vec::with_capacity(listed.len());
        let unregister = |registered: &[String]| {
            for uri in registered {
                drop(cx.registry.remove_resource(uri));
            }
        };
        for file in listed {
            let Some(uri) = mounted_uri(cx.namespace(), &file.uri) else {
                unregister(&registered);
                return Err(SkipReason::UnusableUri);
            };
            let name = file.uri.rsplit('/').next().unwrap_or_default().to_owned();
            let mime_type = mime_of(&name);
            let shape = Shape {
                name: &name,
                description: cx.describe(PrimitiveKind::Skill, &file.uri, None),
                mime_type,
                size: Some(file.size),
                verified: Some((file.digest.clone(), file.size)),
                ..Shape::default()
            };
            let built = resource(cx, &uri, shape);
            let registered_now = built.and_then(|resource| {
                cx.registry
                    .register_resource(resource)
                    .map_err(|e| SkipReason::Registry(e.to_string()))
            });
            if let Err(reason) = registered_now {
                unregister(&registered);
                return Err(reason);
            }
            registered.push(uri.clone());
            files.push(SkillFile {
                uri,
                mime_type: mime_type.map(str::to_owned),
                size: file.size,
                digest: file.digest.clone(),
            });
        }
        let mut frontmatter = self.frontmatter.extra.clone();
        frontmatter.insert("name".into(), Value::String(self.frontmatter.name.clone()));
        frontmatter.insert(
            "description".into(),
            Value::String(self.frontmatter.description.clone()),
        );
        let skill = Skill {
            uri: key.to_owned(),
            name: self.frontmatter.name.clone(),
            description: self.frontmatter.description.clone(),
            frontmatter,
            files,
        };
        if let Err(error) = cx.registry.register_skill(skill) {
            unregister(&registered);
            return Err(SkipReason::Registry(error.to_string()));
        }
        Ok(registered)
    }
}

/// An upstream's MIME type as ours when it looks like one (`type/subtype`, parameters
/// allowed: visible ASCII, at most 127 bytes); anything else is dropped rather than shown.
fn media_type(given: &str) -> Option<String> {
    let plausible = given.len() <= 127
        && given.contains('/')
        && given.bytes().all(|b| b.is_ascii_graphic() || b == b' ');
    plausible.then(|| given.to_owned())
}

/// The MIME type of a skill's file by its extension (the listing gives none).
fn mime_of(name: &str) -> Option<&'static str> {
    let extension = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    Some(match extension.as_str() {
        "md" => "text/markdown",
        "txt" => "text/plain",
        "json" => "application/json",
        "py" => "text/x-python",
        "sh" => "text/x-shellscript",
        _ => return None,
    })
}

/// What a mounted resource shows of the upstream's, and how it reads.
#[derive(Default)]
struct Shape<'a> {
    name: &'a str,
    title: Option<&'a str>,
    description: String,
    mime_type: Option<&'a str>,
    /// The upstream's word for its size.
    size: Option<u64>,
    /// The upstream's template, for a template.
    template: Option<&'a str>,
    /// A skill file's listed digest and size, each read checked against.
    verified: Option<(String, u64)>,
}

/// A mounted resource under `key`: a fixed URI, or a template when `shape.template` is
/// the upstream's.
fn resource(cx: &Context<'_>, key: &str, shape: Shape<'_>) -> Result<Resource, SkipReason> {
    let Shape {
        name,
        title,
        description,
        mime_type,
        size,
        template,
        verified,
    } = shape;
    let upstream = cx.upstream.clone();
    let limiter = Arc::clone(cx.limiter);
    let namespace: Arc<str> = Arc::from(cx.namespace());
    let mut builder = Resource::builder(super::forward::bounded(name, 200), key.to_owned())
        .description(description)
        .safety(cx.safety());
    if let Some(title) = title {
        builder = builder.title(super::forward::bounded(title, 200));
    }
    if let Some(mime_type) = mime_type.and_then(media_type) {
        builder = builder.mime_type(mime_type);
    }
    if let Some(size) = size {
        builder = builder.size(size);
    }
    if let Some(template) = template.filter(|_| cx.declared.completions) {
        // The template's variables complete upstream, on the upstream's template.
        let template: Arc<str> = Arc::from(template);
        let variables: Vec<String> = toolwright_core::UriTemplate::parse(key)
            .map(|t| t.variables().map(|v| v.name.clone()).collect())
            .unwrap_or_default();
        for variable in variables {
            let (upstream, template, limiter) =
                (upstream.clone(), template.clone(), limiter.clone());
            builder = builder.completion_async(variable, move |request| {
                let upstream = upstream.clone();
                let reference = Reference::for_resource(template.to_string());
                let admitted = admit_completion(&limiter, &request);
                async move { complete(&upstream, reference, request, admitted).await }
            });
        }
    }
    // Our first subscriber of a URI (over every session) subscribes upstream, our last
    // unsubscribes.
    let forward = Arc::clone(cx.forward_subscription);
    builder = builder.on_subscribe(move |uri: String, change: Subscription| {
        forward(uri, change == Subscription::Started)
    });
    let verified = verified.map(Arc::new);
    builder
        .handler(move |request: ResourceRequest, ctx: ToolContext| {
            let (upstream, namespace, verified) =
                (upstream.clone(), namespace.clone(), verified.clone());
            // Admitted before anything is sent; the place is held until it ends.
            let admitted = limiter.admit(ctx.caller().map(toolwright_core::Caller::subject));
            async move {
                let _permit = admitted?;
                read(
                    &upstream,
                    &namespace,
                    &ctx,
                    &request.uri,
                    verified.as_deref(),
                )
                .await
            }
        })
        .build()
        .map_err(|e| SkipReason::InvalidDefinition(e.to_string()))
}

/// A mounted prompt's `prompts/get`: the upstream's, its messages' resource URIs rewritten
/// into the namespace.
async fn get_prompt(
    upstream: &Upstream,
    namespace: &str,
    ctx: &ToolContext,
    name: &str,
    arguments: PromptArguments,
) -> Result<PromptOutput, ToolError> {
    let arguments = arguments
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    let result =
        upstream
            .get_prompt(ctx, name, arguments)
            .await
            .map_err(|failure| match failure {
                Failure::NotFound(reason) => ToolError::new(reason),
                Failure::Failed(error) => error,
            })?;
    let mut messages = Vec::with_capacity(result.messages.len());
    for (i, message) in result.messages.into_iter().enumerate() {
        let fail = |reason: String| {
            ToolError::new(format!(
                "message {i} of the upstream MCP server `{}`'s prompt: {reason}",
                upstream.server_name()
            ))
        };
        let mut content = from_block(message.content).map_err(fail)?;
        rewrite_uris(&mut content, |uri| mounted_uri(namespace, uri)).map_err(fail)?;
        let role = match message.role {
            rmcp::model::Role::User => PromptRole::User,
            rmcp::model::Role::Assistant => PromptRole::Assistant,
        };
        messages.push(PromptMessage { role, content });
    }
    Ok(PromptOutput {
        description: result
            .description
            .map(|d| super::forward::bounded(&d, MAX_DESCRIPTION)),
        messages,
    })
}

/// A mounted resource's `resources/read`: the mounted URI `uri` back to the upstream's,
/// read there, the contents' URIs rewritten into the namespace (an upstream cannot answer
/// with a URI of ours or of another upstream's); a skill's file checked against its
/// listing.
async fn read(
    upstream: &Upstream,
    namespace: &str,
    ctx: &ToolContext,
    uri: &str,
    verified: Option<&(String, u64)>,
) -> Result<Vec<ResourceContents>, ToolError> {
    let Some(theirs) = upstream_uri(namespace, uri) else {
        return Err(ToolError::resource_not_found(uri));
    };
    let result = upstream
        .read_resource(ctx, &theirs)
        .await
        .map_err(|failure| match failure {
            Failure::NotFound(_) => ToolError::resource_not_found(uri),
            Failure::Failed(error) => error,
        })?;
    let mut contents = Vec::with_capacity(result.contents.len());
    for item in result.contents {
        let (their_uri, mime_type, body) = match item {
            McpContents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => (uri, mime_type, ResourceBody::Text(text)),
            McpContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => {
                use base64::Engine as _;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(blob.as_bytes())
                    .map_err(|e| ToolError::new(format!("a blob that is not base64: {e}")))?;
                (uri, mime_type, ResourceBody::Blob(bytes))
            }
            _ => return Err(ToolError::new("an unknown kind of resource contents")),
        };
        let Some(ours) = mounted_uri(namespace, &their_uri) else {
            return Err(ToolError::new(format!(
                "the upstream MCP server `{}` answered with contents of `{}`, which cannot be \
                 placed in the namespace",
                upstream.server_name(),
                toolwright_names::escape::escape(&their_uri)
            )));
        };
        if let Some((digest, size)) = verified {
            let bytes = match &body {
                ResourceBody::Text(text) => text.as_bytes(),
                ResourceBody::Blob(bytes) => bytes.as_slice(),
            };
            let listed = rmcp::model::SkillResource::new(their_uri.clone(), digest.clone(), *size);
            listed.verify(bytes).map_err(|e| {
                ToolError::new(format!(
                    "the upstream MCP server `{}` sent a skill file that is not the one it \
                     listed: {}",
                    upstream.server_name(),
                    toolwright_names::escape::escape(&e.to_string())
                ))
            })?;
        }
        contents.push(ResourceContents {
            uri: ours,
            mime_type: mime_type.as_deref().and_then(media_type),
            body,
        });
    }
    Ok(contents)
}

/// A completion's place under the upstream's limits (its caller's share too): the
/// permit, or why not.
type Admitted = Result<Option<super::limits::Permit>, ToolError>;

fn admit_completion(limiter: &Arc<Limiter>, request: &CompletionRequest) -> Admitted {
    limiter.admit(request.caller.as_deref())
}

/// A completion asked of the upstream; none (an empty list) when it fails or is over the
/// upstream's limits (a completion cannot answer with an error: MCP's answer for "nothing
/// to offer" is the empty list).
async fn complete(
    upstream: &Upstream,
    reference: Reference,
    request: CompletionRequest,
    admitted: Admitted,
) -> Completions {
    let _permit = match admitted {
        Ok(permit) => permit,
        Err(refused) => {
            tracing::debug!(upstream = upstream.server_name(), "{refused}");
            return Completions::default();
        }
    };
    let context = (!request.context.is_empty()).then(|| request.context.into_iter().collect());
    match upstream
        .complete(reference, &request.argument, &request.value, context)
        .await
    {
        Ok(result) => Completions {
            values: result.completion.values,
            total: result.completion.total,
            has_more: result.completion.has_more.unwrap_or(false),
        }
        .capped(),
        Err(error) => {
            tracing::debug!(
                upstream = upstream.server_name(),
                "a completion failed: {error}"
            );
            Completions::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plausible_media_types_are_kept() {
        assert_eq!(
            media_type("text/plain; charset=utf-8").as_deref(),
            Some("text/plain; charset=utf-8")
        );
        assert_eq!(media_type("text\u{1b}[31m/plain"), None);
        assert_eq!(media_type("plain"), None);
        assert_eq!(media_type(&format!("text/{}", "x".repeat(200))), None);
        assert_eq!(mime_of("SKILL.md"), Some("text/markdown"));
        assert_eq!(mime_of("noextension"), None);
    }
}
