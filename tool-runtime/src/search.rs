//! Tool search: BM25 over what a tool says about itself, for registries too large to show a
//! model whole.

use std::collections::{BTreeMap, HashMap};

use toolwright_core::Tool;

/// How much each field counts: a word in the name says more than one in the description.
const NAME_WEIGHT: u32 = 3;
const LABEL_WEIGHT: u32 = 2;
const TEXT_WEIGHT: u32 = 1;

/// BM25 constants (the usual ones).
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Words too common to say anything about a tool.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "for", "from", "how", "i", "in",
    "into", "is", "it", "its", "me", "my", "of", "on", "or", "please", "that", "the", "this", "to",
    "use", "when", "what", "which", "with", "you", "your",
];

/// An inverted index of every tool's words, kept in step with the registry.
#[derive(Debug, Default)]
pub(crate) struct SearchIndex {
    /// term -> (tool name -> weighted term frequency)
    postings: HashMap<String, BTreeMap<String, u32>>,
    /// tool name -> (its terms with frequencies, its weighted length)
    documents: HashMap<String, (HashMap<String, u32>, u32)>,
    total_length: u64,
}

impl SearchIndex {
    pub(crate) fn insert(&mut self, tool: &Tool) {
        self.remove(tool.name());
        let mut terms: HashMap<String, u32> = HashMap::new();
        let mut add = |text: &str, weight: u32| {
            for term in tokenize(text) {
                *terms.entry(term).or_default() += weight;
            }
        };
        add(tool.name(), NAME_WEIGHT);
        for label in tool.categories().iter().chain(tool.tags()) {
            add(label, LABEL_WEIGHT);
        }
        add(tool.description(), TEXT_WEIGHT);
        for param in tool.params() {
            add(param.name(), TEXT_WEIGHT);
            if let Some(description) = param.description() {
                add(description, TEXT_WEIGHT);
            }
        }
        let length: u32 = terms.values().sum();
        for (term, frequency) in &terms {
            self.postings
                .entry(term.clone())
                .or_default()
                .insert(tool.name().to_owned(), *frequency);
        }
        self.total_length += u64::from(length);
        self.documents
            .insert(tool.name().to_owned(), (terms, length));
    }

    pub(crate) fn remove(&mut self, name: &str) {
        let Some((terms, length)) = self.documents.remove(name) else {
            return;
        };
        self.total_length -= u64::from(length);
        for term in terms.keys() {
            if let Some(posting) = self.postings.get_mut(term) {
                posting.remove(name);
                if posting.is_empty() {
                    self.postings.remove(term);
                }
            }
        }
    }

    /// Every tool with a positive score for `query`, best first (ties by name).
    pub(crate) fn scores(&self, query: &str) -> Vec<(String, f64)> {
        let documents = self.documents.len() as f64;
        if documents == 0.0 {
            return Vec::new();
        }
        let average_length = (self.total_length as f64 / documents).max(1.0);
        let mut query_terms = tokenize(query);
        query_terms.sort();
        query_terms.dedup();
        let mut scores: HashMap<&str, f64> = HashMap::new();
        for term in &query_terms {
            let Some(posting) = self.postings.get(term) else {
                continue;
            };
            let containing = posting.len() as f64;
            let idf = ((documents - containing + 0.5) / (containing + 0.5) + 1.0).ln();
            for (name, frequency) in posting {
                let length = self.documents.get(name).map_or(0, |(_, l)| *l) as f64;
                let tf = f64::from(*frequency);
                let score =
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / average_length));
                *scores.entry(name.as_str()).or_default() += score;
            }
        }
        let mut ranked: Vec<(String, f64)> = scores
            .into_iter()
            .filter(|(_, score)| *score > 0.0)
            .map(|(name, score)| (name.to_owned(), score))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        ranked
    }
}

/// Lowercase words of `text`, split on anything not alphanumeric (so `read_file` is `read`
/// and `file`), without stop words, lightly stemmed so "files" finds "file".
pub(crate) fn tokenize(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .filter(|word| !STOP_WORDS.contains(&word.as_str()))
        .map(|word| stem(&word))
        .collect()
}

/// A few English suffixes, enough for plurals and verb forms to meet their stems
/// ("replacing", "replaces" and "replace" all become "replac").
fn stem(word: &str) -> String {
    let stem = strip_suffix(word);
    match stem.strip_suffix('e') {
        Some(shorter) if shorter.len() >= 3 => shorter.to_owned(),
        _ => stem,
    }
}

fn strip_suffix(word: &str) -> String {
    let long =
        |suffix: &str, min: usize| word.len() >= suffix.len() + min && word.ends_with(suffix);
    if long("ies", 2) {
        return format!("{}y", &word[..word.len() - 3]);
    }
    for (suffix, min) in [("ing", 3), ("ed", 3), ("es", 3), ("s", 3)] {
        if long(suffix, min) && !word.ends_with("ss") {
            let stem = &word[..word.len() - suffix.len()];
            // "uses" -> "us" would lose the word; keep "e" endings whole.
            if suffix == "es"
                && !(stem.ends_with('s')
                    || stem.ends_with('x')
                    || stem.ends_with("ch")
                    || stem.ends_with("sh"))
            {
                return word[..word.len() - 1].to_owned();
            }
            return stem.to_owned();
        }
    }
    word.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizes_names_and_text() {
        assert_eq!(tokenize("read_file"), ["read", "fil"]);
        assert_eq!(
            tokenize("Reads the files in a directory"),
            ["read", "fil", "directory"]
        );
        assert_eq!(
            tokenize("searching queries, boxes"),
            ["search", "query", "box"]
        );
    }

    #[test]
    fn stems_meet() {
        for (a, b) in [
            ("files", "file"),
            ("emails", "email"),
            ("sending", "send"),
            ("sent", "sent"),
        ] {
            if a != "sent" {
                assert_eq!(stem(a), stem(b), "{a} {b}");
            }
        }
        assert_eq!(stem("class"), "class");
    }
}
