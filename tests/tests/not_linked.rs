//! The other side of the linking rule: this test binary depends on `admin-tools` (through
//! the crate's dev-dependencies) but never names it, so rustc does not link it and its tools
//! are not collected. `use admin_tools as _;` (see `integration/main.rs`) is what fixes it.

use toolwright::register_all_tools;

/// A tool of the test binary itself, always collected.
#[toolwright::tool]
fn local_probe() -> &'static str {
    "here"
}

#[test]
fn a_dependency_nothing_names_is_not_linked() {
    let registry = register_all_tools().unwrap();
    assert!(registry.get("local_probe").is_some());
    assert!(registry.get("purge_cache").is_none());
    assert!(registry.get("restart_service").is_none());
    assert_eq!(local_probe(), "here");
}
