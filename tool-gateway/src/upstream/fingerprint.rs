//! A fingerprint of what an upstream says a tool is: the SHA-256 of the canonical JSON of
//! its name, description, input and output schemas and annotations; of a prompt, resource
//! or skill, of its whole definition.

use std::fmt;
use std::str::FromStr;

use rmcp::model::Tool as McpTool;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The SHA-256 of an upstream tool's canonical JSON (`name`, `description`, `inputSchema`,
/// `outputSchema`, `annotations`; object keys sorted, no whitespace), written and read as
/// 64 lowercase hexadecimal digits. Pin one with
/// [`MountOptions::pin`](super::MountOptions::pin).
///
/// ```
/// use toolwright_gateway::upstream::Fingerprint;
///
/// let tool = rmcp::model::Tool::new("echo", "Echo.", serde_json::Map::new());
/// let fingerprint = Fingerprint::of(&tool);
/// assert_eq!(fingerprint.to_string().parse::<Fingerprint>().unwrap(), fingerprint);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint([u8; 32]);

impl Fingerprint {
    /// The fingerprint of `tool` as the upstream listed it.
    pub fn of(tool: &McpTool) -> Self {
        let mut document = serde_json::Map::new();
        document.insert("name".into(), Value::String(tool.name.to_string()));
        document.insert(
            "description".into(),
            tool.description
                .as_ref()
                .map_or(Value::Null, |d| Value::String(d.to_string())),
        );
        document.insert(
            "inputSchema".into(),
            Value::Object((*tool.input_schema).clone()),
        );
        document.insert(
            "outputSchema".into(),
            tool.output_schema
                .as_ref()
                .map_or(Value::Null, |s| Value::Object((**s).clone())),
        );
        document.insert(
            "annotations".into(),
            tool.annotations
                .as_ref()
                .and_then(|a| serde_json::to_value(a).ok())
                .unwrap_or(Value::Null),
        );
        let canonical = toolwright_core::encoding::canonical_json(&Value::Object(document));
        Fingerprint(Sha256::digest(canonical.as_bytes()).into())
    }

    /// The fingerprint of a prompt, resource, resource template or skill as the upstream
    /// listed it: the SHA-256 of the canonical JSON of its definition, without `_meta`
    /// (which an upstream may change on every listing), under `kind` (so a prompt and a
    /// resource with the same JSON differ).
    ///
    /// ```
    /// use toolwright_gateway::upstream::Fingerprint;
    ///
    /// let prompt = rmcp::model::Prompt::new("greet", Some("Greets."), None);
    /// let fingerprint = Fingerprint::of_definition("prompt", &prompt);
    /// assert_ne!(fingerprint, Fingerprint::of_definition("resource", &prompt));
    /// ```
    pub fn of_definition(kind: &str, definition: &impl serde::Serialize) -> Self {
        let mut value = serde_json::to_value(definition).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut value {
            map.remove("_meta");
        }
        let document = serde_json::json!({ "kind": kind, "definition": value });
        let canonical = toolwright_core::encoding::canonical_json(&document);
        Fingerprint(Sha256::digest(canonical.as_bytes()).into())
    }

    /// The 32 bytes of the digest.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&toolwright_core::encoding::hex(&self.0))
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

/// A string that is not a fingerprint (64 hexadecimal digits).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{given}` is not a tool fingerprint: expected 64 hexadecimal digits (a SHA-256)")]
pub struct FingerprintParseError {
    /// What was given (escaped, at most 80 characters).
    pub given: String,
}

impl FromStr for Fingerprint {
    type Err = FingerprintParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let refuse = || FingerprintParseError {
            given: toolwright_names::escape::escape(&text.chars().take(80).collect::<String>())
                .into_owned(),
        };
        toolwright_core::encoding::from_hex(text)
            .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
            .map(Fingerprint)
            .ok_or_else(refuse)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_refuses_what_is_not_hex() {
        assert!("zz".repeat(32).parse::<Fingerprint>().is_err());
        assert!("ab".parse::<Fingerprint>().is_err());
        assert!("ab".repeat(32).parse::<Fingerprint>().is_ok());
    }
}
