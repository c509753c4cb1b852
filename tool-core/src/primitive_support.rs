//! What `#[prompt]` and `#[resource]` expand to: their link-time submissions, collected
//! through `inventory` like `#[tool]`s.

use crate::prompt::Prompt;
use crate::resource::Resource;

/// A `#[prompt]` linked into the binary: the function that builds it.
// Generated code names it through `__private`; not part of the API.
#[doc(hidden)]
pub struct LinkedPrompt {
    /// Builds the prompt (checked at compile time, so it cannot fail).
    pub build: fn() -> Prompt,
}

/// A `#[resource]` linked into the binary: the function that builds it.
#[doc(hidden)]
pub struct LinkedResource {
    /// Builds the resource.
    pub build: fn() -> Resource,
}

inventory::collect!(LinkedPrompt);
inventory::collect!(LinkedResource);

/// Every `#[prompt]` function linked into the binary, from any crate, in no fixed order
/// (the registry sorts them: `toolwright_runtime::register_all_tools`).
///
/// ```
/// assert!(toolwright_core::linked_prompts().all(|p| !p.name().is_empty()));
/// ```
pub fn linked_prompts() -> impl Iterator<Item = Prompt> {
    inventory::iter::<LinkedPrompt>
        .into_iter()
        .map(|linked| (linked.build)())
}

/// Every `#[resource]` function linked into the binary, from any crate, in no fixed order.
///
/// ```
/// assert!(toolwright_core::linked_resources().all(|r| !r.name().is_empty()));
/// ```
pub fn linked_resources() -> impl Iterator<Item = Resource> {
    inventory::iter::<LinkedResource>
        .into_iter()
        .map(|linked| (linked.build)())
}
