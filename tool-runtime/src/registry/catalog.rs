//! The read-only [`Catalog`] a running tool sees of the registry.

use std::sync::Arc;

use toolwright_core::{Catalog, CatalogEntry, CatalogHit, CatalogSource, SafetyLevel, Tool};

use super::filter::ToolFilter;
use super::storage::ToolRegistry;

/// The tools of a registry that pass a filter, as a running tool sees them (read-only).
struct VisibleTools {
    registry: Arc<ToolRegistry>,
    /// Enabled tools under the call's ceiling.
    filter: ToolFilter,
    /// The tools offered for the request, when the caller said (`CallOptions::allowed_tools`).
    offered: Option<Arc<ToolFilter>>,
}

impl VisibleTools {
    fn offered(&self, tool: &Tool) -> bool {
        self.offered
            .as_ref()
            .is_none_or(|offered| offered.matches(tool, true))
    }
}

fn catalog_entry(tool: &Tool) -> CatalogEntry {
    CatalogEntry::new(
        tool.meta().clone(),
        tool.input_schema().clone(),
        tool.output_schema().cloned(),
    )
}

impl CatalogSource for VisibleTools {
    fn list(&self) -> Vec<CatalogEntry> {
        self.registry
            .list(&self.filter)
            .iter()
            .filter(|tool| self.offered(tool))
            .map(catalog_entry)
            .collect()
    }

    fn search(&self, query: &str, limit: usize) -> Vec<CatalogHit> {
        let hits = match &self.offered {
            // Searched with the ceiling alone, then narrowed: the limit counts offered tools.
            Some(_) => self
                .registry
                .search_filtered(query, usize::MAX, &self.filter),
            None => self.registry.search_filtered(query, limit, &self.filter),
        };
        hits.into_iter()
            .filter(|hit| self.offered(&hit.tool))
            .take(limit)
            .map(|hit| CatalogHit {
                entry: catalog_entry(&hit.tool),
                score: hit.score,
            })
            .collect()
    }

    fn get(&self, name: &str) -> Option<CatalogEntry> {
        let tool = self.registry.get(name)?;
        (self.registry.is_enabled(name) && self.filter.matches(&tool, true) && self.offered(&tool))
            .then(|| catalog_entry(&tool))
    }
}

impl ToolRegistry {
    /// A read-only catalog of the enabled tools that pass `filter`, for a tool's context
    /// ([`ToolContext::with_catalog`](toolwright_core::ToolContext::with_catalog)); the executor makes one for each call.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_core::SafetyLevel;
    /// use toolwright_runtime::{ToolFilter, ToolRegistry};
    ///
    /// let registry = Arc::new(ToolRegistry::new());
    /// let catalog = registry.catalog(ToolFilter::new().max_safety(SafetyLevel::Safe));
    /// assert!(catalog.list().is_empty());
    /// ```
    pub fn catalog(self: &Arc<Self>, filter: ToolFilter) -> Catalog {
        Catalog::new(VisibleTools {
            registry: Arc::clone(self),
            filter: filter.include_disabled(false),
            offered: None,
        })
    }

    /// The catalog a call sees: enabled tools under `ceiling`, among `offered` if given.
    pub(crate) fn call_catalog(
        self: &Arc<Self>,
        ceiling: SafetyLevel,
        offered: Option<&Arc<ToolFilter>>,
    ) -> Catalog {
        Catalog::new(VisibleTools {
            registry: Arc::clone(self),
            filter: ToolFilter::new().max_safety(ceiling),
            offered: offered.cloned(),
        })
    }
}
