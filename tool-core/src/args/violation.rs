//! One way a value breaks a JSON Schema: what the checker ([`super::subset`]) reports, and
//! the argument checker turns into [`ArgumentError`](super::ArgumentError)s.

/// One way an instance breaks a schema.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Violation {
    /// JSON Pointer to the offending value in the instance, `""` for the whole of it.
    pub(super) pointer: String,
    /// What kind of problem it is, for the ones an argument error names.
    pub(super) kind: ViolationKind,
    /// What the schema requires there, in JSON Schema's words.
    pub(super) message: String,
}

/// The kinds of [`Violation`] that become their own [`ArgumentError`](super::ArgumentError) at the top level.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum ViolationKind {
    /// `required` names `property`, which is absent.
    Required {
        /// The absent property.
        property: String,
    },
    /// `additionalProperties` refuses these properties.
    Additional {
        /// The properties refused.
        unexpected: Vec<String>,
    },
    /// Anything else.
    Other,
}
