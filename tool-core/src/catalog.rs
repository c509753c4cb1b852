//! What a running tool may see of the other tools: a read-only catalog of their names,
//! descriptions and schemas.
//!
//! A tool that lists or describes tools (an introspection tool, a planner) gets the tools the
//! model may call in this request, and nothing that could run or change one: no handler, no
//! registry. The executor gives each call a catalog limited to the tools enabled, under the
//! call's safety ceiling, and among those offered for the request; the registry implements
//! [`CatalogSource`].

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::call::{ToolCall, ToolResult};
use crate::meta::ToolMeta;
use crate::safety::SafetyLevel;

/// One tool as another tool may see it: its metadata and schemas, never its handler.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::{CatalogEntry, ToolMeta};
///
/// let entry = CatalogEntry::new(
///     ToolMeta::new("ping", "Check that the service answers."),
///     json!({"type": "object", "properties": {}}),
///     None,
/// );
/// assert_eq!(entry.name(), "ping");
/// assert_eq!(entry.input_schema()["type"], "object");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogEntry {
    meta: ToolMeta,
    input_schema: Value,
    output_schema: Option<Value>,
}

impl CatalogEntry {
    /// An entry for a tool with `meta`, the JSON Schema of its arguments and, if it has
    /// one, of its structured output.
    pub fn new(meta: ToolMeta, input_schema: Value, output_schema: Option<Value>) -> Self {
        CatalogEntry {
            meta,
            input_schema,
            output_schema,
        }
    }

    /// The name the model calls the tool by.
    pub fn name(&self) -> &str {
        &self.meta.name
    }

    /// What the tool does, for the model.
    pub fn description(&self) -> &str {
        &self.meta.description
    }

    /// How much the tool may change the world.
    pub fn safety(&self) -> SafetyLevel {
        self.meta.safety
    }

    /// The tool's categories.
    pub fn categories(&self) -> Vec<&str> {
        self.meta.categories.iter().map(AsRef::as_ref).collect()
    }

    /// The tool's tags.
    pub fn tags(&self) -> Vec<&str> {
        self.meta.tags.iter().map(AsRef::as_ref).collect()
    }

    /// The tool's version, if it has one.
    pub fn version(&self) -> Option<&str> {
        self.meta.version.as_deref()
    }

    /// All of the tool's metadata.
    pub fn meta(&self) -> &ToolMeta {
        &self.meta
    }

    /// The JSON Schema of the tool's arguments.
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    /// The JSON Schema of the tool's structured output, if it declares one.
    pub fn output_schema(&self) -> Option<&Value> {
        self.output_schema.as_ref()
    }
}

/// A tool found by [`Catalog::search`], with its relevance.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogHit {
    /// The tool found.
    pub entry: CatalogEntry,
    /// Its relevance to the query (higher is better; only comparable within one search).
    pub score: f64,
}

/// Where a [`Catalog`] reads its tools from. The registry implements it (through
/// `ToolRegistry::catalog`); implement it to give a tool a catalog of your own, in a test
/// for example.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::{Catalog, CatalogEntry, CatalogHit, CatalogSource, ToolMeta};
///
/// struct Fixed(Vec<CatalogEntry>);
/// impl CatalogSource for Fixed {
///     fn list(&self) -> Vec<CatalogEntry> { self.0.clone() }
///     fn search(&self, _query: &str, _limit: usize) -> Vec<CatalogHit> { Vec::new() }
/// }
///
/// let ping = CatalogEntry::new(ToolMeta::new("ping", "Answer."), json!({"type": "object"}), None);
/// let catalog = Catalog::new(Fixed(vec![ping]));
/// assert_eq!(catalog.get("ping").map(|e| e.name().to_owned()), Some("ping".to_owned()));
/// ```
pub trait CatalogSource: Send + Sync + 'static {
    /// Every tool in the catalog, in listing order (priority, then name).
    fn list(&self) -> Vec<CatalogEntry>;

    /// The tools most relevant to `query`, best first, at most `limit`.
    fn search(&self, query: &str, limit: usize) -> Vec<CatalogHit>;

    /// The tool named `name`, if the catalog has it.
    fn get(&self, name: &str) -> Option<CatalogEntry> {
        self.list().into_iter().find(|entry| entry.name() == name)
    }
}

/// The tools a running tool may see (read-only): [`ToolContext::catalog`](crate::ToolContext::catalog).
/// The executor gives each call one over the registry's enabled tools that the call may see
/// (`ToolRegistry::catalog` in toolwright-runtime); here, one of a fixed list.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::{Catalog, CatalogEntry, CatalogHit, CatalogSource, ToolContext, ToolMeta};
///
/// struct Fixed(Vec<CatalogEntry>);
/// impl CatalogSource for Fixed {
///     fn list(&self) -> Vec<CatalogEntry> { self.0.clone() }
///     fn search(&self, _query: &str, _limit: usize) -> Vec<CatalogHit> { Vec::new() }
/// }
///
/// let clock = CatalogEntry::new(ToolMeta::new("clock", "Tell the time."), json!({"type": "object"}), None);
/// let ctx = ToolContext::new().with_catalog(Catalog::new(Fixed(vec![clock])));
/// let clock = ctx.catalog().unwrap().get("clock").unwrap();
/// assert_eq!(clock.description(), "Tell the time.");
/// ```
#[derive(Clone)]
pub struct Catalog {
    source: Arc<dyn CatalogSource>,
}

impl Catalog {
    /// A catalog that reads `source`.
    pub fn new(source: impl CatalogSource) -> Self {
        Catalog {
            source: Arc::new(source),
        }
    }

    /// Every tool the catalog holds, in listing order (priority, then name).
    pub fn list(&self) -> Vec<CatalogEntry> {
        self.source.list()
    }

    /// The tool named `name`, if the catalog holds it.
    pub fn get(&self, name: &str) -> Option<CatalogEntry> {
        self.source.get(name)
    }

    /// The tools most relevant to `query`, best first, at most `limit`.
    pub fn search(&self, query: &str, limit: usize) -> Vec<CatalogHit> {
        self.source.search(query, limit)
    }
}

impl fmt::Debug for Catalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Catalog").finish_non_exhaustive()
    }
}

/// Calls of other tools that a running tool makes on its caller's behalf
/// ([`ToolContext::nested_calls`](crate::ToolContext::nested_calls)): a program in code mode
/// calling the tools it was offered. The executor gives it only to the tools its operator
/// named (`ExecutorBuilder::nested_calls_for` in toolwright-runtime), and each call goes
/// through the executor's whole policy with the outer caller's options: the same offered
/// set, ceiling, approval handler, owner, call counts and cancellation.
///
/// ```
/// use std::future::Future;
/// use std::pin::Pin;
/// use std::sync::Arc;
/// use toolwright_core::{NestedCalls, ToolCall, ToolContext, ToolResult};
///
/// /// Answers every call with its tool's name (a test double).
/// struct Echo;
/// impl NestedCalls for Echo {
///     fn call(&self, call: ToolCall) -> Pin<Box<dyn Future<Output = ToolResult> + Send + '_>> {
///         Box::pin(async move { ToolResult::success(call.id, call.name) })
///     }
/// }
///
/// let ctx = ToolContext::new().with_nested_calls(Arc::new(Echo));
/// assert!(ctx.nested_calls().is_some());
/// assert!(ToolContext::new().nested_calls().is_none());
/// ```
pub trait NestedCalls: Send + Sync + 'static {
    /// Runs `call` as the outer caller would have: every layer of the policy applies, and a
    /// refusal is a failed [`ToolResult`] saying why.
    fn call(&self, call: ToolCall) -> Pin<Box<dyn Future<Output = ToolResult> + Send + '_>>;
}
