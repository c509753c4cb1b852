//! What `#[prompt]` and `#[resource]` expand to: their link-time submissions, collected
//! through `inventory` like `#[tool]`s.

use std::fmt::Display;
use std::str::FromStr;
use std::sync::Arc;

use crate::context::ToolContext;
use crate::definition::ToolDefinitionError;
use crate::error::ToolError;
use crate::output::Json;
use crate::prompt::{IntoPromptOutput, Prompt, PromptArguments, PromptMessage, PromptOutput};
use crate::resource::{IntoResourceContents, Resource, ResourceContents, ResourceRequest};
use crate::tool::BoxFuture;

/// A `#[prompt]` linked into the binary: the function that builds it.
// Generated code names it through `__private`; not part of the API.
#[doc(hidden)]
pub struct LinkedPrompt {
    /// Builds the prompt (the macro checked what the builder checks, so it does not fail).
    pub build: fn() -> Result<Prompt, ToolDefinitionError>,
}

/// A `#[resource]` linked into the binary: the function that builds it.
#[doc(hidden)]
pub struct LinkedResource {
    /// Builds the resource.
    pub build: fn() -> Result<Resource, ToolDefinitionError>,
}

// Here rather than in `context`, which holds what a tool's call needs.
impl ToolContext {
    /// The context of a prompt's get or a resource's read (no tool call): `name` is what
    /// [`tool_name`](Self::tool_name) says (the prompt's name, the resource's URI), the rest
    /// as [`new`](Self::new); give state with [`with_state`](Self::with_state), a client
    /// with [`with_client`](Self::with_client).
    ///
    /// ```
    /// use toolwright_core::ToolContext;
    /// let ctx = ToolContext::for_primitive("code_review");
    /// assert_eq!(ctx.tool_name(), "code_review");
    /// ```
    pub fn for_primitive(name: impl Into<Arc<str>>) -> Self {
        ToolContext::new().with_tool_name(name)
    }
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
        .filter_map(|linked| built((linked.build)()))
}

/// A linked definition, or `None` (logged) in the case the macro's checks should make
/// impossible: one bad definition must not take the others down.
fn built<T>(result: Result<T, ToolDefinitionError>) -> Option<T> {
    result
        .map_err(|error| tracing::error!(%error, "a linked definition is invalid; it is left out"))
        .ok()
}

/// Every `#[resource]` function linked into the binary, from any crate, in no fixed order.
///
/// ```
/// assert!(toolwright_core::linked_resources().all(|r| !r.name().is_empty()));
/// ```
pub fn linked_resources() -> impl Iterator<Item = Resource> {
    inventory::iter::<LinkedResource>
        .into_iter()
        .filter_map(|linked| built((linked.build)()))
}

/// A required argument of a `#[prompt]`, parsed into its parameter's type.
#[doc(hidden)]
pub fn prompt_arg<T>(args: &PromptArguments, name: &str, prompt: &str) -> Result<T, ToolError>
where
    T: FromStr,
    T::Err: Display,
{
    match args.get(name) {
        Some(value) => parse_value(value, || {
            format!("the argument `{name}` of prompt `{prompt}`")
        }),
        None => Err(ToolError::new(format!(
            "prompt `{prompt}` needs the argument `{name}`; give it and get the prompt again"
        ))),
    }
}

/// An optional argument of a `#[prompt]` (`Option<T>`).
#[doc(hidden)]
pub fn prompt_arg_opt<T>(
    args: &PromptArguments,
    name: &str,
    prompt: &str,
) -> Result<Option<T>, ToolError>
where
    T: FromStr,
    T::Err: Display,
{
    args.get(name)
        .map(|value| {
            parse_value(value, || {
                format!("the argument `{name}` of prompt `{prompt}`")
            })
        })
        .transpose()
}

/// A template variable of a `#[resource]`, parsed into its parameter's type.
#[doc(hidden)]
pub fn uri_var<T>(request: &ResourceRequest, name: &str) -> Result<T, ToolError>
where
    T: FromStr,
    T::Err: Display,
{
    let value = request.variable(name)?;
    parse_value(value, || format!("`{name}` in the URI `{}`", request.uri))
}

fn parse_value<T>(value: &str, what: impl FnOnce() -> String) -> Result<T, ToolError>
where
    T: FromStr,
    T::Err: Display,
{
    value.parse().map_err(|error: T::Err| {
        let ty = std::any::type_name::<T>();
        let ty = ty.rsplit("::").next().unwrap_or(ty);
        ToolError::new(format!(
            "{} is not a valid `{ty}`: {error} (got {value:?})",
            what()
        ))
    })
}

/// What a `#[prompt]` function may return: what [`IntoPromptOutput`] takes, or a `Result`
/// of it whose error is shown.
#[doc(hidden)]
pub trait PromptReturn {
    /// The output, or the error for the client.
    fn into_prompt_result(self) -> Result<PromptOutput, ToolError>;
}

macro_rules! prompt_return {
    ($($ty:ty),*) => {$(
        impl PromptReturn for $ty {
            fn into_prompt_result(self) -> Result<PromptOutput, ToolError> {
                Ok(self.into_prompt_output())
            }
        }
    )*};
}
prompt_return!(
    String,
    &str,
    PromptMessage,
    Vec<PromptMessage>,
    PromptOutput
);

impl<T: IntoPromptOutput, E: Display + 'static> PromptReturn for Result<T, E> {
    fn into_prompt_result(self) -> Result<PromptOutput, ToolError> {
        self.map(IntoPromptOutput::into_prompt_output)
            .map_err(into_tool_error)
    }
}

/// A handler's error as a [`ToolError`]: a `ToolError` as it is (so a resource's
/// [`ToolError::ResourceNotFound`] stays one), any other error by its message.
fn into_tool_error<E: Display + 'static>(error: E) -> ToolError {
    let mut slot = Some(error);
    if let Some(tool_error) = (&mut slot as &mut dyn std::any::Any)
        .downcast_mut::<Option<ToolError>>()
        .and_then(Option::take)
    {
        return tool_error;
    }
    match slot {
        Some(error) => ToolError::new(error),
        None => ToolError::new("the handler failed"),
    }
}

/// What a `#[resource]` function may return: what [`IntoResourceContents`] takes, or a
/// `Result` of it whose error is shown.
#[doc(hidden)]
pub trait ResourceReturn {
    /// The contents of a read of `uri`, or the error for the client.
    fn into_resource_result(self, uri: &str) -> Result<Vec<ResourceContents>, ToolError>;
}

macro_rules! resource_return {
    ($($ty:ty),*) => {$(
        impl ResourceReturn for $ty {
            fn into_resource_result(self, uri: &str) -> Result<Vec<ResourceContents>, ToolError> {
                self.into_resource_contents(uri, None)
            }
        }
    )*};
}
resource_return!(
    String,
    &str,
    Vec<u8>,
    ResourceContents,
    Vec<ResourceContents>
);

impl<T: serde::Serialize> ResourceReturn for Json<T> {
    fn into_resource_result(self, uri: &str) -> Result<Vec<ResourceContents>, ToolError> {
        self.into_resource_contents(uri, None)
    }
}

impl<T: IntoResourceContents, E: Display + 'static> ResourceReturn for Result<T, E> {
    fn into_resource_result(self, uri: &str) -> Result<Vec<ResourceContents>, ToolError> {
        self.map_err(into_tool_error)?
            .into_resource_contents(uri, None)
    }
}

/// A handler's future that has already failed.
#[doc(hidden)]
pub fn primitive_failed<T: Send + 'static>(error: ToolError) -> BoxFuture<Result<T, ToolError>> {
    Box::pin(std::future::ready(Err(error)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_error_keeps_its_kind_through_a_result() {
        let result: Result<String, ToolError> = Err(ToolError::resource_not_found("notes://3"));
        let err = result.into_resource_result("notes://3").unwrap_err();
        assert!(err.is_resource_not_found(), "{err:?}");
        let result: Result<String, String> = Err("no".into());
        assert_eq!(
            result.into_resource_result("x").unwrap_err().to_string(),
            "no"
        );
    }
}
