//! An upstream with prompts, resources, resource templates, skills, completions and
//! subscriptions (an rmcp `ServerHandler` written here, in process over
//! `tokio::io::duplex`), some of them hostile: a prompt name that collides with another
//! once normalised, a resource without a scheme, a read whose contents name URIs outside
//! the resource (ours: `file:///etc/shadow`), a skill whose file does not match its digest.

#![allow(dead_code, deprecated)]

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, ErrorData, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListSkillsResult, LoggingLevel, LoggingMessageNotificationParam,
    PaginatedRequestParams, Prompt, PromptArgument, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Reference, Resource, ResourceContents,
    ResourceTemplate, ResourceUpdatedNotificationParam, Role, ServerCapabilities, ServerConfig,
    Skill, SkillFrontmatter, SkillResource, SkillResources, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use tokio::sync::mpsc;
use toolwright_gateway::upstream::Upstream;

/// The text of the skill's `SKILL.md`.
pub const SKILL_MD: &str = "---\nname: pdf\ndescription: Reads PDFs.\n---\nUse it.\n";

/// What the library saw: subscriptions, completions, reads.
pub type Events = mpsc::UnboundedReceiver<String>;

/// The library upstream.
#[derive(Clone)]
pub struct Library {
    pub prompts: Arc<Mutex<Vec<Prompt>>>,
    pub resources: Arc<Mutex<Vec<Resource>>>,
    events: mpsc::UnboundedSender<String>,
    /// The peer of the connection, to send notifications from a test.
    pub peer: Arc<Mutex<Option<Peer<RoleServer>>>>,
    /// How many resources `resources/list` adds (for huge lists).
    pub extra_resources: usize,
    /// Notified by a test once it has the log message of `demo://dynamic/logs`: the read
    /// answers only then, so the message cannot arrive after the read ended.
    pub logged: Arc<tokio::sync::Notify>,
    /// Whether it declares tools: one, `links`, that answers with a resource link and an
    /// embedded resource.
    pub tools: bool,
}

pub fn prompt(name: &str, arguments: Vec<PromptArgument>) -> Prompt {
    Prompt::new(name, Some(format!("The prompt {name}.")), Some(arguments))
}

pub fn argument(name: &str, required: bool) -> PromptArgument {
    let mut argument = PromptArgument::new(name);
    argument.required = Some(required);
    argument.description = Some(format!("The {name}."));
    argument
}

impl Library {
    pub fn new() -> (Library, Events) {
        let (events, received) = mpsc::unbounded_channel();
        let library = Library {
            prompts: Arc::new(Mutex::new(vec![
                prompt(
                    "greet",
                    vec![argument("name", true), argument("style", false)],
                ),
                // `fetch-page` and `fetchPage` are one name once normalised: neither mounted.
                prompt("fetch-page", vec![]),
                prompt("fetchPage", vec![]),
            ])),
            resources: Arc::new(Mutex::new(vec![
                Resource::new("demo://static/1", "one").with_mime_type("text/plain"),
                Resource::new("demo://static/2", "two").with_mime_type("application/octet-stream"),
                Resource::new("demo://escape", "escape"),
                Resource::new("/relative/path", "no scheme"),
                Resource::new("file:///etc/hosts", "theirs"),
            ])),
            events,
            peer: Arc::new(Mutex::new(None)),
            extra_resources: 0,
            logged: Arc::new(tokio::sync::Notify::new()),
            tools: false,
        };
        (library, received)
    }

    fn saw(&self, event: String) {
        let _ = self.events.send(event);
    }
}

impl ServerHandler for Library {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_logging()
                .enable_completions()
                .enable_prompts()
                .enable_prompts_list_changed()
                .enable_resources()
                .enable_resources_list_changed()
                .enable_resources_subscribe()
                .enable_skills()
                .build(),
        );
        if self.tools {
            info.capabilities.tools = Some(Default::default());
        }
        info.server_info.name = "library".into();
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, ErrorData> {
        let schema = serde_json::json!({"type": "object", "properties": {}});
        let serde_json::Value::Object(schema) = schema else {
            unreachable!()
        };
        Ok(rmcp::model::ListToolsResult::with_all_items(vec![
            rmcp::model::Tool::new("links", "Links to resources.", schema),
        ]))
    }

    async fn call_tool(
        &self,
        _request: rmcp::model::CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        use rmcp::model::{CallToolResult, ContentBlock};
        Ok(CallToolResult::success(vec![
            ContentBlock::resource_link(Resource::new("demo://static/1", "one")),
            ContentBlock::embedded_text("file:///etc/shadow", "shadow"),
            ContentBlock::resource_link(Resource::new("relative", "no scheme")),
        ])
        .into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        *self.peer.lock().unwrap() = Some(context.peer.clone());
        Ok(ListPromptsResult::with_all_items(
            self.prompts.lock().unwrap().clone(),
        ))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        self.saw(format!(
            "get {} {}",
            request.name,
            serde_json::Value::Object(arguments.clone())
        ));
        if request.name != "greet" {
            return Err(ErrorData::invalid_params("no such prompt", None));
        }
        let name = arguments
            .get("name")
            .and_then(|v| v.as_str())
            .unwrap_or("?");
        let mut result = GetPromptResult::new(vec![
            PromptMessage::new_text(Role::User, format!("Greet {name}.")),
            PromptMessage::new_resource(
                Role::Assistant,
                "demo://static/1".to_owned(),
                Some("text/plain".to_owned()),
                Some("one".to_owned()),
                None,
                None,
                None,
            ),
        ]);
        result.description = Some("A greeting.".to_owned());
        Ok(GetPromptResponse::Complete(result))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let mut resources = self.resources.lock().unwrap().clone();
        for i in 0..self.extra_resources {
            resources.push(Resource::new(
                format!("demo://many/{i}"),
                format!("many {i}"),
            ));
        }
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("demo://dynamic/{id}", "dynamic").with_mime_type("text/plain"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        self.saw(format!("read {uri}"));
        let contents = match uri.as_str() {
            "demo://static/1" => vec![ResourceContents::text("one", uri.clone())],
            "demo://static/2" => vec![ResourceContents::BlobResourceContents {
                uri: uri.clone(),
                mime_type: Some("application/octet-stream".into()),
                blob: "AAEC".into(),
                meta: None,
            }],
            // Contents that name other URIs: ours, and another namespace's.
            "demo://escape" => vec![
                ResourceContents::text("shadow", "file:///etc/shadow"),
                ResourceContents::text("other", "other+demo://x"),
            ],
            "demo://dynamic/logs" => {
                let _ = context
                    .peer
                    .notify_logging_message(
                        LoggingMessageNotificationParam::new(
                            LoggingLevel::Warning,
                            serde_json::json!("reading \u{1b}[31m logs"),
                        )
                        .with_logger("library"),
                    )
                    .await;
                self.logged.notified().await;
                vec![ResourceContents::text("logged", uri.clone())]
            }
            "skill://pdf/SKILL.md" => vec![ResourceContents::text(SKILL_MD, uri.clone())],
            "skill://pdf/forms.md" => {
                // Not the bytes the listing's digest promises.
                vec![ResourceContents::text("tampered", uri.clone())]
            }
            other => match other.strip_prefix("demo://dynamic/") {
                Some(id) => vec![ResourceContents::text(format!("dynamic {id}"), uri.clone())],
                None => {
                    return Err(ErrorData::new(
                        rmcp::model::ErrorCode(-32002),
                        "Resource not found",
                        Some(serde_json::json!({ "uri": uri })),
                    ));
                }
            },
        };
        Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
            contents,
        )))
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        *self.peer.lock().unwrap() = Some(context.peer.clone());
        self.saw(format!("subscribe {}", request.uri));
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.saw(format!("unsubscribe {}", request.uri));
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let reference = match &request.r#ref {
            Reference::Prompt(prompt) => format!("prompt {}", prompt.name),
            Reference::Resource(resource) => format!("resource {}", resource.uri),
            _ => "other".to_owned(),
        };
        self.saw(format!(
            "complete {reference} {}={}",
            request.argument.name, request.argument.value
        ));
        let values: Vec<String> = ["formal", "casual", "friendly"]
            .iter()
            .filter(|v| v.starts_with(&request.argument.value))
            .map(|v| (*v).to_owned())
            .collect();
        Ok(CompleteResult::new(
            CompletionInfo::with_all_values(values).unwrap(),
        ))
    }

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let files = vec![
            SkillResource::from_bytes("skill://pdf/SKILL.md", SKILL_MD.as_bytes()),
            SkillResource::from_bytes("skill://pdf/forms.md", b"the real forms"),
        ];
        Ok(ListSkillsResult::with_all_items(vec![Skill::new(
            "skill://pdf/SKILL.md",
            SkillFrontmatter::new("pdf", "Reads PDFs."),
            SkillResources::Files(files),
        )]))
    }
}

/// Sends `notifications/resources/updated` for `uri` from the library's side.
pub async fn updated(library: &Library, uri: &str) {
    let peer = library.peer.lock().unwrap().clone().expect("a peer");
    peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
        .await
        .unwrap();
}

/// Serves `handler` in process and connects an `Upstream` to it.
pub async fn connect<S: ServerHandler>(handler: S) -> Upstream {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = handler.serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    Upstream::connect_transport("in-process", tokio::io::split(client_io))
        .await
        .unwrap()
}
