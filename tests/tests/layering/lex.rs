//! The code of a source file without what is not code: comments, string and character
//! literals become spaces (newlines stay, so line numbers hold), and `#[cfg(test)]` items go.

/// `text` with comments, string literals and character literals blanked out.
pub fn code_of(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let prev_ident = i > 0 && is_ident(chars[i - 1]);
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if !prev_ident && let Some(hashes) = raw_string_start(&chars[i..]) {
            // r"..", r#".."#, br"..", cr"..": no escapes; ends at `"` and as many `#`.
            let open = chars[i..].iter().position(|&c| c == '"').unwrap_or(0) + 1;
            for _ in 0..open {
                out.push(' ');
            }
            i += open;
            while i < chars.len() {
                if chars[i] == '"' && chars[i + 1..].iter().take(hashes).all(|&c| c == '#') {
                    for _ in 0..=hashes {
                        out.push(' ');
                    }
                    i += 1 + hashes;
                    break;
                }
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                if i < chars.len() {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && next == Some('\\') {
            // An escaped character literal: up to the closing quote.
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                blank(&mut out, chars[i]);
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            out.push_str("   ");
            i += 3;
        } else {
            // A lifetime's quote, or code.
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The number of `#` of a raw string literal starting at `chars[0]` (`r`, `br` or `cr`).
fn raw_string_start(chars: &[char]) -> Option<usize> {
    let rest = match chars {
        ['r', rest @ ..] => rest,
        ['b' | 'c', 'r', rest @ ..] => rest,
        _ => return None,
    };
    let hashes = rest.iter().take_while(|&&c| c == '#').count();
    (rest.get(hashes) == Some(&'"')).then_some(hashes)
}

/// A character of an identifier.
pub fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `code` (already without comments and literals) with every item under `#[cfg(test)]`
/// blanked out: unit tests may use anything; they are not part of the layering.
pub fn without_test_items(code: &str) -> String {
    let mut chars: Vec<char> = code.chars().collect();
    let needle: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + needle.len() <= chars.len() {
        if chars[i..i + needle.len()] != needle[..] {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + needle.len();
        // Further attributes of the same item.
        loop {
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            if chars.get(j) == Some(&'#') && chars.get(j + 1) == Some(&'[') {
                j = matching(&chars, j + 1, '[', ']');
            } else {
                break;
            }
        }
        // The item: up to its `;`, or through its braces.
        while j < chars.len() && chars[j] != ';' && chars[j] != '{' {
            j += 1;
        }
        let end = if chars.get(j) == Some(&'{') {
            matching(&chars, j, '{', '}')
        } else {
            j + 1
        };
        let end = end.min(chars.len());
        for c in &mut chars[start..end] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        i = end;
    }
    chars.into_iter().collect()
}

/// The index just past the bracket that closes the one at `open`.
pub fn matching(chars: &[char], open: usize, left: char, right: char) -> usize {
    let mut depth = 0usize;
    for (at, &c) in chars.iter().enumerate().skip(open) {
        if c == left {
            depth += 1;
        } else if c == right {
            depth -= 1;
            if depth == 0 {
                return at + 1;
            }
        }
    }
    chars.len()
}

/// The `// The layers, lowest first` comment blocks of `text`: each block's first line
/// (1-based) and the module names it lists, lowest first.
pub fn layer_comments(text: &str) -> Vec<(usize, Vec<String>)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        let line = lines[at].trim_start();
        if !line.starts_with("// The layers, lowest first") {
            at += 1;
            continue;
        }
        let first = at + 1;
        let mut block = String::new();
        while at < lines.len() {
            let Some(comment) = lines[at].trim_start().strip_prefix("//") else {
                break;
            };
            if comment.starts_with('/') || comment.starts_with('!') {
                break;
            }
            block.push_str(comment);
            block.push(' ');
            at += 1;
        }
        found.push((first, listed(&block)));
    }
    found
}

/// The names a layer comment lists: after the first `:` outside parentheses, separated by
/// commas, up to the first `.` that ends the list.
fn listed(block: &str) -> Vec<String> {
    let mut depth = 0i32;
    let mut start = None;
    for (at, c) in block.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ':' if depth == 0 => {
                start = Some(at + 1);
                break;
            }
            _ => {}
        }
    }
    let Some(start) = start else {
        return Vec::new();
    };
    let list = &block[start..];
    let list = list.split(". ").next().unwrap_or(list);
    list.split(',')
        .map(|item| {
            item.trim_start_matches(|c: char| !is_ident(c))
                .chars()
                .take_while(|&c| is_ident(c))
                .collect::<String>()
        })
        .filter(|name| !name.is_empty())
        .collect()
}
