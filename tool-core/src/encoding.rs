//! Canonical JSON and hex: the bytes that signatures, seals and fingerprints are computed
//! over, written once so that every signer and every verifier agree byte for byte.

use std::fmt::Write as _;

use serde_json::Value;

/// `value` as canonical JSON: every object's keys in byte order, no whitespace, strings and
/// numbers as `serde_json` writes them. Two values equal as JSON give equal text, whatever
/// order their keys came in (a database's JSON column, a client that re-serializes).
///
/// ```
/// use serde_json::json;
/// use toolwright_core::encoding::canonical_json;
///
/// let a = json!({"b": [1, {"d": true, "c": null}], "a": "x"});
/// assert_eq!(canonical_json(&a), r#"{"a":"x","b":[1,{"c":null,"d":true}]}"#);
/// ```
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by_key(|(key, _)| *key);
            out.push('{');
            for (n, (key, item)) in entries.into_iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                // A key is written as serde_json writes a string (escapes included).
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// `bytes` as lowercase hex, two digits a byte (digests, MACs, random tokens).
///
/// ```
/// assert_eq!(toolwright_core::encoding::hex(&[0x00, 0xab, 0x7f]), "00ab7f");
/// ```
pub fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// The bytes of hex digits (either case); `None` for an odd length or anything that is not
/// a hex digit.
///
/// ```
/// use toolwright_core::encoding::from_hex;
///
/// assert_eq!(from_hex("00AB7f"), Some(vec![0x00, 0xab, 0x7f]));
/// assert_eq!(from_hex("abc"), None);
/// assert_eq!(from_hex("zz"), None);
/// ```
pub fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|at| {
            let pair = text.get(at..at + 2)?;
            // `from_str_radix` takes a leading `+`; a digit pair must be two digits.
            if !pair.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            u8::from_str_radix(pair, 16).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The bytes every signature and fingerprint is computed over: changing them breaks
    /// every stored approval, every `requestState` in flight and every pinned upstream.
    #[test]
    fn canonical_bytes_are_fixed() {
        let value = json!({
            "z": 1,
            "a": {"é": "\u{1}\"\\", "b": [1.5, -2, null, false, "x"]},
            "m": [],
            "k": {},
            "B": 18446744073709551615u64,
        });
        assert_eq!(
            canonical_json(&value),
            "{\"B\":18446744073709551615,\"a\":{\"b\":[1.5,-2,null,false,\"x\"],\"é\":\"\\u0001\\\"\\\\\"},\"k\":{},\"m\":[],\"z\":1}"
        );
    }

    #[test]
    fn key_order_does_not_matter() {
        let a: Value = serde_json::from_str(r#"{"x":1,"y":{"q":2,"p":3}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"y":{"p":3,"q":2},"x":1}"#).unwrap();
        assert_eq!(canonical_json(&a), canonical_json(&b));
    }

    #[test]
    fn hex_round_trips() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(from_hex(&hex(&bytes)), Some(bytes));
        assert_eq!(from_hex("+1"), None);
        assert_eq!(from_hex("é"), None);
    }
}
