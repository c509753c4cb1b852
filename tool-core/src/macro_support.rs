//! What `#[tool]` expands to: a static definition of the tool and its handler functions,
//! submitted to `inventory`. Not public API; generated code reaches it through
//! `toolwright_core::__private` (re-exported by toolwright-runtime and the facade).
#![allow(missing_docs)]

use std::sync::{Arc, OnceLock};

use schemars::{Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::approval_rule::{ApprovalNeed, ApprovalRule};
use crate::args::{Arguments, Take, ToolParam, take_string, take_strings};
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::file_change::Preview;
use crate::meta::{ToolMeta, ToolSource};
use crate::output::ToolOutput;
use crate::param::ParamInfo;
use crate::state::StateType;
use crate::tool::{
    BoxFuture, Handler, LazySchemas, PreviewHandler, Schemas, Tool, ToolParts, ToolSchemas,
};

/// The handler of a sync `#[tool]` function.
pub type SyncHandlerFn = fn(&ToolContext, Map<String, Value>) -> Result<ToolOutput, ToolError>;

/// The handler of an async `#[tool]` function.
pub type AsyncHandlerFn =
    fn(ToolContext, Map<String, Value>) -> BoxFuture<Result<ToolOutput, ToolError>>;

/// The handler of a `#[tool(preview = ...)]`: reads the arguments like the tool's handler
/// does and calls the preview function with the typed values.
pub type PreviewHandlerFn = fn(&ToolContext, &Map<String, Value>) -> Result<Preview, ToolError>;

/// The rule of a `#[tool(approval = ...)]`: reads the arguments like the tool's handler
/// does and calls the rule function with the typed values.
pub type ApprovalRuleFn = fn(&ToolContext, &Map<String, Value>) -> Result<ApprovalNeed, ToolError>;

/// A `#[tool]` function's handler, as a function pointer (a static cannot hold a closure).
pub enum StaticHandler {
    Sync(SyncHandlerFn),
    Async(AsyncHandlerFn),
}

/// Everything `#[tool]` knows about a tool at compile time.
pub struct ToolDef {
    pub meta: ToolMeta,
    pub source: ToolSource,
    /// Builds the parameters' schemas with the tool's generator.
    pub params: fn(&mut SchemaGenerator) -> Vec<ParamInfo>,
    /// The output schema of the return type.
    pub output_schema: fn(&mut SchemaGenerator) -> Option<Schema>,
    pub handler: StaticHandler,
    pub preview: Option<PreviewHandlerFn>,
    pub approval: Option<ApprovalRuleFn>,
    /// The state the tool reads from the executor: its set's `Self` (first, for a method
    /// taking `&self`), then its `#[state]` parameters' types.
    pub state: &'static [StateType],
}

impl LazySchemas for ToolDef {
    /// The schemas of a `#[tool]`, generated from its Rust types.
    fn schemas(&self) -> ToolSchemas {
        let mut generator = crate::input_schema::generator();
        let params = (self.params)(&mut generator);
        let definitions = generator.take_definitions(true);
        let input_schema = crate::input_schema::object_schema(&params, definitions);
        let params = params
            .into_iter()
            .map(|param| {
                let expected = crate::input_schema::expected_type(param.schema(), &input_schema);
                param.with_expected_type(expected)
            })
            .collect();
        let output_schema =
            (self.output_schema)(&mut crate::input_schema::generator()).map(Schema::to_value);
        ToolSchemas {
            input_schema,
            output_schema,
            params,
        }
    }
}

/// One `#[tool]` function's static: its definition and its [`Tool`], built once.
pub struct ToolFactory {
    def: ToolDef,
    tool: OnceLock<Tool>,
}

impl ToolFactory {
    pub const fn new(def: ToolDef) -> Self {
        ToolFactory {
            def,
            tool: OnceLock::new(),
        }
    }

    /// The tool, built on first use and cached; its schemas are generated when first
    /// needed, once per process.
    pub fn tool(&'static self) -> Tool {
        self.tool.get_or_init(|| self.build()).clone()
    }

    fn build(&'static self) -> Tool {
        let def = &self.def;
        let handler = match def.handler {
            StaticHandler::Sync(f) => Handler::Sync(std::sync::Arc::new(f)),
            StaticHandler::Async(f) => Handler::Async(std::sync::Arc::new(f)),
        };
        Tool::from_parts(ToolParts {
            // Borrowed strings: cloning them copies pointers.
            meta: def.meta.clone(),
            source: def.source.clone(),
            handler,
            preview: def
                .preview
                .map(|f| std::sync::Arc::new(f) as PreviewHandler),
            approval: def.approval.map(|f| std::sync::Arc::new(f) as ApprovalRule),
            schemas: Schemas::Lazy(def),
            state: std::borrow::Cow::Borrowed(def.state),
            origin: Some(self.origin()),
            caller_token: false,
        })
    }

    /// The identity of the definition: the static's address.
    fn origin(&'static self) -> usize {
        std::ptr::from_ref(self) as usize
    }
}

/// The handler of a sync `#[tool_set]` method taking `&self`.
pub type SetSyncFn<S> = fn(&S, &ToolContext, Map<String, Value>) -> Result<ToolOutput, ToolError>;

/// The handler of an async `#[tool_set]` method taking `&self`: the future owns a handle.
pub type SetAsyncFn<S> =
    fn(Arc<S>, ToolContext, Map<String, Value>) -> BoxFuture<Result<ToolOutput, ToolError>>;

/// A method of a `#[tool_set]` that takes `&self`, run on the instance given.
pub enum SetHandler<S> {
    Sync(SetSyncFn<S>),
    Async(SetAsyncFn<S>),
}

/// The preview of a `#[tool_set]` method whose preview function takes `&self`.
pub type SetPreviewFn<S> = fn(&S, &ToolContext, &Map<String, Value>) -> Result<Preview, ToolError>;

/// The approval rule of a `#[tool_set]` method whose rule function takes `&self`.
pub type SetApprovalFn<S> =
    fn(&S, &ToolContext, &Map<String, Value>) -> Result<ApprovalNeed, ToolError>;

/// One `#[tool]` method of a `#[tool_set]`: the linked tool (which finds `Self` in the
/// executor's state) and, for a method taking `&self`, the functions that run it on an
/// instance given by `ToolRegistry::register_set`.
pub struct SetTool<S: 'static> {
    linked: &'static ToolFactory,
    handler: Option<SetHandler<S>>,
    preview: Option<SetPreviewFn<S>>,
    approval: Option<SetApprovalFn<S>>,
}

impl<S: 'static> SetTool<S> {
    // No `Send + Sync` bound here: a set whose type is not `Sync` is reported once, at the
    // `ToolSet` impl, not again at every use.
    pub const fn new(
        linked: &'static ToolFactory,
        handler: Option<SetHandler<S>>,
        preview: Option<SetPreviewFn<S>>,
        approval: Option<SetApprovalFn<S>>,
    ) -> Self {
        SetTool {
            linked,
            handler,
            preview,
            approval,
        }
    }
}

impl<S: Send + Sync + 'static> SetTool<S> {
    /// The tool, run on `instance`: the linked tool's metadata and schemas (made once per
    /// process), a handler that holds the instance, and the state it still needs (its
    /// `#[state]` parameters; not `Self`, which it holds).
    pub(crate) fn bind(&'static self, instance: &Arc<S>) -> Tool {
        let linked = self.linked.tool();
        let Some(handler) = &self.handler else {
            // An associated function without `self`: nothing to bind.
            return linked;
        };
        let def = &self.linked.def;
        let handler = match *handler {
            SetHandler::Sync(f) => {
                let instance = Arc::clone(instance);
                Handler::Sync(Arc::new(move |ctx: &ToolContext, args| {
                    f(&instance, ctx, args)
                }))
            }
            SetHandler::Async(f) => {
                let instance = Arc::clone(instance);
                Handler::Async(Arc::new(move |ctx, args| {
                    f(Arc::clone(&instance), ctx, args)
                }))
            }
        };
        let preview = match (self.preview, def.preview) {
            (Some(f), _) => {
                let instance = Arc::clone(instance);
                Some(
                    Arc::new(move |ctx: &ToolContext, args: &Map<String, Value>| {
                        f(&instance, ctx, args)
                    }) as PreviewHandler,
                )
            }
            (None, linked_preview) => linked_preview.map(|f| Arc::new(f) as PreviewHandler),
        };
        let approval = match (self.approval, def.approval) {
            (Some(f), _) => {
                let instance = Arc::clone(instance);
                Some(
                    Arc::new(move |ctx: &ToolContext, args: &Map<String, Value>| {
                        f(&instance, ctx, args)
                    }) as ApprovalRule,
                )
            }
            (None, linked_approval) => linked_approval.map(|f| Arc::new(f) as ApprovalRule),
        };
        let own = StateType::of::<S>();
        let state: Vec<StateType> = def.state.iter().copied().filter(|s| *s != own).collect();
        Tool::from_parts(ToolParts {
            meta: def.meta.clone(),
            source: def.source.clone(),
            handler,
            preview,
            approval,
            schemas: Schemas::SameAs(linked),
            state: std::borrow::Cow::Owned(state),
            origin: Some(self.linked.origin()),
            caller_token: false,
        })
    }
}

/// A value of the executor's state for a tool: `#[state]` parameters and a tool set's
/// `Self`, by reference.
pub fn state_of<'a, T: Send + Sync + 'static>(
    ctx: &'a ToolContext,
    tool: &str,
) -> Result<&'a T, ToolError> {
    ctx.state::<T>().ok_or_else(|| missing_state::<T>(tool))
}

pub(crate) fn missing_state<T>(tool: &str) -> ToolError {
    ToolError::new(format!(
        "tool `{tool}` is not configured: it needs a `{}` in the executor's state; the \
         application adds it with `Executor::builder(..).state(value)` (an executor built \
         with `try_build` reports this before any call)",
        std::any::type_name::<T>()
    ))
}

/// What `inventory` collects: a reference to a `#[tool]`'s static (the static holds the
/// cache, which `inventory` could not hold by value).
pub struct LinkedTool(pub &'static ToolFactory);

inventory::collect!(LinkedTool);

/// Every `#[tool]` function linked into the program, from any crate, in no particular order
/// and unchecked: toolwright-runtime's `register_all_tools` sorts them, refuses names that
/// several share, and holds them in a registry. With this crate alone, this is how a crate
/// of `#[tool]` functions reaches its tools (in its tests, say).
///
/// ```
/// use toolwright_core::tool;
///
/// /// Say hello.
/// #[tool]
/// fn say_hello() -> &'static str {
///     "hello"
/// }
///
/// assert!(toolwright_core::linked_tools().any(|t| t.name() == "say_hello"));
/// ```
pub fn linked_tools() -> impl Iterator<Item = Tool> {
    inventory::iter::<LinkedTool>
        .into_iter()
        .map(|linked| linked.0.tool())
}

/// The error for a parameter that `Arguments::finish` accepted but that has no value;
/// unreachable unless generated code is wrong, and then a failure instead of a panic.
pub fn missing_value(tool: &'static str, name: &str) -> ToolError {
    ToolError::new(format!(
        "internal error in tool `{tool}`: parameter `{name}` was accepted but has no value"
    ))
}

/// One parameter's schema, from its type, with its description and default.
pub fn param<T: ToolParam>(
    generator: &mut SchemaGenerator,
    name: &str,
    description: Option<&str>,
    required: bool,
    secret: bool,
    default: Option<Value>,
) -> ParamInfo {
    let mut schema = crate::input_schema::normalized(generator.subschema_for::<T>());
    if let Some(description) = description {
        schema.insert("description".into(), Value::String(description.to_owned()));
    }
    if let Some(default) = &default {
        schema.insert("default".into(), default.clone());
    }
    ParamInfo::new(
        name,
        description,
        required,
        secret,
        schema.to_value(),
        default,
    )
}

/// Makes a default value's JSON form when its type is `Serialize`, and nothing otherwise,
/// without requiring `Serialize` of parameter types (autoref specialization:
/// `(&DefaultValue(v)).to_json()` picks the `Serialize` impl when it applies).
pub struct DefaultValue<T>(pub T);

pub trait DefaultViaSerialize {
    fn to_json(&self) -> Option<Value>;
}

impl<T: Serialize> DefaultViaSerialize for DefaultValue<T> {
    fn to_json(&self) -> Option<Value> {
        serde_json::to_value(&self.0).ok()
    }
}

pub trait DefaultWithoutSerialize {
    fn to_json(&self) -> Option<Value>;
}

impl<T> DefaultWithoutSerialize for &DefaultValue<T> {
    fn to_json(&self) -> Option<Value> {
        None
    }
}

/// Checks that an async tool's future can move between threads (the executor runs tools on
/// a multi-threaded runtime); rustc's own error names what is not `Send` and where.
pub fn assert_send<F: std::future::Future + Send>(future: F) -> F {
    future
}

/// Every operation generated code does with one parameter type, behind a single
/// `T: ToolParam` bound: a type that is not a parameter is reported once, at the type.
#[allow(
    clippy::type_complexity,
    reason = "a table of the functions generated code calls; naming each type would add noise"
)]
pub struct ParamOps<T> {
    pub schema:
        fn(&mut SchemaGenerator, &str, Option<&str>, bool, bool, Option<Value>) -> ParamInfo,
    pub required: fn(&mut Arguments<'_, '_>, usize, Take<T>) -> Option<T>,
    pub optional: fn(&mut Arguments<'_, '_>, usize, Take<T>) -> Option<T>,
    pub with_default: fn(&mut Arguments<'_, '_>, usize, fn() -> T, Take<T>) -> Option<T>,
}

pub const fn param_ops<T: ToolParam>() -> ParamOps<T> {
    ParamOps {
        schema: param::<T>,
        required: read_required::<T>,
        optional: read_optional::<T>,
        with_default: read_with_default::<T>,
    }
}

// Free functions, so the table's entries take an `Arguments` of any lifetime (a method's
// lifetime comes from its impl and would be fixed).
fn read_required<T: ToolParam>(
    args: &mut Arguments<'_, '_>,
    index: usize,
    take: Take<T>,
) -> Option<T> {
    args.required(index, take)
}

fn read_optional<T: ToolParam>(
    args: &mut Arguments<'_, '_>,
    index: usize,
    take: Take<T>,
) -> Option<T> {
    args.optional(index, take)
}

fn read_with_default<T: ToolParam>(
    args: &mut Arguments<'_, '_>,
    index: usize,
    default: fn() -> T,
    take: Take<T>,
) -> Option<T> {
    args.with_default(index, default, take)
}

/// Picks a parameter's [`Take`] by its type, in generated code where the type is known
/// (autoref specialization, like [`DefaultValue`]): `(&TakeFor::<T>::NEW).take()` finds
/// [`TakeMoving`] for the types whose value moves out of the JSON, and [`TakeThroughSerde`]
/// (one reference further) for every other type. Neither asks anything of `T`, so a type
/// that cannot be a parameter is reported once, by `param_ops`.
pub struct TakeFor<T>(std::marker::PhantomData<fn() -> T>);

impl<T> TakeFor<T> {
    pub const NEW: Self = TakeFor(std::marker::PhantomData);
}

pub trait TakeMoving {
    type Param;
    fn take(&self) -> Take<Self::Param>;
}

impl TakeMoving for TakeFor<String> {
    type Param = String;
    fn take(&self) -> Take<String> {
        Some(take_string)
    }
}

impl TakeMoving for TakeFor<Vec<String>> {
    type Param = Vec<String>;
    fn take(&self) -> Take<Vec<String>> {
        Some(take_strings)
    }
}

pub trait TakeThroughSerde {
    type Param;
    fn take(&self) -> Take<Self::Param>;
}

impl<T> TakeThroughSerde for &TakeFor<T> {
    type Param = T;
    fn take(&self) -> Take<T> {
        None
    }
}

/// An async handler's answer when it fails before its future is made (a tool set's `Self`
/// missing from the state).
pub fn failed_future(error: ToolError) -> BoxFuture<Result<ToolOutput, ToolError>> {
    Box::pin(std::future::ready(Err(error)))
}

#[cfg(test)]
mod tests {
    use super::{TakeFor, TakeMoving as _, TakeThroughSerde as _};

    #[test]
    #[allow(
        clippy::needless_borrow,
        reason = "the borrow is what picks the impl, as in generated code"
    )]
    fn strings_move_and_other_types_go_through_serde() {
        assert!((&TakeFor::<String>::NEW).take().is_some());
        assert!((&TakeFor::<Vec<String>>::NEW).take().is_some());
        assert!((&TakeFor::<u32>::NEW).take().is_none());
        assert!((&TakeFor::<Vec<u8>>::NEW).take().is_none());
        assert!((&TakeFor::<Option<String>>::NEW).take().is_none());
    }
}
