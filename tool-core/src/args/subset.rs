//! Arguments checked against the subset of JSON Schema the runtime reads itself: what
//! [`SchemaChecker`](super::SchemaChecker) uses when the crate is built without the
//! `schema-validation` feature (no JSON Schema library).
//!
//! Checked, at any depth: `type` (one name or several; `integer` is any number without a
//! fraction), `enum` and `const` (numbers compared by value), `required`, `properties`,
//! `additionalProperties` (`false` or a schema), `minProperties` / `maxProperties`,
//! `propertyNames`, `items` (a schema, or the older list form with `additionalItems`),
//! `prefixItems`, `minItems` / `maxItems`, `uniqueItems`, `contains`, `minimum` /
//! `maximum` / `exclusiveMinimum` / `exclusiveMaximum` (the draft-4 boolean form too),
//! `multipleOf`, `minLength` / `maxLength`, `allOf` / `anyOf` / `oneOf` / `not`,
//! `if` / `then` / `else`, boolean schemas, and `$ref` to a place in the same schema
//! (`#`, `#/$defs/...`). Not checked: `pattern` and `patternProperties` (they need a
//! regular-expression engine; with `patternProperties` present, `additionalProperties` is
//! not checked either), `format` (only an annotation in 2020-12, and not checked by the
//! full validator either), `dependentRequired` / `dependentSchemas`, `unevaluated*`,
//! `$ref` to other documents or anchors (refused when the tool is built).

use std::cell::Cell;
use std::cmp::Ordering;
use std::collections::HashMap;

use serde_json::{Map, Number, Value};

use super::violation::{Violation, ViolationKind};

/// How deep the check goes into the schema and the value together (each property, item,
/// subschema and `$ref` is a level); past it, it reports that it stopped, so that a
/// `$ref` cycle cannot recurse for ever.
const MAX_DEPTH: usize = 256;

/// How many (schema, value) pairs one check may visit. A schema whose combinators branch at
/// every level (`anyOf` of two `$ref`s back up, through properties) takes time exponential in
/// the value's depth; past the budget the check stops and fails rather than hold a thread.
const MAX_STEPS: usize = 1_000_000;

/// How the budget's violation begins.
const TOO_COMPLEX: &str = "the arguments are too complex to check against this schema";

/// The checker for one schema.
pub(crate) struct Subset {
    schema: Value,
}

impl Subset {
    /// A checker for `schema`, or why it cannot check with it: a `$ref` that does not point
    /// into the schema itself.
    pub(crate) fn new(schema: &Value) -> Result<Self, String> {
        local_refs_resolve(schema, schema, "")?;
        no_loop_in_place(schema)?;
        Ok(Subset {
            schema: schema.clone(),
        })
    }

    #[cfg_attr(not(feature = "schema-validation"), allow(dead_code))]
    /// A checker used only for its step budget ([`Subset::too_complex`]): it follows the
    /// `$ref`s it can resolve and accepts any schema.
    pub(crate) fn guard(schema: &Value) -> Self {
        Subset {
            schema: schema.clone(),
        }
    }

    #[cfg_attr(not(feature = "schema-validation"), allow(dead_code))]
    /// The violation "too complex to check" when checking `instance` takes more than the
    /// step budget; `None` when it fits. With the `schema-validation` feature it runs before
    /// the full validator, which has no budget of its own and does about the same work.
    pub(crate) fn too_complex(&self, instance: &Value) -> Option<Violation> {
        let violations = self.violations(instance);
        match violations.as_slice() {
            [only] if only.message.starts_with(TOO_COMPLEX) => violations.into_iter().next(),
            _ => None,
        }
    }

    /// Every way `instance` breaks the schema.
    pub(crate) fn violations(&self, instance: &Value) -> Vec<Violation> {
        let steps = Cell::new(0);
        let mut walk = Walk {
            root: &self.schema,
            found: Vec::new(),
            steps: &steps,
        };
        walk.check(&self.schema, instance, "", 0);
        if steps.get() > MAX_STEPS {
            return vec![Violation {
                pointer: String::new(),
                kind: ViolationKind::Other,
                message: format!(
                    "{TOO_COMPLEX} (more than {MAX_STEPS} steps); send a smaller value"
                ),
            }];
        }
        walk.found
    }
}

/// Every `$ref` in `schema` (found under `pointer` in `root`) points into `root`.
fn local_refs_resolve(root: &Value, schema: &Value, pointer: &str) -> Result<(), String> {
    match schema {
        Value::Object(object) => {
            if let Some(Value::String(reference)) = object.get("$ref")
                && resolve(root, reference).is_none()
            {
                return Err(format!(
                    "at `{pointer}/$ref`: `{reference}` does not point into this schema; without \
                     the `schema-validation` feature only references inside the schema (`#`, \
                     `#/$defs/...`) are followed"
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
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
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
pub(super) fn child(pointer: &str, segment: &str) -> String {
    format!(
        "{pointer}/{}",
        segment.replace('~', "~0").replace('/', "~1")
    )
}

/// Refuses a schema in which applying a subschema leads back to itself without moving into
/// the value (`{"$ref": "#"}`, or `anyOf` of a `$ref` to the schema holding it): no
/// validator could finish with it.
pub(crate) fn no_loop_in_place(root: &Value) -> Result<(), String> {
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

/// One check of a value against a schema, collecting violations.
struct Walk<'a> {
    root: &'a Value,
    found: Vec<Violation>,
    /// The (schema, value) pairs visited so far, shared with the walks of `passes`.
    steps: &'a Cell<usize>,
}

impl Walk<'_> {
    fn report(&mut self, pointer: &str, message: String) {
        self.found.push(Violation {
            pointer: pointer.to_owned(),
            kind: ViolationKind::Other,
            message,
        });
    }

    /// Whether `value` passes `schema`, without reporting anything.
    fn passes(&self, schema: &Value, value: &Value, pointer: &str, depth: usize) -> bool {
        let mut walk = Walk {
            root: self.root,
            found: Vec::new(),
            steps: self.steps,
        };
        walk.check(schema, value, pointer, depth);
        walk.found.is_empty()
    }

    fn check(&mut self, schema: &Value, value: &Value, pointer: &str, depth: usize) {
        let object = match schema {
            Value::Object(object) => object,
            Value::Bool(false) => {
                return self.report(pointer, format!("False schema does not allow {value}"));
            }
            _ => return,
        };
        let steps = self.steps.get() + 1;
        self.steps.set(steps);
        if steps > MAX_STEPS {
            // `violations` reports it once; what was found on the way may be partial.
            return;
        }
        if depth > MAX_DEPTH {
            return self.report(
                pointer,
                format!("nested too deeply to check (more than {MAX_DEPTH} levels, or `$ref`s that loop)"),
            );
        }
        if let Some(Value::String(reference)) = object.get("$ref")
            && let Some(target) = resolve(self.root, reference)
        {
            self.check(target, value, pointer, depth + 1);
        }
        self.check_kind(object, value, pointer);
        match value {
            Value::Number(number) => self.check_number(object, number, pointer),
            Value::String(text) => self.check_string(object, text, pointer),
            Value::Array(items) => self.check_array(object, items, value, pointer, depth),
            Value::Object(map) => self.check_object(object, map, value, pointer, depth),
            Value::Null | Value::Bool(_) => {}
        }
        self.check_combinators(object, value, pointer, depth);
    }

    /// `type`, `enum`, `const`.
    fn check_kind(&mut self, object: &Map<String, Value>, value: &Value, pointer: &str) {
        match object.get("type") {
            Some(Value::String(name)) if !has_type(name, value) => {
                self.report(pointer, format!("{value} is not of type \"{name}\""));
            }
            Some(Value::Array(names))
                if !names
                    .iter()
                    .any(|n| n.as_str().is_some_and(|n| has_type(n, value))) =>
            {
                let names: Vec<String> = names
                    .iter()
                    .map(|n| n.as_str().unwrap_or("?").to_owned())
                    .collect();
                self.report(
                    pointer,
                    format!("{value} is not of types \"{}\"", names.join("\", \"")),
                );
            }
            _ => {}
        }
        if let Some(Value::Array(options)) = object.get("enum")
            && !options.iter().any(|option| json_eq(option, value))
        {
            self.report(pointer, enum_message(value, options));
        }
        if let Some(expected) = object.get("const")
            && !json_eq(expected, value)
        {
            self.report(pointer, format!("{expected} was expected"));
        }
    }

    /// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`.
    fn check_number(&mut self, object: &Map<String, Value>, number: &Number, pointer: &str) {
        let flag = |keyword| object.get(keyword) == Some(&Value::Bool(true));
        let bound = |keyword| match object.get(keyword) {
            Some(Value::Number(limit)) => Some(limit),
            _ => None,
        };
        let order = |limit| compare(number, limit);
        if let Some(limit) = bound("minimum") {
            if flag("exclusiveMinimum") && order(limit) != Some(Ordering::Greater) {
                self.report(
                    pointer,
                    format!("{number} is less than or equal to the minimum of {limit}"),
                );
            } else if order(limit) == Some(Ordering::Less) {
                self.report(
                    pointer,
                    format!("{number} is less than the minimum of {limit}"),
                );
            }
        }
        if let Some(limit) = bound("maximum") {
            if flag("exclusiveMaximum") && order(limit) != Some(Ordering::Less) {
                self.report(
                    pointer,
                    format!("{number} is greater than or equal to the maximum of {limit}"),
                );
            } else if order(limit) == Some(Ordering::Greater) {
                self.report(
                    pointer,
                    format!("{number} is greater than the maximum of {limit}"),
                );
            }
        }
        if let Some(limit) = bound("exclusiveMinimum")
            && order(limit) != Some(Ordering::Greater)
        {
            self.report(
                pointer,
                format!("{number} is less than or equal to the minimum of {limit}"),
            );
        }
        if let Some(limit) = bound("exclusiveMaximum")
            && order(limit) != Some(Ordering::Less)
        {
            self.report(
                pointer,
                format!("{number} is greater than or equal to the maximum of {limit}"),
            );
        }
        if let Some(divisor) = bound("multipleOf")
            && !is_multiple(number, divisor)
        {
            self.report(pointer, format!("{number} is not a multiple of {divisor}"));
        }
    }

    /// `minLength`, `maxLength` (in characters).
    fn check_string(&mut self, object: &Map<String, Value>, text: &str, pointer: &str) {
        let length = text.chars().count();
        let shown = Value::String(text.to_owned());
        if let Some(limit) = count_keyword(object, "minLength")
            && length < limit
        {
            self.report(
                pointer,
                format!("{shown} is shorter than {limit} character{}", plural(limit)),
            );
        }
        if let Some(limit) = count_keyword(object, "maxLength")
            && length > limit
        {
            self.report(
                pointer,
                format!("{shown} is longer than {limit} character{}", plural(limit)),
            );
        }
    }

    /// `prefixItems`, `items`, `additionalItems`, `minItems`, `maxItems`, `uniqueItems`, `contains`.
    fn check_array(
        &mut self,
        object: &Map<String, Value>,
        items: &[Value],
        value: &Value,
        pointer: &str,
        depth: usize,
    ) {
        let mut positional = match object.get("prefixItems") {
            Some(Value::Array(schemas)) => schemas.len(),
            _ => 0,
        };
        if let Some(Value::Array(schemas)) = object.get("prefixItems") {
            for (i, (schema, item)) in schemas.iter().zip(items).enumerate() {
                self.check(schema, item, &child(pointer, &i.to_string()), depth + 1);
            }
        }
        match object.get("items") {
            // The list form of drafts 4 to 2019-09, with `additionalItems` for the rest.
            Some(Value::Array(schemas)) => {
                for (i, (schema, item)) in schemas.iter().zip(items).enumerate() {
                    self.check(schema, item, &child(pointer, &i.to_string()), depth + 1);
                }
                positional = schemas.len();
                match object.get("additionalItems") {
                    Some(Value::Bool(false)) if items.len() > positional => {
                        let extra: Vec<String> =
                            items[positional..].iter().map(Value::to_string).collect();
                        let verb = if extra.len() == 1 { "was" } else { "were" };
                        self.report(
                            pointer,
                            format!(
                                "Additional items are not allowed ({} {verb} unexpected)",
                                extra.join(", ")
                            ),
                        );
                    }
                    Some(schema @ Value::Object(_)) => {
                        for (i, item) in items.iter().enumerate().skip(positional) {
                            self.check(schema, item, &child(pointer, &i.to_string()), depth + 1);
                        }
                    }
                    _ => {}
                }
            }
            Some(schema) => {
                for (i, item) in items.iter().enumerate().skip(positional) {
                    self.check(schema, item, &child(pointer, &i.to_string()), depth + 1);
                }
            }
            None => {}
        }
        if let Some(limit) = count_keyword(object, "minItems")
            && items.len() < limit
        {
            self.report(
                pointer,
                format!("{value} has less than {limit} item{}", plural(limit)),
            );
        }
        if let Some(limit) = count_keyword(object, "maxItems")
            && items.len() > limit
        {
            self.report(
                pointer,
                format!("{value} has more than {limit} item{}", plural(limit)),
            );
        }
        if object.get("uniqueItems") == Some(&Value::Bool(true))
            && items
                .iter()
                .enumerate()
                .any(|(i, a)| items[i + 1..].iter().any(|b| json_eq(a, b)))
        {
            self.report(pointer, format!("{value} has non-unique elements"));
        }
        if let Some(schema) = object.get("contains")
            && !items.iter().enumerate().any(|(i, item)| {
                self.passes(schema, item, &child(pointer, &i.to_string()), depth + 1)
            })
        {
            self.report(
                pointer,
                format!("None of {value} are valid under the given schema"),
            );
        }
    }

    /// `properties`, `required`, `additionalProperties`, `minProperties`, `maxProperties`,
    /// `propertyNames`.
    fn check_object(
        &mut self,
        object: &Map<String, Value>,
        map: &Map<String, Value>,
        value: &Value,
        pointer: &str,
        depth: usize,
    ) {
        let properties = match object.get("properties") {
            Some(Value::Object(properties)) => Some(properties),
            _ => None,
        };
        for (name, schema) in properties.into_iter().flatten() {
            if let Some(property) = map.get(name) {
                self.check(schema, property, &child(pointer, name), depth + 1);
            }
        }
        if let Some(Value::Array(required)) = object.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(name) {
                    self.found.push(Violation {
                        pointer: pointer.to_owned(),
                        kind: ViolationKind::Required {
                            property: name.to_owned(),
                        },
                        message: format!(
                            "{} is a required property",
                            Value::String(name.to_owned())
                        ),
                    });
                }
            }
        }
        // Which properties are "additional" depends on `patternProperties`' expressions,
        // which this subset cannot read.
        if !object.contains_key("patternProperties") {
            let extra = map
                .iter()
                .filter(|(name, _)| properties.is_none_or(|p| !p.contains_key(*name)));
            match object.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    let unexpected: Vec<String> = extra.map(|(name, _)| name.clone()).collect();
                    if !unexpected.is_empty() {
                        let listed: Vec<String> =
                            unexpected.iter().map(|n| format!("'{n}'")).collect();
                        let verb = if unexpected.len() == 1 { "was" } else { "were" };
                        self.found.push(Violation {
                            pointer: pointer.to_owned(),
                            message: format!(
                                "Additional properties are not allowed ({} {verb} unexpected)",
                                listed.join(", ")
                            ),
                            kind: ViolationKind::Additional { unexpected },
                        });
                    }
                }
                Some(schema @ Value::Object(_)) => {
                    for (name, property) in extra {
                        self.check(schema, property, &child(pointer, name), depth + 1);
                    }
                }
                _ => {}
            }
        }
        if let Some(limit) = count_keyword(object, "minProperties")
            && map.len() < limit
        {
            self.report(
                pointer,
                format!("{value} has less than {limit} propert{}", plural_y(limit)),
            );
        }
        if let Some(limit) = count_keyword(object, "maxProperties")
            && map.len() > limit
        {
            self.report(
                pointer,
                format!("{value} has more than {limit} propert{}", plural_y(limit)),
            );
        }
        if let Some(schema) = object.get("propertyNames") {
            for name in map.keys() {
                self.check(schema, &Value::String(name.clone()), pointer, depth + 1);
            }
        }
    }

    /// `allOf`, `anyOf`, `oneOf`, `not`, `if` / `then` / `else`.
    fn check_combinators(
        &mut self,
        object: &Map<String, Value>,
        value: &Value,
        pointer: &str,
        depth: usize,
    ) {
        if let Some(Value::Array(schemas)) = object.get("allOf") {
            for schema in schemas {
                self.check(schema, value, pointer, depth + 1);
            }
        }
        if let Some(Value::Array(schemas)) = object.get("anyOf")
            && !schemas
                .iter()
                .any(|s| self.passes(s, value, pointer, depth + 1))
        {
            self.report(
                pointer,
                format!(
                    "{value} is not valid under any of the schemas listed in the 'anyOf' keyword"
                ),
            );
        }
        if let Some(Value::Array(schemas)) = object.get("oneOf") {
            let passed = schemas
                .iter()
                .filter(|s| self.passes(s, value, pointer, depth + 1))
                .count();
            if passed == 0 {
                self.report(
                    pointer,
                    format!("{value} is not valid under any of the schemas listed in the 'oneOf' keyword"),
                );
            } else if passed > 1 {
                self.report(
                    pointer,
                    format!("{value} is valid under more than one of the schemas listed in the 'oneOf' keyword"),
                );
            }
        }
        if let Some(schema) = object.get("not")
            && self.passes(schema, value, pointer, depth + 1)
        {
            self.report(pointer, format!("{schema} is not allowed for {value}"));
        }
        if let Some(condition) = object.get("if") {
            let branch = if self.passes(condition, value, pointer, depth + 1) {
                object.get("then")
            } else {
                object.get("else")
            };
            if let Some(schema) = branch {
                self.check(schema, value, pointer, depth + 1);
            }
        }
    }
}

/// Whether `value` is of the JSON Schema type `name`.
fn has_type(name: &str, value: &Value) -> bool {
    match (name, value) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("object", Value::Object(_))
        | ("array", Value::Array(_))
        | ("string", Value::String(_))
        | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(number)) => {
            number.is_i64()
                || number.is_u64()
                || number
                    .as_f64()
                    .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
        }
        _ => false,
    }
}

/// JSON equality as JSON Schema has it: numbers by value (`1` equals `1.0`).
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => compare(a, b) == Some(Ordering::Equal),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// The order of two numbers: exact for integers, as `f64` otherwise.
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (integer(a), integer(b)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

fn integer(number: &Number) -> Option<i128> {
    number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from))
}

/// Whether `number` is a multiple of `divisor`: exact for integers, within rounding otherwise.
fn is_multiple(number: &Number, divisor: &Number) -> bool {
    match (integer(number), integer(divisor)) {
        (Some(_), Some(0)) => true,
        (Some(n), Some(d)) => n % d == 0,
        _ => match (number.as_f64(), divisor.as_f64()) {
            (Some(n), Some(d)) if d != 0.0 => {
                let quotient = n / d;
                !quotient.is_finite()
                    || (quotient - quotient.round()).abs() <= 1e-9 * quotient.abs().max(1.0)
            }
            _ => true,
        },
    }
}

/// A keyword whose value is a count (`minItems`, ...), if it is one.
fn count_keyword(object: &Map<String, Value>, keyword: &str) -> Option<usize> {
    let value = object.get(keyword)?.as_number()?;
    let count = value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0)
            .map(|f| f as u64)
    })?;
    usize::try_from(count).ok()
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

fn plural_y(count: usize) -> &'static str {
    if count == 1 { "y" } else { "ies" }
}

/// `value is not one of a, b or c`, as the full validator words it.
fn enum_message(value: &Value, options: &[Value]) -> String {
    const SHOWN: usize = 3;
    let shown: Vec<String> = options.iter().map(Value::to_string).collect();
    let list = match shown.as_slice() {
        [] => "nothing".to_owned(),
        [only] => only.clone(),
        [rest @ .., last] if shown.len() <= SHOWN => format!("{} or {last}", rest.join(", ")),
        all => format!(
            "{} or {} other candidates",
            all[..SHOWN - 1].join(", "),
            all.len() - (SHOWN - 1)
        ),
    };
    format!("{value} is not one of {list}")
}

#[cfg(test)]
mod tests {
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
        // With patternProperties the subset cannot tell which are additional.
        let patterned = json!({"patternProperties": {"^x": {}}, "additionalProperties": false});
        assert!(messages(patterned, json!({"y": 1})).is_empty());
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
        // that meets one anyway (the guard of the full validator) stops.
        let looping = json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
        let error = Subset::new(&looping).err().unwrap();
        assert!(error.contains("refers back to itself"), "{error}");
        let found = Subset::guard(&looping).violations(&json!(1));
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("nested too deeply"), "{found:?}");
    }

    #[test]
    fn what_the_subset_leaves_to_the_full_validator() {
        assert!(messages(json!({"pattern": "^a"}), json!("b")).is_empty());
        assert!(messages(json!({"format": "email"}), json!("nope")).is_empty());
    }
}
