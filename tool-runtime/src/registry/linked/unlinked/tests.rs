use std::collections::BTreeSet;
use std::path::Path;

use super::sources::{defines_tools, has_tool_attribute};
use super::{Candidate, Manifests, Unlinked, candidates, dev_dependencies_linked, message, shown};

const MANIFEST: &str = r#"
[package]
name = "my-app"
version = "0.1.0"

[dependencies]
toolwright = { version = "0.1", features = ["mcp"] }
my-tools = { path = "../my-tools" } # tools, never named
types = { package = "shared-types", path = "../types" }
plain = "1"
toolwright-std = "0.1"
toolwright-runtime = "0.1"
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
 "toolwright-runtime",
 "toolwright-std",
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
dependencies = [
 "toolwright-core",
]

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
name = "toolwright-std"
version = "0.1.0"
source = "registry+https://github.com/rust-lang/crates.io-index"
dependencies = [
 "toolwright-runtime",
]

[[package]]
name = "toolwright-runtime"
version = "0.1.0"
source = "registry+https://github.com/rust-lang/crates.io-index"
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

const ROOT: &str = r#"
[workspace]
members = ["app", "crates/*"]

[workspace.dependencies]
unix-tools = { path = "crates/unix-tools" }
"#;

fn found(with_dev: bool, contributing: &[&str]) -> Vec<Candidate> {
    let contributing: BTreeSet<String> = contributing.iter().map(|c| (*c).to_owned()).collect();
    let manifests = Manifests {
        own: MANIFEST,
        own_dir: Path::new("/w/app"),
        root: ROOT,
        root_dir: Path::new("/w"),
    };
    candidates(
        &manifests,
        LOCK,
        ("my-app", Some("0.1.0")),
        with_dev,
        &contributing,
    )
}

/// Package, name in code, path, registry.
fn names(found: &[Candidate]) -> Vec<(&str, &str, Option<&Path>, bool)> {
    found
        .iter()
        .map(|c| {
            (
                c.dep.package.as_str(),
                c.dep.key.as_str(),
                c.path.as_deref(),
                c.registry,
            )
        })
        .collect()
}

fn unlinked(package: &str, in_code: &str, dev: bool, defines_tools: Option<bool>) -> Unlinked {
    Unlinked {
        package: package.to_owned(),
        in_code: in_code.to_owned(),
        dev,
        defines_tools,
    }
}

#[test]
fn a_dependency_on_toolwright_without_tools_is_found_with_its_source() {
    assert_eq!(
        names(&found(false, &[])),
        [
            (
                "my-tools",
                "my-tools",
                Some(Path::new("/w/app/../my-tools")),
                false
            ),
            ("plain", "plain", None, true),
            (
                "shared-types",
                "types",
                Some(Path::new("/w/app/../types")),
                false
            ),
            ("toolwright-std", "toolwright-std", None, true),
            (
                "unix-tools",
                "unix-tools",
                Some(Path::new("/w/crates/unix-tools")),
                false
            ),
        ]
    );
}

#[test]
fn dev_dependencies_count_only_where_they_are_linkable() {
    let packages = |found: Vec<Candidate>| -> Vec<String> {
        found.into_iter().map(|c| c.dep.package).collect()
    };
    assert!(!packages(found(false, &[])).contains(&"test-tools".to_owned()));
    assert!(packages(found(true, &[])).contains(&"test-tools".to_owned()));
}

#[test]
fn a_crate_that_contributed_a_tool_is_not_named() {
    let all = [
        "my-tools",
        "plain",
        "shared-types",
        "unix-tools",
        "test-tools",
        "toolwright-std",
    ];
    assert_eq!(found(true, &all), []);
    assert_eq!(message(&[]), None);
}

#[test]
fn an_unknown_package_or_an_unreadable_lock_is_silence() {
    let manifests = Manifests {
        own: MANIFEST,
        own_dir: Path::new("/w/app"),
        root: "",
        root_dir: Path::new("/w"),
    };
    let none = BTreeSet::new();
    assert_eq!(
        candidates(&manifests, LOCK, ("other", None), true, &none),
        []
    );
    assert_eq!(
        candidates(&manifests, "garbage", ("my-app", None), true, &none),
        []
    );
    let empty = Manifests {
        own: "",
        ..manifests
    };
    assert_eq!(candidates(&empty, LOCK, ("my-app", None), true, &none), []);
}

#[test]
fn the_warning_names_the_crate_and_the_fix_and_how_to_silence_it() {
    let message = message(&[
        unlinked("my-tools", "my_tools", false, Some(true)),
        unlinked("maybe", "maybe", false, None),
        unlinked("test-tools", "test_tools", true, Some(true)),
    ])
    .unwrap();
    assert!(
        message.contains(
            "`my-tools` defines #[tool]s: name it once in the binary's crate: `use my_tools as _;`"
        ),
        "{message}"
    );
    assert!(
        message.contains("`maybe` depends on toolwright; if it defines #[tool]s, name it once"),
        "{message}"
    );
    assert!(
        message
            .contains("`test-tools` (dev-dependency) defines #[tool]s: name it once in the test"),
        "{message}"
    );
    assert!(message.contains("TOOLWRIGHT_LINK_CHECK=off"), "{message}");
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

#[test]
fn tool_attributes_are_told_from_others() {
    for text in [
        "#[tool]\nfn a() {}",
        "#[tool(safety = \"safe\")]",
        "  #[toolwright::tool]",
        "#[rt::tool(crate = ::rt, categories(text))]",
        "#[tool_set]\nimpl S {}",
        "#[prompt]\nfn review() -> String { String::new() }",
        "#[toolwright::resource(uri = \"notes://{id}\")]",
    ] {
        assert!(has_tool_attribute(text), "{text}");
    }
    for text in [
        "#[tool_type]\nstruct P;",
        "// #[tool]",
        "/// Put #[tool] on it",
        "#[tokio::test]",
    ] {
        assert!(!has_tool_attribute(text), "{text}");
    }
}

#[test]
fn a_crate_source_is_read_for_tools() {
    let dir = std::env::temp_dir().join(format!("toolwright-unlinked-{}", std::process::id()));
    let src = dir.join("src").join("inner");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(dir.join("src").join("lib.rs"), "pub mod inner;\n").unwrap();
    std::fs::write(src.join("mod.rs"), "pub struct Only;\n").unwrap();
    assert_eq!(defines_tools(&dir), Some(false));
    std::fs::write(src.join("tools.rs"), "#[tool]\nfn a() {}\n").unwrap();
    assert_eq!(defines_tools(&dir), Some(true));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(defines_tools(&dir), None);
}

#[test]
fn names_from_files_cannot_drive_the_terminal() {
    let hostile = "`evil\u{1b}[2Jtools\u{202e}` (dependency) defines #[tool]s\nsecond line";
    let shown = shown(hostile);
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{202e}'),
        "{shown}"
    );
    assert_eq!(shown.lines().count(), 2);
}
