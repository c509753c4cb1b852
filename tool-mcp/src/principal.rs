//! Who made a request: a [`Principal`] (the subject and scopes of an access token) and the
//! scopes that set what it may do. The server's core reads it whether or not the HTTP
//! server authenticates (feature `auth`): a request without one (stdio, or HTTP without
//! authentication) comes from the local user, who may use every tool the executor allows.

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};
use toolwright_core::SafetyLevel;

/// The scope that lets a caller see and call safe tools.
///
/// ```
/// use toolwright_core::SafetyLevel;
/// let p = toolwright_mcp::Principal::new("me", ["tools:safe"]);
/// assert_eq!(p.max_safety(), Some(SafetyLevel::Safe));
/// ```
pub const SCOPE_SAFE: &str = "tools:safe";
/// The scope that lets a caller see and call safe and cautious tools.
///
/// ```
/// use toolwright_core::SafetyLevel;
/// let p = toolwright_mcp::Principal::new("me", ["tools:cautious"]);
/// assert_eq!(p.max_safety(), Some(SafetyLevel::Cautious));
/// ```
pub const SCOPE_CAUTIOUS: &str = "tools:cautious";
/// The scope that lets a caller see and call every tool (dangerous ones still need approval).
///
/// ```
/// use toolwright_core::SafetyLevel;
/// let p = toolwright_mcp::Principal::new("me", ["tools:dangerous"]);
/// assert_eq!(p.max_safety(), Some(SafetyLevel::Dangerous));
/// ```
pub const SCOPE_DANGEROUS: &str = "tools:dangerous";
/// The scope that lets a caller approve its own dangerous calls through MCP elicitation.
///
/// ```
/// let p = toolwright_mcp::Principal::new("me", ["tools:dangerous", "tools:approve"]);
/// assert!(p.can_approve());
/// ```
pub const SCOPE_APPROVE: &str = "tools:approve";

/// Who made a request, as its access token says: a subject and the scopes it was granted.
///
/// The HTTP server's authentication (feature `auth`) puts it in the request's extensions;
/// [`McpServer`](crate::McpServer) reads it for each `tools/list` and `tools/call`. A request
/// without one (stdio, or HTTP without authentication) is the local user's, who may use
/// every tool the executor allows.
///
/// ```
/// use toolwright_mcp::Principal;
/// use toolwright_core::SafetyLevel;
///
/// let bot = Principal::new("ci-bot", ["tools:safe", "tools:cautious"]);
/// assert_eq!(bot.subject(), "ci-bot");
/// assert_eq!(bot.max_safety(), Some(SafetyLevel::Cautious));
/// assert!(!bot.can_approve());
/// assert_eq!(Principal::new("nobody", ["openid"]).max_safety(), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    subject: String,
    scopes: BTreeSet<String>,
    /// Who owns the sessions this principal opens: see [`owner`](Self::owner).
    owner: String,
}

/// A SHA-256 hex digest of `parts`, each length-prefixed (so no two lists of parts collide).
fn owner_digest(namespace: &str, parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(namespace.as_bytes());
    for part in parts {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part);
    }
    format!(
        "{namespace}:{}",
        toolwright_core::encoding::hex(&hasher.finalize())
    )
}

impl Principal {
    /// A principal with a subject and scopes.
    ///
    /// ```
    /// let p = toolwright_mcp::Principal::new("alice", ["tools:safe"]);
    /// assert!(p.has_scope("tools:safe"));
    /// ```
    pub fn new(
        subject: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        let subject = subject.into();
        Principal {
            owner: owner_digest("principal", &[subject.as_bytes()]),
            subject,
            scopes: scopes.into_iter().map(Into::into).collect(),
        }
    }

    #[cfg(feature = "auth")]
    /// The principal of a static token: its owner is a hash of the token's own digest, so
    /// renumbering a token file does not change who owns a session.
    pub(crate) fn for_static_token(
        subject: String,
        scopes: Vec<String>,
        digest: &[u8; 32],
    ) -> Self {
        let mut principal = Principal::new(subject, scopes);
        principal.owner = owner_digest("static", &[digest]);
        principal
    }

    #[cfg(feature = "auth")]
    /// The principal of a JWT: its owner is a hash of the issuer and the subject, in a
    /// namespace of its own (a JWT whose `sub` is `tokens:2` does not own static token 2's
    /// sessions).
    pub(crate) fn for_jwt(issuer: &str, subject: String, scopes: Vec<String>) -> Self {
        let owner = owner_digest("jwt", &[issuer.as_bytes(), subject.as_bytes()]);
        let mut principal = Principal::new(subject, scopes);
        principal.owner = owner;
        principal
    }

    /// Who owns the MCP sessions this principal opens, and whose share of the per-caller
    /// limits it uses: an opaque key, `jwt:` and a hash of the issuer and subject for a JWT,
    /// `static:` and a hash of the token for a static token, `principal:` and a hash of the
    /// subject for one made with [`Principal::new`]. The namespaces keep a JWT from claiming
    /// a static token's sessions. The key is stored with each session in a shared session
    /// store, so every replica checks it.
    ///
    /// ```
    /// let a = toolwright_mcp::Principal::new("alice", ["tools:safe"]);
    /// let b = toolwright_mcp::Principal::new("alice", ["tools:dangerous"]);
    /// assert_eq!(a.owner(), b.owner());
    /// assert!(a.owner().starts_with("principal:"));
    /// assert_ne!(a.owner(), toolwright_mcp::Principal::new("bob", ["tools:safe"]).owner());
    /// ```
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// Who the token was issued to (a JWT's `sub`, or the static token's place in its source).
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::Principal::new("tokens:3", ["tools:safe"]).subject(), "tokens:3");
    /// ```
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The scopes the token grants, sorted.
    ///
    /// ```
    /// let p = toolwright_mcp::Principal::new("me", ["tools:safe", "openid"]);
    /// assert_eq!(p.scopes().collect::<Vec<_>>(), ["openid", "tools:safe"]);
    /// ```
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes.iter().map(String::as_str)
    }

    /// Whether the token grants `scope`.
    ///
    /// ```
    /// assert!(toolwright_mcp::Principal::new("me", ["tools:approve"]).has_scope("tools:approve"));
    /// ```
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.contains(scope)
    }

    /// The highest safety level the caller may use: from `tools:safe`, `tools:cautious` or
    /// `tools:dangerous`, the highest one present; `None` without any of them.
    ///
    /// ```
    /// use toolwright_core::SafetyLevel;
    /// let p = toolwright_mcp::Principal::new("me", ["tools:dangerous", "tools:safe"]);
    /// assert_eq!(p.max_safety(), Some(SafetyLevel::Dangerous));
    /// ```
    pub fn max_safety(&self) -> Option<SafetyLevel> {
        [
            (SCOPE_DANGEROUS, SafetyLevel::Dangerous),
            (SCOPE_CAUTIOUS, SafetyLevel::Cautious),
            (SCOPE_SAFE, SafetyLevel::Safe),
        ]
        .into_iter()
        .find(|(scope, _)| self.has_scope(scope))
        .map(|(_, level)| level)
    }

    /// Whether the caller's own approval of a dangerous call (through MCP elicitation) is
    /// honoured: the token has `tools:approve`.
    ///
    /// ```
    /// assert!(!toolwright_mcp::Principal::new("me", ["tools:dangerous"]).can_approve());
    /// ```
    pub fn can_approve(&self) -> bool {
        self.has_scope(SCOPE_APPROVE)
    }
}
