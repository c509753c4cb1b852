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
    /// Its relevance to the query (higher is better; only comparable within one search); 0
    /// for a guess when nothing in any tool matched the query.
    pub score: f64,
}

impl ToolRegistry {
    /// The enabled tools most relevant to `query`, best first, at most `limit`.
    ///
    /// Relevance is BM25 over each tool's name (split on `_`, `.`, camelCase and digits),
    /// description, categories, tags, and parameter names and descriptions (weighted in
    /// that order), from an index kept in step with `register` and `remove`. A near copy of
    /// a better hit (most words of its name and description the same) comes after the
    /// distinct tools of the first page. A query none of whose words any tool has (another
    /// language, a typo) is matched by character trigrams instead, and if even those match
    /// nothing every tool comes back with score 0: a query with a word in it never gets
    /// nothing while there are tools. An empty query gets nothing.
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
        let mut passed = index.scores(query).into_iter().filter_map(|(name, score)| {
            let entry = entries.get(&name)?;
            filter
                .matches(&entry.tool, entry.enabled)
                .then(|| SearchHit {
                    tool: entry.tool.clone(),
                    score,
                })
        });
        // Near copies of a better hit (one tool mounted twice, a definition reworded) wait
        // until the distinct tools of the first page are shown, so a page is not five
        // copies of one tool. The page is DIVERSIFIED hits at most: beyond it the order is
        // the score's.
        let page = limit.min(DIVERSIFIED);
        let mut shown: Vec<SearchHit> = Vec::new();
        let mut copies: Vec<SearchHit> = Vec::new();
        for hit in passed.by_ref() {
            if shown.len() >= page || shown.len() + copies.len() >= page * 3 {
                copies.push(hit);
                break;
            }
            if shown
                .iter()
                .any(|better| index.near_duplicates(better.tool.name(), hit.tool.name()))
            {
                copies.push(hit);
            } else {
                shown.push(hit);
            }
        }
        let found: Vec<SearchHit> = shown
            .into_iter()
            .chain(copies)
            .chain(passed)
            .take(limit)
            .collect();
        if !found.is_empty() || !query.chars().any(char::is_alphanumeric) {
            return found;
        }
        // Every match was filtered out: best guesses among the tools the caller may see.
        entries
            .values()
            .filter(|entry| filter.matches(&entry.tool, entry.enabled))
            .take(limit)
            .map(|entry| SearchHit {
                tool: entry.tool.clone(),
                score: 0.0,
            })
            .collect()
    }
}

/// How many hits at most are kept apart from their near copies.
const DIVERSIFIED: usize = 20;
