//! Searching a registry's enabled tools by relevance.

use std::collections::BTreeMap;

use toolwright_core::Tool;

use super::filter::ToolFilter;
use super::registration::Registration;
use super::storage::{State, ToolRegistry};
use crate::search::SearchIndex;

/// One result of [`ToolRegistry::search`].
#[derive(Debug, Clone)]
pub struct SearchHit {
    /// The tool found.
    pub tool: Tool,
    /// Its BM25 relevance to the query (higher is better; only comparable within one search).
    pub score: f64,
}

impl ToolRegistry {
    /// The enabled tools most relevant to `query`, best first, at most `limit`.
    ///
    /// Relevance is BM25 over each tool's name (split on `_`), description, categories,
    /// tags, and parameter names and descriptions, from an index kept in step with
    /// `register` and `remove`.
    ///
    /// ```
    /// use toolwright_core::tool;
    /// use toolwright_runtime::register_all_tools;
    ///
    /// /// Send an email message to a recipient.
    /// #[tool(safety = "dangerous", tags("mail"))]
    /// fn send_email(to: String, body: String) -> String { format!("sent to {to}: {body}") }
    ///
    /// let hits = register_all_tools().unwrap().search("email someone a message", 3);
    /// assert_eq!(hits[0].tool.name(), "send_email");
    /// ```
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        self.search_filtered(query, limit, &ToolFilter::new())
    }

    /// Like [`search`](Self::search), among the tools that pass `filter` (its safety ceiling,
    /// categories, tags and names).
    ///
    /// ```
    /// # use toolwright_core::SafetyLevel;
    /// # use toolwright_runtime::{ToolFilter, ToolRegistry};
    /// let hits = ToolRegistry::new().search_filtered("delete", 5, &ToolFilter::new().max_safety(SafetyLevel::Safe));
    /// assert!(hits.is_empty());
    /// ```
    pub fn search_filtered(
        &self,
        query: &str,
        limit: usize,
        filter: &ToolFilter,
    ) -> Vec<SearchHit> {
        {
            let state = self.read();
            if let Some(index) = &state.index {
                return Self::hits(&state.entries, index, query, limit, filter);
            }
        }
        let mut state = self.write();
        let State { entries, index, .. } = &mut *state;
        let index = index.get_or_insert_with(|| {
            let mut index = SearchIndex::default();
            for entry in entries.values() {
                index.insert(&entry.tool);
            }
            index
        });
        Self::hits(entries, index, query, limit, filter)
    }

    fn hits(
        entries: &BTreeMap<String, Registration>,
        index: &SearchIndex,
        query: &str,
        limit: usize,
        filter: &ToolFilter,
    ) -> Vec<SearchHit> {
        index
            .scores(query)
            .into_iter()
            .filter_map(|(name, score)| {
                let entry = entries.get(&name)?;
                filter
                    .matches(&entry.tool, entry.enabled)
                    .then(|| SearchHit {
                        tool: entry.tool.clone(),
                        score,
                    })
            })
            .take(limit)
            .collect()
    }
}
