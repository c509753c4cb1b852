//! The URIs of mounted resources: an upstream's resource URI (or URI template) rewritten
//! into its mount's namespace, so that it cannot name one of ours or another upstream's,
//! and back.
//!
//! - `scheme:rest` becomes `{namespace}+scheme:rest`, the namespace with `-` for `_` (a URI
//!   scheme may not hold `_`; a namespace holds no `-`, so the mapping is one to one):
//!   `demo://resource/1` of `my_srv` is `my-srv+demo://resource/1`.
//! - `skill://path` (SEP-2640 skills, whose scheme clients look for) becomes
//!   `skill://{namespace}/path`, the skill's name (the last folder) kept.
//!
//! A URI without a scheme (or a template whose scheme is not literal) cannot be placed in a
//! namespace and is not mounted. Going back, a URI that is not in the namespace is none of
//! the upstream's: it is never sent upstream.

/// The scheme of skills (SEP-2640), kept when mounted.
const SKILL: &str = "skill";

/// The most bytes of an upstream URI (or template) mounted; a longer one is refused.
pub(crate) const MAX_URI_BYTES: usize = 2048;

/// The scheme of `uri`, when it starts with one (RFC 3986: a letter, then letters, digits,
/// `+`, `-`, `.`, then `:`).
fn scheme(uri: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = uri.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    let valid = first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then_some((scheme, rest))
}

/// Whether `segment` is `.` or `..`, its dots percent-encoded or not (RFC 3986 §6.2.2.2).
fn is_dot_segment(segment: &str) -> bool {
    let decoded = segment.to_ascii_lowercase().replace("%2e", ".");
    decoded == "." || decoded == ".."
}

/// The namespace as a URI scheme's prefix: `_` is not allowed in a scheme, `-` is.
fn scheme_prefix(namespace: &str) -> String {
    namespace.replace('_', "-")
}

/// The URI (or URI template) under which an upstream's resource `uri` is mounted in
/// `namespace`; `None` when it has no scheme to prefix, holds characters a URI may not
/// (controls, spaces), is a `skill://` path with a `.` or `..` segment, or is longer than
/// 2048 bytes.
///
/// ```
/// use toolwright_gateway::upstream::mounted_uri;
///
/// assert_eq!(mounted_uri("my_srv", "demo://resource/1").as_deref(), Some("my-srv+demo://resource/1"));
/// assert_eq!(mounted_uri("srv", "file:///etc/hosts").as_deref(), Some("srv+file:///etc/hosts"));
/// assert_eq!(mounted_uri("srv", "notes://{id}").as_deref(), Some("srv+notes://{id}"));
/// assert_eq!(mounted_uri("srv", "skill://pdf/SKILL.md").as_deref(), Some("skill://srv/pdf/SKILL.md"));
/// assert_eq!(mounted_uri("srv", "/no/scheme"), None);
/// ```
pub fn mounted_uri(namespace: &str, uri: &str) -> Option<String> {
    if uri.len() > MAX_URI_BYTES || uri.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return None;
    }
    let (scheme, rest) = scheme(uri)?;
    if scheme.eq_ignore_ascii_case(SKILL) {
        let path = rest.strip_prefix("//")?;
        // The namespace is only the first segment: a `.` or `..` segment (encoded or not)
        // would climb out of it once a client resolves the path (ours: `skill://lib/../x`).
        if path.split(['/', '?', '#']).any(is_dot_segment) {
            return None;
        }
        return Some(format!("{SKILL}://{namespace}/{path}"));
    }
    Some(format!("{}+{scheme}:{rest}", scheme_prefix(namespace)))
}

/// The upstream's own URI of `mounted`, when `mounted` is a URI of `namespace` (as
/// [`mounted_uri`] makes them); `None` for any other URI, which is never sent upstream.
pub(crate) fn upstream_uri(namespace: &str, mounted: &str) -> Option<String> {
    let (scheme, rest) = scheme(mounted)?;
    if scheme.eq_ignore_ascii_case(SKILL) {
        let path = rest.strip_prefix("//")?.strip_prefix(namespace)?;
        let path = path.strip_prefix('/')?;
        return Some(format!("{SKILL}://{path}"));
    }
    let (prefix, theirs) = scheme.split_once('+')?;
    if !prefix.eq_ignore_ascii_case(&scheme_prefix(namespace)) || theirs.is_empty() {
        return None;
    }
    Some(format!("{theirs}:{rest}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for (namespace, uri) in [
            ("ns", "demo://resource/static/1"),
            ("my_srv", "file:///a/b%2Fc"),
            ("ns", "skill://a/b/SKILL.md"),
            ("ns", "urn:isbn:0451450523"),
            ("ns", "other-ns+demo://x"),
            ("ns", "https://example.com/x?y=1#z"),
        ] {
            let mounted = mounted_uri(namespace, uri).unwrap();
            assert_eq!(
                upstream_uri(namespace, &mounted).as_deref(),
                Some(uri),
                "{mounted}"
            );
        }
    }

    #[test]
    fn another_namespace_or_ours_is_not_the_upstreams() {
        // Ours (the workspace's files, our skills) and another upstream's.
        for uri in [
            "file:///etc/passwd",
            "skill://pdf/SKILL.md",
            "other+demo://x",
            "skill://nsx/a/SKILL.md",
            "skill://ns",
            "nsx+demo://x",
            "ns+:x",
            "",
            "no scheme",
        ] {
            assert_eq!(upstream_uri("ns", uri), None, "{uri}");
        }
        // A namespace's schemes cannot be made by another namespace.
        let theirs = mounted_uri("a_b", "demo://x").unwrap();
        assert_eq!(upstream_uri("a", &theirs), None);
        let other = mounted_uri("a", "b+demo://x").unwrap();
        assert_eq!(upstream_uri("a_b", &other), None);
    }

    #[test]
    fn refuses_what_cannot_be_placed() {
        assert_eq!(mounted_uri("ns", "{+path}"), None);
        assert_eq!(mounted_uri("ns", "1abc://x"), None);
        assert_eq!(mounted_uri("ns", "demo://a b"), None);
        assert_eq!(mounted_uri("ns", "demo://a\nb"), None);
        assert_eq!(mounted_uri("ns", "skill:pdf"), None);
        assert_eq!(
            mounted_uri("ns", &format!("demo://{}", "x".repeat(3000))),
            None
        );
    }
}
