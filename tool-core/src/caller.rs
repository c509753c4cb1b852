//! Who made a call, as the front end that authenticated it says: a [`Caller`] (the subject
//! of its credentials) and, for the few tools that must act as the caller elsewhere, the
//! bearer token it presented ([`CallerToken`], never shown).
//!
//! A front end gives the caller with the call's options (toolwright-runtime's
//! `CallOptions::caller`); the executor puts the subject on every call's
//! [`ToolContext`](crate::ToolContext), and the token only on the calls of a tool built with
//! [`ToolBuilder::receives_caller_token`](crate::ToolBuilder::receives_caller_token) (the
//! gateway's tools mounted from an upstream that exchanges the caller's token): a tool that
//! did not ask never holds a token it could leak.

use std::sync::Arc;

/// The bearer token a caller presented, kept out of every log: its `Debug` prints
/// `[redacted]`, and it has no `Display`. Read it with [`expose`](Self::expose), only to
/// send it where it may go (an authorization server's token endpoint, for an exchange).
///
/// ```
/// use toolwright_core::CallerToken;
///
/// let token = CallerToken::new("eyJhbGciOi.secret.part");
/// assert_eq!(format!("{token:?}"), "[redacted]");
/// assert_eq!(token.expose(), "eyJhbGciOi.secret.part");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct CallerToken(Arc<str>);

impl CallerToken {
    /// The token `token` (as it came, without the `Bearer ` prefix).
    pub fn new(token: impl Into<Arc<str>>) -> Self {
        CallerToken(token.into())
    }

    /// The token itself: to be sent only where it was issued for or to an authorization
    /// server that exchanges it, never logged.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for CallerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Who made a call: the subject its credentials name (a token's `sub`, a static token's
/// name) and, where the front end has one, the bearer token it presented.
///
/// ```
/// use toolwright_core::{Caller, CallerToken};
///
/// let alice = Caller::new("alice").with_token(CallerToken::new("t0k3n"));
/// assert_eq!(alice.subject(), "alice");
/// assert_eq!(alice.token().map(CallerToken::expose), Some("t0k3n"));
/// assert!(!format!("{alice:?}").contains("t0k3n"));
/// assert!(alice.without_token().token().is_none());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    subject: Arc<str>,
    token: Option<CallerToken>,
}

impl Caller {
    /// The caller `subject`, without a token.
    pub fn new(subject: impl Into<Arc<str>>) -> Self {
        Caller {
            subject: subject.into(),
            token: None,
        }
    }

    /// The same caller, with the bearer token it presented.
    pub fn with_token(mut self, token: CallerToken) -> Self {
        self.token = Some(token);
        self
    }

    /// The same caller without its token (what a tool that did not ask for it sees).
    pub fn without_token(&self) -> Self {
        Caller {
            subject: self.subject.clone(),
            token: None,
        }
    }

    /// The subject its credentials name.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The bearer token it presented, if the front end had one and the tool asked for it.
    pub fn token(&self) -> Option<&CallerToken> {
        self.token.as_ref()
    }
}
