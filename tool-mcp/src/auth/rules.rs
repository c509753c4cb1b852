//! What tokens must be: the scopes this server knows, the shortest static token, and text
//! safe to quote in a header.

use crate::principal::{SCOPE_APPROVE, SCOPE_CAUTIOUS, SCOPE_DANGEROUS, SCOPE_SAFE};

/// Every scope this server knows, from the lowest ceiling up, then approval (what a static
/// token listed without scopes gets, and the metadata's `scopes_supported`).
///
/// ```
/// assert_eq!(
///     toolwright_mcp::auth::ALL_SCOPES,
///     ["tools:safe", "tools:cautious", "tools:dangerous", "tools:approve"]
/// );
/// ```
pub const ALL_SCOPES: [&str; 4] = [SCOPE_SAFE, SCOPE_CAUTIOUS, SCOPE_DANGEROUS, SCOPE_APPROVE];

/// Static tokens shorter than this are refused when loaded: they could be guessed.
///
/// ```
/// use toolwright_mcp::{AuthConfig, auth::MIN_STATIC_TOKEN_LEN};
/// assert!(AuthConfig::new().token("x".repeat(MIN_STATIC_TOKEN_LEN - 1), ["tools:safe"]).is_err());
/// assert!(AuthConfig::new().token("x".repeat(MIN_STATIC_TOKEN_LEN), ["tools:safe"]).is_ok());
/// ```
pub const MIN_STATIC_TOKEN_LEN: usize = 16;

/// Text safe inside a quoted-string of a header: visible ASCII and spaces only (what
/// `HeaderValue` takes), no quotes or backslashes. Characters
/// [`toolwright_names::escape::escape_class`] flags and every other character outside ASCII are
/// written `U+XXXX`, so a description cannot end the string, add a header line, or reorder or
/// hide what a client logs or shows.
pub(crate) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' | '\\' => {}
            ' '..='~' if !toolwright_names::escape::must_escape(c) => out.push(c),
            c => out.push_str(&format!("U+{:04X}", c as u32)),
        }
    }
    out
}
