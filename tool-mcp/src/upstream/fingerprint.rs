//! A fingerprint of what an upstream says a tool is: the SHA-256 of the canonical JSON of
//! its name, description, input and output schemas and annotations.

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
/// use toolwright_mcp::upstream::Fingerprint;
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
        let mut canonical = String::new();
        write_canonical(&Value::Object(document), &mut canonical);
        Fingerprint(Sha256::digest(canonical.as_bytes()).into())
    }

    /// The 32 bytes of the digest.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

/// `value` as canonical JSON: object keys in byte order, no whitespace, strings and numbers
/// as `serde_json` writes them.
fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(item) = map.get(key) {
                    write_canonical(item, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
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
        let bytes = text.as_bytes();
        if bytes.len() != 64 {
            return Err(refuse());
        }
        let mut out = [0u8; 32];
        for (i, pair) in bytes.chunks(2).enumerate() {
            let digit = |b: u8| (b as char).to_digit(16);
            match (
                pair.first().copied().and_then(digit),
                pair.get(1).copied().and_then(digit),
            ) {
                (Some(high), Some(low)) => out[i] = (high * 16 + low) as u8,
                _ => return Err(refuse()),
            }
        }
        Ok(Fingerprint(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys() {
        let mut out = String::new();
        write_canonical(
            &serde_json::json!({"b": 1, "a": [true, null, {"d": "x", "c": 1.5}]}),
            &mut out,
        );
        assert_eq!(out, r#"{"a":[true,null,{"c":1.5,"d":"x"}],"b":1}"#);
    }

    #[test]
    fn parse_refuses_what_is_not_hex() {
        assert!("zz".repeat(32).parse::<Fingerprint>().is_err());
        assert!("ab".parse::<Fingerprint>().is_err());
        assert!("ab".repeat(32).parse::<Fingerprint>().is_ok());
    }
}
