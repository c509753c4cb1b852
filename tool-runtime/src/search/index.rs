//! The inverted index: BM25 over weighted fields, a trigram fallback for queries whose words
//! match nothing, and the near-duplicate test that keeps copies of one tool from filling a
//! page of results.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{Hash, Hasher};

use toolwright_core::Tool;

use super::text::{tokenize, trigrams};

/// How much a word counts in each field (BM25F with one length normalization): a word in
/// the name says most, a label (category, tag) a lot, the description less, and a
/// parameter's name or description least (a parameter says what a tool needs, not what it
/// does, and parameter descriptions are long).
const NAME_WEIGHT: f64 = 3.0;
const LABEL_WEIGHT: f64 = 2.0;
const DESCRIPTION_WEIGHT: f64 = 1.0;
const PARAM_WEIGHT: f64 = 1.0;

/// BM25 constants (the usual ones).
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Two tools whose description words overlap this much (Jaccard) are copies of one
/// another for ranking: the second waits until the distinct ones have been shown. Only
/// near-identical texts: tools that merely do similar things stay where their score puts
/// them (a lower bound demoted the right tool behind a similar one on BFCL).
const NEAR_DUPLICATE: f64 = 0.95;

/// A description of fewer distinct words than this is not compared for copies.
const MIN_SIGNATURE: usize = 4;

/// A query's trigrams beyond this many are not used (a pasted essay in another script must
/// not cost more than a paragraph).
const MAX_QUERY_GRAMS: usize = 256;

#[derive(Debug)]
struct Document {
    /// Its terms with their weighted frequencies.
    terms: HashMap<String, f64>,
    /// The sum of those frequencies.
    length: f64,
    /// The distinct terms of its description, hashed and sorted, to spot copies (empty for
    /// a description too short to tell).
    signature: Vec<u64>,
    /// The distinct terms of its name alone (numbers are not terms: `get_user_2` and
    /// `get_user` have the same), hashed and sorted.
    name_signature: Vec<u64>,
}

/// An inverted index of every tool's words, kept in step with the registry.
#[derive(Debug, Default)]
pub(crate) struct SearchIndex {
    /// term -> (tool name -> weighted term frequency)
    postings: HashMap<String, BTreeMap<String, f64>>,
    documents: HashMap<String, Document>,
    total_length: f64,
}

fn hash_of(text: &str) -> u64 {
    // Fixed keys: the same text hashes the same in every process (ranking is deterministic).
    let mut hasher = std::hash::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

impl SearchIndex {
    pub(crate) fn insert(&mut self, tool: &Tool) {
        self.remove(tool.name());
        let mut terms: HashMap<String, f64> = HashMap::new();
        let mut add = |text: &str, weight: f64| {
            for term in tokenize(text) {
                *terms.entry(term).or_default() += weight;
            }
        };
        add(tool.name(), NAME_WEIGHT);
        for label in tool.categories().iter().chain(tool.tags()) {
            add(label, LABEL_WEIGHT);
        }
        add(tool.description(), DESCRIPTION_WEIGHT);
        for param in tool.params() {
            add(param.name(), PARAM_WEIGHT);
            if let Some(description) = param.description() {
                add(description, PARAM_WEIGHT);
            }
        }
        let signature_of = |terms: &[String]| {
            let mut hashes: Vec<u64> = terms.iter().map(|term| hash_of(term)).collect();
            hashes.sort_unstable();
            hashes.dedup();
            hashes
        };
        let name_terms = tokenize(tool.name());
        // Without numbers, versions included: `get_user_v2` is a copy of `get_user`.
        let name_signature = signature_of(
            &name_terms
                .iter()
                .filter(|term| !term.contains(|c: char| c.is_ascii_digit()))
                .cloned()
                .collect::<Vec<_>>(),
        );
        let mut signature = signature_of(&tokenize(tool.description()));
        if signature.len() < MIN_SIGNATURE {
            // "Get data." says too little to call two tools the same.
            signature.clear();
        }
        let length: f64 = terms.values().sum();
        for (term, frequency) in &terms {
            self.postings
                .entry(term.clone())
                .or_default()
                .insert(tool.name().to_owned(), *frequency);
        }
        self.total_length += length;
        self.documents.insert(
            tool.name().to_owned(),
            Document {
                terms,
                length,
                signature,
                name_signature,
            },
        );
    }

    pub(crate) fn remove(&mut self, name: &str) {
        let Some(document) = self.documents.remove(name) else {
            return;
        };
        self.total_length = (self.total_length - document.length).max(0.0);
        for term in document.terms.keys() {
            if let Some(posting) = self.postings.get_mut(term) {
                posting.remove(name);
                if posting.is_empty() {
                    self.postings.remove(term);
                }
            }
        }
    }

    /// Every tool ranked for `query`, best first (ties by name): those whose words match
    /// by BM25; when no word matches (another language, a typo), those sharing character
    /// trigrams with the query's words; when not even those match, every tool with score
    /// 0 (best guesses, never nothing while there are tools). A query with no word at all
    /// (empty, or only punctuation) asks for nothing and gets nothing.
    pub(crate) fn scores(&self, query: &str) -> Vec<(String, f64)> {
        if self.documents.is_empty() || !query.chars().any(char::is_alphanumeric) {
            return Vec::new();
        }
        let mut query_terms = tokenize(query);
        query_terms.sort();
        query_terms.dedup();
        let mut ranked = self.bm25(&query_terms);
        if ranked.is_empty() {
            ranked = self.by_trigrams(query, &query_terms);
        }
        if ranked.is_empty() {
            ranked = self
                .documents
                .keys()
                .map(|name| (name.clone(), 0.0))
                .collect();
        }
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        ranked
    }

    fn bm25(&self, query_terms: &[String]) -> Vec<(String, f64)> {
        let documents = self.documents.len() as f64;
        let average_length = (self.total_length / documents).max(1.0);
        let mut scores: HashMap<&str, f64> = HashMap::new();
        for term in query_terms {
            let Some(posting) = self.postings.get(term) else {
                continue;
            };
            let containing = posting.len() as f64;
            let idf = ((documents - containing + 0.5) / (containing + 0.5) + 1.0).ln();
            for (name, tf) in posting {
                let length = self.documents.get(name).map_or(0.0, |d| d.length);
                let score =
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / average_length));
                *scores.entry(name.as_str()).or_default() += score;
            }
        }
        scores
            .into_iter()
            .filter(|(_, score)| *score > 0.0)
            .map(|(name, score)| (name.to_owned(), score))
            .collect()
    }

    /// Tools ranked by the query's character trigrams they share, each gram weighted by how
    /// rare it is among the tools, over the square root of the tool's number of words.
    /// Computed on demand: it runs only for queries whose words match nothing.
    fn by_trigrams(&self, query: &str, query_terms: &[String]) -> Vec<(String, f64)> {
        let mut grams = Vec::new();
        if query_terms.is_empty() {
            // Only stop words, lone letters or numbers: their letters are all there is.
            for word in query.split(|c: char| !c.is_alphanumeric()) {
                trigrams(&word.to_lowercase(), &mut grams);
            }
        } else {
            for term in query_terms {
                trigrams(term, &mut grams);
            }
        }
        let wanted: HashMap<u64, usize> = grams
            .iter()
            .map(|gram| hash_of(gram))
            .collect::<HashSet<_>>()
            .into_iter()
            .take(MAX_QUERY_GRAMS)
            .enumerate()
            .map(|(i, hash)| (hash, i))
            .collect();
        if wanted.is_empty() {
            return Vec::new();
        }
        // Over the vocabulary, not each tool's words: every distinct word is cut into grams
        // once, and the tools holding a matching word inherit its grams.
        let mut per_tool: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut own = Vec::new();
        for (term, posting) in &self.postings {
            own.clear();
            trigrams(term, &mut own);
            let hits: Vec<usize> = own
                .iter()
                .filter_map(|gram| wanted.get(&hash_of(gram)).copied())
                .collect();
            if hits.is_empty() {
                continue;
            }
            for name in posting.keys() {
                per_tool.entry(name).or_default().extend(&hits);
            }
        }
        let mut containing = vec![0_usize; wanted.len()];
        let matched: Vec<(&str, Vec<usize>, usize)> = per_tool
            .into_iter()
            .map(|(name, mut hits)| {
                hits.sort_unstable();
                hits.dedup();
                for hit in &hits {
                    containing[*hit] += 1;
                }
                let length = self.documents.get(name).map_or(1, |d| d.terms.len());
                (name, hits, length)
            })
            .collect();
        let documents = self.documents.len() as f64;
        matched
            .into_iter()
            .map(|(name, hits, length)| {
                let score: f64 = hits
                    .iter()
                    .map(|hit| {
                        let containing = containing[*hit] as f64;
                        ((documents - containing + 0.5) / (containing + 0.5) + 1.0).ln()
                    })
                    .sum();
                (name.to_owned(), score / (length.max(1) as f64).sqrt())
            })
            .collect()
    }

    /// Whether two indexed tools are near copies: names that differ only in numbers (a
    /// version, a copy: `get_user`, `get_user_2`, `get_user_v2`), or descriptions of (nearly)
    /// the same words (one tool mounted from two servers under two names).
    pub(crate) fn near_duplicates(&self, a: &str, b: &str) -> bool {
        let (Some(a), Some(b)) = (self.documents.get(a), self.documents.get(b)) else {
            return false;
        };
        if !a.name_signature.is_empty() && a.name_signature == b.name_signature {
            return true;
        }
        let (a, b) = (&a.signature, &b.signature);
        let (mut i, mut j, mut shared) = (0, 0, 0_usize);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    shared += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        let union = a.len() + b.len() - shared;
        union > 0 && shared as f64 / union as f64 >= NEAR_DUPLICATE
    }
}
