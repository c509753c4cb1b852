//! Telling the developer about a crate of tools the binary never names.
//!
//! Rust links a dependency only if the code names it, so the `#[tool]`s of a crate the binary
//! depends on but never names are silently missing. In debug builds run by cargo (which sets
//! `CARGO_MANIFEST_DIR` and `CARGO_PKG_NAME` for `cargo run`, `cargo test` and `cargo run
//! --example`), `register_all_tools` reads the running package's manifest and the workspace's
//! `Cargo.lock` and warns once, on stderr, about each direct dependency that depends on
//! toolwright yet contributed no `#[tool]`. Best effort: a file that cannot be read, or a
//! manifest it does not understand, is silence; it never fails the call.
//!
//! Why stderr and not `tracing`: a program without a subscriber would never see it, and an MCP
//! server on stdio keeps stdout for the protocol (stderr is its log).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The environment variable that silences the check (`off` or `0`), for a dependency that
/// depends on toolwright without defining `#[tool]`s.
const SILENCE: &str = "TOOLWRIGHT_LINK_CHECK";

/// A direct dependency that depends on toolwright and contributed no `#[tool]`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Unlinked {
    /// Its Cargo package name.
    package: String,
    /// The name the binary's code knows it by (its key in the manifest, `-` as `_`).
    in_code: String,
    /// Declared under `[dev-dependencies]`: only tests, examples and benches can name it.
    dev: bool,
}

/// Which table of the manifest declared a dependency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Normal,
    Dev,
    Build,
}

/// One dependency as the manifest declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Declared {
    key: String,
    package: String,
    kind: Kind,
    optional: bool,
}

/// One `[[package]]` of `Cargo.lock`: its name, version and the names it depends on.
#[derive(Debug, Default)]
struct Locked {
    name: String,
    version: String,
    dependencies: Vec<String>,
}

/// Warns on stderr about the dependencies of the running package whose `#[tool]`s are not
/// linked, once per process, in debug builds run by cargo; `contributing` names the packages
/// that contributed at least one `#[tool]`.
pub(super) fn warn_once(contributing: impl FnOnce() -> BTreeSet<String>) {
    if !cfg!(debug_assertions) {
        return;
    }
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if let Some(message) = check(contributing).as_deref().and_then(message) {
            eprintln!("{message}");
        }
    });
}

/// What the running process's package, manifest and lock file say, or `None` when not run by
/// cargo, silenced, or a file cannot be read.
fn check(contributing: impl FnOnce() -> BTreeSet<String>) -> Option<Vec<Unlinked>> {
    if std::env::var(SILENCE).is_ok_and(|v| matches!(v.trim(), "off" | "0" | "false")) {
        return None;
    }
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    let package = std::env::var("CARGO_PKG_NAME").ok()?;
    let version = std::env::var("CARGO_PKG_VERSION").ok();
    let manifest = std::fs::read_to_string(manifest_dir.join("Cargo.toml")).ok()?;
    let lock = std::fs::read_to_string(find_lock(&manifest_dir)?).ok()?;
    let with_dev = std::env::current_exe().is_ok_and(|exe| dev_dependencies_linked(&exe));
    Some(unlinked(
        &manifest,
        &lock,
        &package,
        version.as_deref(),
        with_dev,
        &contributing(),
    ))
}

/// The `Cargo.lock` of the package's workspace: the first one found going up.
fn find_lock(manifest_dir: &Path) -> Option<PathBuf> {
    manifest_dir
        .ancestors()
        .map(|dir| dir.join("Cargo.lock"))
        .find(|lock| lock.is_file())
}

/// Whether the running executable can see dev-dependencies: cargo puts test and bench
/// binaries in `target/<profile>/deps` and examples in `target/<profile>/examples`; a binary
/// of `cargo run` sits in `target/<profile>` and links normal dependencies only.
fn dev_dependencies_linked(exe: &Path) -> bool {
    exe.parent()
        .and_then(Path::file_name)
        .is_some_and(|dir| dir == "deps" || dir == "examples")
}

/// The warning for `unlinked`, or `None` when nothing is missing.
fn message(unlinked: &[Unlinked]) -> Option<String> {
    if unlinked.is_empty() {
        return None;
    }
    let mut text = String::from(
        "toolwright: warning: no #[tool] of these dependencies is in this binary, though they \
         depend on toolwright (rustc links a crate only if the code names it):\n",
    );
    for crate_ in unlinked {
        let (kind, place) = if crate_.dev {
            (
                " (dev-dependency)",
                "the test, example or bench that needs them",
            )
        } else {
            ("", "the binary's crate")
        };
        text.push_str(&format!(
            "  `{}`{kind}: if it defines #[tool]s, name it once in {place}: `use {} as _;`\n",
            crate_.package, crate_.in_code
        ));
    }
    text.push_str(&format!(
        "A crate without #[tool]s (only types, or tools built at run time) is fine: \
         {SILENCE}=off silences this. (Debug builds run by cargo only.)"
    ));
    Some(text)
}

/// The direct dependencies of `package` (its manifest is `manifest`) that depend on
/// toolwright in `lock` yet are not in `contributing`; dev-dependencies only when
/// `with_dev`. toolwright's own crates are left out (they are linked through the facade).
fn unlinked(
    manifest: &str,
    lock: &str,
    package: &str,
    version: Option<&str>,
    with_dev: bool,
    contributing: &BTreeSet<String>,
) -> Vec<Unlinked> {
    let locked = parse_lock(lock);
    let mut found: Vec<Unlinked> = parse_manifest(manifest)
        .into_iter()
        .filter(|dep| !dep.optional && !is_toolwright(&dep.package))
        .filter(|dep| dep.kind == Kind::Normal || (dep.kind == Kind::Dev && with_dev))
        .filter(|dep| !contributing.contains(&dep.package))
        .filter(|dep| {
            locked_deps(&locked, package, version)
                .is_some_and(|direct| direct.iter().any(|name| *name == dep.package))
        })
        .filter(|dep| {
            locked
                .iter()
                .filter(|entry| entry.name == dep.package)
                .any(|entry| entry.dependencies.iter().any(|name| is_toolwright(name)))
        })
        .map(|dep| Unlinked {
            in_code: dep.key.replace('-', "_"),
            dev: dep.kind == Kind::Dev,
            package: dep.package,
        })
        .collect();
    found.sort_by(|a, b| a.package.cmp(&b.package));
    found.dedup_by(|a, b| a.package == b.package);
    found
}

/// The names `package` depends on, as `Cargo.lock` records them.
fn locked_deps<'a>(
    locked: &'a [Locked],
    package: &str,
    version: Option<&str>,
) -> Option<&'a [String]> {
    let mut same_name = locked.iter().filter(|entry| entry.name == package);
    let first = same_name.next()?;
    let chosen = std::iter::once(first)
        .chain(same_name)
        .find(|entry| version.is_none_or(|v| entry.version == v))
        .unwrap_or(first);
    Some(&chosen.dependencies)
}

/// `toolwright` itself or one of its `toolwright-*` crates.
fn is_toolwright(package: &str) -> bool {
    package == "toolwright" || package.starts_with("toolwright-")
}

/// The `[[package]]` entries of a `Cargo.lock` (the name of each dependency without its
/// version or source).
fn parse_lock(lock: &str) -> Vec<Locked> {
    let mut entries: Vec<Locked> = Vec::new();
    let mut in_dependencies = false;
    for line in lock.lines() {
        let line = line.trim();
        if line.starts_with('[') && !line.starts_with("[]") {
            in_dependencies = false;
            if line == "[[package]]" {
                entries.push(Locked::default());
            }
            continue;
        }
        let Some(entry) = entries.last_mut() else {
            continue;
        };
        if in_dependencies || line.starts_with("dependencies") {
            let list = line.split_once('=').map_or(line, |(key, rest)| {
                if key.trim() == "dependencies" {
                    rest
                } else {
                    line
                }
            });
            entry
                .dependencies
                .extend(quoted(list).map(|dep| dep.split(' ').next().unwrap_or(dep).to_owned()));
            in_dependencies = !list.contains(']');
            continue;
        }
        if let Some((key, value)) = line.split_once('=') {
            let value = quoted(value).next().unwrap_or_default().to_owned();
            match key.trim() {
                "name" => entry.name = value,
                "version" => entry.version = value,
                _ => {}
            }
        }
    }
    entries
}

/// The dependencies a `Cargo.toml` declares, in every dependency table (`[dependencies]`,
/// `[dev-dependencies]`, `[build-dependencies]`, their `[target.'cfg(..)'.*]` forms and
/// `[dependencies.name]` tables).
fn parse_manifest(manifest: &str) -> Vec<Declared> {
    let mut found: Vec<Declared> = Vec::new();
    // The kind of the table being read, and the dependency it declares (`[dependencies.x]`).
    let mut table: Option<(Kind, Option<usize>)> = None;
    for line in manifest.lines() {
        let line = strip_comment(line).trim();
        if let Some(header) = line.strip_prefix('[') {
            table = dependency_table(header.trim_end_matches(']')).map(|(kind, key)| {
                let index = key.map(|key| {
                    found.push(Declared {
                        package: key.clone(),
                        key,
                        kind,
                        optional: false,
                    });
                    found.len() - 1
                });
                (kind, index)
            });
            continue;
        }
        let Some((kind, own)) = table else {
            continue;
        };
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim();
        match own {
            // Inside `[dependencies.x]`: `package = ".."`, `optional = true`.
            Some(index) => match key {
                "package" => {
                    if let Some(package) = quoted(value).next() {
                        found[index].package = package.to_owned();
                    }
                }
                "optional" => found[index].optional = value.trim() == "true",
                _ => {}
            },
            // `x = ".."`, `x = { package = "..", optional = true }`, `x.workspace = true`.
            None => {
                let name = unquote(key.split('.').next().unwrap_or(key));
                if name.is_empty() {
                    continue;
                }
                let package = inline_value(value, "package").unwrap_or_else(|| name.clone());
                let optional = inline_value(value, "optional").is_some_and(|v| v == "true")
                    || (key.ends_with(".optional") && value.trim() == "true");
                match found
                    .iter_mut()
                    .find(|dep| dep.key == name && dep.kind == kind)
                {
                    Some(dep) => dep.optional |= optional,
                    None => found.push(Declared {
                        key: name,
                        package,
                        kind,
                        optional,
                    }),
                }
            }
        }
    }
    found
}

/// The kind of a dependency table from its header (without brackets), and the dependency it
/// declares alone (`dependencies.x`), or `None` when it is no dependency table.
fn dependency_table(header: &str) -> Option<(Kind, Option<String>)> {
    let mut header = header.trim();
    if let Some(rest) = header.strip_prefix("target.") {
        // `target.'cfg(unix)'.dependencies`: skip the quoted or bare target.
        let after = match rest.chars().next() {
            Some(quote @ ('\'' | '"')) => rest[1..].split_once(quote)?.1,
            _ => &rest[rest.find('.')?..],
        };
        header = after.strip_prefix('.')?;
    }
    let (table, key) = match header.split_once('.') {
        Some((table, key)) => (table, Some(unquote(key))),
        None => (header, None),
    };
    let kind = match table {
        "dependencies" => Kind::Normal,
        "dev-dependencies" | "dev_dependencies" => Kind::Dev,
        "build-dependencies" | "build_dependencies" => Kind::Build,
        _ => return None,
    };
    Some((kind, key))
}

/// The value of `key` in an inline table (`{ package = "x", optional = true }`), unquoted.
fn inline_value(value: &str, key: &str) -> Option<String> {
    let inner = value
        .trim()
        .strip_prefix('{')?
        .trim_end()
        .strip_suffix('}')?;
    inner.split(',').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k.trim() == key).then(|| unquote(v))
    })
}

/// The text of every `"..."` in `text`.
fn quoted(text: &str) -> impl Iterator<Item = &str> {
    text.split('"').skip(1).step_by(2)
}

/// A key or value without its quotes.
fn unquote(text: &str) -> String {
    text.trim().trim_matches(['"', '\'']).to_owned()
}

/// A line without its `#` comment (a `#` inside quotes is kept).
fn strip_comment(line: &str) -> &str {
    let mut in_quotes = None;
    for (at, c) in line.char_indices() {
        match (c, in_quotes) {
            ('"' | '\'', None) => in_quotes = Some(c),
            (c, Some(open)) if c == open => in_quotes = None,
            ('#', None) => return &line[..at],
            _ => {}
        }
    }
    line
}

#[cfg(test)]
mod tests;
