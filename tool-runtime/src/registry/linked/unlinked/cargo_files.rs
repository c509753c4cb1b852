//! What `Cargo.toml` and `Cargo.lock` say about a package's dependencies, read line by line
//! (the check is best effort: what it does not understand it leaves out).

/// Which table of the manifest declared a dependency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Normal,
    Dev,
    Build,
    /// `[workspace.dependencies]` of the workspace's root manifest.
    Workspace,
}

/// One dependency as the manifest declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Declared {
    /// The name the code knows it by (its key; `-` still in it).
    pub(super) key: String,
    /// Its Cargo package name (`package = ".."` when renamed).
    pub(super) package: String,
    pub(super) kind: Kind,
    pub(super) optional: bool,
    /// `path = ".."`, relative to the manifest's directory.
    pub(super) path: Option<String>,
    /// `workspace = true`: declared in the workspace's root manifest.
    pub(super) workspace: bool,
}

/// One `[[package]]` of `Cargo.lock`: its name, version and the names it depends on.
#[derive(Debug, Default)]
pub(super) struct Locked {
    pub(super) name: String,
    pub(super) version: String,
    pub(super) dependencies: Vec<String>,
    /// From a registry (crates.io or another), whose sources cargo unpacks under its home.
    pub(super) registry: bool,
}

/// The `[[package]]` entries of a `Cargo.lock` (the name of each dependency without its
/// version or source).
pub(super) fn parse_lock(lock: &str) -> Vec<Locked> {
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
                "source" => {
                    entry.registry = value.starts_with("registry+") || value.starts_with("sparse+");
                }
                _ => {}
            }
        }
    }
    entries
}

/// The dependencies a `Cargo.toml` declares, in every dependency table (`[dependencies]`,
/// `[dev-dependencies]`, `[build-dependencies]`, their `[target.'cfg(..)'.*]` forms and
/// `[dependencies.name]` tables).
pub(super) fn parse_manifest(manifest: &str) -> Vec<Declared> {
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
                        path: None,
                        workspace: false,
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
            // Inside `[dependencies.x]`: `package = ".."`, `optional = true`, `path = ".."`.
            Some(index) => match key {
                "package" => {
                    if let Some(package) = quoted(value).next() {
                        found[index].package = package.to_owned();
                    }
                }
                "optional" => found[index].optional = value.trim() == "true",
                "path" => found[index].path = quoted(value).next().map(str::to_owned),
                "workspace" => found[index].workspace = value.trim() == "true",
                _ => {}
            },
            // `x = ".."`, `x = { package = "..", optional = true }`, `x.workspace = true`.
            None => {
                let name = unquote(key.split('.').next().unwrap_or(key));
                if name.is_empty() {
                    continue;
                }
                // `x = { .. }` or the dotted `x.field = ..`.
                let field = |field: &str| {
                    inline_value(value, field).or_else(|| {
                        (key.strip_prefix(name.as_str())?.trim() == format!(".{field}"))
                            .then(|| unquote(value))
                    })
                };
                let package = field("package");
                let optional = field("optional").is_some_and(|v| v == "true");
                let path = field("path");
                let workspace = field("workspace").is_some_and(|v| v == "true");
                match found
                    .iter_mut()
                    .find(|dep| dep.key == name && dep.kind == kind)
                {
                    Some(dep) => {
                        dep.optional |= optional;
                        dep.workspace |= workspace;
                        dep.path = dep.path.take().or(path);
                        if let Some(package) = package {
                            dep.package = package;
                        }
                    }
                    None => found.push(Declared {
                        package: package.unwrap_or_else(|| name.clone()),
                        key: name,
                        kind,
                        optional,
                        path,
                        workspace,
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
    if let Some(rest) = header.strip_prefix("workspace.") {
        // `workspace.dependencies` or `workspace.dependencies.x`.
        let (table, key) = match rest.split_once('.') {
            Some((table, key)) => (table, Some(unquote(key))),
            None => (rest, None),
        };
        return (table == "dependencies").then_some((Kind::Workspace, key));
    }
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
