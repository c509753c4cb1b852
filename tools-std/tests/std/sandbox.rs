//! No path escapes the workspace: every attack is refused with a clear error.

use std::os::unix::fs::symlink;

use serde_json::json;

use crate::harness::Harness;

/// A workspace with an outside directory next to it and symbolic links pointing out.
fn fixture() -> (Harness, tempfile::TempDir) {
    fixture_with(|ws| ws)
}

fn fixture_with(
    configure: impl FnOnce(toolwright_std::Workspace) -> toolwright_std::Workspace,
) -> (Harness, tempfile::TempDir) {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "TOP SECRET").unwrap();
    let h = Harness::with(configure);
    h.write("inside.txt", "fine");
    h.write("dir/nested.txt", "nested");
    symlink(
        outside.path().join("secret.txt"),
        h.root().join("link_out.txt"),
    )
    .unwrap();
    symlink(outside.path(), h.root().join("dir_out")).unwrap();
    symlink(outside.path(), h.root().join("dir").join("mid_out")).unwrap();
    symlink("/etc", h.root().join("etc_link")).unwrap();
    symlink("/nonexistent/target", h.root().join("dangling_out")).unwrap();
    symlink(h.root().join("inside.txt"), h.root().join("link_in.txt")).unwrap();
    (h, outside)
}

/// Attack paths that are ordinary names on Unix (a backslash or a colon is part of a name):
/// reading them finds nothing, writing them creates a file inside the workspace.
const BACKSLASH_OR_COLON_NAMES: [&str; 4] = [
    "\\etc\\passwd",
    "..\\secret.txt",
    "C:\\Windows\\system.ini",
    "c:/windows/system.ini",
];

/// Paths a model might send to get out of the workspace.
fn attacks(outside: &std::path::Path) -> Vec<String> {
    let outside = outside.display().to_string();
    vec![
        "../secret.txt".into(),
        "../../etc/passwd".into(),
        "dir/../../secret.txt".into(),
        "./../secret.txt".into(),
        "dir/./../../etc/passwd".into(),
        "..".into(),
        "dir/..".into(),
        "/etc/passwd".into(),
        "/".into(),
        format!("{outside}/secret.txt"),
        "//etc/passwd".into(),
        "\\etc\\passwd".into(),
        "..\\secret.txt".into(),
        "C:\\Windows\\system.ini".into(),
        "c:/windows/system.ini".into(),
        "~/.ssh/id_rsa".into(),
        "~root/.bashrc".into(),
        "~".into(),
        "inside.txt\0.png".into(),
        "\0".into(),
        "link_out.txt".into(),
        "dir_out/secret.txt".into(),
        "dir_out".into(),
        "dir/mid_out/secret.txt".into(),
        "etc_link/passwd".into(),
        "etc_link".into(),
        "dangling_out".into(),
        "a/".repeat(3000),
        "x".repeat(300),
        "".into(),
        "   ".into(),
    ]
}

#[tokio::test]
async fn reads_of_every_attack_path_are_refused() {
    let (h, outside) = fixture();
    let attacks = attacks(outside.path());
    assert!(attacks.len() >= 25);
    for path in &attacks {
        for (tool, arguments) in [
            ("read_file", json!({"path": path})),
            ("file_info", json!({"path": path})),
            ("list_directory", json!({"path": path})),
            ("search_files", json!({"pattern": "SECRET", "path": path})),
            ("find_files", json!({"pattern": "*", "path": path})),
        ] {
            let result = h.call(tool, arguments).await;
            assert!(
                !result.success,
                "{tool} {path:?} succeeded: {}",
                result.content
            );
            let error = result.error.unwrap();
            assert!(
                !error.contains("TOP SECRET"),
                "{tool} {path:?} leaked: {error}"
            );
            assert!(
                [
                    "absolute path",
                    "goes up with `..`",
                    "home directory",
                    "NUL byte",
                    "bytes long",
                    "outside the workspace",
                    "is empty",
                    "does not exist",
                    "only of spaces",
                ]
                .iter()
                .any(|phrase| error.contains(phrase)),
                "{tool} {path:?}: unclear error {error:?}"
            );
        }
    }
}

#[tokio::test]
async fn writes_and_deletes_of_every_attack_path_are_refused() {
    let (h, outside) = fixture();
    for path in attacks(outside.path()) {
        if BACKSLASH_OR_COLON_NAMES.contains(&path.as_str()) {
            // Names on Unix, not paths out: written inside the workspace (tested below).
            continue;
        }
        for (tool, arguments) in [
            (
                "write_file",
                json!({"path": format!("{path}"), "content": "pwned", "overwrite": true, "create_parents": true}),
            ),
            (
                "write_file",
                json!({"path": format!("{path}/new.txt"), "content": "pwned", "create_parents": true}),
            ),
            (
                "edit_file",
                json!({"path": path, "old_text": "TOP", "new_text": "pwned"}),
            ),
            ("create_directory", json!({"path": format!("{path}/made")})),
            ("delete_path", json!({"path": path, "recursive": true})),
        ] {
            let result = h.call(tool, arguments.clone()).await;
            if tool == "delete_path" && result.success {
                // A link that points outside is deleted itself, never its target.
                assert!(
                    result.content.starts_with("deleted the symbolic link"),
                    "{arguments}: {}",
                    result.content
                );
                continue;
            }
            assert!(
                !result.success,
                "{tool} {arguments} succeeded: {}",
                result.content
            );
        }
    }
    // Nothing outside changed.
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
        "TOP SECRET"
    );
    let entries: Vec<_> = std::fs::read_dir(outside.path()).unwrap().collect();
    assert_eq!(entries.len(), 1);
    assert!(std::path::Path::new("/etc/passwd").exists());
}

#[tokio::test]
async fn commands_cannot_run_outside() {
    let (h, outside) = fixture_with(|ws| ws.allow_commands(["ls"]));
    for cwd in ["..", "/tmp", "dir_out", "dir/mid_out", "~", "etc_link"] {
        let error = h
            .err("run_command", json!({"program": "ls", "cwd": cwd}))
            .await;
        assert!(!error.contains("secret.txt"), "{cwd}: {error}");
    }
    assert!(
        h.ok("run_command", json!({"program": "ls", "cwd": "dir"}))
            .await
            .contains("nested.txt")
    );
    drop(outside);
}

#[tokio::test]
async fn backslash_and_colon_names_stay_inside_and_round_trip() {
    let (h, outside) = fixture();
    for name in BACKSLASH_OR_COLON_NAMES {
        h.ok(
            "write_file",
            json!({"path": name, "content": "inside", "create_parents": true}),
        )
        .await;
        assert_eq!(h.ok("read_file", json!({"path": name})).await, "inside");
    }
    // On Unix a backslash is part of the name, not a separator (clippy thinks otherwise).
    #[allow(clippy::join_absolute_paths)]
    let backslash_name = h.root().join("\\etc\\passwd");
    assert!(backslash_name.is_file());
    assert!(
        h.root()
            .join("c:")
            .join("windows")
            .join("system.ini")
            .is_file()
    );
    // Listed as they are, and read back by the name the listing shows.
    let listing = h
        .ok("list_directory", json!({"include_hidden": true}))
        .await;
    assert!(listing.contains("..\\secret.txt (6 bytes)"), "{listing}");
    for line in listing.lines().filter(|l| l.contains('\\')) {
        let name = line.split(" (").next().unwrap();
        assert_eq!(h.ok("read_file", json!({"path": name})).await, "inside");
    }
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
        "TOP SECRET"
    );
}

#[tokio::test]
async fn symbolic_links_inside_the_workspace_work() {
    let (h, _outside) = fixture();
    assert_eq!(
        h.ok("read_file", json!({"path": "link_in.txt"})).await,
        "fine"
    );
    assert_eq!(
        h.ok("read_file", json!({"path": "./dir//nested.txt"}))
            .await,
        "nested"
    );
}

#[tokio::test]
async fn the_root_is_never_deleted() {
    let h = Harness::new();
    h.write("a.txt", "a");
    for path in [".", "./", "dir/..", ""] {
        let error = h
            .err("delete_path", json!({"path": path, "recursive": true}))
            .await;
        assert!(
            error.contains("refusing to delete the workspace root")
                || error.contains("goes up")
                || error.contains("empty"),
            "{path}: {error}"
        );
    }
    assert!(h.root().join("a.txt").exists());
}
