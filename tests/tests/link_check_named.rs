//! The same dependencies as `link_check_unnamed.rs`, each named once: every crate of tools is
//! linked, and `register_all_tools()` says nothing.

use admin_tools as _;
use dup_tools as _;
use notes_primitives as _;
use renamed_core_tools as _;
use weather_tools as _;

mod link_check;

#[test]
fn child_registers_all_tools() {
    link_check::child();
}

#[test]
fn named_crates_of_tools_are_not_told() {
    let stderr = link_check::stderr_of_child("child_registers_all_tools");
    assert!(!stderr.contains("toolwright: warning"), "{stderr}");
}
