//! Parameters sent in an HTTP header as well as in the body (MCP SEP-2243: a property's
//! `x-mcp-header` names the `Mcp-Param-<Name>` header a client of the 2026-07-28 revision
//! sends it in, so proxies can route on it; the server checks the header against the
//! argument). The rule for a header name is `#[arg(header = "...")]`'s at compile time
//! (tool-macros' `header` module says the same) and [`ToolBuilder::header`](crate::ToolBuilder::header)'s at
//! build time.

use std::collections::HashSet;

use serde_json::Value;

/// The schema keyword SEP-2243 reads.
pub(crate) const KEYWORD: &str = "x-mcp-header";

/// Whether `name` is an HTTP token (RFC 9110 section 5.6.2), the form a header name takes.
pub(crate) fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    '!' | '#'
                        | '$'
                        | '%'
                        | '&'
                        | '\''
                        | '*'
                        | '+'
                        | '-'
                        | '.'
                        | '^'
                        | '_'
                        | '`'
                        | '|'
                        | '~'
                )
        })
}

/// Checks every `x-mcp-header` of an input schema as SEP-2243 says: on a top-level property
/// only, a header name, unique without regard to case, on a string, integer or boolean.
pub(crate) fn check(schema: &Value) -> Result<(), String> {
    if schema.get(KEYWORD).is_some() {
        return Err(format!(
            "`{KEYWORD}` annotates a property, not the schema itself"
        ));
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    let mut seen = HashSet::new();
    for (name, property) in properties {
        let Some(header) = property.get(KEYWORD) else {
            continue;
        };
        let Some(header) = header.as_str().filter(|h| is_header_name(h)) else {
            return Err(format!(
                "property `{name}`: `{KEYWORD}` must be an HTTP header name (letters, digits \
                 and !#$%&'*+-.^_`|~), got {header}"
            ));
        };
        if !seen.insert(header.to_ascii_lowercase()) {
            return Err(format!(
                "property `{name}`: header `{header}` is already another parameter's (header \
                 names do not differ by case)"
            ));
        }
        match property.get("type").and_then(Value::as_str) {
            Some("string" | "integer" | "boolean") => {}
            other => {
                return Err(format!(
                    "property `{name}`: a parameter sent in a header must be a string, an \
                     integer or a boolean, not {}",
                    other.unwrap_or("an untyped value")
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn headers_are_checked_as_sep_2243_says() {
        let ok = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
        }});
        assert!(check(&ok).is_ok());
        for bad in [
            json!({"type": "object", "x-mcp-header": "X", "properties": {}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": "Same"},
                "b": {"type": "string", "x-mcp-header": "same"},
            }}),
            json!({"type": "object", "properties": {"a": {"type": "array", "x-mcp-header": "A"}}}),
            json!({"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
        ] {
            assert!(check(&bad).is_err(), "{bad}");
        }
    }
}
