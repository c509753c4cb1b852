use std::collections::BTreeSet;
use std::path::Path;

use super::{Unlinked, dev_dependencies_linked, message, unlinked};

const MANIFEST: &str = r#"
[package]
name = "my-app"
version = "0.1.0"

[dependencies]
toolwright = { version = "0.1", features = ["mcp"] }
my-tools = { path = "../my-tools" } # tools, never named
types = { package = "shared-types", path = "../types" }
plain = "1"
maybe-tools = { path = "../maybe", optional = true }

[target.'cfg(unix)'.dependencies]
unix-tools.workspace = true

[dev-dependencies.test-tools]
path = "../test-tools"

[build-dependencies]
build-tools = { path = "../build-tools" }
"#;

const LOCK: &str = r#"
version = 4

[[package]]
name = "my-app"
version = "0.1.0"
dependencies = [
 "build-tools",
 "maybe-tools",
 "my-tools",
 "plain",
 "shared-types",
 "test-tools",
 "toolwright",
 "unix-tools",
]

[[package]]
name = "my-tools"
version = "0.1.0"
dependencies = [
 "toolwright-core",
]

[[package]]
name = "shared-types"
version = "0.1.0"
dependencies = [
 "serde",
 "toolwright 0.1.0",
]

[[package]]
name = "plain"
version = "1.0.0"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "maybe-tools"
version = "0.1.0"
dependencies = ["toolwright-core"]

[[package]]
name = "unix-tools"
version = "0.1.0"
dependencies = [
 "toolwright-runtime",
]

[[package]]
name = "test-tools"
version = "0.1.0"
dependencies = [
 "toolwright-core",
]

[[package]]
name = "build-tools"
version = "0.1.0"
dependencies = [
 "toolwright-core",
]

[[package]]
name = "toolwright"
version = "0.1.0"
dependencies = [
 "toolwright-core",
]
"#;

fn names(found: &[Unlinked]) -> Vec<(&str, &str, bool)> {
    found
        .iter()
        .map(|u| (u.package.as_str(), u.in_code.as_str(), u.dev))
        .collect()
}

#[test]
fn a_dependency_on_toolwright_without_tools_is_found_by_the_name_the_code_uses() {
    let found = unlinked(MANIFEST, LOCK, "my-app", None, false, &BTreeSet::new());
    assert_eq!(
        names(&found),
        [
            ("my-tools", "my_tools", false),
            ("shared-types", "types", false),
            ("unix-tools", "unix_tools", false),
        ]
    );
}

#[test]
fn dev_dependencies_count_only_where_they_are_linkable() {
    let found = unlinked(
        MANIFEST,
        LOCK,
        "my-app",
        Some("0.1.0"),
        true,
        &BTreeSet::new(),
    );
    assert!(names(&found).contains(&("test-tools", "test_tools", true)));
    let message = message(&found).unwrap();
    assert!(message.contains("`use test_tools as _;`"), "{message}");
    assert!(message.contains("dev-dependency"), "{message}");
}

#[test]
fn a_crate_that_contributed_a_tool_is_not_named() {
    let contributing: BTreeSet<String> = ["my-tools", "shared-types", "unix-tools"]
        .map(String::from)
        .into();
    let found = unlinked(MANIFEST, LOCK, "my-app", None, false, &contributing);
    assert_eq!(found, []);
    assert_eq!(message(&found), None);
}

#[test]
fn the_warning_names_the_crate_and_the_fix_and_how_to_silence_it() {
    let found = unlinked(MANIFEST, LOCK, "my-app", None, false, &BTreeSet::new());
    let message = message(&found).unwrap();
    assert!(message.contains("`my-tools`"), "{message}");
    assert!(message.contains("`use my_tools as _;`"), "{message}");
    assert!(message.contains("TOOLWRIGHT_LINK_CHECK=off"), "{message}");
}

#[test]
fn an_unknown_package_or_an_unreadable_lock_is_silence() {
    assert_eq!(
        unlinked(MANIFEST, LOCK, "other", None, true, &BTreeSet::new()),
        []
    );
    assert_eq!(
        unlinked(MANIFEST, "garbage", "my-app", None, true, &BTreeSet::new()),
        []
    );
    assert_eq!(
        unlinked("", LOCK, "my-app", None, true, &BTreeSet::new()),
        []
    );
}

#[test]
fn test_and_example_binaries_see_dev_dependencies() {
    assert!(dev_dependencies_linked(Path::new(
        "/w/target/debug/deps/it-0123abcd"
    )));
    assert!(dev_dependencies_linked(Path::new(
        "/w/target/debug/examples/demo"
    )));
    assert!(!dev_dependencies_linked(Path::new(
        "/w/target/debug/my-app"
    )));
}
