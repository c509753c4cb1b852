//! `$ref` inside one schema: resolving a reference, and refusing the schemas a check could
//! not finish (a reference out of the schema, a loop that never moves into the value).

use std::collections::HashMap;

use serde_json::Value;

/// Every `$ref` in `schema` (found under `pointer` in `root`) points into `root`.
pub(super) fn local_refs_resolve(
    root: &Value,
    schema: &Value,
    pointer: &str,
) -> Result<(), String> {
    match schema {
        Value::Object(object) => {
            if let Some(Value::String(reference)) = object.get("$ref")
                && resolve(root, reference).is_none()
            {
                return Err(format!(
                    "at `{pointer}/$ref`: `{reference}` does not point into this schema; only \
                     references inside the schema (`#`, `#/$defs/...`) are followed"
                ));
            }
            for (keyword, value) in object {
                // Values, not schemas: a "$ref" in them is data.
                if !matches!(keyword.as_str(), "enum" | "const" | "default" | "examples") {
                    local_refs_resolve(root, value, &child(pointer, keyword))?;
                }
            }
            Ok(())
        }
        Value::Array(items) => items.iter().enumerate().try_for_each(|(i, item)| {
            local_refs_resolve(root, item, &child(pointer, &i.to_string()))
        }),
        _ => Ok(()),
    }
}

/// The schema `reference` names inside `root`: `#` or a JSON Pointer fragment.
pub(super) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = percent_decode(reference.strip_prefix('#')?)?;
    if fragment.is_empty() {
        Some(root)
    } else if fragment.starts_with('/') {
        root.pointer(&fragment)
    } else {
        None // an anchor
    }
}

/// `text` with `%XX` escapes decoded, as a URI fragment is written.
fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        if byte == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(byte);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `pointer` extended by one JSON Pointer segment.
pub(in crate::args) fn child(pointer: &str, segment: &str) -> String {
    format!(
        "{pointer}/{}",
        segment.replace('~', "~0").replace('/', "~1")
    )
}

/// Refuses a schema in which applying a subschema leads back to itself without moving into
/// the value (`{"$ref": "#"}`, or `anyOf` of a `$ref` to the schema holding it): no
/// validator could finish with it.
pub(super) fn no_loop_in_place(root: &Value) -> Result<(), String> {
    /// Where a subschema leads without moving into the value: `$ref`, the combinators,
    /// `if`/`then`/`else`.
    fn in_place_targets<'a>(
        root: &'a Value,
        schema: &'a Value,
        pointer: &str,
    ) -> Vec<(String, &'a Value)> {
        let Value::Object(object) = schema else {
            return Vec::new();
        };
        let mut targets = Vec::new();
        if let Some(Value::String(reference)) = object.get("$ref")
            && let Some(target) = resolve(root, reference)
        {
            let fragment = reference.strip_prefix('#').unwrap_or_default();
            targets.push((percent_decode(fragment).unwrap_or_default(), target));
        }
        for keyword in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(schemas)) = object.get(keyword) {
                for (i, subschema) in schemas.iter().enumerate() {
                    let at = child(&child(pointer, keyword), &i.to_string());
                    targets.push((at, subschema));
                }
            }
        }
        for keyword in ["not", "if", "then", "else"] {
            if let Some(subschema) = object.get(keyword) {
                targets.push((child(pointer, keyword), subschema));
            }
        }
        targets
    }
    /// Every subschema of `schema` (where the walk may start a new in-place chain).
    fn subschemas<'a>(schema: &'a Value, pointer: &str, found: &mut Vec<(String, &'a Value)>) {
        found.push((pointer.to_owned(), schema));
        match schema {
            Value::Object(object) => {
                for (keyword, value) in object {
                    if !matches!(keyword.as_str(), "enum" | "const" | "default" | "examples") {
                        subschemas(value, &child(pointer, keyword), found);
                    }
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    subschemas(item, &child(pointer, &i.to_string()), found);
                }
            }
            _ => {}
        }
    }
    // Depth-first over in-place edges, by pointer: 1 = on the current path, 2 = done.
    fn visit<'a>(
        root: &'a Value,
        pointer: String,
        schema: &'a Value,
        state: &mut HashMap<String, u8>,
    ) -> Result<(), String> {
        match state.get(&pointer) {
            Some(1) => {
                return Err(format!(
                    "at `{pointer}`: the schema refers back to itself without moving into the \
                     value (a `$ref` loop through combinators), so no value can be checked \
                     against it"
                ));
            }
            Some(_) => return Ok(()),
            None => {}
        }
        state.insert(pointer.clone(), 1);
        for (target_pointer, target) in in_place_targets(root, schema, &pointer) {
            visit(root, target_pointer, target, state)?;
        }
        state.insert(pointer, 2);
        Ok(())
    }
    let mut all = Vec::new();
    subschemas(root, "", &mut all);
    let mut state = HashMap::new();
    for (pointer, schema) in all {
        visit(root, pointer, schema, &mut state)?;
    }
    Ok(())
}
