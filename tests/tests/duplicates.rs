//! Two linked tools with one name: `register_all_tools` refuses, naming both definitions.
//!
//! A binary of its own, because the clash would break every other test's registry.

use tool_runtime::{RegistryError, register_all_tools};

// Both crates define a tool named `get_forecast`; naming them links them.
use dup_tools as _;
use weather_tools as _;

#[test]
fn duplicate_names_are_an_error_naming_both_sources() {
    let err = register_all_tools().unwrap_err();
    let RegistryError::DuplicateTool {
        name,
        first,
        second,
    } = &err
    else {
        panic!("expected DuplicateTool, got {err:?}");
    };
    assert_eq!(name, "get_forecast");
    let mut crates = [first.crate_name.as_ref(), second.crate_name.as_ref()];
    crates.sort_unstable();
    assert_eq!(crates, ["dup-tools", "weather-tools"]);
    let message = err.to_string();
    assert!(
        message.starts_with("two tools are named `get_forecast`: one defined in "),
        "{message}"
    );
    assert!(message.contains("dup-tools (dup_tools) at "), "{message}");
    assert!(
        message.contains("weather-tools (weather_tools) at "),
        "{message}"
    );
    assert!(message.contains("src/lib.rs:"), "{message}");
    assert!(
        message.ends_with("rename one with `#[tool(name = \"...\")]`"),
        "{message}"
    );
}

#[test]
fn the_error_is_the_same_every_time() {
    assert_eq!(
        register_all_tools().unwrap_err(),
        register_all_tools().unwrap_err()
    );
}
