//! The test's own reading, on small crates held in memory.

use std::collections::BTreeMap;
use std::path::Path;

use super::check::{breaches, read_crate};
use super::lex::{code_of, layer_comments, without_test_items};
use super::paths::{Start, named};

/// The breaches of a crate whose files are `files` (paths under `src/`).
fn breaches_of(files: &[(&str, &str)]) -> Vec<String> {
    let files: BTreeMap<String, String> = files
        .iter()
        .map(|(path, text)| (format!("src/{path}"), (*text).to_owned()))
        .collect();
    let read = |path: &Path| files.get(path.to_str()?).cloned();
    breaches(&read_crate(Path::new("src/lib.rs"), &read), Path::new(""))
}

const LIB: &str = "// The layers, lowest first (no module imports one listed after it): a, b.\n\
                   mod a;\nmod b;\npub use a::Thing;\n";

#[test]
fn a_module_may_name_one_listed_before_it() {
    let found = breaches_of(&[
        ("lib.rs", LIB),
        ("a.rs", "pub struct Thing;\n"),
        ("b.rs", "use crate::a::Thing;\n"),
    ]);
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn a_climb_is_a_breach_with_file_line_and_layer() {
    let found = breaches_of(&[
        ("lib.rs", LIB),
        ("a.rs", "pub struct Thing;\n\nuse crate::b::Other;\n"),
        ("b.rs", "pub struct Other;\n"),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("src/a.rs:3: `a` names `crate::b::Other`"),
        "{found:?}"
    );
    assert!(found[0].contains("climbs to the layer `b`"), "{found:?}");
}

#[test]
fn a_root_re_export_is_a_breach() {
    let found = breaches_of(&[
        ("lib.rs", LIB),
        ("a.rs", "pub struct Thing;\n"),
        ("b.rs", "use crate::Thing;\n"),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("`Thing` is an item of the crate root src/lib.rs"),
        "{found:?}"
    );
    assert!(found[0].contains("`crate::<module>::Thing`"), "{found:?}");
}

#[test]
fn a_group_is_opened_member_by_member() {
    let found = breaches_of(&[
        (
            "lib.rs",
            "// The layers, lowest first: a, b, c.\nmod a;\nmod b;\nmod c;\n",
        ),
        ("a.rs", "use crate::{b::X, c};\n"),
        ("b.rs", "pub struct X;\n"),
        ("c.rs", "use crate::{a, b::{self, X as Y}};\n"),
    ]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found.iter().any(|f| f.contains("`crate::b::X`")),
        "{found:?}"
    );
    assert!(found.iter().any(|f| f.contains("`crate::c`")), "{found:?}");
}

#[test]
fn super_super_resolves_two_levels_up() {
    let files = [
        (
            "lib.rs",
            "// The layers, lowest first: low, high.\nmod low;\nmod high;\n",
        ),
        ("low.rs", "pub fn f() {}\n"),
        (
            "high/mod.rs",
            "// The layers, lowest first: inner.\nmod inner;\n",
        ),
        ("high/inner.rs", "use super::super::low::f;\n"),
    ];
    assert_eq!(breaches_of(&files), Vec::<String>::new());
    let found = breaches_of(&[
        (
            "lib.rs",
            "// The layers, lowest first: high, low.\nmod low;\nmod high;\n",
        ),
        files[1],
        files[2],
        files[3],
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("src/high/inner.rs:1: `high::inner` names `super::super::low::f`")
    );
    let paths = named("use super::super::low::f;");
    assert_eq!(paths[0].start, Start::Super(2));
    assert_eq!(paths[0].segments, ["low", "f"]);
}

#[test]
fn a_missing_or_wrong_layer_list_is_a_breach() {
    let found = breaches_of(&[("lib.rs", "mod a;\n"), ("a.rs", "")]);
    assert!(
        found[0].contains("no `// The layers, lowest first` comment"),
        "{found:?}"
    );
    let found = breaches_of(&[
        (
            "lib.rs",
            "// The layers, lowest first: a, ghost.\nmod a;\nmod b;\n",
        ),
        ("a.rs", ""),
        ("b.rs", ""),
    ]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found.iter().any(|f| f.contains("does not list `b`")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|f| f.contains("names `ghost`")),
        "{found:?}"
    );
}

#[test]
fn comments_literals_and_unit_tests_are_not_code() {
    let text = "// crate::b\n/* crate::b */ let s = \"crate::b\"; let r = r#\"crate::b\"#;\n\
                let c = '\"'; let l: &'static str = \"\";\n\
                #[cfg(test)]\nmod tests {\n    use crate::b;\n}\n#[cfg(test)]\nmod more;\n";
    let code = without_test_items(&code_of(text));
    assert!(named(&code).is_empty(), "{code}");
    assert_eq!(code.lines().count(), text.lines().count());
    assert!(!code.contains("mod more"));
}

#[test]
fn a_layer_comment_spans_lines_and_parentheses() {
    let text = "//! Doc.\n// The layers, lowest first (no module imports one listed after it; see\n\
                // ARCHITECTURE.md): encoding, safety,\n// builder.\nmod builder;\n";
    assert_eq!(
        layer_comments(text),
        [(
            2,
            vec![
                "encoding".to_owned(),
                "safety".to_owned(),
                "builder".to_owned()
            ]
        )]
    );
}

#[test]
fn macros_and_visibilities_are_not_imports() {
    let found = breaches_of(&[
        ("lib.rs", LIB),
        (
            "a.rs",
            "pub(crate) struct Thing; pub(in crate::a) fn f() { $crate::x(); }\n",
        ),
        ("b.rs", "fn g() { crate::my_macro!(); }\n"),
    ]);
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn a_folder_may_define_what_its_modules_share_but_not_pass_a_sibling_on() {
    let lib = "// The layers, lowest first: f.\nmod f;\n";
    let folder = "// The layers, lowest first: a, b.\nmod a;\nmod b;\n\
                  pub use a::Thing;\npub(crate) fn shared() {}\n";
    let found = breaches_of(&[
        ("lib.rs", lib),
        ("f/mod.rs", folder),
        ("f/a.rs", "pub struct Thing;\nfn g() { super::shared() }\n"),
        ("f/b.rs", "use super::{Thing, shared};\n"),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("src/f/b.rs:1: `f::b` names `super::Thing`"),
        "{found:?}"
    );
    assert!(
        found[0].contains("`Thing` is a re-export of src/f/mod.rs"),
        "{found:?}"
    );
}
