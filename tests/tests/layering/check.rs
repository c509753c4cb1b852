//! The rules, over one crate read from its root file: every module folder lists its child
//! modules lowest first, and no module names one listed after it, nor an item of a module
//! above it (the crate root's re-exports among them).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::lex::{code_of, layer_comments, without_test_items};
use super::paths::{Declared, Named, Start, declared, named};

/// One module backed by a file.
pub struct Module {
    pub file: PathBuf,
    /// The file's code, without comments, literals and test items.
    pub code: String,
    /// Its child modules backed by files, as declared.
    pub children: Vec<String>,
    /// Its inline modules (`mod x { .. }`).
    pub inline: Vec<Declared>,
    /// Its layer comments: first line and the names listed.
    pub layers: Vec<(usize, Vec<String>)>,
}

/// A crate's modules by path (`[]` is the root).
pub type Crate = BTreeMap<Vec<String>, Module>;

/// Reads the crate whose root is `root`, through `read` (a file's text, or `None` when it
/// does not exist), following `mod x;` declarations.
pub fn read_crate(root: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Crate {
    let mut modules = Crate::new();
    let mut pending = vec![(Vec::new(), root.to_path_buf(), true)];
    while let Some((path, file, owns_dir)) = pending.pop() {
        let Some(text) = read(&file) else {
            continue;
        };
        let code = without_test_items(&code_of(&text));
        let all = declared(&code);
        let (inline, files): (Vec<Declared>, Vec<Declared>) =
            all.into_iter().partition(|d| d.inline.is_some());
        // A crate root or `mod.rs` holds its children beside it; `foo.rs` in `foo/`.
        let dir = match (owns_dir, file.file_stem()) {
            (true, _) | (_, None) => file.parent().map(Path::to_path_buf).unwrap_or_default(),
            (false, Some(stem)) if stem == "mod" => {
                file.parent().map(Path::to_path_buf).unwrap_or_default()
            }
            (false, Some(stem)) => file.with_file_name(stem),
        };
        for child in &files {
            let flat = dir.join(format!("{}.rs", child.name));
            let nested = dir.join(&child.name).join("mod.rs");
            let child_file = if read(&flat).is_some() { flat } else { nested };
            let mut child_path = path.clone();
            child_path.push(child.name.clone());
            pending.push((child_path, child_file, false));
        }
        modules.insert(
            path,
            Module {
                file,
                layers: layer_comments(&text),
                children: files.into_iter().map(|d| d.name).collect(),
                inline,
                code,
            },
        );
    }
    modules
}

/// Every breach of the rules in `krate`, one message each; files are shown relative to
/// `base`.
pub fn breaches(krate: &Crate, base: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for (path, module) in krate {
        found.extend(list_breaches(krate, path, module, base));
    }
    for (path, module) in krate {
        for name in named(&module.code) {
            if let Some(message) = path_breach(krate, path, module, &name, base) {
                found.push(message);
            }
        }
    }
    found
}

fn shown(file: &Path, base: &Path) -> String {
    file.strip_prefix(base)
        .unwrap_or(file)
        .display()
        .to_string()
}

/// A module folder's layer comment: there, once, and listing exactly the modules declared.
fn list_breaches(krate: &Crate, path: &[String], module: &Module, base: &Path) -> Vec<String> {
    let file = shown(&module.file, base);
    if module.children.is_empty() {
        return Vec::new();
    }
    match module.layers.as_slice() {
        [] => {
            let advice = match order(krate, path, &module.children) {
                Ok(order) => format!(
                    "add one listing them, lowest first; the imports today allow \
                     `// The layers, lowest first (no module imports one listed after it): \
                     {}.`",
                    order.join(", ")
                ),
                Err(circle) => format!(
                    "no order fits today's imports: {} import one another (a circle to \
                     break first)",
                    circle.join(", ")
                ),
            };
            vec![format!(
                "{file}: no `// The layers, lowest first` comment over its modules: {advice}"
            )]
        }
        [(line, listed)] => {
            let mut found = Vec::new();
            for name in &module.children {
                if !listed.contains(name) {
                    found.push(format!(
                        "{file}:{line}: the layer list does not list `{name}`, which the file \
                         declares: add it where it stands (after every module it imports)"
                    ));
                }
            }
            for name in listed {
                if !module.children.contains(name) {
                    found.push(format!(
                        "{file}:{line}: the layer list names `{name}`, which the file does not \
                         declare (as a `mod` outside `#[cfg(test)]`): remove it or fix its spelling"
                    ));
                }
                if listed.iter().filter(|n| *n == name).count() > 1 {
                    found.push(format!(
                        "{file}:{line}: the layer list names `{name}` twice"
                    ));
                }
            }
            found.dedup();
            found
        }
        [(first, _), (second, _), ..] => vec![format!(
            "{file}:{second}: a second layer comment (the first is at line {first}): keep one"
        )],
    }
}

/// The children of the module at `path`, lowest first, as their imports of one another
/// allow (declared order among equals), or the modules of a circle when none does.
fn order(krate: &Crate, path: &[String], children: &[String]) -> Result<Vec<String>, Vec<String>> {
    let depth = path.len();
    // `uses[i]` holds the children that child `i` (any file under it) names.
    let mut uses = vec![std::collections::BTreeSet::new(); children.len()];
    for (module_path, module) in krate {
        if module_path.len() <= depth || module_path[..depth] != *path {
            continue;
        }
        let Some(from) = children.iter().position(|c| *c == module_path[depth]) else {
            continue;
        };
        for name in named(&module.code) {
            let Some(whole) = absolute(module_path, module, &name) else {
                continue;
            };
            if whole.len() > depth
                && whole[..depth] == *path
                && let Some(to) = children.iter().position(|c| *c == whole[depth])
                && to != from
            {
                uses[from].insert(to);
            }
        }
    }
    let mut placed: Vec<usize> = Vec::new();
    while placed.len() < children.len() {
        let next = (0..children.len())
            .find(|i| !placed.contains(i) && uses[*i].iter().all(|used| placed.contains(used)));
        match next {
            Some(i) => placed.push(i),
            None => {
                let circle = (0..children.len())
                    .filter(|i| !placed.contains(i))
                    .map(|i| format!("`{}`", children[i]))
                    .collect();
                return Err(circle);
            }
        }
    }
    Ok(placed.into_iter().map(|i| children[i].clone()).collect())
}

/// The module path `name` (written in `module`, whose path is `path`) enters, or `None` when
/// it cannot be resolved.
fn absolute(path: &[String], module: &Module, name: &Named) -> Option<Vec<String>> {
    // A path written inside an inline module starts from it.
    let mut from = path.to_vec();
    if let Some(inline) = module
        .inline
        .iter()
        .find(|d| d.inline.as_ref().is_some_and(|r| r.contains(&name.offset)))
    {
        from.push(inline.name.clone());
    }
    let mut whole = match name.start {
        Start::Crate => Vec::new(),
        Start::Super(n) => from.get(..from.len().checked_sub(n)?)?.to_vec(),
        Start::SelfModule => from,
    };
    whole.extend(name.segments.iter().cloned());
    while whole.last().is_some_and(|s| s == "self") {
        whole.pop();
    }
    Some(whole)
}

/// Whether `code` defines an item called `name` at any depth (a `fn`, type, trait, constant,
/// static or macro), as opposed to re-exporting it.
fn defines(code: &str, name: &str) -> bool {
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!'))
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(2).any(|pair| {
        pair[1] == name
            && matches!(
                pair[0],
                "fn" | "struct"
                    | "enum"
                    | "union"
                    | "trait"
                    | "type"
                    | "const"
                    | "static"
                    | "macro_rules!"
            )
    })
}

/// The breach `name` makes, if any: it names a sibling listed after the ancestor it leaves
/// from, or an item of a module above it.
fn path_breach(
    krate: &Crate,
    path: &[String],
    module: &Module,
    name: &Named,
    base: &Path,
) -> Option<String> {
    let whole = absolute(path, module, name)?;
    let common = path.iter().zip(&whole).take_while(|(a, b)| a == b).count();
    if common == whole.len() || common == path.len() {
        // Its own module or an ancestor as a whole, or a module below it.
        return None;
    }
    let parent_path = &path[..common];
    let parent = krate.get(parent_path)?;
    let from = &path[common];
    let to = &whole[common];
    let file = shown(&module.file, base);
    let line = name.line;
    let written = name.written();
    let here = if path.is_empty() {
        "the root".to_owned()
    } else {
        path.join("::")
    };
    let parent_file = shown(&parent.file, base);
    if parent.children.contains(to) {
        let [(_, listed)] = parent.layers.as_slice() else {
            // Reported by `list_breaches`.
            return None;
        };
        let level = |n: &String| listed.iter().position(|m| m == n);
        let (Some(from_level), Some(to_level)) = (level(from), level(to)) else {
            return None;
        };
        return (to_level > from_level).then(|| {
            format!(
                "{file}:{line}: `{here}` names `{written}`, which climbs to the layer `{to}`, \
                 listed after `{from}` in {parent_file}'s layers: move what it needs into a \
                 module listed before `{from}` (or below it), or, if the order is wrong, \
                 reorder the list"
            )
        });
    }
    if name.macro_call && common == 0 {
        // `#[macro_export]` macros can only live at the crate root.
        return None;
    }
    if common > 0 && defines(&parent.code, to) {
        // A folder's `mod.rs` may define what its modules share (the folder's ground floor);
        // only the crate root must define nothing its modules use.
        return None;
    }
    let what = if to == "*" {
        "everything".to_owned()
    } else {
        format!("`{to}`")
    };
    if common == 0 {
        return Some(format!(
            "{file}:{line}: `{here}` names `{written}`: {what} is an item of the crate root \
             {parent_file} (a definition or a re-export), which stands above every module: \
             name the module that defines it (`crate::<module>::{to}`), and move a definition \
             out of {parent_file} into a module"
        ));
    }
    Some(format!(
        "{file}:{line}: `{here}` names `{written}`: {what} is a re-export of {parent_file}, \
         which stands above `{from}`: name the module that defines it \
         (`crate::{}::<module>::{to}`)",
        parent_path.join("::")
    ))
}
