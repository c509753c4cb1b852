//! Arguments checked against JSON Schema by the crate itself: the one engine behind
//! [`SchemaChecker`](super::SchemaChecker) and [`ValueChecker`](super::ValueChecker), for
//! every runtime-built tool and every mounted upstream tool, with a budget of work so that no
//! value can hold a thread.
//!
//! Checked, at any depth: `type` (one name or several; `integer` is any number without a
//! fraction), `enum` and `const` (numbers compared by value), `required`, `properties`,
//! `additionalProperties` (`false` or a schema), `minProperties` / `maxProperties`,
//! `propertyNames`, `items` (a schema, or the older list form with `additionalItems`),
//! `prefixItems`, `minItems` / `maxItems`, `uniqueItems`, `contains`, `minimum` /
//! `maximum` / `exclusiveMinimum` / `exclusiveMaximum` (the draft-4 boolean form too),
//! `multipleOf`, `minLength` / `maxLength`, `allOf` / `anyOf` / `oneOf` / `not`,
//! `if` / `then` / `else`, boolean schemas, and `$ref` to a place in the same schema
//! (`#`, `#/$defs/...`). With the `schema-validation` feature also `pattern` and
//! `patternProperties` (the `regex-lite` crate, see [`patterns`]); without it they are not
//! checked, and with `patternProperties` present neither is `additionalProperties`. Not
//! checked: `format` (only an annotation in 2020-12), `dependentRequired` /
//! `dependentSchemas`, `unevaluated*`; `$ref` to other documents or anchors is refused when
//! the tool is built.

// The layers, lowest first (no module imports one listed after it): values, reference,
// patterns, walk, scalars, arrays, objects, combinators, check.
mod arrays;
mod check;
mod combinators;
mod objects;
mod patterns;
mod reference;
mod scalars;
#[cfg(test)]
mod tests;
mod values;
mod walk;

use std::cell::Cell;

use serde_json::Value;

use self::check::MAX_STEPS;
use self::patterns::Patterns;
use self::reference::{local_refs_resolve, no_loop_in_place};
use self::walk::Walk;
use super::violation::{Violation, ViolationKind};

pub(super) use self::reference::child;

/// How the budget's violation begins.
const TOO_COMPLEX: &str = "the arguments are too complex to check against this schema";

/// The checker for one schema.
pub(crate) struct Subset {
    schema: Value,
    /// The schema's regular expressions, compiled once.
    patterns: Patterns,
}

impl Subset {
    /// A checker for `schema`, or why it cannot check with it: a `$ref` that does not point
    /// into the schema itself, or that loops without moving into the value.
    pub(crate) fn new(schema: &Value) -> Result<Self, String> {
        local_refs_resolve(schema, schema, "")?;
        no_loop_in_place(schema)?;
        Ok(Subset {
            schema: schema.clone(),
            patterns: Patterns::of(schema),
        })
    }

    /// A checker that skips the refusals of [`Subset::new`]: for tests of the depth limit
    /// (a `$ref` loop met during a check).
    #[cfg(test)]
    pub(crate) fn unchecked(schema: &Value) -> Self {
        Subset {
            schema: schema.clone(),
            patterns: Patterns::of(schema),
        }
    }

    /// Every way `instance` breaks the schema.
    pub(crate) fn violations(&self, instance: &Value) -> Vec<Violation> {
        let steps = Cell::new(0);
        let mut walk = Walk {
            root: &self.schema,
            patterns: &self.patterns,
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
