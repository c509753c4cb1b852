//! A tool's schema made flat for MCP elicitation, or why it cannot be.

use serde_json::{Map, Value};

use super::error::ClientError;

/// The types elicitation may ask for.
const PRIMITIVES: [&str; 4] = ["string", "number", "integer", "boolean"];

/// The keywords of a property MCP's elicitation schemas know; others are left out.
const PROPERTY_KEYWORDS: [&str; 11] = [
    "type",
    "title",
    "description",
    "default",
    "enum",
    "enumNames",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
];

/// `T`'s JSON Schema as an elicitation form is generated (inline, draft 2020-12), before
/// [`elicitation_schema`] checks it.
pub(crate) fn schema_for<T: schemars::JsonSchema>() -> Value {
    schemars::generate::SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// `schema` made into what MCP elicitation accepts (`{"type": "object", "properties":
/// {...}, "required": [...]}`, each property a string, number, integer, boolean, string
/// enum, or array of choices of a string enum), or why it cannot be: a nested object, an
/// array of free values, a union of types. Optional properties (`Option<T>` in Rust: a type
/// with `null`) lose their `null`.
///
/// Enums take the forms of MCP 2025-11-25: a plain `enum` when no value has a title;
/// `oneOf: [{"const", "title"}]` when values have titles (from `title`, or the Rust
/// variant's doc comment, which schemars writes as `description`); a legacy `enumNames`
/// kept as given; for several choices (`Vec<AnEnum>`), `items` with `enum` or, with titles,
/// `anyOf: [{"const", "title"}]`.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::client::elicitation_schema;
///
/// let schema = json!({
///     "$schema": "https://json-schema.org/draft/2020-12/schema",
///     "type": "object",
///     "properties": {"name": {"type": "string"}, "age": {"type": ["integer", "null"]}},
///     "required": ["name"]
/// });
/// let flat = elicitation_schema(&schema).unwrap();
/// assert_eq!(flat["properties"]["age"], json!({"type": "integer"}));
///
/// let nested = json!({"type": "object", "properties": {"tags": {"type": "array"}}});
/// let err = elicitation_schema(&nested).unwrap_err();
/// assert!(err.to_string().contains("`tags` is an array"));
///
/// // Titled choices, one or several.
/// let choices = json!({"type": "object", "properties": {
///     "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
///     "toppings": {"type": "array", "items": {"type": "string", "enum": ["ham", "olives"]}}
/// }});
/// assert_eq!(elicitation_schema(&choices).unwrap(), choices);
/// ```
///
/// # Errors
///
/// [`ClientError::UnsupportedSchema`], naming the property and what elicitation allows.
pub fn elicitation_schema(schema: &Value) -> Result<Value, ClientError> {
    let unsupported = |what: String| {
        ClientError::UnsupportedSchema(format!(
            "{what}; elicitation asks only for a flat object whose properties are strings, \
             numbers, integers, booleans, string enums or several values of a string enum \
             (ask for nested data in several questions, or as text)"
        ))
    };
    let Some(root) = schema.as_object() else {
        return Err(unsupported("the schema is not an object".to_owned()));
    };
    match root.get("type") {
        Some(Value::String(kind)) if kind == "object" => {}
        None if root.contains_key("properties") => {}
        _ => return Err(unsupported("the answer is not an object".to_owned())),
    }
    let mut properties = Map::new();
    if let Some(given) = root.get("properties") {
        let Some(given) = given.as_object() else {
            return Err(unsupported("`properties` is not an object".to_owned()));
        };
        for (name, property) in given {
            let property = flat_property(property)
                .map_err(|kind| unsupported(format!("the property `{name}` is {kind}")))?;
            properties.insert(name.clone(), property);
        }
    }
    let mut flat = Map::new();
    flat.insert("type".to_owned(), Value::from("object"));
    if let Some(description) = root.get("description").filter(|d| d.is_string()) {
        flat.insert("description".to_owned(), description.clone());
    }
    flat.insert("properties".to_owned(), Value::Object(properties));
    if let Some(required) = root.get("required").and_then(Value::as_array) {
        let names: Vec<Value> = required.iter().filter(|n| n.is_string()).cloned().collect();
        if !names.is_empty() {
            flat.insert("required".to_owned(), Value::Array(names));
        }
    }
    Ok(Value::Object(flat))
}

/// One property made flat, or what kind of thing it is (for the error).
fn flat_property(property: &Value) -> Result<Value, String> {
    let Some(object) = property.as_object() else {
        return Err("not a schema".to_owned());
    };
    // `Option<T>` as schemars writes it for a referenced type: `anyOf: [T, {type: null}]`;
    // a documented enum: `oneOf: [{const: "a", description}, ...]`.
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = object.get(union) {
            let mut merged = object.clone();
            merged.remove(union);
            if let Some(choices) = titled_choices(branches) {
                merged.insert("type".to_owned(), Value::from("string"));
                let mut flat = flat_property(&Value::Object(merged))?;
                set_choices(&mut flat, choices, "oneOf");
                return Ok(flat);
            }
            let others: Vec<&Value> = branches.iter().filter(|b| !is_null_type(b)).collect();
            let [only] = others.as_slice() else {
                return Err("a union of several types".to_owned());
            };
            let Some(inner) = only.as_object() else {
                return Err("not a schema".to_owned());
            };
            for (key, value) in inner {
                merged.entry(key.clone()).or_insert_with(|| value.clone());
            }
            return flat_property(&Value::Object(merged));
        }
    }
    let kind = match object.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) => {
            let kinds: Vec<&str> = kinds
                .iter()
                .filter_map(Value::as_str)
                .filter(|k| *k != "null")
                .collect();
            match kinds.as_slice() {
                [kind] => (*kind).to_owned(),
                _ => return Err("a union of several types".to_owned()),
            }
        }
        None if object
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().all(|v| v.is_string() || v.is_null())) =>
        {
            "string".to_owned()
        }
        _ => return Err("of no single type".to_owned()),
    };
    if kind == "array" {
        return multi_select(object);
    }
    if !PRIMITIVES.contains(&kind.as_str()) {
        let article = if kind == "object" { "an" } else { "a" };
        return Err(format!("{article} {kind}"));
    }
    let mut flat = Map::new();
    for keyword in PROPERTY_KEYWORDS {
        if let Some(value) = object.get(keyword) {
            flat.insert(keyword.to_owned(), value.clone());
        }
    }
    flat.insert("type".to_owned(), Value::String(kind.clone()));
    if let Some(Value::Array(values)) = flat.get_mut("enum") {
        values.retain(|v| !v.is_null());
        if values.iter().any(|v| !v.is_string()) {
            return Err("an enum of values that are not strings".to_owned());
        }
        if kind != "string" {
            return Err(format!("an enum of type `{kind}` (enums are of strings)"));
        }
    }
    if let Some(names) = flat.get("enumNames") {
        let count = flat.get("enum").and_then(Value::as_array).map(Vec::len);
        if names.as_array().map(Vec::len) != count {
            return Err("an enum whose `enumNames` do not match its values one to one".to_owned());
        }
    }
    if flat.get("default").is_some_and(Value::is_null) {
        flat.remove("default");
    }
    Ok(Value::Object(flat))
}

/// A choice of an enum: its value and, when it has one, the title the user sees.
struct Choice {
    value: Value,
    title: Option<Value>,
}

/// The choices of `oneOf`/`anyOf` branches that are each one string (`{"const": "a"}`, or a
/// one-value `enum`, as schemars writes a documented variant), with their `title` (or, from
/// a Rust doc comment, `description`); `None` when the branches are anything else.
fn titled_choices(branches: &[Value]) -> Option<Vec<Choice>> {
    if branches.is_empty() {
        return None;
    }
    branches
        .iter()
        .map(|branch| {
            let branch = branch.as_object()?;
            let value = match (branch.get("const"), branch.get("enum")) {
                (Some(value @ Value::String(_)), _) => value.clone(),
                (None, Some(Value::Array(values)))
                    if values.len() == 1 && values[0].is_string() =>
                {
                    values[0].clone()
                }
                _ => return None,
            };
            let title = branch
                .get("title")
                .or_else(|| branch.get("description"))
                .filter(|title| title.is_string())
                .cloned();
            Some(Choice { value, title })
        })
        .collect()
}

/// Writes `choices` into a flat string property: a plain `enum` when none has a title, else
/// `union` (`oneOf` for one choice, `anyOf` for an array's items) of `{const, title}`, the
/// forms MCP's elicitation schemas give titled choices.
fn set_choices(flat: &mut Value, choices: Vec<Choice>, union: &str) {
    let Some(flat) = flat.as_object_mut() else {
        return;
    };
    flat.remove("enum");
    flat.remove("enumNames");
    if choices.iter().all(|choice| choice.title.is_none()) {
        let values = choices.into_iter().map(|choice| choice.value).collect();
        flat.insert("enum".to_owned(), Value::Array(values));
        return;
    }
    let branches = choices
        .into_iter()
        .map(|Choice { value, title }| {
            let title = title.unwrap_or_else(|| value.clone());
            serde_json::json!({"const": value, "title": title})
        })
        .collect();
    flat.insert(union.to_owned(), Value::Array(branches));
}

/// An array property: allowed only as a multiple choice among strings (`Vec<AnEnum>`,
/// `HashSet<AnEnum>`), as `{"type": "array", "items": {"type": "string", "enum": [...]}}` or,
/// with titles, `{"type": "array", "items": {"anyOf": [{"const", "title"}, ...]}}`.
fn multi_select(object: &Map<String, Value>) -> Result<Value, String> {
    const NOT_CHOICES: &str = "an array whose items are not string choices (an array may only \
                               pick several values of a string enum)";
    let items = object
        .get("items")
        .filter(|items| items.is_object())
        .ok_or(NOT_CHOICES)?;
    let items = flat_property(items).map_err(|_| NOT_CHOICES)?;
    let items = match (items.get("enum"), items.get("oneOf")) {
        (Some(values), _) => serde_json::json!({"type": "string", "enum": values}),
        (None, Some(branches)) => serde_json::json!({"anyOf": branches}),
        (None, None) => return Err(NOT_CHOICES.to_owned()),
    };
    let mut flat = Map::new();
    flat.insert("type".to_owned(), Value::from("array"));
    for keyword in ["title", "description", "minItems", "maxItems", "default"] {
        if let Some(value) = object.get(keyword).filter(|value| !value.is_null()) {
            flat.insert(keyword.to_owned(), value.clone());
        }
    }
    flat.insert("items".to_owned(), items);
    Ok(Value::Object(flat))
}

fn is_null_type(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemars_options_and_enums_become_flat() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        enum Region {
            Eu,
            Us,
        }
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Answer {
            /// Where to deploy.
            region: Region,
            replicas: Option<u32>,
            confirm: bool,
        }
        let generator = schemars::generate::SchemaSettings::draft2020_12()
            .with(|s| s.inline_subschemas = true)
            .into_generator();
        let schema = generator.into_root_schema_for::<Answer>().to_value();
        let flat = elicitation_schema(&schema).unwrap();
        assert_eq!(flat["properties"]["region"]["type"], "string");
        assert_eq!(flat["properties"]["region"]["enum"], json!(["Eu", "Us"]));
        assert_eq!(
            flat["properties"]["region"]["description"],
            "Where to deploy."
        );
        assert_eq!(flat["properties"]["replicas"]["type"], "integer");
        assert_eq!(flat["properties"]["confirm"]["type"], "boolean");
        assert_eq!(flat["required"], json!(["region", "confirm"]));
    }

    /// The schema of the conformance suite's `elicitation-sep1330-enums`: every enum form
    /// of MCP 2025-11-25 goes through as it is.
    #[test]
    fn every_enum_form_of_the_specification_is_kept() {
        let schema = json!({
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "enum": ["option1", "option2"]},
                "titledSingle": {"type": "string", "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"}
                ]},
                "legacyEnum": {"type": "string", "enum": ["opt1", "opt2"],
                               "enumNames": ["Option One", "Option Two"]},
                "untitledMulti": {"type": "array", "minItems": 1, "maxItems": 2,
                                  "items": {"type": "string", "enum": ["option1", "option2"]}},
                "titledMulti": {"type": "array", "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"}
                ]}, "default": ["value1"]}
            },
            "required": ["untitledSingle"]
        });
        assert_eq!(elicitation_schema(&schema).unwrap(), schema);
    }

    #[test]
    fn rust_enums_become_titled_choices_one_or_several() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        enum Topping {
            /// Cured ham
            Ham,
            /// Black olives
            Olives,
        }
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        enum Size {
            Small,
            Large,
        }
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Order {
            favourite: Topping,
            toppings: Vec<Topping>,
            sizes: std::collections::BTreeSet<Size>,
            maybe: Option<Topping>,
        }
        let generator = schemars::generate::SchemaSettings::draft2020_12()
            .with(|s| s.inline_subschemas = true)
            .into_generator();
        let schema = generator.into_root_schema_for::<Order>().to_value();
        let flat = elicitation_schema(&schema).unwrap();
        let titled = json!([
            {"const": "Ham", "title": "Cured ham"},
            {"const": "Olives", "title": "Black olives"}
        ]);
        assert_eq!(flat["properties"]["favourite"]["type"], "string");
        assert_eq!(flat["properties"]["favourite"]["oneOf"], titled);
        assert_eq!(flat["properties"]["maybe"]["oneOf"], titled);
        assert_eq!(
            flat["properties"]["toppings"],
            json!({"type": "array", "items": {"anyOf": titled}})
        );
        assert_eq!(
            flat["properties"]["sizes"]["items"],
            json!({"type": "string", "enum": ["Small", "Large"]})
        );
        assert_eq!(flat["required"], json!(["favourite", "toppings", "sizes"]));
    }

    #[test]
    fn arrays_of_free_values_and_bad_enums_are_refused_by_name() {
        let refused = |property: Value| {
            let schema = json!({"type": "object", "properties": {"p": property}});
            elicitation_schema(&schema).unwrap_err().to_string()
        };
        let err = refused(json!({"type": "array", "items": {"type": "string"}}));
        assert!(
            err.contains("`p` is an array whose items are not string choices"),
            "{err}"
        );
        let err = refused(json!({"type": "array", "items": {"type": "array",
            "items": {"type": "string", "enum": ["a"]}}}));
        assert!(err.contains("`p` is an array whose items"), "{err}");
        let err = refused(json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A"]}));
        assert!(err.contains("`enumNames`"), "{err}");
        let err = refused(json!({"type": "integer", "enum": [1, 2]}));
        assert!(err.contains("not strings"), "{err}");
    }

    #[test]
    fn nested_objects_and_unions_are_refused_by_name() {
        let nested = json!({"type": "object", "properties": {"address": {"type": "object"}}});
        let err = elicitation_schema(&nested).unwrap_err().to_string();
        assert!(err.contains("`address` is an object"), "{err}");
        let union = json!({"type": "object", "properties": {"x": {"type": ["string", "integer"]}}});
        let err = elicitation_schema(&union).unwrap_err().to_string();
        assert!(err.contains("`x` is a union"), "{err}");
        let err = elicitation_schema(&json!({"type": "string"})).unwrap_err();
        assert!(err.to_string().contains("not an object"));
    }
}
