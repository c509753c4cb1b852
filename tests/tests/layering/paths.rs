//! What a file's code names: its `crate::..`, `super::..` and `self::..` paths (groups
//! opened), and the modules it declares.

use super::lex::{is_ident, matching};

/// Where a path starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// `crate::`
    Crate,
    /// `super::` as many times as this.
    Super(usize),
    /// `self::`
    SelfModule,
}

/// One path as written, with a group opened into one path per member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// The 1-based line of its first word.
    pub line: usize,
    /// The byte offset of its first word (to find the inline module it stands in).
    pub offset: usize,
    pub start: Start,
    /// The segments after the start (`*` for a glob; `self` kept as written).
    pub segments: Vec<String>,
    /// Followed by `!`: a macro (`#[macro_export]` macros live at the crate root).
    pub macro_call: bool,
}

impl Named {
    /// The path as written, for messages.
    pub fn written(&self) -> String {
        let start = match self.start {
            Start::Crate => "crate".to_owned(),
            Start::Super(n) => vec!["super"; n].join("::"),
            Start::SelfModule => "self".to_owned(),
        };
        std::iter::once(start)
            .chain(self.segments.iter().cloned())
            .collect::<Vec<_>>()
            .join("::")
    }
}

/// Every path of `code` (without comments, literals and test items) that starts with
/// `crate::`, `super::` or `self::`.
pub fn named(code: &str) -> Vec<Named> {
    let chars: Vec<char> = code.chars().collect();
    let offsets: Vec<usize> = code.char_indices().map(|(at, _)| at).collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !is_ident(chars[i]) || (i > 0 && (is_ident(chars[i - 1]) || chars[i - 1] == '$')) {
            i += 1;
            continue;
        }
        let word = word_at(&chars, i);
        let after_word = i + word.chars().count();
        let start = match word.as_str() {
            "crate" => Start::Crate,
            "super" => Start::Super(1),
            "self" => Start::SelfModule,
            _ => {
                i = after_word;
                continue;
            }
        };
        if previous_word(&chars, i).as_deref() == Some("in") {
            // `pub(in crate::x)`: a visibility, not a use.
            i = after_word;
            continue;
        }
        let Some(mut j) = double_colon(&chars, after_word) else {
            i = after_word;
            continue;
        };
        let mut start = start;
        while let Start::Super(n) = start {
            if word_at(&chars, j) == "super" {
                let after = j + "super".len();
                let Some(next) = double_colon(&chars, after) else {
                    break;
                };
                start = Start::Super(n + 1);
                j = next;
            } else {
                break;
            }
        }
        let line = chars[..i].iter().filter(|&&c| c == '\n').count() + 1;
        let (trees, end) = tree(&chars, j);
        for (segments, macro_call) in trees {
            found.push(Named {
                line,
                offset: offsets[i],
                start: start.clone(),
                segments,
                macro_call,
            });
        }
        i = end.max(after_word);
    }
    found
}

/// The identifier starting at `at` (empty when none does).
fn word_at(chars: &[char], at: usize) -> String {
    chars[at.min(chars.len())..]
        .iter()
        .take_while(|&&c| is_ident(c))
        .collect()
}

/// The word before the one at `at`, skipping spaces and `(`.
fn previous_word(chars: &[char], at: usize) -> Option<String> {
    let mut end = at;
    while end > 0 && (chars[end - 1].is_whitespace() || chars[end - 1] == '(') {
        end -= 1;
    }
    let mut start = end;
    while start > 0 && is_ident(chars[start - 1]) {
        start -= 1;
    }
    (start < end).then(|| chars[start..end].iter().collect())
}

/// The index past `::` when it follows `at` (spaces allowed), else `None`.
fn double_colon(chars: &[char], at: usize) -> Option<usize> {
    let at = skip_space(chars, at);
    (chars.get(at) == Some(&':') && chars.get(at + 1) == Some(&':'))
        .then(|| skip_space(chars, at + 2))
}

fn skip_space(chars: &[char], mut at: usize) -> usize {
    while at < chars.len() && chars[at].is_whitespace() {
        at += 1;
    }
    at
}

/// The paths of a use tree starting at `at` (just after a `::`): each with whether it is a
/// macro call, and the index where the tree ends.
fn tree(chars: &[char], at: usize) -> (Vec<(Vec<String>, bool)>, usize) {
    let mut prefix = Vec::new();
    let mut at = skip_space(chars, at);
    loop {
        match chars.get(at) {
            Some('{') => {
                let close = matching(chars, at, '{', '}');
                let mut paths = Vec::new();
                let mut item = at + 1;
                while item < close - 1 {
                    let (inner, end) = tree(chars, item);
                    for (segments, macro_call) in inner {
                        let mut whole = prefix.clone();
                        whole.extend(segments);
                        paths.push((whole, macro_call));
                    }
                    // Past `as name` to the next member.
                    let mut next = end;
                    let mut depth = 0i32;
                    while next < close - 1 {
                        match chars[next] {
                            '{' => depth += 1,
                            '}' => depth -= 1,
                            ',' if depth == 0 => break,
                            _ => {}
                        }
                        next += 1;
                    }
                    item = next + 1;
                }
                return (paths, close);
            }
            Some('*') => {
                prefix.push("*".to_owned());
                return (vec![(prefix, false)], at + 1);
            }
            Some(&c) if is_ident(c) => {
                let word = word_at(chars, at);
                at += word.chars().count();
                prefix.push(word);
                match double_colon(chars, at) {
                    Some(next) if chars.get(next).is_some_and(|&c| c != '<') => at = next,
                    _ => {
                        let macro_call = chars.get(skip_space(chars, at)) == Some(&'!');
                        return (vec![(prefix, macro_call)], at);
                    }
                }
            }
            _ => {
                if prefix.is_empty() {
                    return (Vec::new(), at);
                }
                return (vec![(prefix, false)], at);
            }
        }
    }
}

/// A module `code` declares at its top level: its name, and for an inline one (`mod x { .. }`)
/// the byte range of its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    pub name: String,
    pub inline: Option<std::ops::Range<usize>>,
}

/// The modules `code` (without comments, literals and test items) declares outside any
/// braces: `mod x;` (a file) and `mod x { .. }` (inline).
pub fn declared(code: &str) -> Vec<Declared> {
    let chars: Vec<char> = code.chars().collect();
    let offsets: Vec<usize> = code
        .char_indices()
        .map(|(at, _)| at)
        .chain([code.len()])
        .collect();
    let mut found = Vec::new();
    let mut depth = 0i32;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '{' => depth += 1,
            '}' => depth -= 1,
            'm' if depth == 0
                && (i == 0 || !is_ident(chars[i - 1]))
                && word_at(&chars, i) == "mod" =>
            {
                let name_at = skip_space(&chars, i + 3);
                let name = word_at(&chars, name_at);
                let after = skip_space(&chars, name_at + name.chars().count());
                match chars.get(after) {
                    Some(';') if !name.is_empty() => found.push(Declared { name, inline: None }),
                    Some('{') if !name.is_empty() => {
                        let close = matching(&chars, after, '{', '}');
                        found.push(Declared {
                            name,
                            inline: Some(offsets[after]..offsets[close.min(chars.len())]),
                        });
                        i = close;
                        continue;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        i += 1;
    }
    found
}
