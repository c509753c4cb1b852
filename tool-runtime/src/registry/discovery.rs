//! The registry's half of deferred tool lists (`toolwright_formats::discovery`): the list a
//! caller may see, and the answer to a search the model asked of us.

use toolwright_formats::discovery::parse::SearchRequest;
use toolwright_formats::discovery::{DeferPlan, DeferredTools, DiscoveryError, export_deferred};
use toolwright_formats::schema::Format;

use super::filter::ToolFilter;
use super::storage::ToolRegistry;

impl ToolRegistry {
    /// The deferred tool list for one request of a caller whose view is `filter` (its
    /// safety ceiling, categories, offered names): what passes the filter, by priority then
    /// name, exported with `plan`. A tool the filter leaves out is neither listed nor
    /// deferred, so no search or `tool_reference` can bring it back.
    ///
    /// # Errors
    ///
    /// As [`export_deferred`].
    ///
    /// ```
    /// use toolwright_core::{SafetyLevel, Tool};
    /// use toolwright_formats::discovery::DeferPlan;
    /// use toolwright_formats::schema::Format;
    /// use toolwright_runtime::{ToolFilter, ToolRegistry};
    ///
    /// let registry = ToolRegistry::new();
    /// registry.register(Tool::builder("wipe_disk").description("Wipe.").safety(SafetyLevel::Dangerous)
    ///     .handler(|_| async { "gone" }).build().unwrap()).unwrap();
    /// registry.register(Tool::builder("ping").description("Ping.")
    ///     .handler(|_| async { "pong" }).build().unwrap()).unwrap();
    /// let filter = ToolFilter::new().max_safety(SafetyLevel::Cautious);
    /// let list = registry.export_deferred(&filter, Format::Anthropic, &DeferPlan::new()).unwrap();
    /// assert!(list.offers("ping") && !list.offers("wipe_disk"));
    /// ```
    pub fn export_deferred(
        &self,
        filter: &ToolFilter,
        format: Format,
        plan: &DeferPlan,
    ) -> Result<DeferredTools, DiscoveryError> {
        export_deferred(&self.list(filter), format, plan)
    }

    /// The answer to the model's search (`SearchRequest` from
    /// `toolwright_formats::discovery::parse`): the registry's search under `filter`, keeping
    /// only tools `list` offered, best first, at most the request's limit. Give the names to
    /// the provider's reply (`toolwright_formats::discovery::reply`).
    ///
    /// ```
    /// use toolwright_core::{SafetyLevel, Tool};
    /// use toolwright_formats::discovery::parse::SearchRequest;
    /// use toolwright_formats::discovery::{DeferPlan, SearchTool};
    /// use toolwright_formats::schema::Format;
    /// use toolwright_runtime::{ToolFilter, ToolRegistry};
    ///
    /// let registry = ToolRegistry::new();
    /// for (name, description, safety) in [
    ///     ("delete_mail", "Delete an email message.", SafetyLevel::Dangerous),
    ///     ("send_mail", "Send an email message.", SafetyLevel::Cautious),
    /// ] {
    ///     registry.register(Tool::builder(name).description(description).safety(safety)
    ///         .handler(|_| async { "done" }).build().unwrap()).unwrap();
    /// }
    /// let filter = ToolFilter::new().max_safety(SafetyLevel::Cautious);
    /// let plan = DeferPlan::new().search(SearchTool::Ours);
    /// let list = registry.export_deferred(&filter, Format::Anthropic, &plan).unwrap();
    /// let request = SearchRequest { id: "t1".into(), query: "email message".into(), limit: 5 };
    /// assert_eq!(registry.answer_search(&request, &filter, &list), ["send_mail"]);
    /// ```
    pub fn answer_search(
        &self,
        request: &SearchRequest,
        filter: &ToolFilter,
        list: &DeferredTools,
    ) -> Vec<String> {
        // Searched a little wider than asked: a hit the list did not offer (a tool
        // registered since) is dropped, not counted.
        let wider = request.limit.saturating_mul(2).max(request.limit);
        self.search_filtered(&request.query, wider, filter)
            .into_iter()
            .map(|hit| hit.tool.name().to_owned())
            .filter(|name| list.offers(name))
            .take(request.limit)
            .collect()
    }
}
