use super::*;
use serde_json::json;

fn messages(schema: Value, instance: Value) -> Vec<(String, String)> {
    Subset::new(&schema)
        .unwrap()
        .violations(&instance)
        .into_iter()
        .map(|v| (v.pointer, v.message))
        .collect()
}

fn one(schema: Value, instance: Value) -> String {
    let found = messages(schema, instance);
    assert_eq!(found.len(), 1, "{found:?}");
    let (pointer, message) = &found[0];
    if pointer.is_empty() {
        message.clone()
    } else {
        format!("{pointer}: {message}")
    }
}

#[test]
fn types_one_or_several_and_integers_by_value() {
    let schema = json!({"type": "integer"});
    assert!(messages(schema.clone(), json!(3)).is_empty());
    assert!(messages(schema.clone(), json!(3.0)).is_empty());
    assert_eq!(one(schema, json!(3.5)), "3.5 is not of type \"integer\"");
    assert_eq!(
        one(json!({"type": "string"}), json!(7)),
        "7 is not of type \"string\""
    );
    let nullable = json!({"type": ["string", "null"]});
    assert!(messages(nullable.clone(), json!(null)).is_empty());
    assert_eq!(
        one(nullable, json!(true)),
        "true is not of types \"string\", \"null\""
    );
    assert!(messages(json!({"type": "number"}), json!(1)).is_empty());
    assert_eq!(
        one(json!({"type": "object"}), json!([])),
        "[] is not of type \"object\""
    );
}

#[test]
fn required_and_additional_properties_are_their_own_kinds() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": ["a"],
        "additionalProperties": false
    });
    let found = Subset::new(&schema)
        .unwrap()
        .violations(&json!({"b": 1, "c": 2}));
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(
        found[0].kind,
        ViolationKind::Required {
            property: "a".into()
        }
    );
    assert_eq!(found[0].message, "\"a\" is a required property");
    assert_eq!(
        found[1].kind,
        ViolationKind::Additional {
            unexpected: vec!["b".into(), "c".into()]
        }
    );
    assert_eq!(
        found[1].message,
        "Additional properties are not allowed ('b', 'c' were unexpected)"
    );
    // A schema for the other properties.
    let typed = json!({"additionalProperties": {"type": "integer"}});
    assert_eq!(
        one(typed, json!({"x": "1"})),
        "/x: \"1\" is not of type \"integer\""
    );
    // Without the `schema-validation` feature the subset cannot tell which are additional
    // when there are patternProperties (with it: `patterns_with_the_feature`).
    #[cfg(not(feature = "schema-validation"))]
    {
        let patterned = json!({"patternProperties": {"^x": {}}, "additionalProperties": false});
        assert!(messages(patterned, json!({"y": 1})).is_empty());
    }
}

#[test]
fn enum_and_const_compare_numbers_by_value() {
    let schema = json!({"enum": ["celsius", "fahrenheit"]});
    assert!(messages(schema.clone(), json!("celsius")).is_empty());
    assert_eq!(
        one(schema, json!("kelvin")),
        "\"kelvin\" is not one of \"celsius\" or \"fahrenheit\""
    );
    assert_eq!(
        one(json!({"enum": [1, 2, 3, 4]}), json!(5)),
        "5 is not one of 1, 2 or 2 other candidates"
    );
    assert!(messages(json!({"enum": [1, [2]]}), json!([2.0])).is_empty());
    assert!(messages(json!({"const": 1}), json!(1.0)).is_empty());
    assert_eq!(one(json!({"const": "x"}), json!("y")), "\"x\" was expected");
}

#[test]
fn numeric_bounds() {
    let schema = json!({"minimum": 1, "maximum": 7});
    assert!(messages(schema.clone(), json!(7)).is_empty());
    assert_eq!(
        one(schema.clone(), json!(9)),
        "9 is greater than the maximum of 7"
    );
    assert_eq!(one(schema, json!(0.5)), "0.5 is less than the minimum of 1");
    assert_eq!(
        one(json!({"exclusiveMinimum": 0}), json!(0)),
        "0 is less than or equal to the minimum of 0"
    );
    assert_eq!(
        one(json!({"maximum": 5, "exclusiveMaximum": true}), json!(5)),
        "5 is greater than or equal to the maximum of 5"
    );
    assert!(messages(json!({"multipleOf": 0.1}), json!(0.3)).is_empty());
    assert_eq!(
        one(json!({"multipleOf": 2}), json!(3)),
        "3 is not a multiple of 2"
    );
    assert!(messages(json!({"maximum": 1}), json!(u64::MAX)).len() == 1);
    assert!(messages(json!({"minimum": -1}), json!(i64::MIN)).len() == 1);
    // Bounds apply to numbers only.
    assert!(messages(json!({"minimum": 1}), json!("0")).is_empty());
}

#[test]
fn strings_arrays_and_nested_values() {
    assert_eq!(
        one(json!({"minLength": 2}), json!("é")),
        "\"é\" is shorter than 2 characters"
    );
    assert_eq!(
        one(json!({"maxLength": 1}), json!("ab")),
        "\"ab\" is longer than 1 character"
    );
    let schema = json!({
        "type": "object",
        "properties": {
            "points": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"x": {"type": "number"}},
                    "required": ["x"]
                },
                "maxItems": 2
            }
        }
    });
    let found = messages(schema, json!({"points": [{"x": 1}, {"x": "2"}, {}]}));
    assert_eq!(
        found,
        [
            (
                "/points/1/x".to_owned(),
                "\"2\" is not of type \"number\"".to_owned()
            ),
            (
                "/points/2".to_owned(),
                "\"x\" is a required property".to_owned()
            ),
            (
                "/points".to_owned(),
                "[{\"x\":1},{\"x\":\"2\"},{}] has more than 2 items".to_owned()
            ),
        ]
    );
    assert_eq!(
        one(json!({"uniqueItems": true}), json!([1, 1.0])),
        "[1,1.0] has non-unique elements"
    );
    let tuple = json!({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}});
    assert!(messages(tuple.clone(), json!(["a", 1, 2])).is_empty());
    assert_eq!(
        one(tuple, json!(["a", "b"])),
        "/1: \"b\" is not of type \"integer\""
    );
    let old = json!({"items": [{"type": "string"}], "additionalItems": false});
    assert_eq!(
        one(old, json!(["a", 1])),
        "Additional items are not allowed (1 was unexpected)"
    );
    assert_eq!(
        one(json!({"contains": {"const": 3}}), json!([1, 2])),
        "None of [1,2] are valid under the given schema"
    );
    assert_eq!(
        one(
            json!({"propertyNames": {"maxLength": 2}}),
            json!({"abc": 1})
        ),
        "\"abc\" is longer than 2 characters"
    );
}

#[test]
fn combinators_and_boolean_schemas() {
    let any = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
    assert!(messages(any.clone(), json!(1)).is_empty());
    assert_eq!(
        one(any, json!(1.5)),
        "1.5 is not valid under any of the schemas listed in the 'anyOf' keyword"
    );
    let one_of = json!({"oneOf": [{"type": "number"}, {"type": "integer"}]});
    assert!(messages(one_of.clone(), json!(1.5)).is_empty());
    assert_eq!(
        one(one_of, json!(1)),
        "1 is valid under more than one of the schemas listed in the 'oneOf' keyword"
    );
    assert_eq!(
        messages(json!({"allOf": [{"minimum": 2}, {"maximum": 0}]}), json!(1)).len(),
        2
    );
    assert_eq!(
        one(json!({"not": {"type": "null"}}), json!(null)),
        "{\"type\":\"null\"} is not allowed for null"
    );
    let conditional =
        json!({"if": {"type": "string"}, "then": {"minLength": 1}, "else": {"minimum": 0}});
    assert_eq!(
        one(conditional.clone(), json!("")),
        "\"\" is shorter than 1 character"
    );
    assert_eq!(
        one(conditional, json!(-1)),
        "-1 is less than the minimum of 0"
    );
    assert_eq!(
        one(json!({"properties": {"a": false}}), json!({"a": 1})),
        "/a: False schema does not allow 1"
    );
    assert!(messages(json!(true), json!({"anything": 1})).is_empty());
}

#[test]
fn local_references_are_followed_and_others_refused() {
    let schema = json!({
        "type": "object",
        "properties": {"unit": {"$ref": "#/$defs/Unit"}, "tree": {"$ref": "#/$defs/Tree"}},
        "$defs": {
            "Unit": {"enum": ["c", "f"]},
            "Tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}
        }
    });
    assert_eq!(
        one(schema.clone(), json!({"unit": "k"})),
        "/unit: \"k\" is not one of \"c\" or \"f\""
    );
    assert_eq!(
        one(schema, json!({"tree": {"kids": [{"kids": [5]}]}})),
        "/tree/kids/0/kids/0: 5 is not of type \"object\""
    );
    let escaped = json!({"$ref": "#/$defs/a%20b", "$defs": {"a b": {"type": "string"}}});
    assert_eq!(one(escaped, json!(1)), "1 is not of type \"string\"");
    let remote = json!({"properties": {"a": {"$ref": "https://example.com/a.json"}}});
    let error = Subset::new(&remote).err().unwrap();
    assert!(error.starts_with("at `/properties/a/$ref`:"), "{error}");
    assert!(Subset::new(&json!({"$ref": "#/$defs/missing"})).is_err());
    assert!(Subset::new(&json!({"enum": [{"$ref": "not followed"}]})).is_ok());
    // A reference cycle that never reads into the value is refused up front, and a walk
    // that meets one anyway stops at the depth limit.
    let looping = json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
    let error = Subset::new(&looping).err().unwrap();
    assert!(error.contains("refers back to itself"), "{error}");
    let found = Subset::unchecked(&looping).violations(&json!(1));
    assert_eq!(found.len(), 1);
    assert!(found[0].message.contains("nested too deeply"), "{found:?}");
}

#[test]
fn what_the_subset_leaves_unchecked() {
    #[cfg(not(feature = "schema-validation"))]
    assert!(messages(json!({"pattern": "^a"}), json!("b")).is_empty());
    assert!(messages(json!({"format": "email"}), json!("nope")).is_empty());
}

// With the `schema-validation` feature: regular expressions, searched (not anchored) as
// JSON Schema has them; an expression the `regex-lite` crate cannot read is left unchecked.
#[cfg(feature = "schema-validation")]
#[test]
fn patterns_with_the_feature() {
    assert_eq!(
        one(json!({"pattern": "^a"}), json!("b")),
        "\"b\" does not match \"^a\""
    );
    assert!(messages(json!({"pattern": "b"}), json!("abc")).is_empty());
    assert!(messages(json!({"pattern": "(?=a)"}), json!("b")).is_empty());
    // ASCII classes, as ECMA-262 has them.
    assert_eq!(
        one(json!({"pattern": "^\\d+$"}), json!("١٢")),
        "\"١٢\" does not match \"^\\\\d+$\""
    );
    let schema = json!({
        "properties": {"id": {}},
        "patternProperties": {"^x-": {"type": "string"}},
        "additionalProperties": false
    });
    assert!(messages(schema.clone(), json!({"id": 1, "x-a": "s"})).is_empty());
    assert_eq!(
        messages(schema, json!({"x-a": 1, "y": 2})),
        [
            ("/x-a".to_owned(), "1 is not of type \"string\"".to_owned()),
            (
                String::new(),
                "Additional properties are not allowed ('y' was unexpected)".to_owned()
            ),
        ]
    );
}
