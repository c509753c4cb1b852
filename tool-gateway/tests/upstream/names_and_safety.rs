//! Mounted names, their mapping to the raw names and schemas, and the safety a mount gives
//! each tool (default, trusted, overridden); collisions reported, never dropped silently.

use std::sync::Arc;

use serde_json::json;
use toolwright_core::{SafetyLevel, Tool};
use toolwright_gateway::upstream::{MountOptions, MountUpstream, SkipReason};
use toolwright_runtime::{Executor, ToolRegistry};

use crate::support::{
    Paging, Raw, approving, call, city_schema, connect, empty_schema, raw_tool, standard_tools,
    within,
};

#[tokio::test]
async fn names_mapping_schemas_and_default_safety() {
    let (raw, _events) = Raw::new(standard_tools(), Paging::Pages(3));
    let upstream = connect(raw).await;
    assert_eq!(upstream.server_name(), "raw-upstream");
    let registry = Arc::new(ToolRegistry::new());
    let mount = within("mount", registry.mount(&upstream, MountOptions::new("up")))
        .await
        .unwrap();
    let report = mount.report();
    let mut names: Vec<&str> = report.added.iter().map(|t| t.name.as_str()).collect();
    names.sort();
    let long = names
        .iter()
        .find(|n| n.starts_with("up_yyy"))
        .copied()
        .unwrap();
    assert_eq!(long.len(), 64);
    assert_eq!(
        names,
        [
            "up_evil_31m_name",
            "up_failing",
            "up_get_weather",
            "up_image",
            "up_progress",
            "up_search_repositories",
            "up_slow",
            "up_structured",
            long,
        ]
    );
    // The non-object schema is not mounted, with the builder's reason.
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].upstream_name, "not-object");
    assert!(
        matches!(&report.skipped[0].reason, SkipReason::InvalidDefinition(r) if r.contains("input schema")),
        "{:?}",
        report.skipped[0]
    );
    assert!(report.cut.is_none());
    // Mapping both ways.
    assert_eq!(
        mount.upstream_name("up_get_weather").as_deref(),
        Some("get-weather")
    );
    assert_eq!(
        mount.mounted_name("searchRepositories").as_deref(),
        Some("up_search_repositories")
    );
    assert_eq!(
        mount.upstream_name("up_evil_31m_name").as_deref(),
        Some("evil\u{1b}[31m\nname")
    );
    // Schemas kept; everything dangerous by default (annotations ignored: not trusted).
    let weather = registry.get("up_get_weather").unwrap();
    assert_eq!(weather.input_schema(), &city_schema());
    assert_eq!(weather.safety(), SafetyLevel::Dangerous);
    assert!(
        registry
            .get("up_structured")
            .unwrap()
            .output_schema()
            .is_some()
    );
    // The description says where the tool comes from; the bidi control is escaped.
    assert_eq!(
        weather.description(),
        "[Tool `get-weather` of the upstream MCP server `raw-upstream`, mounted as `up`.] The weather in a city. \\u{202e}txet neddih"
    );
    let evil = registry.get("up_evil_31m_name").unwrap();
    assert!(evil.description().contains("`evil\\u{1b}[31m\\nname`"));
    // Without an approval handler, a dangerous tool is refused.
    let executor = Executor::builder(registry.clone()).build();
    let result = within(
        "refused call",
        executor.execute(call("up_get_weather", json!({"city": "Paris"}))),
    )
    .await;
    assert!(!result.success, "{result:?}");
    // With one, the call goes upstream under its own name.
    let result = within(
        "approved call",
        approving(&registry).execute(call("up_get_weather", json!({"city": "Paris"}))),
    )
    .await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.content, "sunny in Paris");
    // Arguments are checked against the upstream's schema before anything is sent.
    let result = approving(&registry)
        .execute(call("up_get_weather", json!({})))
        .await;
    assert!(!result.success);
    assert!(result.error.unwrap().contains("city"));
}

#[tokio::test]
async fn trust_and_overrides_decide_safety() {
    let (raw, _events) = Raw::new(standard_tools(), Paging::Pages(100));
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    within(
        "mount",
        registry.mount(
            &upstream,
            MountOptions::new("t")
                .trusted(true)
                .safety("ima*", SafetyLevel::Safe)
                .safety("*", SafetyLevel::Dangerous)
                .safety("failing", SafetyLevel::Cautious),
        ),
    )
    .await
    .unwrap();
    // `*` wins over the annotations; so the hints only count without an override.
    assert_eq!(
        registry.get("t_get_weather").unwrap().safety(),
        SafetyLevel::Dangerous
    );
    assert_eq!(registry.get("t_image").unwrap().safety(), SafetyLevel::Safe);
    assert_eq!(
        registry.get("t_failing").unwrap().safety(),
        SafetyLevel::Cautious
    );

    let registry = Arc::new(ToolRegistry::new());
    within(
        "mount trusted",
        registry.mount(&upstream, MountOptions::new("t").trusted(true)),
    )
    .await
    .unwrap();
    assert_eq!(
        registry.get("t_get_weather").unwrap().safety(),
        SafetyLevel::Safe
    );
    assert_eq!(
        registry.get("t_search_repositories").unwrap().safety(),
        SafetyLevel::Cautious
    );
    assert_eq!(
        registry.get("t_image").unwrap().safety(),
        SafetyLevel::Dangerous
    );
    // A safe mounted tool runs without an approval handler.
    let executor = Executor::builder(registry.clone()).build();
    let result = executor
        .execute(call("t_get_weather", json!({"city": "Oslo"})))
        .await;
    assert!(result.success, "{result:?}");
}

#[tokio::test]
async fn collisions_are_reported_never_dropped_silently() {
    let (raw, _events) = Raw::new(
        vec![
            raw_tool("get-weather", "A.", empty_schema()),
            raw_tool("get_weather", "B.", empty_schema()),
            raw_tool("getWeather", "C.", empty_schema()),
            raw_tool("taken", "D.", empty_schema()),
            raw_tool("fine", "E.", empty_schema()),
        ],
        Paging::Pages(2),
    );
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register(
            Tool::builder("c_taken")
                .description("Ours.")
                .handler(|_| async { "ours" })
                .build()
                .unwrap(),
        )
        .unwrap();
    let mount = within("mount", registry.mount(&upstream, MountOptions::new("c")))
        .await
        .unwrap();
    let report = mount.report();
    assert_eq!(
        report
            .added
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["c_fine"]
    );
    assert_eq!(report.skipped.len(), 4, "{report}");
    let weather: Vec<_> = report
        .skipped
        .iter()
        .filter(|s| s.name.as_deref() == Some("c_get_weather"))
        .collect();
    assert_eq!(weather.len(), 3);
    for skipped in weather {
        let SkipReason::SameName { others } = &skipped.reason else {
            panic!("{skipped:?}");
        };
        assert_eq!(others.len(), 2);
    }
    assert!(
        report
            .skipped
            .iter()
            .any(|s| s.upstream_name == "taken" && s.reason == SkipReason::AlreadyRegistered)
    );
    // Ours is untouched.
    assert_eq!(registry.get("c_taken").unwrap().description(), "Ours.");
    assert!(report.to_string().contains("skipped `getWeather`"));
}
