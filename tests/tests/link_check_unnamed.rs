//! A test binary that depends on crates of tools (this package's dev-dependencies) and names
//! none of them: in a debug build run by cargo, `register_all_tools()` says so on stderr,
//! naming each crate and the line that links it.

mod link_check;

#[test]
fn child_registers_all_tools() {
    link_check::child();
}

#[test]
fn the_unnamed_crates_of_tools_are_told_with_the_fix() {
    let stderr = link_check::stderr_of_child("child_registers_all_tools");
    for (package, fix) in [
        ("admin-tools", "use admin_tools as _;"),
        ("dup-tools", "use dup_tools as _;"),
        // Prompts and resources only (and a `#[tool_set]`).
        ("notes-primitives", "use notes_primitives as _;"),
        ("renamed-core-tools", "use renamed_core_tools as _;"),
        ("weather-tools", "use weather_tools as _;"),
    ] {
        // Its source (a path dependency) was read: it defines tools, for sure.
        let told = format!("`{package}` (dev-dependency) defines #[tool]s: name it once");
        assert!(stderr.contains(&told), "{stderr}");
        assert!(stderr.contains(fix), "{stderr}");
    }
    // Once per process, however often the tools are collected.
    assert_eq!(stderr.matches("toolwright: warning").count(), 1, "{stderr}");
}

#[test]
fn silenced_by_the_environment() {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["child_registers_all_tools", "--exact", "--nocapture"])
        .env(link_check::CHILD, "1")
        .env("TOOLWRIGHT_LINK_CHECK", "off")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("toolwright: warning"), "{stderr}");
}
