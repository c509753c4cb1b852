//! The layers inside every crate of the workspace, read from the code: each `lib.rs`,
//! `main.rs`, `mod.rs` (or `foo.rs` beside a `foo/` folder) that declares modules carries one
//! comment block starting `// The layers, lowest first` that lists them, lowest first. A
//! module names (through `crate::..` or `super::..`) only modules listed before it at the same
//! level, or anything below those; never one listed after it, and never an item of a module
//! above it (`crate::Foo` where `Foo` is a re-export in `lib.rs`: name the defining module).
//! So there are no import cycles inside a crate, and a reader can read the crate bottom up.
//! Code under `#[cfg(test)]` is left out: unit tests may use anything.

// The layers, lowest first (no module imports one listed after it): lex, paths, check.
mod check;
mod lex;
mod paths;

#[cfg(test)]
mod unit;

use std::path::{Path, PathBuf};

/// The workspace's root (this package is its `tests/` member).
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The member directories the root manifest lists (`dir/*` opened).
fn members(root: &Path) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    // `members = [..]` of `[workspace]` (not `default-members`), on one line or several.
    let at = manifest
        .match_indices("members")
        .find(|(at, _)| *at == 0 || manifest[..*at].ends_with('\n'))
        .map(|(at, _)| at)
        .unwrap();
    let list = manifest[at..]
        .split_once('[')
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(list, _)| list)
        .unwrap();
    let mut found = Vec::new();
    for member in list.split('"').skip(1).step_by(2) {
        match member.strip_suffix("/*") {
            Some(dir) => {
                let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|entry| entry.path())
                    .filter(|path| path.join("Cargo.toml").is_file())
                    .collect();
                dirs.sort();
                found.extend(dirs);
            }
            None => found.push(root.join(member)),
        }
    }
    found
}

/// The crate roots of a member: `src/lib.rs`, `src/main.rs`, `src/bin/*.rs`,
/// `src/bin/*/main.rs`.
fn roots(member: &Path) -> Vec<PathBuf> {
    let src = member.join("src");
    let mut found: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|name| src.join(name))
        .filter(|path| path.is_file())
        .collect();
    let mut bins: Vec<PathBuf> = std::fs::read_dir(src.join("bin"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter_map(|path| {
            if path.extension().is_some_and(|e| e == "rs") {
                Some(path)
            } else {
                Some(path.join("main.rs")).filter(|main| main.is_file())
            }
        })
        .collect();
    bins.sort();
    found.extend(bins);
    found
}

#[test]
fn no_module_names_a_layer_above_it() {
    let root = workspace();
    let read = |path: &Path| std::fs::read_to_string(path).ok();
    let mut crates = 0;
    let mut modules = 0;
    let mut breaches = Vec::new();
    for member in members(&root) {
        for crate_root in roots(&member) {
            let krate = check::read_crate(&crate_root, &read);
            crates += 1;
            modules += krate.len();
            breaches.extend(check::breaches(&krate, &root));
        }
    }
    // The walk found the workspace (a wrong root would check nothing and pass).
    assert!(
        crates > 15 && modules > 150,
        "{crates} crates, {modules} modules"
    );
    assert!(
        breaches.is_empty(),
        "{} breaches of the layers (see ARCHITECTURE.md):\n{}",
        breaches.len(),
        breaches.join("\n")
    );
}
