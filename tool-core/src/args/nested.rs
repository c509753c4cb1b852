//! Unknown fields inside a parameter's value: a struct parameter reads its fields with
//! serde, which skips names it does not know. A model that misspells one (`"sevrity"`) would
//! never learn that its value was dropped; here every skipped name is reported like an
//! unknown top-level parameter, with the fields valid at that place and a "did you mean".
//!
//! A type that accepts any field (a map, `serde_json::Value`, a struct with a
//! `#[serde(flatten)]` map) skips nothing, so it is never refused: that is how a type opts
//! out.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::watch;

/// One step of the way to a skipped field.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    Field(String),
    Index(usize),
}

/// `value` read as a `T`, and the places of the fields it skipped (each a path of steps
/// from the parameter's value).
pub(crate) fn read_reporting_skipped<T: DeserializeOwned>(
    value: &Value,
) -> Result<(T, Vec<Vec<Step>>), serde_json::Error> {
    // Scalars have no fields: the plain read, as fast as before.
    if !(value.is_object() || value.is_array()) {
        return T::deserialize(value).map(|typed| (typed, Vec::new()));
    }
    // Every call: only whether something was skipped, without allocating.
    let (typed, any_skipped) = watch::read_noticing_skips::<T, _>(value)?;
    if !any_skipped {
        return Ok((typed, Vec::new()));
    }
    // A field was skipped (the call fails): read again to learn where.
    let mut skipped = Vec::new();
    let typed = serde_ignored::deserialize(value, |path| skipped.push(steps(&path)))?;
    Ok((typed, skipped))
}

fn steps(path: &serde_ignored::Path<'_>) -> Vec<Step> {
    use serde_ignored::Path;
    let mut out = match path {
        Path::Root => return Vec::new(),
        Path::Seq { parent, .. }
        | Path::Map { parent, .. }
        | Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => steps(parent),
    };
    match path {
        Path::Seq { index, .. } => out.push(Step::Index(*index)),
        Path::Map { key, .. } => out.push(Step::Field(key.clone())),
        _ => {}
    }
    out
}

/// `param` followed by the steps, as a model would write the place: `filter.rules[0].name`.
pub(crate) fn place(param: &str, path: &[Step]) -> String {
    let mut text = param.to_owned();
    for step in path {
        match step {
            Step::Field(name) => {
                text.push('.');
                text.push_str(name);
            }
            Step::Index(index) => text.push_str(&format!("[{index}]")),
        }
    }
    text
}

/// The field names valid at the object that holds the last step of `path`, read from the
/// parameter's JSON Schema (subschemas inlined): through `properties`, `items`, and the
/// alternatives of `anyOf` / `oneOf` / `allOf` (an `Option`, an untagged enum).
pub(crate) fn valid_fields(schema: &Value, path: &[Step]) -> Vec<String> {
    let Some((_, parents)) = path.split_last() else {
        return Vec::new();
    };
    let mut fields = Vec::new();
    collect(schema, parents, &mut fields);
    fields.dedup();
    fields
}

fn collect(schema: &Value, path: &[Step], fields: &mut Vec<String>) {
    for alternative in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(schemas)) = schema.get(alternative) {
            for schema in schemas {
                collect(schema, path, fields);
            }
        }
    }
    match path.split_first() {
        None => {
            if let Some(Value::Object(properties)) = schema.get("properties") {
                fields.extend(properties.keys().cloned());
            }
        }
        Some((Step::Field(name), rest)) => {
            if let Some(inner) = schema.get("properties").and_then(|p| p.get(name)) {
                collect(inner, rest, fields);
            } else if let Some(inner) = schema.get("additionalProperties") {
                collect(inner, rest, fields);
            }
        }
        Some((Step::Index(_), rest)) => {
            if let Some(inner) = schema.get("items") {
                collect(inner, rest, fields);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(serde::Deserialize, schemars::JsonSchema, Debug)]
    #[allow(dead_code)]
    struct Rule {
        severity: u8,
        name: String,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema, Debug)]
    #[allow(dead_code)]
    struct Filter {
        rules: Vec<Rule>,
        limit: Option<u32>,
        inner: Option<Rule>,
    }

    fn schema<T: schemars::JsonSchema>() -> Value {
        schemars::generate::SchemaSettings::draft2020_12()
            .with(|settings| settings.inline_subschemas = true)
            .into_generator()
            .into_root_schema_for::<T>()
            .to_value()
    }

    #[test]
    fn skipped_fields_are_found_with_their_place_and_neighbours() {
        let value = json!({
            "rules": [{"severity": 1, "name": "a"}, {"sevrity": 2, "severity": 3, "name": "b"}],
            "limt": 5,
            "inner": {"severity": 1, "name": "c", "nmae": "d"},
        });
        let (_, skipped) = read_reporting_skipped::<Filter>(&value).unwrap();
        let places: Vec<String> = skipped.iter().map(|path| place("filter", path)).collect();
        assert_eq!(
            places,
            [
                "filter.rules[1].sevrity",
                "filter.limt",
                "filter.inner.nmae"
            ]
        );
        let schema = schema::<Filter>();
        assert_eq!(valid_fields(&schema, &skipped[0]), ["severity", "name"]);
        assert_eq!(
            valid_fields(&schema, &skipped[1]),
            ["rules", "limit", "inner"]
        );
        assert_eq!(valid_fields(&schema, &skipped[2]), ["severity", "name"]);
    }

    #[test]
    fn types_that_take_any_field_skip_nothing() {
        let value = json!({"anything": 1, "nested": {"x": true}});
        let (_, skipped) = read_reporting_skipped::<Value>(&value).unwrap();
        assert!(skipped.is_empty());
        let (_, skipped) =
            read_reporting_skipped::<std::collections::HashMap<String, Value>>(&value).unwrap();
        assert!(skipped.is_empty());
        let (n, skipped) = read_reporting_skipped::<u32>(&json!(7)).unwrap();
        assert_eq!((n, skipped.len()), (7, 0));
    }
}
