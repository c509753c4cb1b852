//! The `#[tool]` reference has two copies, each on the item its reader looks at: the facade's
//! `toolwright::tool` (toolwright/docs/) and the core's `toolwright_core::tool`
//! (tool-core/docs/), each in its own crate's paths. They must document the same options,
//! and those the macro reads: a new option added to one page and not the other fails here.

use std::collections::BTreeSet;
use std::path::Path;

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The option a line names: `name` of "| `name = ...` |" or "## `name`".
fn option_of(cell: &str) -> String {
    cell.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The options of the page's table (its rows' first cells) and of its headings.
fn options(page: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut table = BTreeSet::new();
    let mut headings = BTreeSet::new();
    for line in page.lines() {
        if let Some(row) = line.strip_prefix("| `") {
            table.insert(option_of(row));
        } else if let Some(heading) = line.strip_prefix("## `") {
            headings.insert(option_of(heading));
        }
    }
    (table, headings)
}

/// The options the macro reads: `TOOL_OPTIONS` in tool-macros/src/attr.rs.
fn macro_options() -> BTreeSet<String> {
    let source = read("tool-macros/src/attr.rs");
    let start = source
        .find("const TOOL_OPTIONS")
        .expect("TOOL_OPTIONS in attr.rs");
    let list = &source[start..];
    let list = &list[list.find("= &[").expect("a list") + 4..list.find("];").expect("its end")];
    list.split(',')
        .map(|item| item.trim().trim_matches('"').to_owned())
        .filter(|item| !item.is_empty())
        .collect()
}

#[test]
fn both_tool_attribute_pages_document_the_options_the_macro_reads() {
    let known = macro_options();
    assert!(
        known.contains("crate") && known.contains("task"),
        "{known:?}"
    );
    for page in [
        "toolwright/docs/tool-attribute.md",
        "tool-core/docs/tool-attribute.md",
    ] {
        let (table, headings) = options(&read(page));
        assert_eq!(table, known, "{page}: the table's options");
        assert_eq!(headings, known, "{page}: one heading per option");
    }
}

#[test]
fn both_tool_set_pages_exist_and_speak_their_crates_paths() {
    let facade = read("toolwright/docs/tool-set.md");
    let core = read("tool-core/docs/tool-set.md");
    assert!(facade.contains("use toolwright::{"), "the facade's page");
    assert!(!facade.contains("toolwright_core::"), "the facade's page");
    assert!(core.contains("use toolwright_core::{"), "the core's page");
    for page in [
        "toolwright/docs/tool-attribute.md",
        "toolwright/docs/tool-set.md",
    ] {
        let text = read(page);
        assert!(!text.contains("toolwright_runtime::"), "{page}");
    }
    for page in [
        "tool-core/docs/tool-attribute.md",
        "tool-core/docs/tool-set.md",
    ] {
        let text = read(page);
        assert!(!text.contains("toolwright::"), "{page}");
        assert!(!text.contains("toolwright_runtime::"), "{page}");
    }
}

/// The options `#[prompt]` or `#[resource]` reads: `Kind::options` in
/// tool-macros/src/primitive/attr.rs (`which`: `"Prompt"` or `"Resource"`).
fn primitive_options(which: &str) -> BTreeSet<String> {
    let source = read("tool-macros/src/primitive/attr.rs");
    let start = source
        .find(&format!("Kind::{which} => &["))
        .expect("the kind's options in attr.rs");
    let list = &source[start..];
    let list = &list[list.find("&[").expect("a list") + 2..list.find("],").expect("its end")];
    list.split(',')
        .map(|item| item.trim().trim_matches('"').to_owned())
        .filter(|item| !item.is_empty())
        .collect()
}

#[test]
fn both_prompt_and_resource_pages_document_the_options_the_macros_read() {
    for (which, page) in [
        ("Prompt", "prompt-attribute.md"),
        ("Resource", "resource-attribute.md"),
    ] {
        let known = primitive_options(which);
        assert!(
            known.contains("complete") && known.contains("crate"),
            "{known:?}"
        );
        for (dir, own, other) in [
            ("toolwright/docs", "use toolwright::", "toolwright_core::"),
            ("tool-core/docs", "use toolwright_core::", "toolwright::"),
        ] {
            let path = format!("{dir}/{page}");
            let text = read(&path);
            let (table, headings) = options(&text);
            assert_eq!(table, known, "{path}: the table's options");
            assert_eq!(headings, known, "{path}: one heading per option");
            assert!(text.contains(own), "{path} speaks its crate's paths");
            assert!(!text.contains(other), "{path} names the other crate");
            assert!(!text.contains("toolwright_runtime::"), "{path}");
        }
    }
}
