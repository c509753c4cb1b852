#![deny(warnings, clippy::all)]
// A tool set with every kind of method: sync and async `&self` methods, an associated
// function without `self`, `Self` in parameter types and defaults, a preview that is a method
// of the set, `#[state]` and `&ToolContext` parameters, and methods that are not tools.
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use toolwright::{ToolContext, ToolError, ToolRegistry, tool, tool_set};
use toolwright::model::ToolSet;

struct Limits(u32);

#[derive(Default)]
struct Counter {
    count: AtomicU32,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Step(u32);

#[tool_set]
impl Counter {
    const START: u32 = 1;

    /// Add a step to the counter.
    #[tool(safety = "cautious", preview = describe_add)]
    fn add(
        &self,
        /// How much to add
        #[arg(default = Self::START)]
        by: u32,
        #[state] limits: &Limits,
    ) -> Result<u32, ToolError> {
        if by > limits.0 {
            return Err(ToolError::new("too big"));
        }
        Ok(self.count.fetch_add(by, Ordering::SeqCst) + by)
    }

    fn describe_add(&self, _ctx: &ToolContext, by: &u32) -> Result<String, ToolError> {
        Ok(format!("{} + {by}", self.count.load(Ordering::SeqCst)))
    }

    /// Add several steps.
    #[toolwright::tool]
    async fn add_steps(&self, ctx: &ToolContext, steps: Vec<Step>) -> u32 {
        let _ = ctx.call_id();
        let total: u32 = steps.iter().map(|s| s.0).sum();
        self.count.fetch_add(total, Ordering::SeqCst) + total
    }

    /// The counter's unit.
    #[tool]
    fn counter_unit() -> &'static str {
        "steps"
    }

    fn current(&self) -> u32 {
        self.count.load(Ordering::SeqCst)
    }
}

fn main() {
    let registry = ToolRegistry::new();
    let counter = Arc::new(Counter::default());
    registry.register_set(Arc::clone(&counter)).unwrap();
    assert_eq!(registry.names(), ["add", "add_steps", "counter_unit"]);
    assert_eq!(Counter::tools(&counter).len(), 3);
    let add = registry.get("add").unwrap();
    assert_eq!(add.required(), Vec::<&str>::new());
    assert!(add.has_preview());
    assert!(registry.get("add_steps").unwrap().is_async());
    assert_eq!(counter.current(), 0);
}
