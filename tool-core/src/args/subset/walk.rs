//! One check of a value against a schema: what it has found, and the work it has done.

use std::cell::Cell;

use serde_json::Value;

use super::patterns::Patterns;
use crate::args::violation::{Violation, ViolationKind};

/// One check of a value against a schema, collecting violations.
pub(super) struct Walk<'a> {
    pub(super) root: &'a Value,
    pub(super) patterns: &'a Patterns,
    pub(super) found: Vec<Violation>,
    /// The (schema, value) pairs visited so far, shared with the walks of `passes`.
    pub(super) steps: &'a Cell<usize>,
}

impl Walk<'_> {
    pub(super) fn report(&mut self, pointer: &str, message: String) {
        self.found.push(Violation {
            pointer: pointer.to_owned(),
            kind: ViolationKind::Other,
            message,
        });
    }

    /// Whether `value` passes `schema`, without reporting anything.
    pub(super) fn passes(
        &self,
        schema: &Value,
        value: &Value,
        pointer: &str,
        depth: usize,
    ) -> bool {
        let mut walk = Walk {
            root: self.root,
            patterns: self.patterns,
            found: Vec::new(),
            steps: self.steps,
        };
        walk.check(schema, value, pointer, depth);
        walk.found.is_empty()
    }
}
