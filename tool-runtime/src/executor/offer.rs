//! The tools offered to a model for one turn: what to export and what may run, one set.

use serde_json::Value;

use super::handle::Executor;
use super::options::CallOptions;
use crate::registry::ToolFilter;
use toolwright_core::Tool;
use toolwright_formats::schema::{Format, tools_to_schema};

/// The tools offered to the model for one turn, fixed when the offer is made: export their
/// schemas with [`schemas`](Self::schemas) and run the model's calls with
/// [`call_options`](Self::call_options), so a call of anything that was not shown (another
/// registered tool, one registered after the export) is refused as unknown. Made by
/// [`Executor::offer`].
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use std::sync::Arc;
/// use toolwright_core::serde_json::json;
/// use toolwright_formats::schema::Format;
/// use toolwright_core::{tool, ToolCall};
/// use toolwright_runtime::{register_all_tools, Executor, ToolFilter};
///
/// /// Read a note.
/// #[tool(categories(notes))]
/// fn read_jotting(title: String) -> String { format!("the note {title}") }
///
/// /// Delete every note.
/// #[tool(safety = "dangerous", categories(admin))]
/// fn purge_jottings() -> String { "purged".into() }
///
/// let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
/// let turn = executor.offer(ToolFilter::new().categories(["notes"]));
/// let tools_for_the_model = turn.schemas(Format::Anthropic);
/// assert_eq!(tools_for_the_model.len(), 1);
///
/// // The model asks for a tool it was not shown.
/// let calls = vec![
///     ToolCall::new("1", "read_jotting", json!({"title": "a"})),
///     ToolCall::new("2", "purge_jottings", json!({})),
/// ];
/// let results = executor.execute_batch(calls, turn.call_options()).await;
/// assert_eq!(results[0].content, "the note a");
/// assert!(results[1].error.as_deref().unwrap().starts_with("unknown tool `purge_jottings`"));
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Offer {
    tools: Vec<Tool>,
}

impl Offer {
    /// The offered tools, by priority then name.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The offered tools' names.
    pub fn names(&self) -> Vec<String> {
        self.tools
            .iter()
            .map(|tool| tool.name().to_owned())
            .collect()
    }

    /// The offered tools in a provider's format, to send with the request.
    pub fn schemas(&self, format: Format) -> Vec<Value> {
        tools_to_schema(&self.tools, format)
    }

    /// Call options that let exactly the offered tools run (add a timeout, a cancellation
    /// token... to them as usual).
    pub fn call_options(&self) -> CallOptions {
        CallOptions::new().allowed_tools(ToolFilter::new().names(self.names()))
    }
}

impl Executor {
    /// The tools a model may be offered under `filter` now: enabled, under the executor's
    /// ceiling, passing the filter. See [`Offer`].
    pub fn offer(&self, filter: ToolFilter) -> Offer {
        let tools = self
            .inner
            .registry
            .list(&filter)
            .into_iter()
            .filter(|tool| tool.safety() <= self.inner.max_safety)
            .collect();
        Offer { tools }
    }
}
