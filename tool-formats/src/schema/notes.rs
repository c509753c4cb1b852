//! What a format cannot say in its own keywords, folded into a description so the model
//! still reads it: the doc comments of an enum's variants (schemars writes a documented enum
//! as a `oneOf` of constants, each with its description; strict mode and Gemini take a plain
//! `enum`), and a type's own doc comment where a parameter's description would replace it.

use serde_json::Value;

/// A `oneOf` whose variants are all constants, as a plain `enum`.
pub(crate) struct Constants {
    /// The variants' common `type`, read from the first.
    pub(crate) ty: Option<Value>,
    /// The constants, in order.
    pub(crate) values: Vec<Value>,
    /// `celsius: Degrees Celsius; fahrenheit: Degrees Fahrenheit`, when a variant has a
    /// description.
    pub(crate) note: Option<String>,
}

/// `variants` as an enum, when each is a constant (`{"const": ..}`); `None` otherwise.
pub(crate) fn constants(variants: &[Value]) -> Option<Constants> {
    let values: Vec<Value> = variants
        .iter()
        .map(|v| v.get("const").cloned())
        .collect::<Option<_>>()?;
    let described: Vec<String> = variants
        .iter()
        .zip(&values)
        .filter_map(|(variant, value)| {
            let text = variant.get("description")?.as_str()?.trim();
            let text = text.strip_suffix('.').unwrap_or(text);
            (!text.is_empty()).then(|| format!("{}: {text}", shown(value)))
        })
        .collect();
    Some(Constants {
        ty: variants.first().and_then(|v| v.get("type")).cloned(),
        values,
        note: (!described.is_empty()).then(|| described.join("; ")),
    })
}

/// A constant as a reader sees it in a note: a string without quotes.
fn shown(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// `description` with `note` after it in parentheses, or the note alone.
pub(crate) fn with_note(description: Option<&str>, note: &str) -> String {
    match description {
        Some(text) if !text.is_empty() => format!("{text} ({note})"),
        _ => format!("({note})"),
    }
}

/// A parameter's description followed by its type's, where one schema must carry both (a
/// `$ref` inlined, an optional value unwrapped): "Scale of the temperatures. A temperature
/// scale." Either alone when the other is missing or says the same.
pub(crate) fn joined(outer: &str, inner: &str) -> String {
    let (outer, inner) = (outer.trim(), inner.trim());
    if inner.is_empty() || outer.contains(inner) {
        return outer.to_owned();
    }
    if outer.is_empty() {
        return inner.to_owned();
    }
    if outer.ends_with(['.', '!', '?', ':']) {
        format!("{outer} {inner}")
    } else {
        format!("{outer}. {inner}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn documented_variants_become_a_note() {
        let variants = [
            json!({"type": "string", "const": "celsius", "description": "Degrees Celsius."}),
            json!({"type": "string", "const": "fahrenheit"}),
            json!({"type": "string", "const": "kelvin", "description": "Kelvin"}),
        ];
        let found = constants(&variants).unwrap();
        assert_eq!(found.ty, Some(json!("string")));
        assert_eq!(
            found.values,
            vec![json!("celsius"), json!("fahrenheit"), json!("kelvin")]
        );
        assert_eq!(
            found.note.as_deref(),
            Some("celsius: Degrees Celsius; kelvin: Kelvin")
        );
        assert!(constants(&[json!({"type": "string"})]).is_none());
        assert!(constants(&[json!({"const": 1})]).unwrap().note.is_none());
    }

    #[test]
    fn descriptions_join_without_repeating() {
        assert_eq!(
            joined("Scale of the temperatures", "A temperature scale."),
            "Scale of the temperatures. A temperature scale."
        );
        assert_eq!(joined("Where.", "A place."), "Where. A place.");
        assert_eq!(joined("A place.", "A place."), "A place.");
        assert_eq!(joined("", "A place."), "A place.");
        assert_eq!(with_note(Some("Unit"), "c: C"), "Unit (c: C)");
        assert_eq!(with_note(None, "c: C"), "(c: C)");
    }
}
