//! The paginated lists of an upstream (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`, `skills/list`), within bounds: how many definitions and
//! pages, how many bytes a definition and all of them, how long; a repeated cursor ends it.

use std::collections::HashSet;
use std::time::Duration;

use rmcp::model::{
    ClientRequest, ListPromptsRequest, ListResourceTemplatesRequest, ListResourcesRequest,
    ListSkillsRequest, ListToolsRequest, PaginatedRequestParams, Prompt, Resource,
    ResourceTemplate, ServerResult, Skill, Tool as McpTool,
};
use rmcp::service::PeerRequestOptions;
use sha2::Digest as _;

use super::error::UpstreamError;
use super::session::Upstream;

/// Why a `tools/list` stopped before the upstream's last page.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListCut {
    /// The upstream listed more tools than [`MountOptions::max_tools`](super::MountOptions::max_tools).
    TooManyTools {
        /// The limit: the tools read.
        limit: usize,
    },
    /// The upstream still had a `nextCursor` after
    /// [`MountOptions::max_pages`](super::MountOptions::max_pages) pages.
    TooManyPages {
        /// The limit: the pages read.
        limit: usize,
    },
    /// The upstream sent a cursor it had sent before (a loop).
    RepeatedCursor {
        /// The page (from 1) that repeated it.
        page: usize,
    },
}

impl std::fmt::Display for ListCut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ListCut::TooManyTools { limit } => {
                write!(
                    f,
                    "the upstream lists more than {limit} tools; the rest were not read"
                )
            }
            ListCut::TooManyPages { limit } => write!(
                f,
                "the upstream's tool list goes on after {limit} pages; the rest were not read"
            ),
            ListCut::RepeatedCursor { page } => write!(
                f,
                "the upstream repeated a cursor on page {page}; the list was read up to there"
            ),
        }
    }
}

/// The bounds of one `tools/list`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ListLimits {
    pub(crate) max_tools: usize,
    pub(crate) max_pages: usize,
    pub(crate) timeout: Duration,
    /// The most bytes of one tool's definition (its JSON as listed).
    pub(crate) max_tool_bytes: usize,
    /// The most bytes of all the definitions kept from one listing.
    pub(crate) max_total_bytes: usize,
}

/// What an upstream listed (tools, prompts, resources, templates, skills), and why the list
/// stopped early if it did.
pub(crate) struct Listing<T = McpTool> {
    pub(crate) tools: Vec<T>,
    pub(crate) cut: Option<ListCut>,
    /// The definitions dropped as too large, as soon as their page was read.
    pub(crate) refused: Vec<Refused>,
}

/// A definition dropped for its size.
pub(crate) struct Refused {
    /// The upstream's name (or URI), at most [`MAX_REFUSED_NAME`] characters of it.
    pub(crate) upstream_name: String,
    /// The bytes of its definition.
    pub(crate) bytes: usize,
    /// Which limit: `true` for the whole listing's, `false` for one definition's.
    pub(crate) total: bool,
}

/// The most characters of a refused definition's name kept for the report (its name may be
/// what made it too large).
const MAX_REFUSED_NAME: usize = 128;

/// The bytes of `definition`'s JSON, counted without building it.
pub(crate) fn definition_bytes(definition: &impl serde::Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 = self.0.saturating_add(buf.len());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // A definition that was just decoded from JSON serialises again; on failure count it
    // whole.
    match serde_json::to_writer(&mut count, definition) {
        Ok(()) => count.0,
        Err(_) => usize::MAX,
    }
}

/// A kind of definition an upstream lists by pages: how to ask for a page, how to read one.
pub(crate) trait Listed: serde::Serialize + Sized {
    /// The method, for errors.
    const METHOD: &'static str;
    /// The request for the page after `cursor`.
    fn request(cursor: Option<String>) -> ClientRequest;
    /// The definitions of a page and its `nextCursor`; `None` for another kind of result.
    fn page(result: ServerResult) -> Option<(Vec<Self>, Option<String>)>;
    /// Its name (or URI), as the report shows it.
    fn label(&self) -> &str;
}

fn paged(cursor: Option<String>) -> Option<PaginatedRequestParams> {
    Some(PaginatedRequestParams::default().with_cursor(cursor))
}

impl Listed for McpTool {
    const METHOD: &'static str = "tools/list";
    fn request(cursor: Option<String>) -> ClientRequest {
        ClientRequest::ListToolsRequest(ListToolsRequest {
            method: Default::default(),
            params: paged(cursor),
            extensions: Default::default(),
        })
    }
    fn page(result: ServerResult) -> Option<(Vec<Self>, Option<String>)> {
        match result {
            ServerResult::ListToolsResult(page) => Some((page.tools, page.next_cursor)),
            _ => None,
        }
    }
    fn label(&self) -> &str {
        &self.name
    }
}

impl Listed for Prompt {
    const METHOD: &'static str = "prompts/list";
    fn request(cursor: Option<String>) -> ClientRequest {
        ClientRequest::ListPromptsRequest(ListPromptsRequest {
            method: Default::default(),
            params: paged(cursor),
            extensions: Default::default(),
        })
    }
    fn page(result: ServerResult) -> Option<(Vec<Self>, Option<String>)> {
        match result {
            ServerResult::ListPromptsResult(page) => Some((page.prompts, page.next_cursor)),
            _ => None,
        }
    }
    fn label(&self) -> &str {
        &self.name
    }
}

impl Listed for Resource {
    const METHOD: &'static str = "resources/list";
    fn request(cursor: Option<String>) -> ClientRequest {
        ClientRequest::ListResourcesRequest(ListResourcesRequest {
            method: Default::default(),
            params: paged(cursor),
            extensions: Default::default(),
        })
    }
    fn page(result: ServerResult) -> Option<(Vec<Self>, Option<String>)> {
        match result {
            ServerResult::ListResourcesResult(page) => Some((page.resources, page.next_cursor)),
            _ => None,
        }
    }
    fn label(&self) -> &str {
        &self.uri
    }
}

impl Listed for ResourceTemplate {
    const METHOD: &'static str = "resources/templates/list";
    fn request(cursor: Option<String>) -> ClientRequest {
        ClientRequest::ListResourceTemplatesRequest(ListResourceTemplatesRequest {
            method: Default::default(),
            params: paged(cursor),
            extensions: Default::default(),
        })
    }
    fn page(result: ServerResult) -> Option<(Vec<Self>, Option<String>)> {
        match result {
            ServerResult::ListResourceTemplatesResult(page) => {
                Some((page.resource_templates, page.next_cursor))
            }
            _ => None,
        }
    }
    fn label(&self) -> &str {
        &self.uri_template
    }
}

impl Listed for Skill {
    const METHOD: &'static str = "skills/list";
    fn request(cursor: Option<String>) -> ClientRequest {
        ClientRequest::ListSkillsRequest(ListSkillsRequest {
            method: Default::default(),
            params: paged(cursor),
            extensions: Default::default(),
        })
    }
    fn page(result: ServerResult) -> Option<(Vec<Self>, Option<String>)> {
        match result {
            ServerResult::ListSkillsResult(page) => Some((page.skills, page.next_cursor)),
            // The same shape as `resources/list`'s, which the untagged result may be read as.
            _ => None,
        }
    }
    fn label(&self) -> &str {
        &self.uri
    }
}

impl Upstream {
    /// [`request_error`](Self::request_error) for a list, naming the message limit
    /// when the transport closed under it (a larger answer is dropped unread).
    fn list_error(&self, method: &'static str, error: rmcp::ServiceError) -> UpstreamError {
        let closed = matches!(error, rmcp::ServiceError::TransportClosed);
        match self.inner.shared.message_limit.get() {
            Some(limit) if closed => self.request_error(
                "tools/list",
                format!(
                    "{error}: the answer was refused unread if it was larger than the limit of \
                     {limit} bytes a message (`max_message_bytes`)"
                ),
            ),
            _ => self.request_error(method, error),
        }
    }

    /// Every page of `tools/list`, within `limits`.
    pub(crate) async fn list_tools(&self, limits: ListLimits) -> Result<Listing, UpstreamError> {
        self.list_all::<McpTool>(limits).await
    }

    /// Every page of `T`'s list, within `limits`.
    pub(crate) async fn list_all<T: Listed>(
        &self,
        limits: ListLimits,
    ) -> Result<Listing<T>, UpstreamError> {
        let method = T::METHOD;
        let mut tools = Vec::new();
        let mut refused = Vec::new();
        let mut total: usize = 0;
        let mut cursor: Option<String> = None;
        let mut seen = HashSet::new();
        let mut page = 0;
        loop {
            if page == limits.max_pages {
                return Ok(Listing {
                    tools,
                    cut: Some(ListCut::TooManyPages {
                        limit: limits.max_pages,
                    }),
                    refused,
                });
            }
            page += 1;
            let request = T::request(cursor.take());
            let options = PeerRequestOptions::with_timeout(limits.timeout);
            let handle = self
                .inner
                .peer
                .send_request_with_option(request, options)
                .await
                .map_err(|e| self.list_error(method, e))?;
            let (items, next_cursor) = match handle.await_response().await.map(T::page) {
                Ok(Some(page)) => page,
                Ok(None) => {
                    return Err(UpstreamError::UnexpectedResult {
                        upstream: self.inner.label.clone(),
                        method,
                    });
                }
                Err(e) => return Err(self.list_error(method, e)),
            };
            // Refused definitions count too: an upstream cannot list for ever by sending
            // only ones too large to keep.
            let room = limits.max_tools.saturating_sub(tools.len() + refused.len());
            let more_than_room = items.len() > room;
            // Each definition is measured as its page arrives, and one too large dropped at
            // once: what a listing keeps is bounded by the limits, not by the upstream.
            for tool in items.into_iter().take(room) {
                let bytes = definition_bytes(&tool);
                let too_large = bytes > limits.max_tool_bytes;
                if too_large || total.saturating_add(bytes) > limits.max_total_bytes {
                    refused.push(Refused {
                        upstream_name: tool.label().chars().take(MAX_REFUSED_NAME).collect(),
                        bytes,
                        total: !too_large,
                    });
                    continue;
                }
                total += bytes;
                tools.push(tool);
            }
            if more_than_room {
                return Ok(Listing {
                    tools,
                    cut: Some(ListCut::TooManyTools {
                        limit: limits.max_tools,
                    }),
                    refused,
                });
            }
            match next_cursor {
                None => {
                    return Ok(Listing {
                        tools,
                        cut: None,
                        refused,
                    });
                }
                Some(next) => {
                    // The digest, not the cursor: the upstream chooses its size.
                    let digest: [u8; 32] = sha2::Sha256::digest(next.as_bytes()).into();
                    if !seen.insert(digest) {
                        return Ok(Listing {
                            tools,
                            cut: Some(ListCut::RepeatedCursor { page }),
                            refused,
                        });
                    }
                    cursor = Some(next);
                }
            }
        }
    }
}
