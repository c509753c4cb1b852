//! How text a model or a file wrote is shown on the terminal (prompts, hunks, results):
//! the characters `toolwright_names::escape` flags, written so they cannot drive the terminal.
//! One module that `call` and `prompt` both use, so neither imports the other.

use std::borrow::Cow;

/// Text of several lines for the terminal: each line as [`visible`] shows it.
pub(crate) fn visible_lines(text: &str) -> String {
    text.split('\n').map(visible).collect::<Vec<_>>().join("\n")
}

/// `text` for the terminal: the characters [`toolwright_names::escape::escape_class`] flags
/// (controls, bidirectional controls, invisible and tag characters, variation selectors, line
/// separators) but tabs, written so they cannot move the cursor, recolour, reorder or hide
/// what the person reads. C0 controls and DEL in caret notation (`^[`, `^M`, `^?`), the rest
/// as escapes (`\u{202e}`): which characters is decided in `toolwright_names`, how they look here.
pub(crate) fn visible(text: &str) -> Cow<'_, str> {
    toolwright_names::escape::escape_with(text, |c, _, shown| match c {
        '\t' => shown.push(c),
        // C0 controls and DEL: ^@ .. ^_, ^?
        c if (c as u32) < 0x20 => {
            shown.push('^');
            shown.push(char::from(b'@' + c as u8));
        }
        '\u{7f}' => shown.push_str("^?"),
        // C1 controls (which some terminals obey too) and the rest.
        c => shown.push_str(&format!("\\u{{{:x}}}", c as u32)),
    })
}
