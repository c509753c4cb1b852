//! JSON as JSON Schema compares it (numbers by value), and the wording of its messages.

use std::cmp::Ordering;

use serde_json::{Map, Number, Value};

/// Whether `value` is of the JSON Schema type `name`.
pub(super) fn has_type(name: &str, value: &Value) -> bool {
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
pub(super) fn json_eq(a: &Value, b: &Value) -> bool {
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
pub(super) fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (integer(a), integer(b)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

pub(super) fn integer(number: &Number) -> Option<i128> {
    number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from))
}

/// Whether `number` is a multiple of `divisor`: exact for integers, within rounding otherwise.
pub(super) fn is_multiple(number: &Number, divisor: &Number) -> bool {
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
pub(super) fn count_keyword(object: &Map<String, Value>, keyword: &str) -> Option<usize> {
    let value = object.get(keyword)?.as_number()?;
    let count = value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0)
            .map(|f| f as u64)
    })?;
    usize::try_from(count).ok()
}

pub(super) fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

pub(super) fn plural_y(count: usize) -> &'static str {
    if count == 1 { "y" } else { "ies" }
}

/// `value is not one of a, b or c`, as the usual JSON Schema validators word it.
pub(super) fn enum_message(value: &Value, options: &[Value]) -> String {
    pub(super) const SHOWN: usize = 3;
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
