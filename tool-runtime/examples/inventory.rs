//! A tool set over a small in-memory store: the tools are methods of `Inventory`, share its
//! instance, and read a `#[state]` value (the warehouse's limits) from the executor.
//!
//! It shows both ways a set's instance reaches its tools:
//! 1. collected at link time, with the instance in the executor's state (and what happens
//!    when it is forgotten: the executor is not built, and the error lists every tool);
//! 2. bound to one instance per tenant with `ToolRegistry::register_set`.
//!
//! Run it with `cargo run -p toolwright-runtime --example inventory`.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use toolwright_core::serde_json::json;
use toolwright_core::{Json, ToolCall, ToolContext, ToolError, tool, tool_set, tool_type};
use toolwright_runtime::{
    ApprovalDecision, ApprovalRequest, Executor, ToolRegistry, register_all_tools,
};

/// Stock by item name, shared by the tools.
#[derive(Default)]
struct Inventory {
    stock: RwLock<BTreeMap<String, u32>>,
}

/// Limits the operator configures once, read by the tools as `#[state]`.
struct Limits {
    max_per_item: u32,
}

/// One line of a stock report (the tool's structured output).
#[tool_type]
struct StockLine {
    item: String,
    count: u32,
}

impl Inventory {
    fn read(&self) -> Result<std::sync::RwLockReadGuard<'_, BTreeMap<String, u32>>, ToolError> {
        self.stock
            .read()
            .map_err(|_| ToolError::new("the inventory is unavailable; try again"))
    }

    fn write(&self) -> Result<std::sync::RwLockWriteGuard<'_, BTreeMap<String, u32>>, ToolError> {
        self.stock
            .write()
            .map_err(|_| ToolError::new("the inventory is unavailable; try again"))
    }
}

#[tool_set]
impl Inventory {
    /// Add units of an item to the stock and return the new count.
    #[tool(safety = "cautious", categories(inventory))]
    fn add_stock(
        &self,
        /// The item's name, e.g. "bolt"
        item: String,
        /// How many units arrive
        count: u32,
        #[state] limits: &Limits,
    ) -> Result<u32, ToolError> {
        let mut stock = self.write()?;
        let entry = stock.entry(item.clone()).or_insert(0);
        let total = entry.saturating_add(count);
        if total > limits.max_per_item {
            return Err(ToolError::new(format!(
                "`count` would bring `{item}` to {total}, above the limit of {} per item",
                limits.max_per_item
            )));
        }
        *entry = total;
        Ok(total)
    }

    /// List the stock, item by item.
    #[tool(categories(inventory))]
    async fn stock_report(&self) -> Result<Json<Vec<StockLine>>, ToolError> {
        let stock = self.read()?;
        Ok(Json(
            stock
                .iter()
                .map(|(item, count)| StockLine {
                    item: item.clone(),
                    count: *count,
                })
                .collect(),
        ))
    }

    /// Remove an item from the stock entirely.
    #[tool(safety = "dangerous", categories(inventory), preview = removal_preview)]
    fn remove_item(
        &self,
        /// The item to remove
        item: String,
    ) -> Result<String, ToolError> {
        match self.write()?.remove(&item) {
            Some(count) => Ok(format!("removed `{item}` ({count} units)")),
            None => Err(ToolError::new(format!("no item `{item}` in stock"))),
        }
    }

    /// What `remove_item` would do, for the person approving it (runs on the same instance).
    fn removal_preview(&self, _ctx: &ToolContext, item: &str) -> Result<String, ToolError> {
        let count = self.read()?.get(item).copied().unwrap_or(0);
        Ok(format!("remove `{item}` and its {count} units"))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. Collected at link time; the instance and the limits come from the executor.
    let registry = Arc::new(register_all_tools()?);
    let forgotten = Executor::builder(Arc::clone(&registry)).try_build();
    let Err(error) = forgotten else {
        return Err("the executor was built without its state".into());
    };
    println!("without state:\n{error}\n");

    let inventory = Arc::new(Inventory::default());
    let executor = Executor::builder(Arc::clone(&registry))
        .shared_state(Arc::clone(&inventory))
        .state(Limits { max_per_item: 100 })
        .approval(|request: ApprovalRequest| async move {
            println!("approval asked: {}", request.preview.unwrap_or_default());
            ApprovalDecision::Approved
        })
        .try_build()?;
    let calls = [
        ToolCall::new("1", "add_stock", json!({"item": "bolt", "count": 40})),
        ToolCall::new("2", "add_stock", json!({"item": "nut", "count": 70})),
        ToolCall::new("3", "add_stock", json!({"item": "nut", "count": 70})),
        ToolCall::new("4", "remove_item", json!({"item": "bolt"})),
        ToolCall::new("5", "stock_report", json!({})),
    ];
    for call in calls {
        let name = call.name.clone();
        let result = executor.execute(call).await;
        match &result.error {
            None => println!("{name}: {}", result.content),
            Some(error) => println!("{name} failed: {error}"),
        }
    }
    // The application's handle is the tools' instance.
    let stock = inventory.stock.read().map_err(|_| "poisoned")?.clone();
    assert_eq!(stock, BTreeMap::from([("nut".to_owned(), 70)]));

    // 2. One registry per tenant, each bound to its own instance.
    println!();
    for tenant in ["acme", "globex"] {
        let registry = ToolRegistry::new();
        let tenant_inventory = Arc::new(Inventory::default());
        registry.register_set(Arc::clone(&tenant_inventory))?;
        let executor = Executor::builder(Arc::new(registry))
            .state(Limits { max_per_item: 10 })
            .try_build()?;
        let count = if tenant == "acme" { 3 } else { 5 };
        let call = ToolCall::new("1", "add_stock", json!({"item": "gear", "count": count}));
        let result = executor.execute(call).await;
        println!("{tenant}: gear = {}", result.content);
    }
    Ok(())
}
