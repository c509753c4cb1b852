//! Words out of text: split, lowercased, stop words dropped, lightly stemmed; and character
//! trigrams for queries whose words match nothing (another language, a typo).

/// Words too common to say anything about a tool.
const STOP_WORDS: &[&str] = &[
    "about", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by",
    "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "here",
    "his", "how", "if", "in", "into", "is", "it", "its", "just", "me", "my", "of", "on", "or",
    "our", "please", "she", "should", "so", "some", "that", "the", "their", "them", "then",
    "there", "these", "they", "this", "those", "to", "us", "use", "was", "we", "were", "what",
    "when", "where", "which", "who", "will", "with", "would", "you", "your",
];

/// The pieces of one run of letters and digits: `getHTTPStatus2` is `get`, `http`, `status`,
/// `2` (a lowercase-to-uppercase step, the last capital of an acronym before a lowercase
/// letter, and a letter-digit step each start a piece).
fn pieces(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut starts = vec![0];
    for i in 1..chars.len() {
        let (prev, current) = (chars[i - 1].1, chars[i].1);
        let next = chars.get(i + 1).map(|(_, c)| *c);
        let step = (prev.is_lowercase() && current.is_uppercase())
            || (prev.is_uppercase()
                && current.is_uppercase()
                && next.is_some_and(char::is_lowercase))
            || (prev.is_ascii_digit() != current.is_ascii_digit());
        if step {
            starts.push(chars[i].0);
        }
    }
    starts.push(word.len());
    starts.windows(2).map(|w| &word[w[0]..w[1]]).collect()
}

/// Whether a lowercased piece is worth indexing: not a stop word, not a lone letter (the `t`
/// of "can't", the `s` of "user's") and not a bare number (a shard or version suffix, or
/// an amount in a question, says nothing about what a tool does). A lone character of a
/// script without letters-as-sounds (`天`) counts: it is a word there.
fn keep(piece: &str) -> bool {
    let mut chars = piece.chars();
    let single = chars.next().is_some() && chars.next().is_none();
    if single
        && piece
            .chars()
            .all(|c| c.is_ascii() || c.is_alphabetic() && !is_ideograph(c))
    {
        return false;
    }
    !piece.chars().all(|c| c.is_ascii_digit()) && !STOP_WORDS.contains(&piece)
}

/// CJK ideographs, kana and hangul: scripts where one character can be a word.
fn is_ideograph(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// Lowercase words of `text`: split on anything not alphanumeric (so `read_file` is `read`
/// and `file`), on camelCase and on letter-digit steps, without stop words, lone letters and
/// bare numbers, lightly stemmed so "files" finds "file". A word with mixed letters and
/// digits (`ec2`) is also kept whole.
pub(crate) fn tokenize(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        let parts = pieces(word);
        if parts.len() > 1 && word.chars().any(|c| c.is_ascii_digit()) {
            let whole = word.to_lowercase();
            if keep(&whole) {
                terms.push(stem(&whole));
            }
        }
        for part in parts {
            let part = part.to_lowercase();
            if keep(&part) {
                terms.push(stem(&part));
            }
        }
    }
    terms
}

/// The character trigrams of `term` with its ends marked (`^ab`, `abc`, `bc$`), so a
/// word in another language or misspelled still meets the words it shares most letters
/// with ("temperatura" and "temperature"). A term of one or two characters is its own
/// gram.
pub(crate) fn trigrams(term: &str, out: &mut Vec<String>) {
    let chars: Vec<char> = std::iter::once('^')
        .chain(term.chars())
        .chain(std::iter::once('$'))
        .collect();
    if chars.len() <= 4 {
        out.push(term.to_owned());
        return;
    }
    for window in chars.windows(3) {
        out.push(window.iter().collect());
    }
}

/// A light English stemmer (Porter's first step, with its `y` to `i`): plurals, `-ed` and
/// `-ing` come off, so "movies" and "movie", "servers" and "server", "replacing",
/// "replaced" and "replace" meet. Words of other scripts pass through unchanged.
pub(crate) fn stem(word: &str) -> String {
    if !word.is_ascii() || word.len() <= 3 {
        return word.to_owned();
    }
    let mut stem = plural(word).to_owned();
    for suffix in ["ing", "ed"] {
        // "speed" and "need" are words, not verbs in the past.
        if stem.ends_with("eed") {
            break;
        }
        if let Some(rest) = stem.strip_suffix(suffix)
            && rest.len() >= 3
            && has_vowel(rest)
        {
            stem = undouble(rest);
            break;
        }
    }
    if let Some(rest) = stem.strip_suffix('e')
        && rest.len() >= 3
    {
        stem.truncate(rest.len());
    }
    if let Some(rest) = stem.strip_suffix('y')
        && rest.len() >= 2
    {
        stem = format!("{rest}i");
    }
    stem
}

/// `-sses` -> `-ss`, `-ies` -> `-i`, `-s` off unless after `s`, `u` or `i` ("class",
/// "status", "analysis" stay).
fn plural(word: &str) -> &str {
    if let Some(rest) = word.strip_suffix("sses") {
        return &word[..rest.len() + 2];
    }
    if let Some(rest) = word.strip_suffix("ies")
        && rest.len() >= 2
    {
        return &word[..rest.len() + 1];
    }
    match word.strip_suffix('s') {
        Some(rest) if !rest.ends_with(['s', 'u', 'i']) && has_vowel(rest) => rest,
        _ => word,
    }
}

fn has_vowel(word: &str) -> bool {
    word.contains(['a', 'e', 'i', 'o', 'u', 'y'])
}

/// "runn" (of "running") -> "run"; "fill" and "buzz" keep their pair.
fn undouble(stem: &str) -> String {
    let bytes = stem.as_bytes();
    match bytes {
        [.., a, b]
            if a == b
                && !matches!(a, b'l' | b's' | b'z')
                && !has_vowel(&stem[stem.len() - 1..]) =>
        {
            stem[..stem.len() - 1].to_owned()
        }
        _ => stem.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizes_names_and_text() {
        assert_eq!(tokenize("read_file"), ["read", "fil"]);
        assert_eq!(
            tokenize("Reads the files in a directory"),
            ["read", "fil", "directori"]
        );
        assert_eq!(
            tokenize("searching queries, boxes"),
            ["search", "queri", "box"]
        );
    }

    #[test]
    fn splits_camel_case_dots_and_digits() {
        assert_eq!(tokenize("getMonarchOfYear"), ["get", "monarch", "year"]);
        assert_eq!(tokenize("getHTTPStatus"), ["get", "http", "status"]);
        assert_eq!(
            tokenize("Hotels_2.SearchHouse"),
            ["hotel", "search", "hous"]
        );
        assert_eq!(tokenize("ec2_list"), ["ec2", "ec", "list"]);
    }

    #[test]
    fn stray_fragments_are_not_words() {
        // The `t` of "can't", the `s` of "user's", an amount: none is a term.
        assert_eq!(
            tokenize("can't find the user's 100 files"),
            ["find", "user", "fil"]
        );
        // A lone ideograph is a word in its script.
        assert_eq!(tokenize("天 気"), ["天", "気"]);
    }

    #[test]
    fn trigrams_mark_the_ends() {
        let mut grams = Vec::new();
        trigrams("wetter", &mut grams);
        assert_eq!(grams, ["^we", "wet", "ett", "tte", "ter", "er$"]);
        grams.clear();
        trigrams("ab", &mut grams);
        assert_eq!(grams, ["ab"]);
    }

    #[test]
    fn stems_meet() {
        for (a, b) in [
            ("files", "file"),
            ("emails", "email"),
            ("sending", "send"),
            ("movies", "movie"),
            ("servers", "server"),
            ("queries", "query"),
            ("replacing", "replace"),
            ("replaced", "replaces"),
            ("running", "run"),
            ("boxes", "box"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} {b}");
        }
        for word in ["class", "status", "analysis", "bus"] {
            assert_eq!(stem(word), word.trim_end_matches('e'), "{word}");
        }
    }
}
