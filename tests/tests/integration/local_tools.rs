//! Tools defined in the test crate itself.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolwright::model::Json;
use toolwright::{ToolContext, ToolError, tool};

/// How to sort.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Smallest first.
    Ascending,
    /// Largest first.
    Descending,
}

/// Sort a list of integers.
#[tool(categories(math), tags("lists"))]
pub fn sort_numbers(
    /// The numbers to sort
    numbers: Vec<i64>,
    /// The order, ascending when absent
    order: Option<Order>,
) -> Json<Vec<i64>> {
    let mut numbers = numbers;
    numbers.sort_unstable();
    if let Some(Order::Descending) = order {
        numbers.reverse();
    }
    Json(numbers)
}

/// A search filter.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
pub struct Filter {
    /// Field name to match.
    pub field: String,
    /// Values the field may have.
    pub any_of: Vec<String>,
}

/// Search records, with filters and per-field boosts.
#[tool(
    name = "search_records",
    description = "Search the records store. Use for questions about stored records.",
    safety = "safe",
    categories(search),
    tags("records", "query"),
    required("query"),
    version = "2.0.0",
    priority = toolwright::model::priority::OFFICIAL
)]
pub async fn search(
    ctx: &ToolContext,
    /// Free-text query
    query: String,
    /// Filters that must all match
    filters: Option<Vec<Filter>>,
    /// Extra weight per field
    boosts: Option<BTreeMap<String, f64>>,
    /// Maximum number of results
    #[arg(default = 10)]
    limit: u32,
    /// API key of the records store
    #[arg(secret, rename = "api_key")]
    key: Option<String>,
) -> Result<String, ToolError> {
    let _ = key;
    Ok(format!(
        "call {}: query={query:?} filters={} boosts={} limit={limit}",
        ctx.call_id(),
        filters.map_or(0, |f| f.len()),
        boosts.map_or(0, |b| b.len()),
    ))
}

/// Fail on purpose, with a message for the model.
#[tool(safety = "cautious", categories(testing))]
pub fn always_fails(
    /// What to say
    reason: String,
) -> Result<(), String> {
    Err(format!("failed as asked: {reason}"))
}

/// Return nothing.
#[tool(safety = "dangerous", categories(testing))]
pub fn do_nothing() {}

/// Echo a word back, optionally shouting.
#[tool(categories(testing))]
pub fn echo(
    /// The word
    word: String,
    /// Upper-case it
    #[arg(default = false)]
    shout: bool,
) -> String {
    if shout { word.to_uppercase() } else { word }
}

/// Summary statistics of a list of numbers.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Summary {
    /// How many numbers there were.
    pub count: usize,
    /// Their mean, absent for an empty list.
    pub mean: Option<f64>,
}

/// Summarize a list of numbers: count and mean.
#[tool(categories(math))]
pub fn summarize_numbers(
    /// The numbers
    numbers: Vec<f64>,
) -> Json<Summary> {
    let count = numbers.len();
    let mean = (count > 0).then(|| numbers.iter().sum::<f64>() / count as f64);
    Json(Summary { count, mean })
}
