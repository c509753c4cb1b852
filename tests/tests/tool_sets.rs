//! Tool sets (`#[tool_set]` on an impl block) and `#[state]` parameters: the instance and
//! the state come from the executor or from `register_set`, and what is missing is reported
//! when the executor is built. A binary of its own: its tools need state that the other
//! test binaries' executors do not have.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolwright::model::{StateType, ToolSet};
use toolwright::runtime::executor::{ExecutorBuildError, MissingState};
use toolwright::runtime::{ApprovalDecision, ApprovalRequest, RegistryError};
use toolwright::{
    Executor, Tool, ToolCall, ToolContext, ToolError, ToolRegistry, register_all_tools, tool,
    tool_set,
};

/// A store the set's tools share.
#[derive(Default)]
struct Store {
    rows: Mutex<BTreeMap<String, i64>>,
    label: String,
}

/// A second kind of state, for `#[state]` parameters.
struct Limits {
    max_value: i64,
}

#[tool_set]
impl Store {
    /// Put a value under a key.
    #[tool(safety = "cautious", categories(store))]
    fn put_value(
        &self,
        /// The key
        key: String,
        /// The value, at most the configured maximum
        value: i64,
        #[state] limits: &Limits,
    ) -> Result<String, ToolError> {
        if value > limits.max_value {
            return Err(ToolError::new(format!(
                "`value` {value} is above the maximum {}",
                limits.max_value
            )));
        }
        self.rows
            .lock()
            .map_err(|_| ToolError::new("poisoned"))?
            .insert(key.clone(), value);
        Ok(format!("{}: {key} = {value}", self.label))
    }

    /// Read the value under a key.
    #[tool]
    async fn get_value(&self, ctx: &ToolContext, key: String) -> Result<i64, ToolError> {
        let _ = ctx.call_id();
        let rows = self.rows.lock().map_err(|_| ToolError::new("poisoned"))?;
        rows.get(&key)
            .copied()
            .ok_or_else(|| ToolError::new(format!("no value under `{key}`")))
    }

    /// Remove every value.
    #[tool(safety = "dangerous", preview = clear_preview)]
    fn clear_values(
        &self,
        /// Why
        reason: String,
    ) -> usize {
        let mut rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        let count = rows.len();
        rows.clear();
        let _ = reason;
        count
    }

    /// What `clear_values` would remove; not a tool.
    fn clear_preview(&self, _ctx: &ToolContext, reason: &str) -> Result<String, ToolError> {
        let rows = self.rows.lock().map_err(|_| ToolError::new("poisoned"))?;
        Ok(format!(
            "remove {} values from {} ({reason})",
            rows.len(),
            self.label
        ))
    }

    /// Say which version of the store this is (needs no instance).
    #[tool(name = "store_version")]
    fn version() -> &'static str {
        "store 1"
    }

    /// A plain method, left alone.
    fn len(&self) -> usize {
        self.rows.lock().map(|rows| rows.len()).unwrap_or(0)
    }
}

/// A free function with state.
#[tool]
async fn largest_allowed(#[state] limits: &Limits, ctx: &ToolContext, plus: Option<i64>) -> i64 {
    let _ = ctx;
    limits.max_value + plus.unwrap_or(0)
}

fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn store(label: &str) -> Store {
    Store {
        label: label.to_owned(),
        ..Store::default()
    }
}

#[test]
fn state_is_not_in_the_schema_and_is_declared() {
    let registry = register_all_tools().unwrap();
    let put = registry.get("put_value").unwrap();
    assert_eq!(put.required(), ["key", "value"]);
    let properties = put.input_schema()["properties"].as_object().unwrap();
    assert_eq!(properties.keys().collect::<Vec<_>>(), ["key", "value"]);
    assert_eq!(
        put.required_state(),
        [StateType::of::<Store>(), StateType::of::<Limits>()]
    );
    assert_eq!(
        registry.get("get_value").unwrap().required_state(),
        [StateType::of::<Store>()]
    );
    assert!(
        registry
            .get("store_version")
            .unwrap()
            .required_state()
            .is_empty()
    );
    assert_eq!(
        registry.get("largest_allowed").unwrap().required_state(),
        [StateType::of::<Limits>()]
    );
    // Docs and options reach the tool as for a function.
    assert_eq!(put.description(), "Put a value under a key.");
    assert_eq!(put.categories(), ["store"]);
    assert_eq!(put.params()[0].description(), Some("The key"));
    assert!(registry.get("len").is_none());
}

#[test]
fn missing_state_is_reported_when_the_executor_is_built() {
    let registry = Arc::new(register_all_tools().unwrap());
    // Disabled tools are checked too: they can be enabled later.
    registry.set_enabled("largest_allowed", false).unwrap();
    let Err(error) = Executor::builder(Arc::clone(&registry)).try_build() else {
        panic!("built without state");
    };
    let ExecutorBuildError::MissingState(missing) = &error else {
        panic!("{error}")
    };
    let store = std::any::type_name::<Store>();
    let limits = std::any::type_name::<Limits>();
    let mut pairs: Vec<(&str, &str)> = missing
        .iter()
        .map(
            |MissingState {
                 tool, type_name, ..
             }| (tool.as_str(), *type_name),
        )
        .collect();
    pairs.sort();
    assert_eq!(
        pairs,
        [
            ("clear_values", store),
            ("get_value", store),
            ("largest_allowed", limits),
            ("put_value", limits),
            ("put_value", store),
        ]
    );
    let message = error.to_string();
    assert!(message.starts_with("4 tools need state"), "{message}");
    assert!(
        message.contains(&format!("`put_value` needs `{limits}`")),
        "{message}"
    );

    // Half the state: only what is still missing.
    let Err(ExecutorBuildError::MissingState(missing)) = Executor::builder(Arc::clone(&registry))
        .state(Limits { max_value: 1 })
        .try_build()
    else {
        panic!("built without a store");
    };
    assert!(missing.iter().all(|m| m.type_name == store), "{missing:?}");

    // `build` says the same, as a panic at startup.
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Executor::builder(Arc::clone(&registry)).build()
    }))
    .err()
    .and_then(|payload| payload.downcast_ref::<String>().cloned())
    .unwrap_or_default();
    assert!(panic.contains("`get_value` needs"), "{panic}");

    assert!(
        Executor::builder(registry)
            .state(store_value("x"))
            .state(Limits { max_value: 1 })
            .try_build()
            .is_ok()
    );
}

fn store_value(label: &str) -> Store {
    store(label)
}

#[tokio::test]
async fn set_tools_run_on_the_executors_instance() {
    let registry = Arc::new(register_all_tools().unwrap());
    let shared = Arc::new(store("main"));
    let executor = Executor::builder(registry)
        .shared_state(Arc::clone(&shared))
        .state(Limits { max_value: 100 })
        .build();

    let put = executor
        .execute(ToolCall::new(
            "1",
            "put_value",
            json!({"key": "a", "value": 7}),
        ))
        .await;
    assert_eq!(put.error, None);
    assert_eq!(put.content, "main: a = 7");
    assert_eq!(
        shared.len(),
        1,
        "the application's instance is the tools' instance"
    );

    let get = executor
        .execute(ToolCall::new("2", "get_value", json!({"key": "a"})))
        .await;
    assert_eq!(get.content, "7");

    // State checks in the method body still reach the model as failures.
    let too_big = executor
        .execute(ToolCall::new(
            "3",
            "put_value",
            json!({"key": "b", "value": 1000}),
        ))
        .await;
    assert!(too_big.error.unwrap().contains("above the maximum 100"));

    // Argument errors name the parameter, as for any tool.
    let bad = executor
        .execute(ToolCall::new(
            "4",
            "put_value",
            json!({"key": "b", "value": "x"}),
        ))
        .await;
    let error = bad.error.unwrap();
    assert!(error.contains("`value`"), "{error}");

    let free = executor
        .execute(ToolCall::new("5", "largest_allowed", json!({"plus": 1})))
        .await;
    assert_eq!(free.content, "101");

    let version = executor
        .execute(ToolCall::new("6", "store_version", json!({})))
        .await;
    assert_eq!(version.content, "store 1");
}

#[tokio::test]
async fn a_preview_method_runs_on_the_same_instance() {
    let registry = Arc::new(register_all_tools().unwrap());
    let previews = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&previews);
    let executor = Executor::builder(registry)
        .state(store("previewed"))
        .state(Limits { max_value: 100 })
        .approval(move |request: ApprovalRequest| {
            let seen = Arc::clone(&seen);
            async move {
                seen.lock()
                    .unwrap()
                    .push(request.preview.unwrap_or_default());
                ApprovalDecision::Approved
            }
        })
        .build();
    executor
        .execute(ToolCall::new(
            "1",
            "put_value",
            json!({"key": "a", "value": 1}),
        ))
        .await;
    let cleared = executor
        .execute(ToolCall::new(
            "2",
            "clear_values",
            json!({"reason": "tidy"}),
        ))
        .await;
    assert_eq!(cleared.content, "1");
    assert_eq!(
        *previews.lock().unwrap(),
        ["remove 1 values from previewed (tidy)"]
    );
}

#[tokio::test]
async fn register_set_binds_each_registry_to_its_instance() {
    let (acme, globex) = (Arc::new(store("acme")), Arc::new(store("globex")));
    let one = ToolRegistry::new();
    let two = ToolRegistry::new();
    let registrations = one.register_set(Arc::clone(&acme)).unwrap();
    let names: Vec<&str> = registrations.iter().map(|r| r.tool.name()).collect();
    assert_eq!(
        names,
        ["put_value", "get_value", "clear_values", "store_version"]
    );
    two.register_set(Arc::clone(&globex)).unwrap();

    // Bound tools hold their instance: only `#[state]` parameters remain to provide.
    assert_eq!(
        one.get("put_value").unwrap().required_state(),
        [StateType::of::<Limits>()]
    );
    assert!(one.get("get_value").unwrap().required_state().is_empty());

    let run = |registry: ToolRegistry| {
        Executor::builder(Arc::new(registry))
            .state(Limits { max_value: 10 })
            .build()
    };
    let (one, two) = (run(one), run(two));
    let put = one
        .execute(ToolCall::new(
            "1",
            "put_value",
            json!({"key": "k", "value": 1}),
        ))
        .await;
    assert_eq!(put.content, "acme: k = 1");
    two.execute(ToolCall::new(
        "1",
        "put_value",
        json!({"key": "k", "value": 2}),
    ))
    .await;
    assert_eq!(acme.rows.lock().unwrap()["k"], 1);
    assert_eq!(globex.rows.lock().unwrap()["k"], 2);

    // A bound async method, called directly.
    let tools = Store::tools(&acme);
    let get = tools.iter().find(|t| t.name() == "get_value").unwrap();
    assert_eq!(
        get.call(args(json!({"key": "k"}))).await.unwrap().content,
        "1"
    );
    // And its preview.
    let clear = tools.iter().find(|t| t.name() == "clear_values").unwrap();
    let preview = clear
        .preview(&ToolContext::new(), &args(json!({"reason": "r"})))
        .unwrap()
        .unwrap();
    assert_eq!(preview.text, "remove 1 values from acme (r)");
}

#[test]
fn register_set_replaces_the_linked_tools_and_keeps_their_settings() {
    let registry = register_all_tools().unwrap();
    registry.set_enabled("get_value", false).unwrap();
    registry.set_priority("put_value", 99).unwrap();
    registry.register_set(Arc::new(store("bound"))).unwrap();
    assert!(!registry.is_enabled("get_value"));
    assert_eq!(registry.registration("put_value").unwrap().priority, 99);
    assert!(registry.get("put_value").unwrap().required_state() == [StateType::of::<Limits>()]);
    // Rebinding to another instance replaces the binding.
    registry.register_set(Arc::new(store("again"))).unwrap();
    // Only `Limits` (for `put_value` and the free `largest_allowed`) is left to provide.
    let Err(ExecutorBuildError::MissingState(missing)) =
        Executor::builder(Arc::new(registry)).try_build()
    else {
        panic!("built without limits");
    };
    assert!(
        missing.iter().all(|m| m.type_name.ends_with("Limits")),
        "{missing:?}"
    );
}

#[test]
fn register_set_refuses_a_clash_with_another_tool_and_registers_nothing() {
    let registry = ToolRegistry::new();
    let other = Tool::builder("get_value")
        .description("Someone else's tool.")
        .handler(|_| async { "other" })
        .build()
        .unwrap();
    registry.register(other).unwrap();
    let error = registry.register_set(Arc::new(store("x"))).unwrap_err();
    assert!(matches!(&error, RegistryError::DuplicateTool { name, .. } if name == "get_value"));
    assert_eq!(registry.names(), ["get_value"], "all or nothing");
    assert_eq!(
        registry.get("get_value").unwrap().description(),
        "Someone else's tool."
    );
}

#[tokio::test]
async fn a_tool_registered_after_the_build_without_its_state_fails_with_the_type() {
    let registry = Arc::new(ToolRegistry::new());
    let executor = Executor::builder(Arc::clone(&registry)).build();
    for tool in register_all_tools().unwrap().list(&Default::default()) {
        if tool.name() == "largest_allowed" {
            registry.register(tool).unwrap();
        }
    }
    let result = executor
        .execute(ToolCall::new("1", "largest_allowed", json!({})))
        .await;
    let error = result.error.unwrap();
    assert!(
        error.contains("`largest_allowed` is not configured"),
        "{error}"
    );
    assert!(error.contains("Limits"), "{error}");
}

#[tokio::test]
async fn builder_tools_declare_state_too() {
    struct Counter(AtomicUsize);
    let tool = Tool::builder("bump")
        .description("Bump the counter.")
        .needs_state::<Counter>()
        .handler_with_context(|ctx, _| async move {
            let counter = ctx.require_state::<Counter>()?;
            Ok::<_, ToolError>(counter.0.fetch_add(1, Ordering::SeqCst) + 1)
        })
        .build()
        .unwrap();
    let registry = Arc::new(ToolRegistry::new());
    registry.register(tool).unwrap();
    assert!(
        Executor::builder(Arc::clone(&registry))
            .try_build()
            .is_err()
    );
    let executor = Executor::builder(registry)
        .state(Counter(AtomicUsize::new(0)))
        .build();
    let result = executor
        .execute(ToolCall::new("1", "bump", json!({})))
        .await;
    assert_eq!(result.content, "1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_share_one_instance() {
    let shared = Arc::new(store("busy"));
    let registry = ToolRegistry::new();
    registry.register_set(Arc::clone(&shared)).unwrap();
    let executor = Executor::builder(Arc::new(registry))
        .state(Limits { max_value: 1_000 })
        .concurrency(16)
        .build();
    let calls: Vec<ToolCall> = (0..64)
        .map(|i| {
            ToolCall::new(
                format!("c{i}"),
                "put_value",
                json!({"key": format!("k{i}"), "value": i}),
            )
        })
        .collect();
    let results = executor.execute_batch(calls, Default::default()).await;
    assert_eq!(results.len(), 64);
    assert!(results.iter().all(|r| r.error.is_none()));
    assert_eq!(shared.len(), 64);
}
