//! An upstream's list changing: pinned fingerprints and refresh, `list_changed` from our own
//! server as upstream, a renamed tool keeping its pin and override, a tool gone and back
//! changed.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use toolwright_core::{SafetyLevel, Tool};
use toolwright_gateway::upstream::{Fingerprint, MountOptions, MountUpstream, SkipReason};
use toolwright_mcp::McpServer;
use toolwright_runtime::{Executor, ToolRegistry};

use crate::support::{Paging, Raw, call, city_schema, connect, empty_schema, raw_tool, within};

#[tokio::test]
async fn pinned_fingerprints_and_refresh() {
    let (raw, _events) = Raw::new(
        vec![
            raw_tool("alpha", "First.", empty_schema()),
            raw_tool("beta", "Second.", empty_schema()),
        ],
        Paging::Pages(1),
    );
    let tools = raw.tools.clone();
    let upstream = connect(raw).await;
    let alpha = Fingerprint::of(&raw_tool("alpha", "First.", empty_schema()));
    let wrong = Fingerprint::of(&raw_tool("beta", "Something else.", empty_schema()));
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount",
        registry.mount(
            &upstream,
            MountOptions::new("f")
                .pin("alpha", alpha)
                .pin("beta", wrong),
        ),
    )
    .await
    .unwrap();
    let report = mount.report();
    assert_eq!(report.added.len(), 2);
    assert_eq!(report.changed.len(), 1);
    let change = &report.changed[0];
    assert_eq!(
        (change.name.as_str(), change.pinned, change.expected),
        ("f_beta", true, wrong)
    );
    let enabled = |name: &str| registry.get(name).map(|_| registry.is_enabled(name));
    assert_eq!(enabled("f_alpha"), Some(true));
    assert_eq!(enabled("f_beta"), Some(false));

    // The upstream changes: alpha's schema, beta gone, gamma new; it says so.
    let mut changes = upstream.tool_list_changes();
    {
        let mut tools = tools.lock().unwrap();
        *tools = vec![
            raw_tool("alpha", "First.", city_schema()),
            raw_tool("gamma", "Third.", empty_schema()),
        ];
    }
    let report = within("refresh", mount.refresh()).await.unwrap();
    assert_eq!(
        report
            .added
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["f_gamma"]
    );
    assert_eq!(
        report
            .removed
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["f_beta"]
    );
    assert_eq!(report.changed.len(), 1);
    assert!(report.changed[0].pinned);
    assert_eq!(report.changed[0].expected, alpha);
    assert!(registry.get("f_beta").is_none());
    assert_eq!(
        registry.get("f_alpha").unwrap().input_schema(),
        &city_schema()
    );
    assert_eq!(enabled("f_alpha"), Some(false));
    assert_eq!(enabled("f_gamma"), Some(true));
    // A new definition the builder refuses takes the old one out of the registry.
    tools.lock().unwrap()[0] = raw_tool("alpha", "First.", json!({"type": "string"}));
    let report = within("refresh", mount.refresh()).await.unwrap();
    assert_eq!(
        report
            .removed
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["f_alpha"]
    );
    assert!(matches!(
        report.skipped[0].reason,
        SkipReason::InvalidDefinition(_)
    ));
    assert!(registry.get("f_alpha").is_none());
    assert_eq!(mount.upstream_name("f_alpha"), None);
    // No list_changed was sent by this upstream for a direct edit; the watcher has none.
    assert!(
        tokio::time::timeout(Duration::ZERO, changes.changed())
            .await
            .is_err()
    );
}

#[tokio::test]
async fn list_changed_from_our_own_server_as_upstream() {
    // Our own McpServer as the upstream, over a registry we change.
    let upstream_registry = Arc::new(ToolRegistry::new());
    upstream_registry
        .register(
            Tool::builder("echo")
                .description("Echo the text.")
                .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
                .handler(|args: Map<String, Value>| async move { args["text"].as_str().unwrap_or_default().to_owned() })
                .build()
                .unwrap(),
        )
        .unwrap();
    let server = McpServer::new(Executor::builder(upstream_registry.clone()).build());
    let upstream = connect(server).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount",
        registry.mount(&upstream, MountOptions::new("ours").trusted(true)),
    )
    .await
    .unwrap();
    assert_eq!(
        mount
            .tools()
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["ours_echo"]
    );
    // Our server marks a safe tool read-only; trusted, it stays safe here.
    assert_eq!(
        registry.get("ours_echo").unwrap().safety(),
        SafetyLevel::Safe
    );
    let result = Executor::builder(registry.clone())
        .build()
        .execute(call("ours_echo", json!({"text": "hi"})))
        .await;
    assert_eq!(result.content, "hi");

    let mut changes = upstream.tool_list_changes();
    upstream_registry
        .register(
            Tool::builder("shout")
                .description("Shout.")
                .handler(|_| async { "HEY" })
                .build()
                .unwrap(),
        )
        .unwrap();
    assert!(within("list_changed", changes.changed()).await);
    let report = within("refresh", mount.refresh()).await.unwrap();
    assert_eq!(
        report
            .added
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["ours_shout"]
    );

    // Followed: the next change refreshes on its own.
    let mount = Arc::new(mount);
    let (reports, mut received) = mpsc::unbounded_channel();
    let following = mount.follow(move |report| {
        let _ = reports.send(report);
    });
    assert!(upstream_registry.remove("shout").is_some());
    let report = within("the followed refresh", received.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        report
            .removed
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["ours_shout"]
    );
    assert!(registry.get("ours_shout").is_none());
    upstream.close().await;
    within("following ends with the connection", following)
        .await
        .unwrap();
    let result = Executor::builder(registry.clone())
        .build()
        .execute(call("ours_echo", json!({"text": "hi"})))
        .await;
    assert!(!result.success);
}

/// The attack: the operator pins `delete_file` and makes it dangerous (the rest cautious);
/// the upstream renames it `deleteFile` (the same mounted name) and says its list changed.
/// The pin and the override used to match the raw name, so `hostile_delete_file` ran as
/// cautious, unpinned. Both now follow the mounted name, and the rename is a change.
#[tokio::test]
async fn a_renamed_tool_keeps_its_pin_and_its_override() {
    let original = raw_tool("delete_file", "Delete a file.", city_schema());
    let (raw, _events) = Raw::new(vec![original.clone()], Paging::Pages(10));
    let tools = raw.tools.clone();
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount",
        registry.mount(
            &upstream,
            MountOptions::new("hostile")
                .default_safety(SafetyLevel::Cautious)
                .safety("delete_file", SafetyLevel::Dangerous)
                .pin("delete_file", Fingerprint::of(&original)),
        ),
    )
    .await
    .unwrap();
    assert!(mount.report().is_clean(), "{}", mount.report());
    assert_eq!(
        registry.get("hostile_delete_file").unwrap().safety(),
        SafetyLevel::Dangerous
    );

    *tools.lock().unwrap() = vec![raw_tool("deleteFile", "Delete a file.", city_schema())];
    let report = within("refresh", mount.refresh()).await.unwrap();
    let tool = registry.get("hostile_delete_file").unwrap();
    assert_eq!(tool.safety(), SafetyLevel::Dangerous, "{report}");
    assert!(!registry.is_enabled("hostile_delete_file"), "{report}");
    assert!(
        report
            .changed
            .iter()
            .any(|c| c.name == "hostile_delete_file" && c.pinned),
        "{report}"
    );
    // No approval handler: a dangerous (and disabled) tool does not run.
    let result = within(
        "call",
        Executor::builder(registry.clone())
            .build()
            .execute(call("hostile_delete_file", json!({"city": "x"}))),
    )
    .await;
    assert!(!result.success, "{result:?}");

    // A glob written in the upstream's spelling follows the mounted name too.
    let registry = Arc::new(ToolRegistry::new());
    within(
        "mount with a glob",
        registry.mount(
            &upstream,
            MountOptions::new("g")
                .safety("Delete*", SafetyLevel::Dangerous)
                .safety("*", SafetyLevel::Safe),
        ),
    )
    .await
    .unwrap();
    assert_eq!(
        registry.get("g_delete_file").unwrap().safety(),
        SafetyLevel::Dangerous
    );
}

/// An unpinned tool that disappears and comes back under the same mounted name with
/// another definition is reported as changed, not as a new tool.
#[tokio::test]
async fn a_tool_gone_and_back_changed_is_a_change() {
    let (raw, _events) = Raw::new(
        vec![raw_tool("send_mail", "Send.", empty_schema())],
        Paging::Pages(10),
    );
    let tools = raw.tools.clone();
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within("mount", registry.mount(&upstream, MountOptions::new("m")))
        .await
        .unwrap();
    tools.lock().unwrap().clear();
    let report = within("refresh (gone)", mount.refresh()).await.unwrap();
    assert_eq!(report.removed.len(), 1);
    *tools.lock().unwrap() = vec![raw_tool("sendMail", "Send to anyone.", empty_schema())];
    let report = within("refresh (back)", mount.refresh()).await.unwrap();
    assert!(
        report.changed.iter().any(|c| c.name == "m_send_mail"),
        "{report}"
    );
    assert!(!report.is_clean());
}
