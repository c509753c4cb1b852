//! The keywords of numbers and strings.

use std::cmp::Ordering;

use serde_json::{Map, Number, Value};

use super::values::{compare, count_keyword, is_multiple, plural};
use super::walk::Walk;

impl Walk<'_> {
    /// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`.
    pub(super) fn check_number(
        &mut self,
        object: &Map<String, Value>,
        number: &Number,
        pointer: &str,
    ) {
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

    /// `minLength`, `maxLength` (in characters), `pattern` (see [`super::patterns`]).
    pub(super) fn check_string(&mut self, object: &Map<String, Value>, text: &str, pointer: &str) {
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
        if let Some(Value::String(pattern)) = object.get("pattern")
            && self.patterns.matches(pattern, text) == Some(false)
        {
            let pattern = Value::String(pattern.clone());
            self.report(pointer, format!("{shown} does not match {pattern}"));
        }
    }
}
