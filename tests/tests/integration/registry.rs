//! The registry: versioned registration, enable/disable, filters, priorities, snapshots,
//! concurrency and search.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use serde_json::{Value, json};
use toolwright::model::priority;
use toolwright::runtime::registry::{ApplyReport, Timestamp};
use toolwright::runtime::{RegisterOptions, RegistryError, RegistrySnapshot, ToolFilter};
use toolwright::{SafetyLevel, Tool, ToolRegistry, register_all_tools};

/// A registry whose clock ticks one second per registration, from a fixed time.
fn registry() -> ToolRegistry {
    let start: Timestamp = "2025-12-27T14:00:00Z".parse().unwrap();
    let ticks = Arc::new(AtomicI64::new(0));
    ToolRegistry::with_clock(Arc::new(move || {
        let tick = ticks.fetch_add(1, Ordering::SeqCst);
        start + jiff::SignedDuration::from_secs(tick)
    }))
}

struct Spec {
    name: &'static str,
    version: Option<&'static str>,
    schema: Value,
    safety: SafetyLevel,
    categories: Vec<&'static str>,
    tags: Vec<&'static str>,
    priority: i32,
}

impl Spec {
    fn new(name: &'static str) -> Spec {
        Spec {
            name,
            version: None,
            schema: json!({"type": "object", "properties": {}}),
            safety: SafetyLevel::Safe,
            categories: vec![],
            tags: vec![],
            priority: priority::COMMUNITY,
        }
    }
    fn version(mut self, version: &'static str) -> Spec {
        self.version = Some(version);
        self
    }
    fn schema(mut self, schema: Value) -> Spec {
        self.schema = schema;
        self
    }
    fn safety(mut self, safety: SafetyLevel) -> Spec {
        self.safety = safety;
        self
    }
    fn categories(mut self, categories: &[&'static str]) -> Spec {
        self.categories = categories.to_vec();
        self
    }
    fn tags(mut self, tags: &[&'static str]) -> Spec {
        self.tags = tags.to_vec();
        self
    }
    fn priority(mut self, priority: i32) -> Spec {
        self.priority = priority;
        self
    }
    fn build(self) -> Tool {
        let mut builder = Tool::builder(self.name)
            .description(format!("The {} tool.", self.name))
            .input_schema(self.schema)
            .safety(self.safety)
            .categories(self.categories)
            .tags(self.tags)
            .priority(self.priority)
            .handler(|_| async { "ok" });
        if let Some(version) = self.version {
            builder = builder.version(version);
        }
        builder.build().unwrap()
    }
}

fn schema_with(property: &str, ty: &str) -> Value {
    json!({"type": "object", "properties": {property: {"type": ty}}})
}

// Registration: a new name registers enabled; the same spec returns the existing
// registration; a new version replaces it; the same version with another spec conflicts.

#[test]
fn a_new_name_registers_enabled_with_created_at() {
    let registry = registry();
    let registration = registry.register(Spec::new("example").build()).unwrap();
    assert!(registration.enabled);
    assert_eq!(registration.created_at.to_string(), "2025-12-27T14:00:00Z");
    assert_eq!(registry.len(), 1);
    assert!(!registry.is_empty());
}

#[test]
fn an_identical_spec_returns_the_existing_registration_unchanged() {
    let registry = registry();
    registry
        .register(Spec::new("example").version("1.0.0").build())
        .unwrap();
    registry.set_enabled("example", false).unwrap();
    let again = registry
        .register(Spec::new("example").version("1.0.0").build())
        .unwrap();
    assert!(!again.enabled, "unchanged: still disabled");
    assert_eq!(
        again.created_at.to_string(),
        "2025-12-27T14:00:00Z",
        "unchanged: same time"
    );
}

#[test]
fn a_different_version_replaces_the_registration() {
    let registry = registry();
    registry
        .register(
            Spec::new("example")
                .version("1.0.0")
                .schema(json!({"type": "object"}))
                .build(),
        )
        .unwrap();
    let v2 = registry
        .register(
            Spec::new("example")
                .version("2.0.0")
                .schema(schema_with("new_field", "string"))
                .build(),
        )
        .unwrap();
    assert_eq!(v2.tool.version(), Some("2.0.0"));
    assert!(v2.created_at > "2025-12-27T14:00:00Z".parse().unwrap());
    assert_eq!(registry.get("example").unwrap().version(), Some("2.0.0"));
    assert_eq!(registry.len(), 1);
}

#[test]
fn the_same_version_with_a_different_spec_is_a_conflict() {
    let registry = registry();
    registry
        .register(
            Spec::new("example")
                .version("2.0.0")
                .schema(schema_with("new_field", "string"))
                .build(),
        )
        .unwrap();
    let err = registry
        .register(
            Spec::new("example")
                .version("2.0.0")
                .schema(schema_with("different_field", "number"))
                .build(),
        )
        .unwrap_err();
    assert_eq!(
        err,
        RegistryError::VersionConflict {
            name: "example".into(),
            version: Some("2.0.0".into())
        }
    );
    assert!(err.to_string().contains("bump the version"), "{err}");
    // The registered tool is untouched.
    let kept = registry.get("example").unwrap();
    assert!(kept.input_schema()["properties"].get("new_field").is_some());
}

#[test]
fn unversioned_tools_need_a_version_to_change() {
    let registry = registry();
    registry
        .register(
            Spec::new("example")
                .schema(schema_with("a", "string"))
                .build(),
        )
        .unwrap();
    let err = registry
        .register(
            Spec::new("example")
                .schema(schema_with("b", "number"))
                .build(),
        )
        .unwrap_err();
    assert!(matches!(
        err,
        RegistryError::VersionConflict { version: None, .. }
    ));
    assert!(err.to_string().contains("without a version"), "{err}");
    let versioned = registry
        .register(
            Spec::new("example")
                .version("1.0.0")
                .schema(schema_with("b", "number"))
                .build(),
        )
        .unwrap();
    assert_eq!(versioned.tool.version(), Some("1.0.0"));
}

#[test]
fn registering_with_replace_overwrites_whatever_the_version() {
    let registry = registry();
    registry
        .register(
            Spec::new("example")
                .schema(schema_with("a", "string"))
                .build(),
        )
        .unwrap();
    registry.set_enabled("example", false).unwrap();
    let replaced = registry
        .register_with(
            Spec::new("example")
                .schema(schema_with("b", "number"))
                .build(),
            RegisterOptions::new().replace(true),
        )
        .unwrap();
    assert!(replaced.enabled);
    assert!(
        registry.get("example").unwrap().input_schema()["properties"]
            .get("b")
            .is_some()
    );
}

// Enable, disable, remove.

#[test]
fn set_enabled_is_idempotent_and_refuses_unknown_names() {
    let registry = registry();
    registry.register(Spec::new("example").build()).unwrap();
    for _ in 0..2 {
        let registration = registry.set_enabled("example", false).unwrap();
        assert!(!registration.enabled);
    }
    assert!(registry.list(&ToolFilter::new()).is_empty());
    assert_eq!(
        registry
            .list(&ToolFilter::new().include_disabled(true))
            .len(),
        1
    );
    assert!(registry.get("example").is_some(), "get sees disabled tools");
    assert!(registry.set_enabled("example", true).unwrap().enabled);
    let err = registry.set_enabled("exampel", true).unwrap_err();
    assert_eq!(
        err,
        RegistryError::UnknownTool {
            name: "exampel".into(),
            suggestion: Some("example".into())
        }
    );
    assert_eq!(
        err.to_string(),
        "no tool is named `exampel`; did you mean `example`?"
    );
}

#[test]
fn remove_is_idempotent_and_returns_what_it_removed() {
    let registry = registry();
    registry.register(Spec::new("example").build()).unwrap();
    assert_eq!(registry.remove("example").unwrap().name(), "example");
    assert!(registry.remove("example").is_none());
    assert!(registry.get("example").is_none());
    assert!(registry.is_empty());
    // And it can be registered again.
    registry.register(Spec::new("example").build()).unwrap();
    assert_eq!(registry.len(), 1);
}

// Filters and ordering.

fn filter_fixture() -> ToolRegistry {
    let registry = registry();
    for spec in [
        Spec::new("read_file")
            .categories(&["filesystem"])
            .tags(&["files"]),
        Spec::new("write_file")
            .safety(SafetyLevel::Dangerous)
            .categories(&["filesystem"])
            .tags(&["files"]),
        Spec::new("make_dir")
            .safety(SafetyLevel::Cautious)
            .categories(&["filesystem"]),
        Spec::new("add").categories(&["math"]).tags(&["numbers"]),
        Spec::new("plot")
            .categories(&["math", "charts"])
            .tags(&["files", "numbers"]),
        Spec::new("no_labels"),
    ] {
        registry.register(spec.build()).unwrap();
    }
    registry.set_enabled("plot", false).unwrap();
    registry
}

fn names(registry: &ToolRegistry, filter: ToolFilter) -> Vec<String> {
    let mut names: Vec<String> = registry
        .list(&filter)
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn every_filter_alone() {
    let r = filter_fixture();
    assert_eq!(
        names(&r, ToolFilter::new()),
        ["add", "make_dir", "no_labels", "read_file", "write_file"]
    );
    assert_eq!(
        names(&r, ToolFilter::new().include_disabled(true)),
        [
            "add",
            "make_dir",
            "no_labels",
            "plot",
            "read_file",
            "write_file"
        ]
    );
    assert_eq!(
        names(&r, ToolFilter::new().max_safety(SafetyLevel::Safe)),
        ["add", "no_labels", "read_file"]
    );
    assert_eq!(
        names(&r, ToolFilter::new().max_safety(SafetyLevel::Cautious)),
        ["add", "make_dir", "no_labels", "read_file"]
    );
    assert_eq!(
        names(&r, ToolFilter::new().max_safety(SafetyLevel::Dangerous)).len(),
        5
    );
    assert_eq!(names(&r, ToolFilter::new().categories(["math"])), ["add"]);
    assert_eq!(
        names(&r, ToolFilter::new().categories(["math", "filesystem"])).len(),
        4
    );
    assert_eq!(
        names(&r, ToolFilter::new().tags(["files"])),
        ["read_file", "write_file"]
    );
    assert_eq!(
        names(&r, ToolFilter::new().tags(["numbers", "files"])),
        ["add", "read_file", "write_file"]
    );
    assert_eq!(
        names(
            &r,
            ToolFilter::new().names(["add", "write_file", "missing"])
        ),
        ["add", "write_file"]
    );
    assert!(names(&r, ToolFilter::new().categories(Vec::<String>::new())).is_empty());
}

#[test]
fn filters_combine_with_and() {
    let r = filter_fixture();
    assert_eq!(
        names(
            &r,
            ToolFilter::new()
                .max_safety(SafetyLevel::Safe)
                .categories(["filesystem"])
        ),
        ["read_file"]
    );
    assert_eq!(
        names(
            &r,
            ToolFilter::new().categories(["filesystem"]).tags(["files"])
        ),
        ["read_file", "write_file"]
    );
    assert_eq!(
        names(
            &r,
            ToolFilter::new()
                .max_safety(SafetyLevel::Cautious)
                .categories(["filesystem"])
                .tags(["files"])
        ),
        ["read_file"]
    );
    assert_eq!(
        names(
            &r,
            ToolFilter::new().tags(["numbers"]).include_disabled(true)
        ),
        ["add", "plot"]
    );
    assert_eq!(
        names(
            &r,
            ToolFilter::new().names(["plot", "add"]).tags(["numbers"])
        ),
        ["add"],
        "disabled plot is out even when named"
    );
    assert_eq!(
        names(
            &r,
            ToolFilter::new()
                .names(["read_file", "write_file"])
                .max_safety(SafetyLevel::Safe)
        ),
        ["read_file"]
    );
}

#[test]
fn list_orders_by_priority_descending_then_name() {
    let registry = registry();
    for spec in [
        Spec::new("zeta").priority(priority::BUILTIN),
        Spec::new("alpha"),
        Spec::new("mid_b").priority(priority::OFFICIAL),
        Spec::new("mid_a").priority(priority::OFFICIAL),
        Spec::new("beta").priority(priority::BUILTIN),
    ] {
        registry.register(spec.build()).unwrap();
    }
    let order: Vec<String> = registry
        .list(&ToolFilter::new())
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(order, ["beta", "zeta", "mid_a", "mid_b", "alpha"]);
    // Priorities change the order; names() stays sorted by name.
    registry.set_priority("alpha", 1000).unwrap();
    assert_eq!(registry.list(&ToolFilter::new())[0].name(), "alpha");
    assert_eq!(
        registry.names(),
        ["alpha", "beta", "mid_a", "mid_b", "zeta"]
    );
}

#[test]
fn tools_info_summarizes_every_registration() {
    let registry = registry();
    registry
        .register(
            Spec::new("web_search")
                .priority(priority::BUILTIN)
                .categories(&["web"])
                .build(),
        )
        .unwrap();
    registry.register(Spec::new("calculator").build()).unwrap();
    registry.set_enabled("calculator", false).unwrap();
    let info = serde_json::to_value(registry.tools_info()).unwrap();
    assert_eq!(
        info,
        json!([
            {"name": "web_search", "description": "The web_search tool.",
             "enabled": true, "priority": 100, "safety": "safe", "categories": ["web"]},
            {"name": "calculator", "description": "The calculator tool.",
             "enabled": false, "priority": 10, "safety": "safe", "categories": []}
        ])
    );
}

// Snapshots.

#[test]
fn snapshot_round_trips_through_json() {
    let registry = filter_fixture();
    registry.set_priority("add", 77).unwrap();
    let snapshot = registry.snapshot();
    let names: Vec<&str> = snapshot
        .tools
        .iter()
        .map(|t| t.spec.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "add",
            "make_dir",
            "no_labels",
            "plot",
            "read_file",
            "write_file"
        ]
    );
    let json = serde_json::to_string_pretty(&snapshot).unwrap();
    let back: RegistrySnapshot = serde_json::from_str(&json).unwrap();
    assert_eq!(back, snapshot);
    // Same registry, same bytes.
    assert_eq!(
        serde_json::to_string_pretty(&registry.snapshot()).unwrap(),
        json
    );
    let plot = &snapshot.tools[3];
    assert!(!plot.enabled);
    assert_eq!(plot.created_at.to_string(), "2025-12-27T14:00:04Z");
    assert_eq!(plot.source.crate_name, "(runtime)");
    let value: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["tools"][0]["created_at"], "2025-12-27T14:00:03Z");
    assert_eq!(value["tools"][0]["priority"], 77);
    assert_eq!(value["tools"][0]["spec"]["name"], "add");
}

#[test]
fn apply_state_restores_choices_and_reports_unknown_names() {
    let before = filter_fixture();
    before.set_enabled("read_file", false).unwrap();
    before.set_priority("add", 99).unwrap();
    before.register(Spec::new("only_before").build()).unwrap();
    let saved: RegistrySnapshot =
        serde_json::from_str(&serde_json::to_string(&before.snapshot()).unwrap()).unwrap();

    let after = filter_fixture();
    after.set_enabled("plot", true).unwrap();
    let report = after.apply_state(&saved);
    assert_eq!(
        report,
        ApplyReport {
            applied: vec![
                "add".into(),
                "make_dir".into(),
                "no_labels".into(),
                "plot".into(),
                "read_file".into(),
                "write_file".into()
            ],
            unknown: vec!["only_before".into()],
            ..ApplyReport::default()
        }
    );
    assert!(!after.is_enabled("read_file"));
    assert!(!after.is_enabled("plot"));
    assert_eq!(after.registration("add").unwrap().priority, 99);
    assert!(after.get("only_before").is_none());
}

// Threads.

#[test]
fn one_registry_shared_by_many_threads() {
    let registry = Arc::new(registry());
    for i in 0..20 {
        registry
            .register(Spec::new(Box::leak(format!("stable_{i}").into_boxed_str())).build())
            .unwrap();
    }
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let registry = Arc::clone(&registry);
            std::thread::spawn(move || {
                for round in 0..300 {
                    let name: &'static str =
                        Box::leak(format!("t{t}_{}", round % 10).into_boxed_str());
                    match round % 6 {
                        0 => {
                            let _ = registry.register(Spec::new(name).build());
                        }
                        1 => {
                            let _ = registry
                                .set_enabled(&format!("stable_{}", round % 20), round % 4 == 1);
                        }
                        2 => {
                            registry.remove(name);
                        }
                        3 => {
                            // Listing is always consistent: sorted by priority then name.
                            let listed = registry.list(&ToolFilter::new().include_disabled(true));
                            assert!(listed.windows(2).all(|w| w[0].name() < w[1].name()));
                            assert!(listed.len() >= 20);
                        }
                        4 => {
                            let _ = registry.search("stable tool", 5);
                        }
                        _ => {
                            let snapshot = registry.snapshot();
                            assert!(snapshot.tools.len() >= 20);
                        }
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("no thread panicked");
    }
    for i in 0..20 {
        assert!(registry.get(&format!("stable_{i}")).is_some());
    }
    // The search index followed every register and remove.
    let indexed: Vec<String> = registry
        .search_filtered("tool", 10_000, &ToolFilter::new().include_disabled(true))
        .iter()
        .map(|hit| hit.tool.name().to_owned())
        .collect();
    let mut indexed_sorted = indexed.clone();
    indexed_sorted.sort();
    assert_eq!(indexed_sorted, registry.names());
}

// register_all, the Lisp contract's register-agent-q-tools.

#[test]
fn register_all_tools_returns_equal_registries() {
    let a = register_all_tools().unwrap();
    let b = register_all_tools().unwrap();
    let specs = |r: &ToolRegistry| -> Vec<_> {
        r.snapshot()
            .tools
            .into_iter()
            .map(|t| (t.spec, t.source))
            .collect()
    };
    assert_eq!(specs(&a), specs(&b));
}
