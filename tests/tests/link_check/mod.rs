//! Shared by the two link-check test binaries: run this test binary again, as a child that
//! only calls `register_all_tools()`, and read what it wrote on stderr.

use std::process::Command;

/// Set in the child's environment: the child test does its work only then.
pub const CHILD: &str = "TOOLWRIGHT_LINK_CHECK_CHILD";

/// The child's body: collect the tools, twice (the result does not matter here, only the
/// warning).
pub fn child() {
    if std::env::var_os(CHILD).is_some() {
        let _ = toolwright::register_all_tools();
        let _ = toolwright::register_all_tools();
    }
}

/// Runs the test `name` of this binary as a child with its output not captured, in the
/// environment cargo gave this process, and returns its stderr.
pub fn stderr_of_child(name: &str) -> String {
    // What the check relies on: cargo sets these for the processes of `cargo test` and `cargo run`.
    assert_eq!(
        std::env::var("CARGO_PKG_NAME").as_deref(),
        Ok("integration-tests")
    );
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    let exe = std::env::current_exe().unwrap();
    let output = Command::new(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env_remove("TOOLWRIGHT_LINK_CHECK")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stderr).unwrap()
}
