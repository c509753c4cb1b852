//! File names as the tools print them: whatever bytes a name holds, the output cannot be
//! forged. A name with a newline cannot start a fake line of `search_files` output, and a
//! terminal escape cannot reach the person reading it.

use std::ffi::OsStr;
use std::fmt::Write;

/// `name` for output: UTF-8 as is, except that control characters are written as Rust
/// escapes (`\n`, `\t`, `\u{1b}`) and bytes that are not UTF-8 as `\xNN`. Backslashes and
/// colons are left alone, so ordinary names (even `back\slash.txt` or `a:b`) print as they
/// are and can be given back to a tool; only names with control characters or invalid UTF-8
/// print differently from what they are.
pub(crate) fn escape(name: &OsStr) -> String {
    let bytes = name.as_encoded_bytes();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() {
                out.extend(c.escape_debug());
            } else {
                out.push(c);
            }
        }
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out
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
        }
    }
}
