//! The registry's change events: registering disabled, one event per tool that changed,
//! nothing for changes that change nothing, order and visibility under concurrent changes.

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::sync::broadcast::Receiver;
use toolwright_core::{SafetyLevel, Tool};
use toolwright_runtime::registry::{CHANGE_CAPACITY, ChangeKind, RegistryChange};
use toolwright_runtime::{RegisterOptions, Registration, ToolFilter, ToolRegistry};

fn tool(name: &str) -> Tool {
    versioned(name, None)
}

fn versioned(name: &str, version: Option<&str>) -> Tool {
    let mut builder = Tool::builder(name).description("A tool for the tests.");
    if let Some(version) = version {
        builder = builder.version(version);
    }
    builder.handler(|_| async { "ok" }).build().unwrap()
}

/// The events received so far (none can be lagged: the tests send fewer than the capacity).
fn drain(changes: &mut Receiver<RegistryChange>) -> Vec<RegistryChange> {
    std::iter::from_fn(|| changes.try_recv().ok()).collect()
}

fn kinds(events: &[RegistryChange]) -> Vec<(ChangeKind, &str)> {
    events.iter().map(|e| (e.kind, e.name.as_str())).collect()
}

fn visible_names(registry: &ToolRegistry) -> Vec<String> {
    registry
        .list(&ToolFilter::new())
        .iter()
        .map(|t| t.name().to_owned())
        .collect()
}

#[test]
fn registering_disabled_sends_one_event_and_is_never_visible() {
    let registry = Arc::new(ToolRegistry::new());
    let mut changes = registry.subscribe_changes();
    // A subscriber that, at every event, looks at what a model would be offered.
    let watcher = {
        let registry = Arc::clone(&registry);
        std::thread::spawn(move || {
            let mut seen = Vec::new();
            while let Ok(change) = changes.blocking_recv() {
                let end = change.name == "end";
                seen.push((change, visible_names(&registry)));
                if end {
                    break;
                }
            }
            seen
        })
    };
    let registration = registry
        .register_with(tool("plugin"), RegisterOptions::new().enabled(false))
        .unwrap();
    assert!(!registration.enabled);
    registry.register(tool("end")).unwrap(); // tells the watcher to stop
    let seen = watcher.join().unwrap();

    assert_eq!(seen.len(), 2, "{seen:?}");
    let (change, visible) = &seen[0];
    assert_eq!(
        (change.kind, change.name.as_str()),
        (ChangeKind::Added, "plugin")
    );
    assert!(change.before.is_none());
    assert!(!change.after.as_ref().unwrap().enabled);
    assert!(!change.concerns(&ToolFilter::new()));
    assert!(!visible.contains(&"plugin".to_owned()), "{visible:?}");
    assert!(!seen[1].1.contains(&"plugin".to_owned()));

    // Enabling it is the one change that makes it visible.
    let mut changes = registry.subscribe_changes();
    registry.set_enabled("plugin", true).unwrap();
    let events = drain(&mut changes);
    assert_eq!(kinds(&events), [(ChangeKind::Enabled, "plugin")]);
    assert!(events[0].concerns(&ToolFilter::new()));
    assert!(visible_names(&registry).contains(&"plugin".to_owned()));
}

#[test]
fn register_options_set_enabled_and_priority() {
    let registry = ToolRegistry::new();
    let registration = registry
        .register_with(tool("a"), RegisterOptions::new().priority(77))
        .unwrap();
    assert_eq!((registration.enabled, registration.priority), (true, 77));
    // The same spec again leaves the registration as it is, whatever the options.
    let again = registry
        .register_with(tool("a"), RegisterOptions::new().enabled(false))
        .unwrap();
    assert_eq!((again.enabled, again.priority), (true, 77));

    let mut changes = registry.subscribe_changes();
    let replaced = registry
        .register_with(
            tool("a"),
            RegisterOptions::new().enabled(false).replace(true),
        )
        .unwrap();
    assert!(!replaced.enabled);
    let events = drain(&mut changes);
    assert_eq!(kinds(&events), [(ChangeKind::Replaced, "a")]);
    assert!(events[0].before.as_ref().unwrap().enabled);
    assert!(!events[0].after.as_ref().unwrap().enabled);
}

#[test]
fn changes_that_change_nothing_send_nothing() {
    let registry = ToolRegistry::new();
    registry.register(versioned("a", Some("1.0.0"))).unwrap();
    registry
        .register_with(tool("b"), RegisterOptions::new().enabled(false))
        .unwrap();
    registry.set_priority("a", 5).unwrap();
    let generation = registry.generation();
    assert_eq!(generation, 3);
    let mut changes = registry.subscribe_changes();

    registry.set_enabled("a", true).unwrap();
    registry.set_enabled("b", false).unwrap();
    registry.set_priority("a", 5).unwrap();
    registry.register(versioned("a", Some("1.0.0"))).unwrap();
    assert!(registry.remove("nothing").is_none());
    assert!(registry.set_enabled("nothing", true).is_err());
    let report = registry.apply_state(&registry.snapshot());
    assert_eq!(report.applied, ["a", "b"]);

    assert!(drain(&mut changes).is_empty());
    assert_eq!(registry.generation(), generation);

    registry.set_priority("a", 6).unwrap();
    let events = drain(&mut changes);
    assert_eq!(kinds(&events), [(ChangeKind::PriorityChanged, "a")]);
    assert_eq!(events[0].generation, generation + 1);
    assert_eq!(events[0].before.as_ref().unwrap().priority, 5);
    assert_eq!(events[0].after.as_ref().unwrap().priority, 6);
    assert_eq!(registry.generation(), generation + 1);
}

#[test]
fn each_kind_of_change_names_its_tool() {
    let registry = ToolRegistry::new();
    let mut changes = registry.subscribe_changes();
    registry.register(versioned("a", Some("1.0.0"))).unwrap();
    registry.register(versioned("a", Some("2.0.0"))).unwrap();
    registry.set_enabled("a", false).unwrap();
    registry.set_enabled("a", true).unwrap();
    registry.set_priority("a", 1).unwrap();
    registry.remove("a");
    let events = drain(&mut changes);
    assert_eq!(
        kinds(&events),
        [
            (ChangeKind::Added, "a"),
            (ChangeKind::Replaced, "a"),
            (ChangeKind::Disabled, "a"),
            (ChangeKind::Enabled, "a"),
            (ChangeKind::PriorityChanged, "a"),
            (ChangeKind::Removed, "a"),
        ]
    );
    let generations: Vec<u64> = events.iter().map(|e| e.generation).collect();
    assert_eq!(generations, [1, 2, 3, 4, 5, 6]);
    let replaced = &events[1];
    assert_eq!(
        replaced.before.as_ref().unwrap().tool.version(),
        Some("1.0.0")
    );
    assert_eq!(
        replaced.after.as_ref().unwrap().tool.version(),
        Some("2.0.0")
    );
    assert!(events[5].after.is_none());
}

#[test]
fn apply_state_sends_one_event_per_change_of_each_tool() {
    let registry = ToolRegistry::new();
    for name in ["a", "b", "c"] {
        registry.register(tool(name)).unwrap();
    }
    let saved = {
        let other = ToolRegistry::new();
        for name in ["a", "b", "c"] {
            other.register(tool(name)).unwrap();
        }
        other.set_enabled("a", false).unwrap();
        other.set_priority("a", 99).unwrap();
        other.set_priority("c", 42).unwrap();
        other.snapshot()
    };
    let mut changes = registry.subscribe_changes();
    registry.apply_state(&saved);
    let events = drain(&mut changes);
    assert_eq!(
        kinds(&events),
        [
            (ChangeKind::Disabled, "a"),
            (ChangeKind::PriorityChanged, "a"),
            (ChangeKind::PriorityChanged, "c"),
        ]
    );
    // Each event carries the state right after its own change.
    let after = |i: usize| events[i].after.as_ref().map(|r| (r.enabled, r.priority));
    assert_eq!(after(0), Some((false, 10)));
    assert_eq!(after(1), Some((false, 99)));
    assert_eq!(after(2), Some((true, 42)));
}

#[test]
fn a_change_concerns_the_views_that_see_the_tool_before_or_after() {
    let registry = ToolRegistry::new();
    let dangerous = |name: &str| {
        Tool::builder(name)
            .description("Dangerous.")
            .safety(SafetyLevel::Dangerous)
            .handler(|_| async { "done" })
            .build()
            .unwrap()
    };
    registry.register(dangerous("wipe")).unwrap();
    registry.register(tool("safe")).unwrap();
    let mut changes = registry.subscribe_changes();
    registry.set_enabled("wipe", false).unwrap();
    registry.set_enabled("safe", false).unwrap();
    let events = drain(&mut changes);
    let safe_view = ToolFilter::new().max_safety(SafetyLevel::Safe);
    assert!(!events[0].concerns(&safe_view));
    assert!(events[0].concerns(&ToolFilter::new()));
    assert!(events[1].concerns(&safe_view));
    assert!(events[1].concerns(&ToolFilter::new().include_disabled(true)));
}

/// What the registry holds, rebuilt from events: name -> (enabled, priority).
fn replay(events: &[RegistryChange]) -> BTreeMap<String, (bool, i32)> {
    let mut state = BTreeMap::new();
    for event in events {
        match (&event.kind, &event.before, &event.after) {
            (ChangeKind::Added, None, Some(_)) | (ChangeKind::Removed, Some(_), None) => {}
            (ChangeKind::Replaced | ChangeKind::PriorityChanged, Some(_), Some(_)) => {}
            (ChangeKind::Enabled, Some(b), Some(a)) => assert!(!b.enabled && a.enabled),
            (ChangeKind::Disabled, Some(b), Some(a)) => assert!(b.enabled && !a.enabled),
            other => panic!("an event whose kind does not fit its states: {other:?}"),
        }
        match &event.after {
            Some(Registration {
                enabled, priority, ..
            }) => {
                state.insert(event.name.clone(), (*enabled, *priority));
            }
            None => {
                state.remove(&event.name);
            }
        }
    }
    state
}

#[test]
fn concurrent_changes_arrive_in_order_and_replay_to_the_final_registry() {
    const THREADS: usize = 8;
    const OPS: usize = 100;
    // Every operation sends at most one event: no receiver can lag.
    const _: () = assert!(THREADS * OPS + 1 < CHANGE_CAPACITY);
    const NAMES: [&str; 5] = ["t0", "t1", "t2", "t3", "t4"];

    let registry = Arc::new(ToolRegistry::new());
    let mut changes = registry.subscribe_changes();
    // A receiver that reads the registry at each event must see that change (or a later one).
    let mut checker = registry.subscribe_changes();
    let reader = {
        let registry = Arc::clone(&registry);
        std::thread::spawn(move || {
            let mut count = 0usize;
            while let Ok(change) = checker.blocking_recv() {
                assert!(registry.generation() >= change.generation);
                if change.name == "end" {
                    break;
                }
                count += 1;
            }
            count
        })
    };
    let workers: Vec<_> = (0..THREADS)
        .map(|thread| {
            let registry = Arc::clone(&registry);
            std::thread::spawn(move || {
                // A fixed pseudo-random sequence per thread.
                let mut seed = 0x9E37_79B9_u64.wrapping_mul(thread as u64 + 1);
                for _ in 0..OPS {
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let pick = (seed >> 33) as usize;
                    let name = NAMES[pick % NAMES.len()];
                    match (pick / NAMES.len()) % 6 {
                        0 => drop(registry.register(tool(name))),
                        1 => drop(
                            registry
                                .register_with(tool(name), RegisterOptions::new().enabled(false)),
                        ),
                        2 => drop(registry.set_enabled(name, pick.is_multiple_of(2))),
                        3 => drop(registry.set_priority(name, (pick % 3) as i32)),
                        4 => drop(registry.remove(name)),
                        _ => drop(
                            registry
                                .register_with(tool(name), RegisterOptions::new().replace(true)),
                        ),
                    }
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    registry.register(tool("end")).unwrap();
    let checked = reader.join().unwrap();

    let events = drain(&mut changes);
    assert_eq!(checked + 1, events.len());
    let generations: Vec<u64> = events.iter().map(|e| e.generation).collect();
    let expected: Vec<u64> = (1..=events.len() as u64).collect();
    assert_eq!(generations, expected, "consecutive and in order");
    assert_eq!(registry.generation(), events.len() as u64);

    let replayed = replay(&events);
    let actual: BTreeMap<String, (bool, i32)> = registry
        .registrations(&ToolFilter::new().include_disabled(true))
        .into_iter()
        .map(|r| (r.tool.name().to_owned(), (r.enabled, r.priority)))
        .collect();
    assert_eq!(replayed, actual);
    let enabled: Vec<&String> = replayed
        .iter()
        .filter(|(_, s)| s.0)
        .map(|(n, _)| n)
        .collect();
    let mut visible = visible_names(&registry);
    visible.sort();
    assert_eq!(enabled, visible.iter().collect::<Vec<_>>());
}

struct Plugin {
    greeting: &'static str,
}

#[toolwright_core::tool_set]
impl Plugin {
    /// Greet from the plugin.
    #[toolwright_core::tool]
    fn plugin_greet(&self) -> &'static str {
        self.greeting
    }

    /// Say the plugin's version.
    #[toolwright_core::tool]
    fn plugin_version(&self) -> &'static str {
        "1"
    }
}

#[test]
fn a_set_registered_disabled_sends_one_event_per_tool_and_a_rebinding_keeps_the_choice() {
    let registry = ToolRegistry::new();
    let mut changes = registry.subscribe_changes();
    let plugin = || Arc::new(Plugin { greeting: "hi" });
    let registrations = registry
        .register_set_with(plugin(), RegisterOptions::new().enabled(false))
        .unwrap();
    assert!(registrations.iter().all(|r| !r.enabled));
    assert!(registry.list(&ToolFilter::new()).is_empty());
    let events = drain(&mut changes);
    assert_eq!(
        kinds(&events),
        [
            (ChangeKind::Added, "plugin_greet"),
            (ChangeKind::Added, "plugin_version")
        ]
    );
    assert!(!events.iter().any(|e| e.concerns(&ToolFilter::new())));

    // Bound again (enabled options): each tool is replaced and stays as the application left it.
    registry.set_enabled("plugin_greet", true).unwrap();
    registry.register_set(plugin()).unwrap();
    let events = drain(&mut changes);
    assert_eq!(
        kinds(&events),
        [
            (ChangeKind::Enabled, "plugin_greet"),
            (ChangeKind::Replaced, "plugin_greet"),
            (ChangeKind::Replaced, "plugin_version")
        ]
    );
    assert!(registry.is_enabled("plugin_greet"));
    assert!(!registry.is_enabled("plugin_version"));
}
