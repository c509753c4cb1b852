//! The characters that must not reach a reader as they are, in one place.
//!
//! A file name, a line of a file or an argument a model wrote can hold characters that a
//! terminal obeys (an escape sequence, a carriage return), that reorder what the reader sees
//! (bidirectional controls: "Trojan Source", CVE-2021-42574), that show nothing at all
//! (zero-width characters, tag characters, variation selectors: text hidden from the person
//! but read by a model), or that break a line where the reader sees none (U+2028). Every
//! place that prints text a model or a file controls asks [`escape_class`] which characters
//! those are, and chooses only how it writes one: toolwright-std as a Rust escape (`\u{202e}`),
//! `toolwright` in caret notation for C0 controls (`^[`), `toolwright-mcp` in its own forms.
//!
//! ```
//! use toolwright_names::escape::{escape, escape_class, EscapeClass};
//!
//! assert_eq!(escape_class('\u{202e}'), Some(EscapeClass::Bidi));
//! assert_eq!(escape_class('a'), None);
//! assert_eq!(escape("invoice\u{202e}fdp.exe"), "invoice\\u{202e}fdp.exe");
//! assert_eq!(escape("plain é"), "plain é");
//! ```

use std::borrow::Cow;
use std::fmt::Write;

/// Why a character must not reach a reader as it is: what it would do unescaped.
///
/// ```
/// use toolwright_names::escape::{escape_class, EscapeClass};
///
/// assert_eq!(escape_class('\n'), Some(EscapeClass::Control));
/// assert_eq!(escape_class('\u{200b}'), Some(EscapeClass::Invisible));
/// assert_eq!(escape_class('\u{e0041}'), Some(EscapeClass::Tag));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EscapeClass {
    /// A control character (Unicode's `Cc`): C0 (U+0000–U+001F, newline and tab among them),
    /// DEL (U+007F) and C1 (U+0080–U+009F). A terminal obeys them: escape sequences move the
    /// cursor, recolour, set the clipboard; a newline starts a line the reader takes for
    /// another.
    Control,
    /// A bidirectional control (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069): it
    /// reorders what follows, so text reads differently from what it is.
    Bidi,
    /// The line and paragraph separators U+2028 and U+2029: a line break where the reader
    /// (or a program splitting on `\n`) sees none.
    LineSeparator,
    /// A character that shows nothing: zero-width spaces and joiners (U+200B–U+200D), word
    /// joiner and invisible operators (U+2060–U+2064), the byte order mark (U+FEFF), the soft
    /// hyphen (U+00AD), the Mongolian vowel separator (U+180E), the combining grapheme joiner,
    /// Hangul fillers, and every other format character (Unicode's `Cf`) or default-ignorable
    /// code point not in another class.
    Invisible,
    /// A variation selector (U+FE00–U+FE0F, U+E0100–U+E01EF, the Mongolian free variation
    /// selectors U+180B–U+180D, U+180F). It changes a glyph at most, shows nothing itself, and
    /// a run of them can carry hidden bytes after any character. Escaped too, at the cost of
    /// an emoji's presentation selector (`❤\u{fe0f}`).
    VariationSelector,
    /// A tag character (U+E0000–U+E007F): an invisible copy of ASCII, the classic way to
    /// hide an instruction to a model in text a person approves.
    Tag,
}

impl EscapeClass {
    /// Every class, for tests and documentation.
    ///
    /// ```
    /// assert_eq!(toolwright_names::escape::EscapeClass::ALL.len(), 6);
    /// ```
    pub const ALL: [EscapeClass; 6] = [
        EscapeClass::Control,
        EscapeClass::Bidi,
        EscapeClass::LineSeparator,
        EscapeClass::Invisible,
        EscapeClass::VariationSelector,
        EscapeClass::Tag,
    ];
}

/// The class of `c` when it must not reach a reader as it is, `None` for a character that
/// may be printed as is (letters, digits, punctuation, spaces, emoji, every visible script).
///
/// Covers Unicode's control (`Cc`) and format (`Cf`) characters, the line and paragraph
/// separators (`Zl`, `Zp`) and the default-ignorable code points (which render as nothing),
/// as of Unicode 16; a character assigned later falls under `Invisible` when it lands in a
/// range reserved for default-ignorables (U+2065, U+FFF0–U+FFF8, U+E0080–U+E0FFF).
///
/// ```
/// use toolwright_names::escape::{escape_class, EscapeClass};
///
/// assert_eq!(escape_class('\u{1b}'), Some(EscapeClass::Control));
/// assert_eq!(escape_class('\u{2066}'), Some(EscapeClass::Bidi));
/// assert_eq!(escape_class('\u{2028}'), Some(EscapeClass::LineSeparator));
/// assert_eq!(escape_class('\u{ad}'), Some(EscapeClass::Invisible));
/// assert_eq!(escape_class('\u{fe0f}'), Some(EscapeClass::VariationSelector));
/// assert_eq!(escape_class('\u{e007f}'), Some(EscapeClass::Tag));
/// assert_eq!(escape_class('é'), None);
/// assert_eq!(escape_class(' '), None);
/// ```
pub const fn escape_class(c: char) -> Option<EscapeClass> {
    // The common case first: printable ASCII.
    if matches!(c, ' '..='~') {
        return None;
    }
    Some(match c {
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => EscapeClass::Control,
        '\u{061c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => EscapeClass::Bidi,
        '\u{2028}' | '\u{2029}' => EscapeClass::LineSeparator,
        '\u{fe00}'..='\u{fe0f}'
        | '\u{e0100}'..='\u{e01ef}'
        | '\u{180b}'..='\u{180d}'
        | '\u{180f}' => EscapeClass::VariationSelector,
        '\u{e0000}'..='\u{e007f}' => EscapeClass::Tag,
        // Default-ignorable code points and format characters (Cf) not named above.
        '\u{ad}'
        | '\u{034f}'
        | '\u{0600}'..='\u{0605}'
        | '\u{06dd}'
        | '\u{070f}'
        | '\u{0890}'..='\u{0891}'
        | '\u{08e2}'
        | '\u{115f}'..='\u{1160}'
        | '\u{17b4}'..='\u{17b5}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200d}'
        | '\u{2060}'..='\u{2065}'
        | '\u{206a}'..='\u{206f}'
        | '\u{3164}'
        | '\u{feff}'
        | '\u{ffa0}'
        | '\u{fff0}'..='\u{fffb}'
        | '\u{110bd}'
        | '\u{110cd}'
        | '\u{13430}'..='\u{1343f}'
        | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0080}'..='\u{e00ff}'
        | '\u{e01f0}'..='\u{e0fff}' => EscapeClass::Invisible,
        _ => return None,
    })
}

/// Whether `c` must not reach a reader as it is: [`escape_class`] is `Some`.
///
/// ```
/// assert!(toolwright_names::escape::must_escape('\u{202e}'));
/// assert!(!toolwright_names::escape::must_escape('x'));
/// ```
pub const fn must_escape(c: char) -> bool {
    escape_class(c).is_some()
}

/// `text` with every character [`escape_class`] flags handed to `write` (which appends how
/// the front end shows it to the string it is given; it may also append the character
/// itself, as a front end that keeps tabs does); the rest as it is. Borrowed when nothing
/// was flagged.
///
/// ```
/// use toolwright_names::escape::{escape_with, EscapeClass};
///
/// // Tabs kept, other characters as `<U+XXXX>`.
/// let shown = escape_with("a\tb\u{200b}c", |c, class, out| {
///     if c == '\t' {
///         out.push(c);
///     } else {
///         out.push_str(&format!("<U+{:04X}>", c as u32));
///     }
///     assert!(class == EscapeClass::Control || class == EscapeClass::Invisible);
/// });
/// assert_eq!(shown, "a\tb<U+200B>c");
/// ```
pub fn escape_with(
    text: &str,
    mut write: impl FnMut(char, EscapeClass, &mut String),
) -> Cow<'_, str> {
    let Some(first) = text.find(must_escape) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        match escape_class(c) {
            Some(class) => write(c, class, &mut out),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Appends `c` as a Rust escape: `\n`, `\r`, `\t`, `\0` for those, `\u{..}` (lowercase hex)
/// for every other character. What [`escape`] writes.
///
/// ```
/// let mut out = String::new();
/// toolwright_names::escape::write_rust_escape('\u{202e}', &mut out);
/// toolwright_names::escape::write_rust_escape('\n', &mut out);
/// assert_eq!(out, "\\u{202e}\\n");
/// ```
pub fn write_rust_escape(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\0' => out.push_str("\\0"),
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` with every character [`escape_class`] flags written as a Rust escape
/// ([`write_rust_escape`]: `\n`, `\u{202e}`), the rest as it is. Backslashes are left alone,
/// so ordinary text prints unchanged; only text with flagged characters prints differently
/// from what it is.
///
/// ```
/// assert_eq!(toolwright_names::escape::escape("a\nb\u{1b}[31m"), "a\\nb\\u{1b}[31m");
/// assert_eq!(toolwright_names::escape::escape("back\\slash"), "back\\slash");
/// ```
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_with(text, |c, _, out| write_rust_escape(c, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every class with characters from each of its ranges (both ends), and characters next
    /// to them that stay as they are.
    #[test]
    fn every_class_is_classified() {
        use EscapeClass::*;
        let table: &[(EscapeClass, &[char])] = &[
            (
                Control,
                &[
                    '\0', '\t', '\n', '\r', '\u{1b}', '\u{1f}', '\u{7f}', '\u{80}', '\u{85}',
                    '\u{9b}', '\u{9f}',
                ],
            ),
            (
                Bidi,
                &[
                    '\u{61c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}',
                    '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
                ],
            ),
            (LineSeparator, &['\u{2028}', '\u{2029}']),
            (
                Invisible,
                &[
                    '\u{ad}',
                    '\u{34f}',
                    '\u{600}',
                    '\u{605}',
                    '\u{6dd}',
                    '\u{70f}',
                    '\u{890}',
                    '\u{8e2}',
                    '\u{115f}',
                    '\u{1160}',
                    '\u{17b4}',
                    '\u{180e}',
                    '\u{200b}',
                    '\u{200c}',
                    '\u{200d}',
                    '\u{2060}',
                    '\u{2061}',
                    '\u{2064}',
                    '\u{2065}',
                    '\u{206a}',
                    '\u{206f}',
                    '\u{3164}',
                    '\u{feff}',
                    '\u{ffa0}',
                    '\u{fff0}',
                    '\u{fff9}',
                    '\u{fffb}',
                    '\u{110bd}',
                    '\u{110cd}',
                    '\u{13430}',
                    '\u{1343f}',
                    '\u{1bca0}',
                    '\u{1bca3}',
                    '\u{1d173}',
                    '\u{1d17a}',
                    '\u{e0080}',
                    '\u{e00ff}',
                    '\u{e01f0}',
                    '\u{e0fff}',
                ],
            ),
            (
                VariationSelector,
                &[
                    '\u{180b}',
                    '\u{180d}',
                    '\u{180f}',
                    '\u{fe00}',
                    '\u{fe0e}',
                    '\u{fe0f}',
                    '\u{e0100}',
                    '\u{e01ef}',
                ],
            ),
            (
                Tag,
                &[
                    '\u{e0000}',
                    '\u{e0001}',
                    '\u{e0020}',
                    '\u{e0041}',
                    '\u{e007f}',
                ],
            ),
        ];
        for class in EscapeClass::ALL {
            assert!(table.iter().any(|(c, _)| *c == class), "{class:?} untested");
        }
        for (class, chars) in table {
            for &c in *chars {
                assert_eq!(escape_class(c), Some(*class), "U+{:04X}", c as u32);
                let shown = escape(&format!("a{c}b")).into_owned();
                assert!(
                    !shown.contains(c),
                    "U+{:04X} printed raw: {shown:?}",
                    c as u32
                );
                assert!(
                    shown.starts_with("a\\") && shown.ends_with('b'),
                    "{shown:?}"
                );
            }
        }
        // Neighbours and ordinary text: printed as they are.
        for c in [
            ' ',
            '~',
            'a',
            '\\',
            '\u{a0}',
            '\u{a1}',
            '\u{ac}',
            '\u{ae}',
            'é',
            '\u{2010}',
            '\u{2027}',
            '\u{202f}',
            '\u{205f}',
            '\u{2070}',
            '\u{3000}',
            '\u{fdff}',
            '\u{fe10}',
            '\u{fefe}',
            '\u{fffd}',
            '\u{1f600}',
            '\u{2764}',
            '中',
            'ש',
            '\u{e1000}',
            '\u{f0000}',
        ] {
            assert_eq!(escape_class(c), None, "U+{:04X}", c as u32);
            assert_eq!(escape(&c.to_string()), c.to_string());
        }
    }

    #[test]
    fn escapes_are_rust_escapes_and_borrowed_when_nothing_is_flagged() {
        assert!(matches!(escape("plain.txt"), Cow::Borrowed("plain.txt")));
        assert_eq!(
            escape("evil\nname.txt\r\t\0\u{1b}[2K\u{202e}\u{e0041}"),
            "evil\\nname.txt\\r\\t\\0\\u{1b}[2K\\u{202e}\\u{e0041}"
        );
    }
}
