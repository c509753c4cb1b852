#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The layers, lowest first (no module imports one listed after it): escape, uri_template.
pub mod escape;
pub mod uri_template;

/// The longest tool name model APIs accept (OpenAI and Anthropic: 64 characters).
pub const MAX_NAME_LEN: usize = 64;

/// The rule a name must follow, in words, for error messages.
///
/// ```
/// assert!(toolwright_names::NAME_RULE.contains("lowercase"));
/// ```
pub const NAME_RULE: &str =
    "it must start with a lowercase letter and contain only lowercase letters, digits and `_`";

/// Why a name is not a valid tool name.
///
/// ```
/// use toolwright_names::{check_tool_name, NameError};
///
/// assert_eq!(check_tool_name(""), Err(NameError::Empty));
/// let long = "a".repeat(65);
/// assert_eq!(check_tool_name(&long), Err(NameError::TooLong { len: 65 }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameError {
    /// The name is empty.
    Empty,
    /// The name is not `^[a-z][a-z0-9_]*$`; `suggestion` is its snake_case form when that
    /// form is a valid name.
    NotSnakeCase {
        /// The name in snake_case, when it is a valid name.
        suggestion: Option<String>,
    },
    /// The name is longer than [`MAX_NAME_LEN`] characters.
    TooLong {
        /// The name's length in bytes (all of them ASCII).
        len: usize,
    },
}

/// Checks a tool name: `^[a-z][a-z0-9_]*$`, at most [`MAX_NAME_LEN`] characters.
///
/// ```
/// assert!(toolwright_names::check_tool_name("get_weather_v2").is_ok());
/// assert!(toolwright_names::check_tool_name("2fast").is_err());
/// ```
pub fn check_tool_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if !is_snake_case(name) {
        let fixed = to_snake_case(name);
        let suggestion = (fixed != name && is_snake_case(&fixed) && fixed.len() <= MAX_NAME_LEN)
            .then_some(fixed);
        return Err(NameError::NotSnakeCase { suggestion });
    }
    if name.len() > MAX_NAME_LEN {
        return Err(NameError::TooLong { len: name.len() });
    }
    Ok(())
}

/// The longest prompt name (MCP's SEP-986 rule for names: 1 to 128 characters).
pub const MAX_PRIMITIVE_NAME_LEN: usize = 128;

/// Checks the name of a prompt (MCP's SEP-986 rule): 1 to [`MAX_PRIMITIVE_NAME_LEN`]
/// characters among `A-Z a-z 0-9 _ - .`. Looser than [`check_tool_name`], since prompts are
/// picked by people, not models, and upstream servers name them `simple-prompt`; returns what
/// is wrong, in words.
///
/// ```
/// assert!(toolwright_names::check_primitive_name("code-review.v2").is_ok());
/// assert!(toolwright_names::check_primitive_name("code review").is_err());
/// assert!(toolwright_names::check_primitive_name("").is_err());
/// ```
pub fn check_primitive_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("it is empty".to_owned());
    }
    if name.len() > MAX_PRIMITIVE_NAME_LEN {
        return Err(format!(
            "it is {} characters long, more than {MAX_PRIMITIVE_NAME_LEN}",
            name.len()
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(format!(
            "it contains {c:?}; use only letters, digits, `_`, `-` and `.`"
        ));
    }
    Ok(())
}

/// Whether `name` is `^[a-z][a-z0-9_]*$` (any length).
///
/// ```
/// assert!(toolwright_names::is_snake_case("read_file"));
/// assert!(!toolwright_names::is_snake_case("readFile"));
/// ```
pub fn is_snake_case(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// `readFile`, `ReadFile`, `read-file`, `read.file` -> `read_file`.
///
/// ```
/// assert_eq!(toolwright_names::to_snake_case("getHTTPStatus"), "get_httpstatus");
/// assert_eq!(toolwright_names::to_snake_case("read-file"), "read_file");
/// ```
pub fn to_snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if previous_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            previous_lower = false;
        } else if matches!(c, '-' | ' ' | '.') {
            out.push('_');
            previous_lower = false;
        } else {
            out.push(c);
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        }
    }
    out
}

/// The name a person or a model most likely meant: trimmed, lowercase, with `-`, `.` and
/// spaces as `_` (`Read-File` -> `read_file`).
///
/// ```
/// assert_eq!(toolwright_names::normalize(" Read-File "), "read_file");
/// ```
pub fn normalize(name: &str) -> String {
    name.trim().to_lowercase().replace(['-', ' ', '.'], "_")
}

/// The optimal string alignment distance between two strings, over characters:
/// insertions, deletions, substitutions and transpositions of two adjacent characters
/// (the most common typo) each cost one.
///
/// ```
/// use toolwright_names::edit_distance;
///
/// assert_eq!(edit_distance("kitten", "sitting"), 3);
/// assert_eq!(edit_distance("raed", "read"), 1);
/// ```
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows are enough: a transposition looks two rows back.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            current[j] = best;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// Whether `distance` edits between `given` and `candidate` still look like a typo: at
/// most a third of the longer name, at least one and at most three edits.
fn is_typo(given: &str, candidate: &str, distance: usize) -> bool {
    let longest = given.chars().count().max(candidate.chars().count());
    distance > 0 && distance <= (longest / 3).clamp(1, 3)
}

/// The candidate closest to `given` by [`edit_distance`], when it is close enough to be a
/// likely typo; ties go to the name that sorts first, so the answer does not depend on the
/// candidates' order.
///
/// ```
/// use toolwright_names::did_you_mean;
///
/// assert_eq!(did_you_mean("pth", ["path", "max_bytes"]), Some("path"));
/// assert_eq!(did_you_mean("zzz", ["path"]), None);
/// assert_eq!(did_you_mean("path", ["path"]), None);
/// ```
pub fn did_you_mean<'a>(
    given: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(given, candidate), candidate))
        .filter(|(distance, candidate)| is_typo(given, candidate, *distance))
        .min()
        .map(|(_, candidate)| candidate)
}

/// Up to `limit` candidates a person may have meant by `given`, best first: likely typos
/// by edit distance, then names that contain `given` (or that it contains) or share a word
/// of three letters or more with it. For command lines, which can show several.
///
/// ```
/// use toolwright_names::close_names;
///
/// let names = ["edit_file", "file_info", "read_file", "list_directory"];
/// assert_eq!(close_names("raed_file", names, 3), ["read_file", "edit_file", "file_info"]);
/// assert_eq!(close_names("directory", names, 3), ["list_directory"]);
/// assert!(close_names("weather", names, 3).is_empty());
/// ```
pub fn close_names<'a>(
    given: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    limit: usize,
) -> Vec<&'a str> {
    let given_words = words(given);
    let mut ranked: Vec<(usize, usize, &'a str)> = candidates
        .into_iter()
        .filter_map(|candidate| {
            if candidate == given {
                return None;
            }
            let distance = edit_distance(given, candidate);
            if is_typo(given, candidate, distance) {
                return Some((0, distance, candidate));
            }
            let related = candidate.contains(given)
                || given.contains(candidate)
                || words(candidate)
                    .iter()
                    .any(|word| given_words.contains(word));
            related.then_some((1, distance, candidate))
        })
        .collect();
    ranked.sort_unstable();
    ranked.dedup_by(|a, b| a.2 == b.2);
    ranked
        .into_iter()
        .take(limit)
        .map(|(_, _, name)| name)
        .collect()
}

fn words(name: &str) -> Vec<&str> {
    name.split(['_', '-', ' ', '.'])
        .filter(|word| word.len() > 2)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpositions_win() {
        assert_eq!(edit_distance("shuot", "shout"), 1);
        assert_eq!(did_you_mean("shuot", ["word", "shout"]), Some("shout"));
        assert_eq!(
            did_you_mean("raed_file", ["edit_file", "file_info", "read_file"]),
            Some("read_file")
        );
    }

    #[test]
    fn distance_is_symmetric_and_counts_characters() {
        for (a, b) in [
            ("", "abc"),
            ("abc", ""),
            ("ab", "ba"),
            ("héllo", "hello"),
            ("ca", "abc"),
        ] {
            assert_eq!(edit_distance(a, b), edit_distance(b, a), "{a} / {b}");
        }
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("héllo", "hello"), 1);
        // Optimal string alignment, not full Damerau: a substring is edited once.
        assert_eq!(edit_distance("ca", "abc"), 3);
    }

    #[test]
    fn names() {
        assert_eq!(check_tool_name("a"), Ok(()));
        assert_eq!(check_tool_name(&"a".repeat(64)), Ok(()));
        assert_eq!(
            check_tool_name("read-file"),
            Err(NameError::NotSnakeCase {
                suggestion: Some("read_file".into())
            })
        );
        assert_eq!(
            check_tool_name("_x"),
            Err(NameError::NotSnakeCase { suggestion: None })
        );
        assert_eq!(
            check_tool_name("héllo"),
            Err(NameError::NotSnakeCase { suggestion: None })
        );
    }
}
