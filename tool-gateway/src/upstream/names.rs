//! The names of mounted tools: an upstream's tool name, which may be anything a server
//! sends, made into `{namespace}_{snake_case}`, a name every provider format accepts; and
//! the simple globs of per-tool safety overrides.

use sha2::{Digest, Sha256};
use toolwright_names::{MAX_NAME_LEN, check_tool_name};

/// The longest namespace: it leaves room for a tool's own name and, when that is long, for
/// the short hash of a truncated name.
pub(crate) const MAX_NAMESPACE_LEN: usize = 32;

/// Hexadecimal digits of the hash a truncated name ends with.
const HASH_DIGITS: usize = 8;

/// An upstream's tool name in snake_case, by a rule that does not change between versions:
///
/// - an ASCII uppercase letter starts a new word (`searchRepositories` ->
///   `search_repositories`, `getHTTPStatus` -> `get_http_status`) and is lowercased;
/// - ASCII lowercase letters and digits stay; every other character (`-`, `.`, spaces,
///   non-ASCII letters, controls) becomes `_`;
/// - runs of `_` become one, and `_` is trimmed from both ends;
/// - a name that then starts with a digit gets `tool_` before it (`2fa` -> `tool_2fa`);
///   a name with nothing left is `tool`.
///
/// ```
/// use toolwright_gateway::upstream::normalise;
///
/// assert_eq!(normalise("get-weather"), "get_weather");
/// assert_eq!(normalise("searchRepositories"), "search_repositories");
/// assert_eq!(normalise("getHTTPStatus"), "get_http_status");
/// assert_eq!(normalise("  fetch..url!! "), "fetch_url");
/// assert_eq!(normalise("2fa"), "tool_2fa");
/// ```
pub fn normalise(name: &str) -> String {
    let collapsed = snake_words(name, false);
    if collapsed.is_empty() {
        return "tool".to_owned();
    }
    if collapsed.starts_with(|c: char| c.is_ascii_digit()) {
        return format!("tool_{collapsed}");
    }
    collapsed
}

/// A glob over upstream names made a glob over normalised names, so that an override
/// follows the name a client sees: each `*` stays, the text around it is normalised by
/// the rule of [`normalise`] (`get-*` -> `get_*`, `*File` -> `*file`), except that `_` next
/// to a `*` is kept (`read_*` stays `read_*`).
pub(crate) fn normalise_glob(pattern: &str) -> String {
    let words = snake_words(pattern, true);
    // The `tool_` a digit-led name gets (`2faReset` -> `tool_2fa_reset`), so `2fa*` matches it.
    if words.starts_with(|c: char| c.is_ascii_digit()) {
        return format!("tool_{words}");
    }
    words
}

/// [`normalise`] without its last rules (the `tool` of an empty or digit-led name);
/// `glob` keeps `*` as itself.
fn snake_words(name: &str, glob: bool) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let previous = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
            let next = chars.get(i + 1).copied();
            let after_word = previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit());
            let ends_acronym = previous.is_some_and(|p| p.is_ascii_uppercase())
                && next.is_some_and(|n| n.is_ascii_lowercase());
            if after_word || ends_acronym {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() || (glob && c == '*') {
            out.push(c);
        } else {
            out.push('_');
        }
    }
    let mut collapsed = String::with_capacity(out.len());
    for c in out.chars() {
        if c == '_' && (collapsed.is_empty() || collapsed.ends_with('_')) {
            continue;
        }
        collapsed.push(c);
    }
    while collapsed.ends_with('_') {
        collapsed.pop();
    }
    collapsed
}

/// The name an upstream tool is registered under: `{namespace}_{normalise(name)}`; one
/// longer than 64 characters is cut to 55 (and any `_` at the cut trimmed) and ends with
/// `_` and the first 8 hexadecimal digits of the SHA-256 of the upstream's own name, so
/// two long names that share their start stay apart. `None` when the result is still not
/// a valid tool name (a namespace that is not one).
///
/// ```
/// use toolwright_gateway::upstream::mounted_name;
///
/// assert_eq!(mounted_name("github", "searchRepositories").as_deref(), Some("github_search_repositories"));
/// let long = mounted_name("ns", &"x".repeat(500)).unwrap();
/// assert_eq!(long.len(), 64);
/// assert!(long.starts_with("ns_xxx"));
/// ```
pub fn mounted_name(namespace: &str, upstream_name: &str) -> Option<String> {
    let mut name = format!("{namespace}_{}", normalise(upstream_name));
    if name.len() > MAX_NAME_LEN {
        // All ASCII: any byte index is a character boundary.
        name.truncate(MAX_NAME_LEN - HASH_DIGITS - 1);
        while name.ends_with('_') {
            name.pop();
        }
        let digest = Sha256::digest(upstream_name.as_bytes());
        name.push('_');
        name.push_str(&toolwright_core::encoding::hex(&digest[..HASH_DIGITS / 2]));
    }
    check_tool_name(&name).is_ok().then_some(name)
}

/// Whether `namespace` can prefix mounted names: a valid tool name of at most 32
/// characters; otherwise why not.
pub(crate) fn check_namespace(namespace: &str) -> Result<(), String> {
    if let Err(error) = check_tool_name(namespace) {
        return Err(match error {
            toolwright_names::NameError::Empty => "it is empty".to_owned(),
            toolwright_names::NameError::NotSnakeCase {
                suggestion: Some(fixed),
            } => format!("it is not snake_case (`^[a-z][a-z0-9_]*$`); did you mean `{fixed}`?"),
            toolwright_names::NameError::NotSnakeCase { suggestion: None } => {
                "it is not snake_case (`^[a-z][a-z0-9_]*$`)".to_owned()
            }
            toolwright_names::NameError::TooLong { len } => {
                format!("it has {len} characters; at most {MAX_NAMESPACE_LEN}")
            }
        });
    }
    if namespace.len() > MAX_NAMESPACE_LEN {
        return Err(format!(
            "it has {} characters; at most {MAX_NAMESPACE_LEN}",
            namespace.len()
        ));
    }
    if namespace.ends_with('_') {
        return Err("it ends with `_`".to_owned());
    }
    Ok(())
}

/// Whether `name` matches `pattern`, where `*` stands for any run of characters (none
/// too) and every other character for itself.
pub(crate) fn glob_matches(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    let (mut p, mut n) = (0, 0);
    // Where the last `*` was, and the name's position it matched up to.
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, n));
            p += 1;
        } else if p < pattern.len() && pattern[p] == name[n] {
            p += 1;
            n += 1;
        } else if let Some((star_p, star_n)) = star {
            p = star_p + 1;
            n = star_n + 1;
            star = Some((star_p, star_n + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_by_the_rule() {
        for (given, expected) in [
            ("get-weather", "get_weather"),
            ("searchRepositories", "search_repositories"),
            ("SearchRepositories", "search_repositories"),
            ("getHTTPStatus", "get_http_status"),
            ("read_file", "read_file"),
            ("a--b__c", "a_b_c"),
            ("__x__", "x"),
            ("tool\u{1b}[31m\n", "tool_31m"),
            ("météo", "m_t_o"),
            ("9lives", "tool_9lives"),
            ("", "tool"),
            ("!!!", "tool"),
            ("v2Api", "v2_api"),
        ] {
            assert_eq!(normalise(given), expected, "{given:?}");
        }
    }

    #[test]
    fn long_names_are_cut_with_a_hash() {
        let a = mounted_name("ns", &format!("{}a", "x".repeat(100))).unwrap();
        let b = mounted_name("ns", &format!("{}b", "x".repeat(100))).unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert!(check_tool_name(&a).is_ok());
        assert_eq!(
            a,
            mounted_name("ns", &format!("{}a", "x".repeat(100))).unwrap()
        );
    }

    #[test]
    fn namespaces() {
        assert!(check_namespace("github").is_ok());
        assert!(check_namespace("GitHub").is_err());
        assert!(check_namespace("").is_err());
        assert!(check_namespace("a_").is_err());
        assert!(check_namespace(&"a".repeat(33)).is_err());
    }

    #[test]
    fn globs_follow_the_normalised_names() {
        assert_eq!(normalise_glob("get-*"), "get_*");
        assert_eq!(normalise_glob("read_*"), "read_*");
        assert_eq!(normalise_glob("*File"), "*file");
        assert_eq!(normalise_glob("delete*"), "delete*");
        assert_eq!(normalise_glob("*"), "*");
        // A digit-led name gets `tool_` as `normalise` gives it, so the glob still matches.
        assert_eq!(normalise_glob("2fa*"), "tool_2fa*");
        assert!(glob_matches(
            &normalise_glob("2fa*"),
            &normalise("2faReset")
        ));
        assert!(glob_matches(
            &normalise_glob("Delete*"),
            &normalise("deleteFile")
        ));
    }

    #[test]
    fn globs() {
        assert!(glob_matches("*", "anything"));
        assert!(glob_matches("read_*", "read_file"));
        assert!(glob_matches("*_file", "read_file"));
        assert!(glob_matches("get*weather", "get-the-weather"));
        assert!(glob_matches("exact", "exact"));
        assert!(!glob_matches("exact", "exactly"));
        assert!(!glob_matches("read_*", "write_file"));
        assert!(glob_matches("a*b*c", "aXbYc"));
        assert!(!glob_matches("a*b*c", "aXbY"));
    }
}
