//! Whether a dependency defines `#[tool]`s, read from its source when it can be found: the
//! signal that separates a crate of tools nobody named from a crate that uses toolwright only
//! for types or for tools built at run time.

use std::path::{Path, PathBuf};

/// The most source files read in one crate (a bound on a debug-build courtesy).
const MAX_FILES: usize = 2_000;

/// Whether the crate in `dir` has a `#[tool]`, `#[tool_set]`, `#[prompt]` or `#[resource]` in
/// `src/`, or `None` when its `src/` cannot be read.
pub(super) fn defines_tools(dir: &Path) -> Option<bool> {
    let src = dir.join("src");
    if !src.is_dir() {
        return None;
    }
    let mut pending = vec![src];
    let mut read = 0;
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") && read < MAX_FILES {
                read += 1;
                if std::fs::read_to_string(&path).is_ok_and(|text| has_tool_attribute(&text)) {
                    return Some(true);
                }
            }
        }
    }
    Some(false)
}

/// Whether `text` carries `#[tool]`, `#[tool(..)]`, `#[tool_set]`, `#[prompt]` or
/// `#[resource]` (under any path, as `#[toolwright::tool]`) outside line comments: each is
/// collected at link time; `#[tool_type]` defines nothing to collect.
pub(super) fn has_tool_attribute(text: &str) -> bool {
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .any(|line| {
            line.match_indices("#[").any(|(at, _)| {
                let attribute = &line[at + 2..];
                let end = attribute.find(['(', ']']).unwrap_or(attribute.len());
                let path = attribute[..end].trim();
                let last = path.rsplit("::").next().unwrap_or(path).trim();
                matches!(last, "tool" | "tool_set" | "prompt" | "resource")
            })
        })
}

/// The directory of a crates.io package's source: `$CARGO_HOME/registry/src/*/name-version`.
pub(super) fn registry_dir(name: &str, version: &str) -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))?;
    let wanted = format!("{name}-{version}");
    std::fs::read_dir(home.join("registry").join("src"))
        .ok()?
        .flatten()
        .map(|index| index.path().join(&wanted))
        .find(|dir| dir.is_dir())
}
