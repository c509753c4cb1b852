//! Prompts, resources and skills in the registry: versions and conflicts, enable and disable,
//! events that name the primitive, filters, how a URI resolves (fixed first, the most
//! specific template, hidden and disabled entries passed over), update notifications,
//! snapshots.

use tokio::sync::broadcast::Receiver;
use toolwright_core::{Prompt, Resource, SafetyLevel, Skill, ToolSource};
use toolwright_runtime::registry::{ChangeKind, Primitive, PrimitiveState, RegistryChange};
use toolwright_runtime::{RegistryError, ToolFilter, ToolRegistry};

fn prompt(name: &str, version: Option<&str>, description: &str) -> Prompt {
    let mut builder = Prompt::builder(name).description(description);
    if let Some(version) = version {
        builder = builder.version(version);
    }
    builder.handler(|_, _| async { Ok("hi") }).build().unwrap()
}

fn resource(name: &str, uri: &str) -> Resource {
    Resource::builder(name, uri)
        .handler(|_, _| async { Ok("text") })
        .build()
        .unwrap()
}

fn drain(changes: &mut Receiver<RegistryChange>) -> Vec<RegistryChange> {
    std::iter::from_fn(|| changes.try_recv().ok()).collect()
}

fn summary(events: &[RegistryChange]) -> Vec<(ChangeKind, Primitive, &str)> {
    events
        .iter()
        .map(|e| (e.kind, e.primitive, e.name.as_str()))
        .collect()
}

#[test]
fn prompts_register_replace_by_version_and_refuse_a_same_version_redefinition() {
    let registry = ToolRegistry::new();
    let mut changes = registry.subscribe_changes();
    registry
        .register_prompt(prompt("review", Some("1"), "Review."))
        .unwrap();
    registry
        .register_prompt(prompt("review", Some("1"), "Review."))
        .unwrap(); // same: nothing
    let err = registry
        .register_prompt(prompt("review", Some("1"), "Review better."))
        .unwrap_err();
    let RegistryError::PrimitiveConflict { primitive, key, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!((*primitive, key.as_str()), (Primitive::Prompt, "review"));
    assert!(err.to_string().contains("bump the version"), "{err}");
    registry
        .register_prompt(prompt("review", Some("2"), "Review better."))
        .unwrap();
    assert_eq!(registry.prompt("review").unwrap().version(), Some("2"));
    assert_eq!(registry.remove_prompt("review").unwrap().name(), "review");
    assert!(registry.remove_prompt("review").is_none());
    let events = drain(&mut changes);
    assert_eq!(
        summary(&events),
        [
            (ChangeKind::Added, Primitive::Prompt, "review"),
            (ChangeKind::Replaced, Primitive::Prompt, "review"),
            (ChangeKind::Removed, Primitive::Prompt, "review"),
        ]
    );
    // Generations go on from the tools' numbering: one counter for every change.
    let generations: Vec<u64> = events.iter().map(|e| e.generation).collect();
    assert_eq!(generations, [1, 2, 3]);
    assert!(
        events
            .iter()
            .all(|e| e.before.is_none() && e.after.is_none())
    );
    assert!(matches!(
        events[1].primitive_before,
        Some(PrimitiveState::Prompt { ref prompt, enabled: true }) if prompt.version() == Some("1")
    ));
}

#[test]
fn a_resource_uri_held_by_another_definition_is_refused_naming_both_sources() {
    let registry = ToolRegistry::new();
    registry
        .register_resource(resource("ours", "notes://index"))
        .unwrap();
    // What a mounted upstream would do: the same URI, defined elsewhere.
    let upstream = Resource::builder("theirs", "notes://index")
        .source(ToolSource::new("upstream", "upstream", "upstream", 1))
        .handler(|_, _| async { Ok("not ours") })
        .build()
        .unwrap();
    let err = registry.register_resource(upstream).unwrap_err();
    assert!(
        matches!(&err, RegistryError::PrimitiveConflict { primitive: Primitive::Resource, key, .. } if key == "notes://index")
    );
    assert!(err.to_string().contains("upstream"), "{err}");
    assert_eq!(registry.resource("notes://index").unwrap().name(), "ours");
}

#[test]
fn enabling_and_disabling_send_one_event_each_and_unknown_names_suggest() {
    let registry = ToolRegistry::new();
    registry
        .register_prompt(prompt("review", None, "Review."))
        .unwrap();
    registry
        .register_resource(resource("note", "notes://{id}"))
        .unwrap();
    let mut changes = registry.subscribe_changes();
    registry.set_prompt_enabled("review", false).unwrap();
    registry.set_prompt_enabled("review", false).unwrap(); // no change, no event
    registry
        .set_resource_enabled("notes://{id}", false)
        .unwrap();
    registry.set_resource_enabled("notes://{id}", true).unwrap();
    assert_eq!(
        summary(&drain(&mut changes)),
        [
            (ChangeKind::Disabled, Primitive::Prompt, "review"),
            (ChangeKind::Disabled, Primitive::Resource, "notes://{id}"),
            (ChangeKind::Enabled, Primitive::Resource, "notes://{id}"),
        ]
    );
    let err = registry.set_prompt_enabled("reveiw", true).unwrap_err();
    assert!(
        matches!(&err, RegistryError::UnknownPrimitive { suggestion: Some(s), .. } if s == "review"),
        "{err:?}"
    );
    assert!(registry.set_resource_enabled("notes://{di}", true).is_err());
}

#[test]
fn change_events_concern_a_filter_by_the_primitive_it_would_see() {
    let registry = ToolRegistry::new();
    let mut changes = registry.subscribe_changes();
    let wipe = Prompt::builder("wipe")
        .safety(SafetyLevel::Dangerous)
        .handler(|_, _| async { Ok("sure?") })
        .build()
        .unwrap();
    registry.register_prompt(wipe).unwrap();
    registry
        .register_skill(Skill::new("skill://a/SKILL.md", "a", "A."))
        .unwrap();
    let events = drain(&mut changes);
    let safe = ToolFilter::new().max_safety(SafetyLevel::Safe);
    assert!(events[0].concerns(&ToolFilter::new()));
    assert!(!events[0].concerns(&safe));
    assert_eq!(events[1].primitive, Primitive::Skill);
    assert!(events[1].concerns(&safe));
}

#[test]
fn a_uri_resolves_to_the_fixed_resource_then_the_most_specific_template() {
    let registry = ToolRegistry::new();
    registry
        .register_resource(resource("any_file", "file:///{+path}"))
        .unwrap();
    registry
        .register_resource(resource("doc", "file:///docs/{name}"))
        .unwrap();
    registry
        .register_resource(resource("readme", "file:///docs/README"))
        .unwrap();
    let resolve = |uri: &str| {
        registry
            .resolve_resource(uri)
            .map(|(r, v)| (r.name().to_owned(), v))
    };
    assert_eq!(resolve("file:///docs/README").unwrap().0, "readme");
    let (name, vars) = resolve("file:///docs/guide").unwrap();
    assert_eq!((name.as_str(), vars.get("name")), ("doc", Some("guide")));
    let (name, vars) = resolve("file:///docs/a/b").unwrap();
    assert_eq!(
        (name.as_str(), vars.get("path")),
        ("any_file", Some("docs/a/b"))
    );
    assert!(resolve("file:///docs/../etc/passwd").is_none());
    // A filter that hides the specific template lets the general one answer.
    let hide_doc = ToolFilter::new().names(["any_file", "readme"]);
    let (hidden, _) = registry
        .resolve_resource_filtered("file:///docs/guide", &hide_doc)
        .unwrap();
    assert_eq!(hidden.name(), "any_file");
    // A disabled fixed resource is not resolved (the templates may still answer).
    registry
        .set_resource_enabled("file:///docs/README", false)
        .unwrap();
    assert_eq!(resolve("file:///docs/README").unwrap().0, "doc");
}

#[test]
fn updates_are_sent_for_uris_that_resolve_only() {
    let registry = ToolRegistry::new();
    registry
        .register_resource(resource("note", "notes://{id}"))
        .unwrap();
    let mut changes = registry.subscribe_changes();
    assert!(registry.notify_resource_updated("notes://7"));
    assert!(!registry.notify_resource_updated("notes://a/b"));
    registry
        .set_resource_enabled("notes://{id}", false)
        .unwrap();
    assert!(!registry.notify_resource_updated("notes://7"));
    assert_eq!(
        summary(&drain(&mut changes)),
        [
            (ChangeKind::Updated, Primitive::Resource, "notes://7"),
            (ChangeKind::Disabled, Primitive::Resource, "notes://{id}"),
        ]
    );
}

#[test]
fn skills_are_listed_by_uri_and_replaced_by_a_new_listing() {
    let registry = ToolRegistry::new();
    let mut changes = registry.subscribe_changes();
    registry
        .register_skill(Skill::new("skill://b/SKILL.md", "b", "B."))
        .unwrap();
    registry
        .register_skill(Skill::new("skill://a/SKILL.md", "a", "A."))
        .unwrap();
    registry
        .register_skill(Skill::new("skill://a/SKILL.md", "a", "A."))
        .unwrap();
    registry
        .register_skill(Skill::new("skill://a/SKILL.md", "a", "A, better."))
        .unwrap();
    let uris: Vec<String> = registry.skills().into_iter().map(|s| s.uri).collect();
    assert_eq!(uris, ["skill://a/SKILL.md", "skill://b/SKILL.md"]);
    assert_eq!(
        registry.skill("skill://a/SKILL.md").unwrap().description,
        "A, better."
    );
    assert!(registry.remove_skill("skill://b/SKILL.md").is_some());
    let kinds: Vec<ChangeKind> = drain(&mut changes).iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            ChangeKind::Added,
            ChangeKind::Added,
            ChangeKind::Replaced,
            ChangeKind::Removed
        ]
    );
}

#[test]
fn snapshots_restore_prompts_and_resources_and_report_the_unknown() {
    let before = ToolRegistry::new();
    before
        .register_prompt(prompt("review", None, "Review."))
        .unwrap();
    before
        .register_prompt(prompt("gone", None, "Gone."))
        .unwrap();
    before
        .register_resource(resource("note", "notes://{id}"))
        .unwrap();
    before.set_prompt_enabled("review", false).unwrap();
    before.set_resource_enabled("notes://{id}", false).unwrap();
    let snapshot = before.snapshot();
    assert_eq!(snapshot.prompts.len(), 2);
    let after = ToolRegistry::new();
    after
        .register_prompt(prompt("review", None, "Review."))
        .unwrap();
    after
        .register_resource(resource("note", "notes://{id}"))
        .unwrap();
    let report = after.apply_state(&snapshot);
    assert_eq!(report.unknown_primitives, ["gone"]);
    assert!(!after.is_prompt_enabled("review"));
    assert!(!after.is_resource_enabled("notes://{id}"));
    assert!(after.resolve_resource("notes://1").is_none());
}
