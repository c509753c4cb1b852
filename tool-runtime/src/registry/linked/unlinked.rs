//! Telling the developer about a crate of tools the binary never names.
//!
//! Rust links a dependency only if the code names it, so the `#[tool]`s of a crate the binary
//! depends on but never names are silently missing. In debug builds run by cargo (which sets
//! `CARGO_MANIFEST_DIR` and `CARGO_PKG_NAME` for `cargo run`, `cargo test` and `cargo run
//! --example`), `register_all_tools` reads the running package's manifest and the workspace's
//! `Cargo.lock`, takes each direct dependency that depends on toolwright yet contributed no
//! `#[tool]`, reads its source when it can be found (a path or crates.io dependency) to tell a
//! crate of tools from one that uses toolwright for types or run-time tools, and warns once,
//! on stderr. Best effort: a file that cannot be read, or a manifest it does not understand,
//! is silence; it never fails the call.
//!
//! Why stderr and not `tracing`: a program without a subscriber would never see it, and an MCP
//! server on stdio keeps stdout for the protocol (stderr is its log).

// The layers, lowest first (no module imports one listed after it): cargo_files, sources.
mod cargo_files;
mod sources;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cargo_files::{Declared, Kind, Locked, parse_lock, parse_manifest};

/// The environment variable that silences the check (`off` or `0`).
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
    /// Whether its source has a `#[tool]`; `None` when the source was not found.
    defines_tools: Option<bool>,
}

/// A dependency that depends on toolwright and contributed no tool, with where its source is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Candidate {
    dep: Declared,
    /// Its directory, for a path dependency (absolute, or relative to the process's
    /// directory when the manifest's was).
    path: Option<PathBuf>,
    /// Its locked version, to find a crates.io source.
    version: Option<String>,
    /// From a registry (`source = "registry+.."` in the lock file).
    registry: bool,
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
            eprintln!("{}", shown(&message));
        }
    });
}

/// `message` as it may reach a terminal: the names in it come from manifests and lock files,
/// so each line is escaped (no control or bidirectional character drives the terminal).
fn shown(message: &str) -> String {
    message
        .lines()
        .map(|line| toolwright_names::escape::escape(line).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the running process's package, manifest, lock file and dependencies' sources say, or
/// `None` when not run by cargo, silenced, or a file cannot be read.
fn check(contributing: impl FnOnce() -> BTreeSet<String>) -> Option<Vec<Unlinked>> {
    if std::env::var(SILENCE).is_ok_and(|v| matches!(v.trim(), "off" | "0" | "false")) {
        return None;
    }
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    let package = std::env::var("CARGO_PKG_NAME").ok()?;
    let version = std::env::var("CARGO_PKG_VERSION").ok();
    let manifest = std::fs::read_to_string(manifest_dir.join("Cargo.toml")).ok()?;
    let lock_file = find_lock(&manifest_dir)?;
    let lock = std::fs::read_to_string(&lock_file).ok()?;
    let root = lock_file.parent().unwrap_or(&manifest_dir).to_path_buf();
    let root_manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    let with_dev = std::env::current_exe().is_ok_and(|exe| dev_dependencies_linked(&exe));
    let found = candidates(
        &Manifests {
            own: &manifest,
            own_dir: &manifest_dir,
            root: &root_manifest,
            root_dir: &root,
        },
        &lock,
        (&package, version.as_deref()),
        with_dev,
        &contributing(),
    );
    Some(
        found
            .into_iter()
            .map(|candidate| {
                let dir = candidate.path.clone().or_else(|| {
                    let version = candidate.version.as_deref()?;
                    candidate
                        .registry
                        .then(|| sources::registry_dir(&candidate.dep.package, version))?
                });
                Unlinked {
                    package: candidate.dep.package.clone(),
                    in_code: candidate.dep.key.replace('-', "_"),
                    dev: candidate.dep.kind == Kind::Dev,
                    defines_tools: dir.and_then(|dir| sources::defines_tools(&dir)),
                }
            })
            .filter(|unlinked| unlinked.defines_tools != Some(false))
            .collect(),
    )
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
        "toolwright: warning: the #[tool]s of these dependencies are not in this binary \
         (rustc links a crate only if the code names it):\n",
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
        let what = if crate_.defines_tools == Some(true) {
            "defines #[tool]s: name it once in"
        } else {
            "depends on toolwright; if it defines #[tool]s, name it once in"
        };
        text.push_str(&format!(
            "  `{}`{kind} {what} {place}: `use {} as _;`\n",
            crate_.package, crate_.in_code
        ));
    }
    text.push_str(&format!(
        "{SILENCE}=off silences this. (Debug builds run by cargo only.)"
    ));
    Some(text)
}

/// The running package's manifest and the workspace's root manifest, with their directories.
struct Manifests<'a> {
    own: &'a str,
    own_dir: &'a Path,
    root: &'a str,
    root_dir: &'a Path,
}

/// The direct dependencies of `package` (name and version) that depend on toolwright in
/// `lock` yet are not in `contributing`; dev-dependencies only when `with_dev`. toolwright's
/// own library crates are left out (they define no tools for a program).
fn candidates(
    manifests: &Manifests<'_>,
    lock: &str,
    (package, version): (&str, Option<&str>),
    with_dev: bool,
    contributing: &BTreeSet<String>,
) -> Vec<Candidate> {
    let locked = parse_lock(lock);
    let Some(direct) = locked_entry(&locked, package, version) else {
        return Vec::new();
    };
    let workspace = parse_manifest(manifests.root);
    let mut found: Vec<Candidate> = parse_manifest(manifests.own)
        .into_iter()
        .filter(|dep| !dep.optional && !is_toolwright_library(&dep.package))
        .filter(|dep| dep.kind == Kind::Normal || (dep.kind == Kind::Dev && with_dev))
        .filter(|dep| !contributing.contains(&dep.package))
        .filter(|dep| direct.dependencies.contains(&dep.package))
        .filter_map(|dep| {
            let entry = locked.iter().find(|entry| {
                entry.name == dep.package
                    && entry.dependencies.iter().any(|name| is_toolwright(name))
            })?;
            // A `workspace = true` dependency's path is the root manifest's.
            let path = match (&dep.path, dep.workspace) {
                (Some(path), _) => Some(manifests.own_dir.join(path)),
                (None, true) => workspace
                    .iter()
                    .find(|w| w.kind == Kind::Workspace && w.key == dep.key)
                    .and_then(|w| w.path.as_ref())
                    .map(|path| manifests.root_dir.join(path)),
                (None, false) => None,
            };
            Some(Candidate {
                path,
                version: Some(entry.version.clone()),
                registry: entry.registry,
                dep,
            })
        })
        .collect();
    found.sort_by(|a, b| a.dep.package.cmp(&b.dep.package));
    found.dedup_by(|a, b| a.dep.package == b.dep.package);
    found
}

/// The lock file's entry of `package` (of `version` when several share the name).
fn locked_entry<'a>(
    locked: &'a [Locked],
    package: &str,
    version: Option<&str>,
) -> Option<&'a Locked> {
    let mut same_name = locked.iter().filter(|entry| entry.name == package);
    let first = same_name.next()?;
    Some(
        std::iter::once(first)
            .chain(same_name)
            .find(|entry| version.is_none_or(|v| entry.version == v))
            .unwrap_or(first),
    )
}

/// `toolwright` itself or one of its `toolwright-*` crates.
fn is_toolwright(package: &str) -> bool {
    package == "toolwright" || package.starts_with("toolwright-")
}

/// One of toolwright's crates that define no tool for a program (the standard tools of
/// `toolwright-std` are `#[tool]`s like any other crate's).
fn is_toolwright_library(package: &str) -> bool {
    is_toolwright(package) && package != "toolwright-std"
}

#[cfg(test)]
mod tests;
