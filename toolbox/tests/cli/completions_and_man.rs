//! Shell completions for every shell and the man pages, for every subcommand.

use std::process::Command;

use crate::support::{stderr, stdout, toolwright};

/// The subcommands `toolwright --help` lists (but `help`).
fn subcommands() -> Vec<String> {
    let help = stdout(&toolwright(&["--help"]));
    let names: Vec<String> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect();
    for expected in ["list", "schema", "call", "serve", "completions", "man"] {
        assert!(names.iter().any(|n| n == expected), "{expected}: {help}");
    }
    names
}

#[test]
fn completions_for_every_shell() {
    let subcommands = subcommands();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let output = toolwright(&["completions", shell]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{shell}: {}",
            stderr(&output)
        );
        let script = stdout(&output);
        assert!(!script.trim().is_empty(), "{shell}");
        for subcommand in &subcommands {
            assert!(
                script.contains(subcommand.as_str()),
                "{shell}: {subcommand}"
            );
        }
        // Options of subcommands too (fish spells them `-l wide`).
        assert!(
            script.contains("max-safety") && script.contains("wide"),
            "{shell}"
        );
    }

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolwright.bash");
    std::fs::write(&path, stdout(&toolwright(&["completions", "bash"]))).unwrap();
    let check = Command::new("bash").arg("-n").arg(&path).output().unwrap();
    assert!(check.status.success(), "bash -n: {}", stderr(&check));

    let output = toolwright(&["completions", "tcsh"]);
    assert_eq!(output.status.code(), Some(2));
}

/// The first macro of a man page, after the roff preamble (`.ie`/`.el`, comments).
fn first_macro(page: &str) -> &str {
    page.lines()
        .find(|line| {
            !(line.starts_with(".ie") || line.starts_with(".el") || line.starts_with(".\\\""))
        })
        .unwrap_or("")
}

#[test]
fn man_pages() {
    let output = toolwright(&["man"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let page = stdout(&output);
    assert!(first_macro(&page).starts_with(".TH toolwright 1"), "{page}");
    assert!(page.contains(".SH SUBCOMMANDS"));
    for subcommand in subcommands() {
        assert!(
            page.contains(&format!("toolwright\\-{subcommand}(1)")),
            "{subcommand}: {page}"
        );
        let output = toolwright(&["man", &subcommand]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let sub_page = stdout(&output);
        assert!(
            first_macro(&sub_page).starts_with(&format!(".TH toolwright-{subcommand} 1")),
            "{sub_page}"
        );
    }
    let output = toolwright(&["man", "lst"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no subcommand `lst`"),
        "{}",
        stderr(&output)
    );

    // man renders it, where man is installed.
    if Command::new("man").arg("--version").output().is_err() {
        eprintln!("man is not installed: the page is not rendered");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolwright.1");
    std::fs::write(&path, &page).unwrap();
    let rendered = Command::new("man")
        .arg("-l")
        .arg(&path)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .output()
        .unwrap();
    assert!(rendered.status.success(), "{}", stderr(&rendered));
    let text = stdout(&rendered);
    assert!(
        text.contains("SUBCOMMANDS") && text.contains("toolwright-serve(1)"),
        "{text}"
    );
}
