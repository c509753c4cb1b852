//! The tools as MCP describes them, built once per registry generation and shared by every
//! session and request: `tools/list`, rmcp's `get_tool` (the 2026-07-28 header check) and
//! what a `tools/call` needs to know of its tool before running it.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use rmcp::model::Tool as McpTool;
use toolwright_core::{SafetyLevel, Tool};
use toolwright_formats::schema::{Format, tools_to_schema};
use toolwright_runtime::Executor;

/// One tool a client may see, described once.
pub(crate) struct View {
    /// The tool's `tools/list` entry.
    pub(crate) mcp: McpTool,
    /// Its safety level (a caller's ceiling filters on it).
    pub(crate) safety: SafetyLevel,
    /// Whether a call may ask for approval: a dangerous tool, or one with an approval rule.
    /// A call of a tool that cannot needs no approval handler.
    pub(crate) may_ask: bool,
    /// Whether it may run as a task (SEP-2663): only then is the task path consulted.
    pub(crate) may_be_task: bool,
}

/// The views of one registry generation: in `tools/list` order, and by name.
pub(crate) struct Snapshot {
    generation: u64,
    /// Enabled tools under the executor's ceiling, by priority then name.
    pub(crate) tools: Vec<Arc<View>>,
    /// What `tools/list` shows: `tools`, or in a search-first list the core then the
    /// meta-tools (`Executor::listed_tools`). Every tool of `tools` stays callable.
    pub(crate) listed: Vec<Arc<View>>,
    by_name: HashMap<String, Arc<View>>,
}

impl Snapshot {
    /// The view of `name`, if a client may see that tool (enabled, under the executor's
    /// ceiling).
    pub(crate) fn get(&self, name: &str) -> Option<&Arc<View>> {
        self.by_name.get(name)
    }
}

/// The cache: one snapshot, replaced when the registry's generation moves on. Shared by
/// every clone of a server (sessions, stateless requests).
#[derive(Default)]
pub(crate) struct ToolViews {
    current: RwLock<Option<Arc<Snapshot>>>,
}

impl ToolViews {
    /// The snapshot of the registry as it is now, built if the registry changed since.
    pub(crate) fn snapshot(&self, executor: &Executor) -> Arc<Snapshot> {
        // Read before listing: a change while the snapshot is built leaves it tagged with the
        // older generation, so the next call builds again.
        let generation = executor.registry().generation();
        if let Some(snapshot) = self
            .current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .filter(|snapshot| snapshot.generation == generation)
        {
            return Arc::clone(snapshot);
        }
        let listed = executor.listed_tools(executor.max_safety());
        let snapshot = Arc::new(build(
            generation,
            &executor.available_tools(),
            &listed,
            executor.discovery().meta_tools(),
        ));
        *self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::clone(&snapshot));
        snapshot
    }
}

fn build(generation: u64, available: &[Tool], listed: &[Tool], executor_meta: &[Tool]) -> Snapshot {
    let mut snapshot = describe(generation, available);
    if executor_meta.is_empty() {
        // The full list.
        snapshot.listed = snapshot.tools.clone();
        return snapshot;
    }
    // Search-first: the core's views are shared; the meta-tools get their own, in place of
    // registered tools of their names (the executor runs its own under those names).
    let meta = describe(generation, executor_meta);
    for view in meta.tools {
        let name = view.mcp.name.to_string();
        // `call_tool` runs the tool it names, which may ask for approval.
        let view = match name == toolwright_runtime::executor::CALL_TOOL {
            true => Arc::new(View {
                mcp: view.mcp.clone(),
                may_ask: true,
                ..*view
            }),
            false => view,
        };
        snapshot.by_name.insert(name, view);
    }
    snapshot.listed = listed
        .iter()
        .filter_map(|tool| snapshot.by_name.get(tool.name()).cloned())
        .collect();
    snapshot
}

fn describe(generation: u64, available: &[Tool]) -> Snapshot {
    let values = tools_to_schema(available, Format::Mcp);
    let mut tools = Vec::with_capacity(available.len());
    let mut by_name = HashMap::with_capacity(available.len());
    for (tool, value) in available.iter().zip(values) {
        let mcp = match serde_json::from_value::<McpTool>(value) {
            Ok(mcp) => mcp,
            Err(error) => {
                tracing::warn!(tool = tool.name(), %error, "a tool could not be described in MCP's format; left out");
                continue;
            }
        };
        let view = Arc::new(View {
            mcp,
            safety: tool.safety(),
            may_ask: tool.safety() == SafetyLevel::Dangerous || tool.has_approval_rule(),
            may_be_task: tool.task_support().allows_task(),
        });
        by_name.insert(tool.name().to_owned(), Arc::clone(&view));
        tools.push(view);
    }
    Snapshot {
        generation,
        tools,
        listed: Vec::new(),
        by_name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolwright_core::tool;
    use toolwright_runtime::ToolRegistry;

    /// Add two numbers.
    #[tool]
    fn views_add(a: i64, b: i64) -> i64 {
        a + b
    }

    /// Drop everything.
    #[tool(safety = "dangerous")]
    fn views_wipe() -> String {
        String::new()
    }

    fn linked(name: &str) -> Tool {
        toolwright_core::linked_tools()
            .find(|tool| tool.name() == name)
            .unwrap_or_else(|| panic!("`{name}` is linked"))
    }

    #[test]
    fn one_description_per_registry_generation() {
        let registry = Arc::new(ToolRegistry::new());
        registry.register(linked("views_add")).unwrap();
        let executor = Executor::builder(Arc::clone(&registry)).build();
        let views = ToolViews::default();

        // Asked again with no change in between: the same snapshot, the same schema
        // (nothing exported or parsed again).
        let first = views.snapshot(&executor);
        let again = views.snapshot(&executor);
        assert!(Arc::ptr_eq(&first, &again));
        let add = first.get("views_add").unwrap();
        assert!(!add.may_ask);
        assert_eq!(add.mcp.name, "views_add");

        // A change to the registry: a new snapshot that shows it.
        registry.register(linked("views_wipe")).unwrap();
        let second = views.snapshot(&executor);
        assert!(!Arc::ptr_eq(&first, &second));
        let wipe = second.get("views_wipe").unwrap();
        assert!(wipe.may_ask, "a dangerous tool may ask for approval");
        assert_eq!(wipe.safety, SafetyLevel::Dangerous);
        let names: Vec<_> = second
            .tools
            .iter()
            .map(|v| v.mcp.name.to_string())
            .collect();
        assert_eq!(names, ["views_add", "views_wipe"]);

        // Disabled: gone from the list and from the lookup.
        registry.set_enabled("views_add", false).unwrap();
        let third = views.snapshot(&executor);
        assert!(third.get("views_add").is_none());
        assert_eq!(third.tools.len(), 1);
    }

    #[test]
    fn a_search_first_snapshot_lists_the_core_and_its_own_meta_tools() {
        let registry = Arc::new(ToolRegistry::new());
        registry.register(linked("views_add")).unwrap();
        registry.register(linked("views_wipe")).unwrap();
        // A registered tool of a meta-tool's name: neither listed nor described.
        registry
            .register(
                Tool::builder("search_tools")
                    .description("Someone else's search.")
                    .handler(|_| async { "theirs" })
                    .build()
                    .unwrap(),
            )
            .unwrap();
        let plan = toolwright_formats::discovery::DeferPlan::new().core_names(["views_add"]);
        let executor = Executor::builder(registry)
            .discovery(toolwright_runtime::Discovery::search_first(plan))
            .build();
        let snapshot = ToolViews::default().snapshot(&executor);
        let listed: Vec<_> = snapshot
            .listed
            .iter()
            .map(|v| v.mcp.name.to_string())
            .collect();
        assert_eq!(
            listed,
            ["views_add", "search_tools", "describe_tool", "call_tool"]
        );
        let search = snapshot.get("search_tools").unwrap();
        assert!(
            search
                .mcp
                .description
                .as_deref()
                .unwrap()
                .contains("partial")
        );
        assert!(
            snapshot.get("call_tool").unwrap().may_ask,
            "it may run a dangerous tool"
        );
        assert!(!snapshot.get("describe_tool").unwrap().may_ask);
        // Unlisted, still callable.
        assert!(snapshot.get("views_wipe").unwrap().may_ask);
    }

    #[test]
    fn tools_above_the_executors_ceiling_are_not_described() {
        let registry = Arc::new(ToolRegistry::new());
        registry.register(linked("views_wipe")).unwrap();
        let executor = Executor::builder(registry)
            .max_safety(SafetyLevel::Cautious)
            .build();
        let views = ToolViews::default();
        assert!(views.snapshot(&executor).get("views_wipe").is_none());
    }
}
