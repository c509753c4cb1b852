//! Linked tools that share names: `register_all_tools` refuses, listing every clash with
//! all its definitions (issue 18: not only the first pair).
//!
//! A binary of its own, because the clashes would break every other test's registry.

use toolwright::model::ToolSource;
use toolwright::runtime::{NameClash, RegistryError};
use toolwright::{ToolRegistry, register_all_tools};

// dup-tools defines `get_forecast` twice (weather-tools has the third) and `purge_cache`
// (admin-tools has the other); naming the crates links them.
use admin_tools as _;
use dup_tools as _;
use weather_tools as _;

fn clashes(err: &RegistryError) -> &[NameClash] {
    match err {
        RegistryError::DuplicateTools { clashes } => clashes,
        other => panic!("expected DuplicateTools, got {other:?}"),
    }
}

/// `crate (module) at file` of each source, without the line (which moves with edits).
fn places(clash: &NameClash) -> Vec<String> {
    clash
        .sources
        .iter()
        .map(|source| {
            format!(
                "{} ({}) at {}",
                source.crate_name, source.module_path, source.file
            )
        })
        .collect()
}

#[test]
fn every_clash_is_reported_with_all_its_definitions() {
    let err = register_all_tools().unwrap_err();
    let clashes = clashes(&err);
    let names: Vec<&str> = clashes.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["get_forecast", "purge_cache"]);
    assert_eq!(
        places(&clashes[0]),
        [
            "dup-tools (dup_tools) at tests/fixtures/dup-tools/src/lib.rs",
            "dup-tools (dup_tools::again) at tests/fixtures/dup-tools/src/lib.rs",
            "weather-tools (weather_tools) at tests/fixtures/weather-tools/src/lib.rs",
        ]
    );
    assert_eq!(
        places(&clashes[1]),
        [
            "admin-tools (admin_tools) at tests/fixtures/admin-tools/src/lib.rs",
            "dup-tools (dup_tools) at tests/fixtures/dup-tools/src/lib.rs",
        ]
    );
    // The message names every definition, with its line.
    let message = err.to_string();
    assert!(
        message.starts_with("linked tools share 2 names: 3 tools are named `get_forecast` (defined in dup-tools (dup_tools) at "),
        "{message}"
    );
    for clash in clashes {
        for source in &clash.sources {
            assert!(message.contains(&source.to_string()), "{message}");
        }
    }
    assert!(
        message.contains(
            "; 2 tools are named `purge_cache` (defined in admin-tools (admin_tools) at "
        ),
        "{message}"
    );
    assert!(
        message.ends_with("rename all but one of each with `#[tool(name = \"...\")]`"),
        "{message}"
    );
    // `register_all` refuses the same way, and registers nothing.
    let mut registry = ToolRegistry::new();
    assert_eq!(registry.register_all().unwrap_err(), err);
    assert!(registry.is_empty());
}

#[test]
fn one_clash_reads_naturally() {
    let clash = NameClash {
        name: "get_forecast".into(),
        sources: vec![
            ToolSource::new("a-tools", "a_tools", "src/lib.rs", 3),
            ToolSource::new("b-tools", "b_tools", "src/lib.rs", 9),
        ],
    };
    assert_eq!(
        RegistryError::DuplicateTools {
            clashes: vec![clash]
        }
        .to_string(),
        "2 tools are named `get_forecast` (defined in a-tools (a_tools) at src/lib.rs:3 and in \
         b-tools (b_tools) at src/lib.rs:9); rename all but one with `#[tool(name = \"...\")]`"
    );
}

#[test]
fn the_error_is_the_same_every_time() {
    assert_eq!(
        register_all_tools().unwrap_err(),
        register_all_tools().unwrap_err()
    );
}
