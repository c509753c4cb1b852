//! [`DeferPlan`] (what to defer, how to group it, which search), [`DeferredTools`] (the list
//! and its map back to our names) and [`DiscoveryError`].

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use toolwright_core::Tool;

use crate::providers::ProviderError;
use crate::schema::Format;

/// The name of our own search tool, in every format where the application answers searches.
pub const OUR_SEARCH_TOOL: &str = "search_tools";

/// The most tools Anthropic's tool search takes in one request's catalog ("Maximum tools:
/// 10,000", <https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool>).
pub const MAX_ANTHROPIC_TOOLS: usize = 10_000;

/// The longest name a provider takes for a function or a namespace: OpenAI's function names
/// are `^[a-zA-Z0-9_-]{1,64}$` (the namespace is the name used in tool calls, held to the
/// same rule here), Anthropic's tool names the same.
pub const MAX_NAME_LEN: usize = 64;

/// The longest search query our search takes, in bytes: a query is a few words, and a model
/// that sends a book is told so instead of costing a search over it.
pub const MAX_QUERY_LEN: usize = 1_000;

/// A name as shown in an error: a model's name of a megabyte is cut, not echoed.
pub(crate) fn shown(name: &str) -> String {
    const SHOWN: usize = 80;
    if name.len() <= SHOWN {
        return name.to_owned();
    }
    let mut end = SHOWN;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &name[..end], name.len())
}

/// Which search the model gets to find deferred tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SearchTool {
    /// The provider's own search over the deferred definitions, in natural language:
    /// Anthropic's `tool_search_tool_bm25_20251119`, OpenAI's hosted `tool_search`.
    #[default]
    ProviderBm25,
    /// The provider's own search by regular expression: Anthropic's
    /// `tool_search_tool_regex_20251119` (OpenAI has one hosted search: `tool_search`).
    ProviderRegex,
    /// Our search (the registry's, under the caller's filter), run by the application:
    /// Anthropic gets a `search_tools` tool answered with `tool_reference` blocks, OpenAI
    /// Responses a `tool_search` tool with `"execution": "client"` answered with a
    /// `tool_search_output` item, Chat Completions and Gemini a `search_tools` function.
    /// Chat Completions and Gemini always get this one: they have no search of their own.
    Ours,
}

/// How OpenAI Responses groups deferred functions into `namespace` tools (Anthropic has no
/// namespaces; there the tools stay a flat list).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Grouping {
    /// No namespaces: each deferred function stands alone.
    #[default]
    None,
    /// One namespace per tool's first category (`filesystem`, `tracker`); a tool without a
    /// category stands alone. The function keeps its full name.
    Categories,
    /// One namespace per mount: a tool named `{prefix}_{rest}` for one of these prefixes (the
    /// gateway's `{namespace}_{name}`) goes into namespace `prefix` as function `rest`; the
    /// longest prefix wins. Other tools stand alone.
    Prefixes(Vec<String>),
}

/// What a deferred export keeps loaded, how it groups the rest, and which search it offers.
/// A tool is in the core when its name, one of its categories or its priority says so; with
/// no core rule at all, every tool is deferred.
///
/// ```
/// use toolwright_formats::discovery::{DeferPlan, Grouping, SearchTool};
///
/// let plan = DeferPlan::new()
///     .core_names(["read_file"])
///     .core_categories(["essentials"])
///     .core_priority_at_least(100)
///     .group_by(Grouping::Prefixes(vec!["github".into(), "slack".into()]))
///     .namespace_description("github", "Issues and pull requests on GitHub.")
///     .search(SearchTool::Ours);
/// assert_eq!(plan.search_tool(), SearchTool::Ours);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeferPlan {
    core_names: BTreeSet<String>,
    core_categories: BTreeSet<String>,
    core_min_priority: Option<i32>,
    loaded: BTreeSet<String>,
    grouping: Grouping,
    search: SearchTool,
    descriptions: BTreeMap<String, String>,
}

impl DeferPlan {
    /// Everything deferred, no namespaces, the provider's BM25 search.
    pub fn new() -> Self {
        DeferPlan::default()
    }

    /// Keeps these tools loaded.
    pub fn core_names<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.core_names.extend(names.into_iter().map(Into::into));
        self
    }

    /// Keeps the tools in any of these categories loaded.
    pub fn core_categories<I, S>(mut self, categories: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.core_categories
            .extend(categories.into_iter().map(Into::into));
        self
    }

    /// Keeps the tools whose priority is at least `priority` loaded.
    pub fn core_priority_at_least(mut self, priority: i32) -> Self {
        self.core_min_priority = Some(priority);
        self
    }

    /// Tools the model found in earlier turns, sent in full from now on (what Chat
    /// Completions and Gemini need after a `search_tools` call; harmless elsewhere).
    pub fn loaded<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.loaded.extend(names.into_iter().map(Into::into));
        self
    }

    /// How OpenAI Responses groups the deferred functions.
    pub fn group_by(mut self, grouping: Grouping) -> Self {
        self.grouping = grouping;
        self
    }

    /// The description the model reads for a namespace (default: one naming its tools).
    /// Written by the operator: a mounted server's words are not put there.
    pub fn namespace_description(
        mut self,
        namespace: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        self.descriptions
            .insert(namespace.into(), description.into());
        self
    }

    /// Which search the model gets.
    pub fn search(mut self, search: SearchTool) -> Self {
        self.search = search;
        self
    }

    /// The search the model gets.
    pub fn search_tool(&self) -> SearchTool {
        self.search
    }

    /// Whether `tool` goes in full into every request.
    ///
    /// ```
    /// use toolwright_core::Tool;
    /// use toolwright_formats::discovery::DeferPlan;
    ///
    /// let tool = Tool::builder("ping").description("Ping.").priority(200)
    ///     .handler(|_| async { "pong" }).build().unwrap();
    /// assert!(DeferPlan::new().core_priority_at_least(100).is_core(&tool));
    /// assert!(!DeferPlan::new().is_core(&tool));
    /// ```
    pub fn is_core(&self, tool: &Tool) -> bool {
        self.core_names.contains(tool.name())
            || self.loaded.contains(tool.name())
            || tool
                .categories()
                .iter()
                .any(|category| self.core_categories.contains(category.as_ref()))
            || self
                .core_min_priority
                .is_some_and(|minimum| tool.priority() >= minimum)
    }

    pub(crate) fn grouping(&self) -> &Grouping {
        &self.grouping
    }

    pub(crate) fn description_of(&self, namespace: &str) -> Option<&str> {
        self.descriptions.get(namespace).map(String::as_str)
    }
}

/// Why a deferred list could not be built, or a model's turn was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DiscoveryError {
    /// The model named a tool (in a call or a `tool_reference`) this request did not offer.
    #[error(
        "`{name}`{} was not offered in this request; answer the model with this error, never run a tool it was not given",
        namespace.as_ref().map(|ns| format!(" in namespace `{ns}`")).unwrap_or_default()
    )]
    NotOffered {
        /// The namespace the model gave, if any.
        namespace: Option<String>,
        /// The name the model gave.
        name: String,
    },
    /// A name the provider would reject: too long for it.
    #[error(
        "`{name}` is {len} characters; {format} takes at most {max} (shorten the tool or namespace name, or group by a shorter prefix)"
    )]
    NameTooLong {
        /// The format.
        format: Format,
        /// The name.
        name: String,
        /// Its length.
        len: usize,
        /// The provider's limit.
        max: usize,
    },
    /// Two entries of the list would have the same name (a namespace and a function, or a
    /// tool named like our search tool).
    #[error(
        "`{name}` names two entries of the {format} tool list; rename one (or choose another grouping)"
    )]
    NameClash {
        /// The format.
        format: Format,
        /// The name used twice.
        name: String,
    },
    /// More tools than the provider's search takes.
    #[error(
        "{count} tools are more than {format}'s tool search takes ({max}); narrow the list with a filter"
    )]
    TooManyTools {
        /// The format.
        format: Format,
        /// The tools given.
        count: usize,
        /// The provider's limit.
        max: usize,
    },
    /// A format with no deferred export (MCP: its search-first list is the server's).
    #[error(
        "`{format}` has no deferred export; use `anthropic`, `openai-responses`, `openai` or `gemini`"
    )]
    Unsupported {
        /// The format asked for.
        format: Format,
    },
    /// A search query longer than we search with.
    #[error(
        "the search query is {len} characters; at most {max} are searched (ask with a few words)"
    )]
    QueryTooLong {
        /// The query's length.
        len: usize,
        /// The limit, [`MAX_QUERY_LEN`].
        max: usize,
    },
    /// The provider's message is not in the shape that provider sends.
    #[error(transparent)]
    Malformed(#[from] ProviderError),
}

/// One exported function: where it sits and its definition, for answering searches.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) namespace: Option<String>,
    pub(crate) definition: Value,
    pub(crate) description: String,
    pub(crate) deferred: bool,
}

/// A deferred tool list for one request, with the map from the names the provider uses back
/// to ours. Only what it offered resolves: a call or a `tool_reference` naming anything else
/// is refused.
#[derive(Debug, Clone)]
pub struct DeferredTools {
    pub(crate) format: Format,
    pub(crate) search: SearchTool,
    pub(crate) tools: Vec<Value>,
    /// Our name -> its entry.
    pub(crate) entries: BTreeMap<String, Entry>,
    /// (namespace, provider name) -> our name.
    pub(crate) by_provider_name: BTreeMap<(Option<String>, String), String>,
    /// Namespace -> its description.
    pub(crate) namespaces: BTreeMap<String, String>,
}

impl DeferredTools {
    /// The tool list to send (the request's `tools`).
    pub fn tools(&self) -> &[Value] {
        &self.tools
    }

    /// The tool list to send, owned.
    pub fn into_tools(self) -> Vec<Value> {
        self.tools
    }

    /// The format it was exported in.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The search the model was given (always [`SearchTool::Ours`] for Chat Completions and
    /// Gemini).
    pub fn search_tool(&self) -> SearchTool {
        self.search
    }

    /// Our name for the function the model named (`namespace` from an OpenAI
    /// `function_call`'s `namespace` field).
    ///
    /// # Errors
    ///
    /// [`DiscoveryError::NotOffered`] when this list did not offer it.
    pub fn resolve(&self, namespace: Option<&str>, name: &str) -> Result<&str, DiscoveryError> {
        self.by_provider_name
            .get(&(namespace.map(str::to_owned), name.to_owned()))
            .map(String::as_str)
            .ok_or_else(|| DiscoveryError::NotOffered {
                namespace: namespace.map(shown),
                name: shown(name),
            })
    }

    /// Whether the list offers the tool named `name` (our name), loaded or deferred.
    pub fn offers(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// Whether the tool named `name` (our name) was deferred.
    pub fn is_deferred(&self, name: &str) -> bool {
        self.entries.get(name).is_some_and(|entry| entry.deferred)
    }

    /// Every tool offered (our names), in order.
    pub fn offered(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// What the model sees of the list before any search, as the providers document it:
    /// Anthropic leaves deferred tools out of the prompt ("Deferred tools are not included in
    /// the system-prompt prefix"); OpenAI shows a deferred function's or a namespace's name
    /// and description only ("the model still sees the name and description of whatever is
    /// searchable"); Chat Completions and Gemini see the whole list. For measuring context
    /// (`benches/`), not for sending: send [`tools`](Self::tools).
    ///
    /// ```
    /// use toolwright_core::Tool;
    /// use toolwright_formats::discovery::{DeferPlan, export_deferred};
    /// use toolwright_formats::schema::Format;
    ///
    /// let tool = Tool::builder("ping").description("Ping.").handler(|_| async { "pong" }).build().unwrap();
    /// let list = export_deferred(&[tool], Format::Anthropic, &DeferPlan::new()).unwrap();
    /// assert_eq!(list.tools().len(), 2);
    /// assert_eq!(list.model_visible().len(), 1, "only the search tool");
    /// ```
    pub fn model_visible(&self) -> Vec<Value> {
        let summary = |entry: &Value| {
            let mut out = serde_json::Map::new();
            for key in ["type", "name", "description"] {
                if let Some(value) = entry.get(key) {
                    out.insert(key.to_owned(), value.clone());
                }
            }
            Value::Object(out)
        };
        let deferred = |entry: &Value| entry.get("defer_loading") == Some(&Value::Bool(true));
        match self.format {
            Format::Anthropic => self
                .tools
                .iter()
                .filter(|t| !deferred(t))
                .cloned()
                .collect(),
            Format::OpenAiResponses => self
                .tools
                .iter()
                .map(|entry| {
                    if deferred(entry) || entry.get("type") == Some(&Value::from("namespace")) {
                        summary(entry)
                    } else {
                        entry.clone()
                    }
                })
                .collect(),
            _ => self.tools.clone(),
        }
    }

    /// How many tools were deferred.
    pub fn deferred_count(&self) -> usize {
        self.entries.values().filter(|entry| entry.deferred).count()
    }
}
