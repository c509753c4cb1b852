//! What a multi round-trip request's `requestState` is sealed to (the associated data of
//! its seal): the method, what it is for (a tool, a prompt, a resource's URI), a digest of
//! its arguments, and the caller. A state opens only for the request it was issued for.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use toolwright_core::encoding::{canonical_json, hex};

/// What a call's `requestState` is bound to: the caller, the tool and its arguments.
#[derive(Clone)]
pub(crate) struct Binding {
    pub(crate) associated_data: String,
    /// The caller's owner (`""` for a caller that was not authenticated): whose claims the
    /// state's use counts in.
    pub(crate) owner: String,
}

impl Binding {
    /// `owner` is the authenticated caller's identity, or `None` for a caller that was not
    /// authenticated (stdio, HTTP without authentication).
    pub(crate) fn new(owner: Option<&str>, tool: &str, arguments: &Map<String, Value>) -> Self {
        let arguments = digest(&canonical_json(&Value::Object(arguments.clone())));
        // Lengths first, so no choice of names can make two bindings read the same.
        let owner = owner.unwrap_or("");
        Binding {
            associated_data: format!(
                "tool-mcp/rounds/v1 {}:{owner} {}:{tool} {arguments}",
                owner.len(),
                tool.len()
            ),
            owner: owner.to_owned(),
        }
    }

    /// The binding of a `prompts/get`: the caller, the prompt and its arguments. It never
    /// reads as a tool's (its text names the method where a tool's has a length), so a
    /// state issued for a tool call, a prompt or a resource read answers only that.
    pub(crate) fn for_prompt(
        owner: Option<&str>,
        prompt: &str,
        arguments: &Map<String, Value>,
    ) -> Self {
        let arguments = digest(&canonical_json(&Value::Object(arguments.clone())));
        Self::for_method(owner, "prompts/get", prompt, &arguments)
    }

    /// The binding of a `resources/read`: the caller and the exact URI (a template's
    /// variables are in it).
    pub(crate) fn for_resource(owner: Option<&str>, uri: &str) -> Self {
        Self::for_method(owner, "resources/read", uri, &digest(uri))
    }

    fn for_method(owner: Option<&str>, method: &str, target: &str, arguments: &str) -> Self {
        let owner = owner.unwrap_or("");
        Binding {
            associated_data: format!(
                "tool-mcp/rounds/v1 {method} {}:{owner} {}:{target} {arguments}",
                owner.len(),
                target.len()
            ),
            owner: owner.to_owned(),
        }
    }
}

/// SHA-256 of `text`, hex.
fn digest(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes()))
}
