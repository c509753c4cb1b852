//! The runtime's modules stand in layers: each module uses only modules below it, never one
//! above it and never the crate root's re-exports, so there are no import cycles. The order
//! is ARCHITECTURE.md's; this test reads every `crate::` path in the sources and fails on a
//! path that runs up (or sideways into the root).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Lowest first. `lib.rs` (the root) stands above all of them.
const LAYERS: &[&str] = &[
    "safety",
    "priority",
    "param",
    "meta",
    "args",
    "content",
    "error",
    "file_change",
    "output",
    "call",
    "client",
    "catalog",
    "context",
    "approval_rule",
    "input_schema",
    "tool",
    "macro_support",
    "tool_set",
    "definition",
    "builder",
    "search",
    "registry",
    "schema",
    "providers",
    "executor",
];

fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The top-level module a source file belongs to (`src/executor/run.rs` -> `executor`).
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap_or(file);
    let first = relative
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    first.trim_end_matches(".rs").to_owned()
}

/// Every `crate::name` in the code of `text` (comments and doc comments left out), with
/// `crate::{a, b::c}` groups opened.
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut in_test_module = false;
    for (index, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        if code.starts_with("#[cfg(test)]") {
            // Unit tests may use anything; they are not part of the layering.
            in_test_module = true;
        }
        if in_test_module {
            continue;
        }
        let code = code.split("//").next().unwrap_or(code);
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            if let Some(group) = after.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or("");
                for item in inner.split(',') {
                    let name: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        found.push((index + 1, name));
                    }
                }
            } else {
                let name: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                found.push((index + 1, name));
            }
            rest = after;
        }
    }
    found
}

#[test]
fn modules_use_only_modules_below_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    assert!(files.len() > 20, "found only {} source files", files.len());
    let mut problems = BTreeSet::new();
    let mut checked = 0;
    for file in &files {
        let module = module_of(&src, file);
        if module == "lib" {
            continue;
        }
        let Some(level) = LAYERS.iter().position(|m| *m == module) else {
            problems.insert(format!(
                "{}: module `{module}` is not in the layer list (add it to LAYERS and ARCHITECTURE.md)",
                file.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (line, name) in crate_paths(&text) {
            checked += 1;
            match LAYERS.iter().position(|m| *m == name) {
                Some(used) if used <= level => {}
                Some(_) => {
                    problems.insert(format!(
                        "{}:{line}: `{module}` uses `crate::{name}`, which stands above it",
                        file.display()
                    ));
                }
                None => {
                    problems.insert(format!(
                        "{}:{line}: `{module}` uses `crate::{name}` through the crate root; \
                         name the module that defines it",
                        file.display()
                    ));
                }
            }
        }
    }
    assert!(checked > 50, "read only {checked} crate paths");
    assert!(
        problems.is_empty(),
        "imports that break the layers:\n{}",
        problems.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn the_reader_finds_paths() {
    let text = "use crate::tool::{Tool, ToolSpec};\nuse crate::{a, b::c};\n// crate::ignored\n\
                let x = crate::input_schema::generator();\n";
    let names: Vec<String> = crate_paths(text).into_iter().map(|(_, n)| n).collect();
    assert_eq!(names, ["tool", "a", "b", "input_schema"]);
}
