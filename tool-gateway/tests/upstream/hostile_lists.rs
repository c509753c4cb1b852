//! Hostile lists: endless or repeating pages and huge definitions are bounded and every
//! refusal reported with the limit it hit.

use std::sync::Arc;

use rmcp::model::Tool as McpTool;
use serde_json::json;
use toolwright_gateway::upstream::{
    DEFAULT_MAX_TOOL_BYTES, ListCut, MountOptions, MountUpstream, SkipReason, Skipped,
};
use toolwright_runtime::ToolRegistry;

use crate::support::{Paging, Raw, connect, empty_schema, raw_tool, within};

#[tokio::test]
async fn a_hostile_list_is_bounded_and_reported() {
    // 10,000 tools, 1000 a page.
    let many: Vec<McpTool> = (0..10_000)
        .map(|i| raw_tool(&format!("t{i}"), "Many.", empty_schema()))
        .collect();
    let (raw, _events) = Raw::new(many, Paging::Pages(1000));
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount of 10,000",
        registry.mount(&upstream, MountOptions::new("m").max_tools(1500)),
    )
    .await
    .unwrap();
    assert_eq!(mount.report().added.len(), 1500);
    assert_eq!(
        mount.report().cut,
        Some(ListCut::TooManyTools { limit: 1500 })
    );

    // An endless cursor.
    let (raw, _events) = Raw::new(Vec::new(), Paging::Endless);
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount of an endless list",
        registry.mount(&upstream, MountOptions::new("e").max_pages(20)),
    )
    .await
    .unwrap();
    assert_eq!(mount.report().added.len(), 20);
    assert_eq!(
        mount.report().cut,
        Some(ListCut::TooManyPages { limit: 20 })
    );

    // The same cursor again.
    let (raw, _events) = Raw::new(
        vec![raw_tool("one", "One.", empty_schema())],
        Paging::SameCursor,
    );
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount of a looping list",
        registry.mount(&upstream, MountOptions::new("l")),
    )
    .await
    .unwrap();
    // Page 1 gives `again`; page 2 gives it again: the loop is cut there. The tool listed
    // twice maps to one name twice, so it is reported, not mounted.
    assert_eq!(
        mount.report().cut,
        Some(ListCut::RepeatedCursor { page: 2 })
    );
    assert!(mount.report().added.is_empty());
    assert!(matches!(
        mount.report().skipped[0].reason,
        SkipReason::SameName { .. }
    ));
}

/// A tool whose input schema is about `bytes` long (one huge description).
fn huge_tool(name: &str, bytes: usize) -> McpTool {
    raw_tool(
        name,
        "Huge.",
        json!({"type": "object", "properties": {"x": {"type": "string", "description": "a".repeat(bytes)}}}),
    )
}

/// The attack, scaled down: an upstream lists tools with huge schemas (the report mounted
/// 100 of ~10 MB and took 4 GB). With the defaults a 1 MiB definition is refused; the
/// whole mount is bounded too; each refusal is reported with the limit it hit.
#[tokio::test]
async fn huge_definitions_are_refused_and_reported() {
    let mut tools = vec![raw_tool("small", "Small.", empty_schema())];
    tools.extend((0..3).map(|i| huge_tool(&format!("huge{i}"), 1 << 20)));
    let (raw, _events) = Raw::new(tools, Paging::Pages(1));
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within("mount", registry.mount(&upstream, MountOptions::new("h")))
        .await
        .unwrap();
    let report = mount.report();
    assert!(registry.get("h_small").is_some(), "{report}");
    for i in 0..3 {
        assert!(registry.get(&format!("h_huge{i}")).is_none(), "{report}");
    }
    let too_large = report
        .skipped
        .iter()
        .filter(|s| {
            matches!(s.reason, SkipReason::TooLarge { bytes, limit }
                if limit == DEFAULT_MAX_TOOL_BYTES && bytes > 1 << 20)
        })
        .count();
    assert_eq!(too_large, 3, "{report}");
    assert!(report.to_string().contains("max_tool_bytes"), "{report}");

    // The whole mount, scaled down: three of 3 KiB fit in 8 KiB two at a time.
    let tools = (0..3)
        .map(|i| huge_tool(&format!("mid{i}"), 3 * 1024))
        .collect();
    let (raw, _events) = Raw::new(tools, Paging::Pages(1));
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount with a small total",
        registry.mount(
            &upstream,
            MountOptions::new("m")
                .max_tool_bytes(4 * 1024)
                .max_mount_bytes(8 * 1024),
        ),
    )
    .await
    .unwrap();
    let report = mount.report();
    assert_eq!(report.added.len(), 2, "{report}");
    assert!(
        matches!(
            report.skipped.as_slice(),
            [Skipped {
                reason: SkipReason::MountFull { limit: 8192, .. },
                ..
            }]
        ),
        "{report}"
    );
    assert!(report.to_string().contains("max_mount_bytes"), "{report}");
}
