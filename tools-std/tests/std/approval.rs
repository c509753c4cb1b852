//! The approval rules of `write_file`, `edit_file` and `run_command`, through
//! `Tool::approval` (what the executor asks), against every way around them we could think of.

use serde_json::{Map, Value, json};
use tempfile::TempDir;
use toolwright_core::{ApprovalNeed, Tool, ToolContext, ToolError, ToolState};
use toolwright_std::Workspace;

/// A workspace with `docs/guide.md`, `src/main.rs`, `secret.txt`, configured by `configure`,
/// and a context holding it.
struct Setup {
    dir: TempDir,
    ctx: ToolContext,
}

fn setup(configure: impl FnOnce(Workspace) -> Workspace) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in [
        ("docs/guide.md", "guide"),
        ("src/main.rs", "fn main() {}"),
        ("secret.txt", "secret"),
    ] {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }
    let workspace = configure(Workspace::new(dir.path()).unwrap());
    let mut state = ToolState::new();
    state.insert(workspace);
    let ctx = ToolContext::new().with_state(state);
    Setup { dir, ctx }
}

fn docs_and_markdown() -> Setup {
    setup(|ws| ws.writable_without_approval(["docs/**", "*.md"]).unwrap())
}

fn tool(name: &str) -> Tool {
    toolwright_std::registry().unwrap().get(name).unwrap()
}

fn object(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

impl Setup {
    fn rule(&self, tool_name: &str, arguments: Value) -> Result<ApprovalNeed, ToolError> {
        tool(tool_name)
            .approval(&self.ctx, &object(arguments))
            .expect("the tool has an approval rule")
    }

    fn write(&self, path: &str) -> Result<ApprovalNeed, ToolError> {
        self.rule("write_file", json!({"path": path, "content": "x"}))
    }

    fn edit(&self, path: &str) -> Result<ApprovalNeed, ToolError> {
        self.rule(
            "edit_file",
            json!({"path": path, "old_text": "a", "new_text": "b"}),
        )
    }

    fn run(&self, arguments: Value) -> ApprovalNeed {
        self.rule("run_command", arguments).unwrap()
    }

    fn link(&self, target: impl AsRef<std::path::Path>, link: &str) {
        std::os::unix::fs::symlink(target, self.dir.path().join(link)).unwrap();
    }
}

use ApprovalNeed::{NotRequired, Required};

#[test]
fn the_three_tools_have_rules_and_the_others_do_not() {
    for name in ["write_file", "edit_file", "run_command"] {
        assert!(tool(name).has_approval_rule(), "{name}");
    }
    for name in ["read_file", "delete_path", "create_directory", "calculate"] {
        assert!(!tool(name).has_approval_rule(), "{name}");
    }
}

#[test]
fn without_globs_every_write_needs_approval() {
    let s = setup(|ws| ws);
    for path in ["docs/guide.md", "README.md", "new.txt"] {
        assert_eq!(s.write(path).unwrap(), Required, "{path}");
        assert_eq!(s.edit(path).unwrap(), Required, "{path}");
    }
    // An empty list is no list.
    let s = setup(|ws| ws.writable_without_approval(Vec::<String>::new()).unwrap());
    assert_eq!(s.write("docs/guide.md").unwrap(), Required);
}

#[test]
fn writes_matching_a_glob_need_none() {
    let s = docs_and_markdown();
    for path in [
        "docs/guide.md",
        "docs/new.txt",
        "docs/deep/er/new.txt",
        "README.md",
    ] {
        assert_eq!(s.write(path).unwrap(), NotRequired, "{path}");
    }
    assert_eq!(s.edit("docs/guide.md").unwrap(), NotRequired);
}

#[test]
fn writes_elsewhere_need_approval() {
    let s = docs_and_markdown();
    for path in [
        "src/main.rs",
        "secret.txt",
        // `*` does not cross a `/`.
        "src/notes.md",
        // A name that starts like the directory is another directory.
        "docs-evil/a.txt",
        "docsx/a.txt",
        // Matching is case-sensitive: on a case-sensitive file system these are other files.
        "DOCS/a.txt",
        "Docs/a.txt",
        "README.MD",
        // The directory itself and the root are not files under it.
        "docs",
        ".",
        // A backslash is part of a name on Unix: one file at the root.
        "docs\\..\\secret.txt",
    ] {
        assert_eq!(s.write(path).unwrap(), Required, "{path}");
    }
    assert_eq!(s.edit("src/main.rs").unwrap(), Required);
}

#[test]
fn paths_are_normalised_before_matching() {
    let s = docs_and_markdown();
    for path in [
        "./docs/guide.md",
        "docs//guide.md",
        "docs/./guide.md",
        "docs/guide.md/",
    ] {
        assert_eq!(s.write(path).unwrap(), NotRequired, "{path}");
    }
}

#[test]
fn paths_out_of_the_workspace_fail_the_rule_as_they_fail_the_write() {
    let s = docs_and_markdown();
    let absolute = s.dir.path().join("docs/guide.md");
    for path in [
        "docs/../secret.txt",
        "docs/../../etc/passwd",
        "../docs/guide.md",
        "/docs/guide.md",
        absolute.to_str().unwrap(),
        "~/docs/guide.md",
        "docs/guide\0.md",
        "",
    ] {
        assert!(s.write(path).is_err(), "{path:?}");
        assert!(s.edit(path).is_err(), "{path:?}");
    }
}

#[test]
fn a_link_is_judged_by_the_file_it_leads_to() {
    let s = docs_and_markdown();
    // A link under `docs` to a file outside it: the write would land outside.
    s.link("../secret.txt", "docs/secret-link.md");
    assert_eq!(s.write("docs/secret-link.md").unwrap(), Required);
    assert_eq!(s.edit("docs/secret-link.md").unwrap(), Required);
    // The same by an absolute target inside the workspace.
    s.link(s.dir.path().join("src/main.rs"), "docs/main-link.md");
    assert_eq!(s.write("docs/main-link.md").unwrap(), Required);
    // A directory under `docs` that leads into `src`.
    s.link("../src", "docs/src-link");
    assert_eq!(s.write("docs/src-link/main.rs").unwrap(), Required);
    assert_eq!(s.write("docs/src-link/new.txt").unwrap(), Required);
    // A link out of the workspace is refused, as the write would be.
    s.link("/etc", "docs/etc-link");
    assert!(s.write("docs/etc-link/passwd").is_err());
    // A dangling link: the write would create its target, outside `docs`.
    s.link("../src/new.rs", "docs/dangling.md");
    assert_eq!(s.write("docs/dangling.md").unwrap(), Required);
    // A chain of links that ends outside `docs`.
    s.link("secret-link.md", "docs/chain.md");
    assert_eq!(s.write("docs/chain.md").unwrap(), Required);
    // A link elsewhere that leads into `docs` writes there: no approval needed.
    s.link("docs", "notes");
    assert_eq!(s.write("notes/guide.md").unwrap(), NotRequired);
}

#[test]
fn a_markdown_glob_does_not_admit_a_link_named_like_markdown() {
    let s = setup(|ws| ws.writable_without_approval(["*.md"]).unwrap());
    s.link("src/main.rs", "innocent.md");
    assert_eq!(s.write("innocent.md").unwrap(), Required);
    assert_eq!(s.write("README.md").unwrap(), NotRequired);
}

#[test]
fn globs_add_up_and_bad_globs_are_refused_when_configured() {
    let s = setup(|ws| {
        ws.writable_without_approval(["docs/**"])
            .unwrap()
            .writable_without_approval(["src/*.rs"])
            .unwrap()
    });
    assert_eq!(s.write("docs/a.txt").unwrap(), NotRequired);
    assert_eq!(s.write("src/main.rs").unwrap(), NotRequired);
    assert_eq!(s.write("secret.txt").unwrap(), Required);

    let dir = tempfile::tempdir().unwrap();
    let err = Workspace::new(dir.path())
        .unwrap()
        .writable_without_approval(["docs/**", "{unclosed"])
        .unwrap_err();
    assert!(
        err.to_string().contains("`{unclosed` is not a valid glob"),
        "{err}"
    );
}

#[test]
fn the_rule_reads_the_arguments_like_the_tool_and_names_a_bad_one() {
    let s = docs_and_markdown();
    let err = s.rule("write_file", json!({"content": "x"})).unwrap_err();
    assert!(err.to_string().contains("`path`"), "{err}");
    let err = s
        .rule("write_file", json!({"path": 3, "content": "x"}))
        .unwrap_err();
    assert!(err.to_string().contains("parameter `path`"), "{err}");
    let err = s
        .rule("run_command", json!({"program": "ls", "args": "-la"}))
        .unwrap_err();
    assert!(err.to_string().contains("parameter `args`"), "{err}");
}

#[test]
fn without_a_workspace_the_rule_fails_and_says_how_to_configure_one() {
    let args = object(json!({"path": "docs/a.md", "content": "x"}));
    let err = tool("write_file")
        .approval(&ToolContext::new(), &args)
        .unwrap()
        .unwrap_err();
    assert!(
        err.to_string().contains("no workspace is configured"),
        "{err}"
    );
}

fn read_only_commands() -> Setup {
    setup(|ws| {
        ws.allow_commands(["ls", "cat", "git", "rm"])
            .run_without_approval(["ls", "cat", "  git   status ", "", "git log --oneline"])
    })
}

#[test]
fn listed_commands_need_no_approval() {
    let s = read_only_commands();
    for call in [
        json!({"program": "ls"}),
        json!({"program": "ls", "args": ["-la", "docs"]}),
        json!({"program": "cat", "args": ["docs/guide.md"], "cwd": "docs"}),
        json!({"program": "git", "args": ["status"]}),
        json!({"program": "git", "args": ["status", "--short"]}),
        json!({"program": "git", "args": ["log", "--oneline", "-5"]}),
        json!({"program": "ls", "shell": false}),
    ] {
        assert_eq!(s.run(call.clone()), NotRequired, "{call}");
    }
}

#[test]
fn anything_else_keeps_its_approval() {
    let s = read_only_commands();
    for call in [
        // Not listed.
        json!({"program": "rm", "args": ["-rf", "."]}),
        // Only the listed arguments, at the start, admit a command with arguments.
        json!({"program": "git"}),
        json!({"program": "git", "args": ["push"]}),
        json!({"program": "git", "args": ["-c", "core.pager=sh", "status"]}),
        json!({"program": "git", "args": ["--git-dir=/tmp/x", "status"]}),
        json!({"program": "git", "args": ["log"]}),
        json!({"program": "git", "args": ["log", "--output=x", "--oneline"]}),
        json!({"program": "git", "args": ["Status"]}),
        // The program's name as listed, exactly.
        json!({"program": "git status"}),
        json!({"program": "/bin/ls"}),
        json!({"program": "./ls"}),
        json!({"program": "../ls"}),
        json!({"program": "ls "}),
        json!({"program": " ls"}),
        json!({"program": "LS"}),
        json!({"program": "ls\u{0}"}),
        json!({"program": "ls;rm"}),
        json!({"program": ""}),
        // Never a shell script, whatever it says.
        json!({"program": "ls", "shell": true}),
        json!({"program": "ls; rm -rf .", "shell": true}),
        json!({"program": "git status", "shell": true}),
    ] {
        assert_eq!(s.run(call.clone()), Required, "{call}");
    }
}

#[test]
fn without_a_list_every_command_needs_approval() {
    let s = setup(|ws| ws.allow_commands(["ls"]));
    assert_eq!(s.run(json!({"program": "ls"})), Required);
}

/// `run_command`'s preview is one line whatever the arguments hold: an argument with a
/// newline cannot show as a line of its own (a harmless-looking command above, the real one
/// scrolled away), bidirectional controls and invisible characters are escaped, and words
/// with spaces are quoted, so the words read are the words that run.
#[test]
fn run_command_preview_shows_hostile_arguments_escaped() {
    let s = docs_and_markdown();
    let preview = |arguments: Value| {
        tool("run_command")
            .preview(&s.ctx, &object(arguments))
            .expect("run_command has a preview")
            .unwrap()
            .text
    };
    let shown = preview(json!({
        "program": "echo",
        "args": ["ok\n\nrun `ls` in `.`", "a b", "\u{202e}txt.exe", "x\u{200b}\u{e0041}\u{2028}", "it's\\"]
    }));
    assert_eq!(shown.lines().count(), 1, "{shown}");
    assert_eq!(
        shown,
        "run `echo 'ok\\n\\nrun `ls` in `.`' 'a b' '\\u{202e}txt.exe' \
         'x\\u{200b}\\u{e0041}\\u{2028}' 'it\\'s\\\\'` in `.`"
    );
    for c in ['\n', '\u{202e}', '\u{200b}', '\u{e0041}', '\u{2028}'] {
        assert!(!shown.contains(c), "{c:?} in {shown:?}");
    }
    assert_eq!(
        preview(json!({"program": "cargo", "args": ["test", "--release"]})),
        "run `cargo test --release` in `.`"
    );
    let script = preview(json!({"program": "ls\nrm -rf ~ \u{2066}", "shell": true, "cwd": "d\ne"}));
    assert_eq!(
        script,
        "run the shell script `ls\\nrm -rf ~ \\u{2066}` in `'d\\ne'`"
    );
}
