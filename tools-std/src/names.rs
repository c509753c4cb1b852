//! File names and lines as the tools print them: whatever bytes a name holds, the output
//! cannot be forged. A name with a newline cannot start a fake line of `search_files`
//! output, a terminal escape cannot reach the person reading it, and a bidirectional control
//! or an invisible character cannot make a name read as another. Which characters are
//! escaped is decided in one place, [`toolwright_names::escape`]; this module only writes them as
//! Rust escapes.

use std::ffi::OsStr;
use std::fmt::Write;

use toolwright_names::escape::{escape_class, write_rust_escape};

/// `name` for output: UTF-8 as is, except that the characters
/// [`toolwright_names::escape::escape_class`] flags (control, bidirectional, invisible, tag
/// characters, variation selectors, line separators) are written as Rust escapes (`\n`,
/// `\t`, `\u{1b}`, `\u{202e}`) and bytes that are not UTF-8 as `\xNN`. Backslashes and
/// colons are left alone, so ordinary names (even `back\slash.txt` or `a:b`) print as they
/// are and can be given back to a tool; only names with such characters or invalid UTF-8
/// print differently from what they are.
pub(crate) fn escape(name: &OsStr) -> String {
    let bytes = name.as_encoded_bytes();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&toolwright_names::escape::escape(chunk.valid()));
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out
}

/// The first `max` characters of a line of a file, with the characters
/// [`toolwright_names::escape::escape_class`] flags but tabs written as Rust escapes, and whether
/// it was cut.
pub(crate) fn escape_line(line: &str, max: usize) -> (String, bool) {
    let mut out = String::new();
    for (count, c) in line.chars().enumerate() {
        if count == max {
            return (out, true);
        }
        if c != '\t' && escape_class(c).is_some() {
            write_rust_escape(c, &mut out);
        } else {
            out.push(c);
        }
    }
    (out, false)
}

/// `n` and the word it counts, singular or plural: `1 byte`, `0 bytes`, `2 entries`.
pub(crate) fn count(n: impl TryInto<u64>, one: &str, many: &str) -> String {
    match n.try_into() {
        Ok(1) => format!("1 {one}"),
        Ok(n) => format!("{n} {many}"),
        Err(_) => format!("many {many}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_and_invalid_bytes_are_escaped() {
        assert_eq!(escape(OsStr::new("plain.txt")), "plain.txt");
        assert_eq!(escape(OsStr::new("back\\slash:colon")), "back\\slash:colon");
        assert_eq!(
            escape(OsStr::new("evil\nname.txt\nfake:1: SECRET")),
            "evil\\nname.txt\\nfake:1: SECRET"
        );
        assert_eq!(
            escape(OsStr::new("bell\u{7}\u{1b}[31m")),
            "bell\\u{7}\\u{1b}[31m"
        );
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            assert_eq!(escape(OsStr::from_bytes(b"bad\xffname")), "bad\\xffname");
            assert_eq!(
                escape(OsStr::from_bytes(b"\xff\xe2\x80\xaeok")),
                "\\xff\\u{202e}ok"
            );
        }
    }

    /// A name that would read as another (`invoice_txt.exe` shown as `invoice_exe.txt`), hide
    /// text, or break a line where none shows: escaped, as every class of
    /// `toolwright_names::escape` is.
    #[test]
    fn bidi_invisible_and_tag_characters_are_escaped() {
        let hostile = "invoice_\u{202e}txt.exe\u{200b}\u{2028}\u{e0041}\u{fe0f}\u{ad}\u{85}";
        let shown = escape(OsStr::new(hostile));
        assert_eq!(
            shown,
            "invoice_\\u{202e}txt.exe\\u{200b}\\u{2028}\\u{e0041}\\u{fe0f}\\u{ad}\\u{85}"
        );
        assert!(shown.chars().all(|c| escape_class(c).is_none()));
        let (line, cut) = escape_line("let a\t= 1; // \u{202e} } \u{2066}if admin\u{2069}", 100);
        assert!(!cut);
        assert_eq!(
            line,
            "let a\t= 1; // \\u{202e} } \\u{2066}if admin\\u{2069}"
        );
        assert_eq!(
            escape_line("ab\u{202e}cd", 3),
            ("ab\\u{202e}".to_owned(), true)
        );
    }
}
