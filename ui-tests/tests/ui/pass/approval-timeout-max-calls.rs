#![deny(warnings, clippy::all)]

use std::time::Duration;

use toolwright::serde_json::json;
use toolwright::model::ApprovalNeed;
use toolwright::{ToolContext, ToolError, ToolRegistry, register_all_tools, tool, tool_set};

mod rules {
    use super::*;

    // The tool's parameters, by reference and in order; `&String` arrives as `&str`.
    pub fn small_is_fine(_ctx: &ToolContext, _to: &str, cents: &u64) -> ApprovalNeed {
        if *cents <= 100 { ApprovalNeed::NotRequired } else { ApprovalNeed::Required }
    }
}

/// Pay someone.
#[tool(safety = "dangerous", approval = rules::small_is_fine, timeout = "500ms", max_calls = 3)]
fn pay(to: String, cents: u64) -> String {
    format!("paid {cents} to {to}")
}

/// A shop whose rule depends on its own configuration.
struct Shop {
    free_below: u64,
}

#[tool_set]
impl Shop {
    // A rule that is a method of the set, on the same instance; it may fail.
    fn check(&self, _ctx: &ToolContext, cents: &u64) -> Result<ApprovalNeed, ToolError> {
        if *cents == 0 {
            return Err(ToolError::new("a refund of nothing"));
        }
        Ok(if *cents < self.free_below { ApprovalNeed::NotRequired } else { ApprovalNeed::Required })
    }

    /// Refund a customer.
    #[tool(safety = "dangerous", approval = Self::check, timeout = "1h", max_calls = 10)]
    fn refund(&self, cents: u64) -> String {
        format!("refunded {cents} (free below {})", self.free_below)
    }

    /// Refund twice as much.
    #[tool(safety = "dangerous", approval = check, timeout = "5m")]
    fn refund_double(&self, cents: u64) -> String {
        format!("refunded {}", cents * 2)
    }

    /// Look at the stock.
    #[tool(timeout = "30s", max_calls = 1u32)]
    fn stock() -> String {
        "plenty".into()
    }
}

fn args(value: toolwright::serde_json::Value) -> toolwright::serde_json::Map<String, toolwright::serde_json::Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn main() {
    let ctx = ToolContext::new();
    let registry = register_all_tools().unwrap();

    let pay = registry.get("pay").unwrap();
    assert!(pay.has_approval_rule());
    assert_eq!(pay.timeout(), Some(Duration::from_millis(500)));
    assert_eq!(pay.max_calls(), Some(3));
    assert_eq!(pay.approval(&ctx, &args(json!({"to": "a", "cents": 5}))).map(Result::unwrap), Some(ApprovalNeed::NotRequired));
    assert_eq!(pay.approval(&ctx, &args(json!({"to": "a", "cents": 500}))).map(Result::unwrap), Some(ApprovalNeed::Required));
    let err = pay.approval(&ctx, &args(json!({"to": "a"}))).unwrap().unwrap_err();
    assert!(err.to_string().contains("`cents`"), "{err}");

    let stock = registry.get("stock").unwrap();
    assert!(!stock.has_approval_rule());
    assert!(stock.approval(&ctx, &args(json!({}))).is_none());
    assert_eq!(stock.timeout(), Some(Duration::from_secs(30)));
    assert_eq!(stock.max_calls(), Some(1));

    // Bound to an instance: the rule runs on it.
    let bound = ToolRegistry::new();
    bound.register_set(std::sync::Arc::new(Shop { free_below: 50 })).unwrap();
    let refund = bound.get("refund").unwrap();
    assert_eq!(refund.timeout(), Some(Duration::from_secs(3600)));
    assert_eq!(refund.max_calls(), Some(10));
    assert_eq!(refund.approval(&ctx, &args(json!({"cents": 10}))).map(Result::unwrap), Some(ApprovalNeed::NotRequired));
    assert_eq!(refund.approval(&ctx, &args(json!({"cents": 90}))).map(Result::unwrap), Some(ApprovalNeed::Required));
    assert!(refund.approval(&ctx, &args(json!({"cents": 0}))).unwrap().is_err());
    let double = bound.get("refund_double").unwrap();
    assert_eq!(double.timeout(), Some(Duration::from_secs(300)));
    assert_eq!(double.max_calls(), None);
    assert_eq!(double.approval(&ctx, &args(json!({"cents": 10}))).map(Result::unwrap), Some(ApprovalNeed::NotRequired));

    // Linked, without an instance in the context: the rule fails, it does not panic.
    let linked = registry.get("refund").unwrap();
    assert!(linked.approval(&ctx, &args(json!({"cents": 10}))).unwrap().is_err());
}
