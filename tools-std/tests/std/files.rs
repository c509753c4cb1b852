//! The file tools: normal use and every failure message.

use serde_json::json;
use toolwright_core::ToolCall;
use toolwright_runtime::{ApprovalDecision, ApprovalRequest, Executor};

use crate::harness::Harness;

#[tokio::test]
async fn read_file_pages_through_lines_and_caps_bytes() {
    let h = Harness::with(|ws| ws.max_read_bytes(40));
    let text: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    h.write("long.txt", &text);
    let first = h.ok("read_file", json!({"path": "long.txt"})).await;
    assert!(first.starts_with("line 1\nline 2\n"));
    assert!(
        first.ends_with(
            "[showing lines 1-5; the file continues: call read_file with offset=6 to read on]"
        ),
        "{first}"
    );
    let page = h
        .ok(
            "read_file",
            json!({"path": "long.txt", "offset": 6, "limit": 2}),
        )
        .await;
    assert_eq!(
        page,
        "line 6\nline 7\n\n[showing lines 6-7; the file continues: call read_file with offset=8 to read on]"
    );
    let last = h
        .ok("read_file", json!({"path": "long.txt", "offset": 19}))
        .await;
    assert_eq!(last, "line 19\nline 20\n");
    let error = h
        .err("read_file", json!({"path": "long.txt", "offset": 99}))
        .await;
    assert!(
        error.ends_with("`long.txt` has 20 lines; offset 99 is past the end"),
        "{error}"
    );
}

#[tokio::test]
async fn read_file_refuses_binary_and_directories_and_missing_files() {
    let h = Harness::new();
    std::fs::write(
        h.root().join("image.png"),
        [0x89, b'P', b'N', b'G', 0, 0, 1, 2],
    )
    .unwrap();
    std::fs::write(h.root().join("latin1.txt"), [b'c', b'a', b'f', 0xe9]).unwrap();
    std::fs::create_dir(h.root().join("sub")).unwrap();
    let error = h.err("read_file", json!({"path": "image.png"})).await;
    assert!(error.ends_with("`image.png` is a binary file (8 bytes); read_file returns text only (file_info describes it)"), "{error}");
    let error = h.err("read_file", json!({"path": "latin1.txt"})).await;
    assert!(error.contains("is not UTF-8 text"), "{error}");
    let error = h.err("read_file", json!({"path": "sub"})).await;
    assert!(
        error.contains("is a directory; use list_directory"),
        "{error}"
    );
    let error = h.err("read_file", json!({"path": "nope.txt"})).await;
    assert!(
        error.contains("`nope.txt` does not exist; list the directory"),
        "{error}"
    );
}

#[tokio::test]
async fn without_a_workspace_the_tools_say_how_to_configure_one() {
    let executor =
        Executor::builder(std::sync::Arc::new(toolwright_std::registry().unwrap())).build();
    let result = executor
        .execute(ToolCall::new("1", "read_file", json!({"path": "a"})))
        .await;
    assert!(result.error.unwrap().contains("no workspace is configured"));
}

#[tokio::test]
async fn list_directory_respects_gitignore_depth_hidden_and_caps() {
    let h = Harness::with(|ws| ws.max_entries(4));
    h.write(".gitignore", "target/\n*.log\n");
    h.write("src/main.rs", "fn main() {}");
    h.write("src/lib/mod.rs", "");
    h.write("target/debug/app", "binary");
    h.write("debug.log", "noise");
    h.write("README.md", "# hi");
    let listing = h.ok("list_directory", json!({})).await;
    assert_eq!(listing, "README.md (4 bytes)\nsrc/");
    let deep = h
        .ok("list_directory", json!({"path": "src", "depth": 3}))
        .await;
    assert_eq!(
        deep,
        "src/lib/\nsrc/lib/mod.rs (0 bytes)\nsrc/main.rs (12 bytes)"
    );
    let hidden = h
        .ok(
            "list_directory",
            json!({"include_hidden": true, "depth": 3}),
        )
        .await;
    assert_eq!(
        hidden,
        ".gitignore (14 bytes)\nREADME.md (4 bytes)\nsrc/\nsrc/lib/\n[... and 2 more entries: list a subdirectory or lower the depth]"
    );
    assert!(!hidden.contains("target"));
    let error = h.err("list_directory", json!({"path": "README.md"})).await;
    assert!(error.contains("is a file, not a directory"));
}

#[tokio::test]
async fn file_info_describes_files() {
    let h = Harness::new();
    h.write("a.txt", "hello");
    let info: serde_json::Value =
        serde_json::from_str(&h.ok("file_info", json!({"path": "a.txt"})).await).unwrap();
    assert_eq!(info["path"], "a.txt");
    assert_eq!(info["kind"], "file");
    assert_eq!(info["size"], 5);
    assert_eq!(info["text"], true);
    assert!(info["modified"].as_str().unwrap().ends_with('Z'));
    let info: serde_json::Value =
        serde_json::from_str(&h.ok("file_info", json!({"path": "."})).await).unwrap();
    assert_eq!(info["kind"], "directory");
    assert_eq!(info["path"], ".");
}

#[tokio::test]
async fn search_files_finds_lines_with_numbers_and_caps_matches() {
    let h = Harness::with(|ws| ws.max_matches(3));
    h.write("src/a.rs", "fn main() {}\n// TODO: one\nlet x = 1;\n");
    h.write("src/b.rs", "// todo: two\n// TODO: three\n// TODO: four\n");
    h.write("notes.md", "TODO in markdown\n");
    h.write("ignored.log", "TODO\n");
    h.write(".gitignore", "*.log\n");
    std::fs::write(h.root().join("blob.bin"), b"TODO\0binary").unwrap();
    let found = h
        .ok("search_files", json!({"pattern": "TODO", "glob": "*.rs"}))
        .await;
    assert_eq!(
        found,
        "src/a.rs:2: // TODO: one\nsrc/b.rs:2: // TODO: three\nsrc/b.rs:3: // TODO: four\n"
    );
    let insensitive = h
        .ok(
            "search_files",
            json!({"pattern": "todo", "case_insensitive": true, "path": "src"}),
        )
        .await;
    assert!(
        insensitive
            .ends_with("[stopped after 3 matches: narrow the pattern, the path or the glob]\n"),
        "{insensitive}"
    );
    let markdown = h
        .ok("search_files", json!({"pattern": "TODO", "glob": "*.md"}))
        .await;
    assert_eq!(markdown, "notes.md:1: TODO in markdown\n");
    assert_eq!(
        h.ok("search_files", json!({"pattern": "nothing here"}))
            .await,
        "no matches for `nothing here` in `.`"
    );
    let error = h.err("search_files", json!({"pattern": "(unclosed"})).await;
    assert!(
        error.contains("`pattern` is not a valid regular expression"),
        "{error}"
    );
    let error = h
        .err("search_files", json!({"pattern": "x", "glob": "[bad"}))
        .await;
    assert!(error.contains("is not a valid glob"), "{error}");
}

#[tokio::test]
async fn find_files_matches_globs() {
    let h = Harness::new();
    h.write("src/main.rs", "");
    h.write("src/util/mod.rs", "");
    h.write("docs/guide.md", "");
    assert_eq!(
        h.ok("find_files", json!({"pattern": "*.rs"})).await,
        "src/main.rs\nsrc/util/mod.rs"
    );
    assert_eq!(
        h.ok("find_files", json!({"pattern": "src/**/mod.rs"}))
            .await,
        "src/util/mod.rs"
    );
    assert_eq!(
        h.ok("find_files", json!({"pattern": "*.md", "path": "docs"}))
            .await,
        "docs/guide.md"
    );
    assert_eq!(
        h.ok("find_files", json!({"pattern": "*.py"})).await,
        "no files match `*.py` in `.`"
    );
}

#[tokio::test]
async fn write_file_creates_refuses_to_clobber_and_replaces_when_asked() {
    let h = Harness::new();
    assert_eq!(
        h.ok("write_file", json!({"path": "a.txt", "content": "one"}))
            .await,
        "created `a.txt` (3 bytes)"
    );
    let error = h
        .err("write_file", json!({"path": "a.txt", "content": "two"}))
        .await;
    assert!(
        error.contains("`a.txt` already exists; pass `overwrite: true` to replace it"),
        "{error}"
    );
    assert_eq!(h.read("a.txt"), "one");
    assert_eq!(
        h.ok(
            "write_file",
            json!({"path": "a.txt", "content": "two", "overwrite": true})
        )
        .await,
        "replaced `a.txt` (3 bytes)"
    );
    assert_eq!(h.read("a.txt"), "two");
    let error = h
        .err(
            "write_file",
            json!({"path": "new/dir/b.txt", "content": "x"}),
        )
        .await;
    assert!(
        error.contains("the directory `new/dir` does not exist; pass `create_parents: true`"),
        "{error}"
    );
    h.ok(
        "write_file",
        json!({"path": "new/dir/b.txt", "content": "x", "create_parents": true}),
    )
    .await;
    assert_eq!(h.read("new/dir/b.txt"), "x");
    let error = h
        .err(
            "write_file",
            json!({"path": "new", "content": "x", "overwrite": true}),
        )
        .await;
    assert!(error.contains("is a directory"), "{error}");
    // No temporary files left behind.
    let names: Vec<String> = std::fs::read_dir(h.root())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with(".tool-write")),
        "{names:?}"
    );
}

#[tokio::test]
async fn write_file_caps_size() {
    let h = Harness::with(|ws| ws.max_write_bytes(10));
    let error = h
        .err(
            "write_file",
            json!({"path": "big.txt", "content": "x".repeat(11)}),
        )
        .await;
    assert!(
        error.contains("the content is 11 bytes; files are limited to 10 bytes"),
        "{error}"
    );
    assert!(!h.root().join("big.txt").exists());
}

#[tokio::test]
async fn edit_file_replaces_exactly_once_and_returns_the_diff() {
    let h = Harness::new();
    h.write("main.rs", "fn main() {\n    println!(\"hi\");\n}\n");
    let out = h
        .ok(
            "edit_file",
            json!({"path": "main.rs", "old_text": "\"hi\"", "new_text": "\"hello\""}),
        )
        .await;
    assert!(
        out.starts_with("edited `main.rs`\n--- a/main.rs\n+++ b/main.rs\n@@ -1,3 +1,3 @@"),
        "{out}"
    );
    assert!(
        out.contains("-    println!(\"hi\");\n+    println!(\"hello\");"),
        "{out}"
    );
    assert_eq!(
        h.read("main.rs"),
        "fn main() {\n    println!(\"hello\");\n}\n"
    );

    let error = h
        .err(
            "edit_file",
            json!({"path": "main.rs", "old_text": "absent", "new_text": "x"}),
        )
        .await;
    assert!(
        error.contains(
            "`old_text` was not found in `main.rs`; read the file and copy the text exactly"
        ),
        "{error}"
    );
    h.write("dup.txt", "a\na\n");
    let error = h
        .err(
            "edit_file",
            json!({"path": "dup.txt", "old_text": "a", "new_text": "b"}),
        )
        .await;
    assert!(
        error.contains("`old_text` occurs 2 times in `dup.txt`; include more surrounding lines"),
        "{error}"
    );
    let error = h
        .err("edit_file", json!({"path": "dup.txt", "old_text": "a"}))
        .await;
    assert!(
        error.contains("give either `old_text` and `new_text`"),
        "{error}"
    );
    let error = h
        .err(
            "edit_file",
            json!({"path": "dup.txt", "old_text": "", "new_text": "x"}),
        )
        .await;
    assert!(error.contains("`old_text` is empty"), "{error}");
}

#[tokio::test]
async fn edit_file_applies_unified_diffs() {
    let h = Harness::new();
    h.write("list.txt", "one\ntwo\nthree\n");
    let diff = "--- a/list.txt\n+++ b/list.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    h.ok("edit_file", json!({"path": "list.txt", "diff": diff}))
        .await;
    assert_eq!(h.read("list.txt"), "one\nTWO\nthree\n");
    let error = h
        .err("edit_file", json!({"path": "list.txt", "diff": diff}))
        .await;
    assert!(
        error.contains("the diff does not apply to `list.txt` as it is now"),
        "{error}"
    );
    let error = h
        .err(
            "edit_file",
            json!({"path": "list.txt", "diff": "not a diff"}),
        )
        .await;
    assert!(
        error.contains("`diff` is not a unified diff") || error.contains("does not apply"),
        "{error}"
    );
}

#[tokio::test]
async fn the_approval_request_shows_the_diff() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config.toml"), "port = 80\n").unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<ApprovalRequest>::new()));
    let log = std::sync::Arc::clone(&seen);
    let executor = Executor::builder(std::sync::Arc::new(toolwright_std::registry().unwrap()))
        .state(toolwright_std::Workspace::new(dir.path()).unwrap())
        .approval(move |request: ApprovalRequest| {
            log.lock().unwrap().push(request);
            async {
                ApprovalDecision::Denied {
                    reason: "just looking".into(),
                }
            }
        })
        .build();
    let result = executor
        .execute(ToolCall::new(
            "1",
            "edit_file",
            json!({"path": "config.toml", "old_text": "80", "new_text": "8080"}),
        ))
        .await;
    assert!(!result.success);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("config.toml")).unwrap(),
        "port = 80\n"
    );
    let executor_write = executor
        .execute(ToolCall::new(
            "2",
            "write_file",
            json!({"path": "new.txt", "content": "a\nb\n"}),
        ))
        .await;
    assert!(!executor_write.success);
    let executor_delete = executor
        .execute(ToolCall::new(
            "3",
            "delete_path",
            json!({"path": "config.toml"}),
        ))
        .await;
    assert!(!executor_delete.success);
    let previews: Vec<Option<String>> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.preview.clone())
        .collect();
    assert_eq!(
        previews[0].as_deref(),
        Some("--- a/config.toml\n+++ b/config.toml\n@@ -1 +1 @@\n-port = 80\n+port = 8080\n")
    );
    assert_eq!(
        previews[1].as_deref(),
        Some("create `new.txt` (4 bytes, 2 lines)")
    );
    assert_eq!(
        previews[2].as_deref(),
        Some("delete the file `config.toml` (10 bytes)")
    );
    // An edit that cannot apply fails before anyone is asked.

    let result = executor
        .execute(ToolCall::new(
            "4",
            "edit_file",
            json!({"path": "config.toml", "old_text": "absent", "new_text": "x"}),
        ))
        .await;
    assert!(result.error.unwrap().contains("`old_text` was not found"));
}

#[tokio::test]
async fn create_directory_and_delete_path() {
    let h = Harness::new();
    assert_eq!(
        h.ok("create_directory", json!({"path": "a/b/c"})).await,
        "created `a/b/c`"
    );
    assert_eq!(
        h.ok("create_directory", json!({"path": "a/b/c"})).await,
        "`a/b/c` already exists"
    );
    h.write("a/file.txt", "x");
    let error = h
        .err("create_directory", json!({"path": "a/file.txt"}))
        .await;
    assert!(error.contains("exists and is a file"), "{error}");
    let error = h.err("delete_path", json!({"path": "a"})).await;
    assert!(
        error.contains("is a directory that is not empty; pass `recursive: true`"),
        "{error}"
    );
    assert_eq!(
        h.ok("delete_path", json!({"path": "a/file.txt"})).await,
        "deleted `a/file.txt`"
    );
    assert_eq!(
        h.ok("delete_path", json!({"path": "a", "recursive": true}))
            .await,
        "deleted the directory `a`"
    );
    assert!(!h.root().join("a").exists());
    let error = h.err("delete_path", json!({"path": "a"})).await;
    assert!(error.contains("does not exist"), "{error}");
}
