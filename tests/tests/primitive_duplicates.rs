//! Linked prompts that share a name: `register_all_tools` refuses and names both
//! definitions. A binary of its own, because the clash would break every other registry.

use toolwright::runtime::RegistryError;
use toolwright::runtime::registry::Primitive;
use toolwright::{prompt, register_all_tools};

use notes_primitives as _;

/// Another prompt named like the fixture's.
#[prompt(name = "summarize")]
fn my_summary() -> &'static str {
    "Summarize."
}

#[test]
fn a_prompt_name_defined_in_two_crates_is_refused_naming_both() {
    let err = register_all_tools().unwrap_err();
    let RegistryError::DuplicatePrimitives { primitive, clashes } = &err else {
        panic!("expected DuplicatePrimitives, got {err:?}");
    };
    assert_eq!(*primitive, Primitive::Prompt);
    assert_eq!(clashes.len(), 1);
    assert_eq!(clashes[0].name, "summarize");
    let crates: Vec<&str> = clashes[0]
        .sources
        .iter()
        .map(|s| s.crate_name.as_ref())
        .collect();
    assert_eq!(crates, ["integration-tests", "notes-primitives"]);
    assert!(err.to_string().contains("rename"), "{err}");
}
