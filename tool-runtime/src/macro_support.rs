//! What `#[tool]` expands to: a static description of the tool and the adapter functions,
#![allow(missing_docs)]
//! submitted to `inventory`. Not public API; reached through `tool_runtime::__private`.

use std::sync::{Arc, OnceLock};

use schemars::{Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::args::Arguments;
use crate::tool::{BoxFuture, Described, Description, Handler, ToolInner};
use crate::{
    ParamInfo, SafetyLevel, Tool, ToolContext, ToolError, ToolOutput, ToolSource, ToolSpec,
};

/// The adapter of a sync `#[tool]` function.
pub type SyncAdapter = fn(&ToolContext, Map<String, Value>) -> Result<ToolOutput, ToolError>;

/// The adapter of an async `#[tool]` function.
pub type AsyncAdapter =
    fn(ToolContext, Map<String, Value>) -> BoxFuture<Result<ToolOutput, ToolError>>;

/// A `#[tool]` function's adapter.
pub enum MacroHandler {
    Sync(SyncAdapter),
    Async(AsyncAdapter),
}

/// Everything `#[tool]` knows about a tool at compile time.
pub struct ToolDef {
    pub name: &'static str,
    pub description: &'static str,
    pub version: Option<&'static str>,
    pub safety: SafetyLevel,
    pub categories: &'static [&'static str],
    pub tags: &'static [&'static str],
    pub priority: i32,
    pub source: ToolSource,
    /// Builds the parameters' schemas with the tool's generator.
    pub params: fn(&mut SchemaGenerator) -> Vec<ParamInfo>,
    /// The output schema of the return type.
    pub output_schema: fn(&mut SchemaGenerator) -> Option<Schema>,
    pub handler: MacroHandler,
    /// Renders what a call would do, for approval (`#[tool(preview = ...)]`).
    pub preview: Option<PreviewAdapter>,
}

/// A `#[tool(preview = ...)]` function.
pub type PreviewAdapter = fn(&ToolContext, &Map<String, Value>) -> Result<String, ToolError>;

/// Coerces a `preview = ...` function, so a wrong signature is a plain type mismatch at it.
pub const fn preview_adapter(preview: PreviewAdapter) -> PreviewAdapter {
    preview
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
        self.tool.get_or_init(|| build(&self.def)).clone()
    }
}

/// What `inventory` collects: a reference to a `#[tool]`'s static (the static holds the
/// cache, which `inventory` could not hold by value).
pub struct LinkedTool(pub &'static ToolFactory);

inventory::collect!(LinkedTool);

/// Every `#[tool]` linked into the binary.
pub(crate) fn linked_tools() -> impl Iterator<Item = Tool> {
    inventory::iter::<LinkedTool>
        .into_iter()
        .map(|linked| linked.0.tool())
}

fn build(def: &'static ToolDef) -> Tool {
    let handler = match def.handler {
        MacroHandler::Sync(f) => Handler::Sync(Arc::new(f)),
        MacroHandler::Async(f) => Handler::Async(Arc::new(f)),
    };
    Tool {
        inner: Arc::new(ToolInner {
            name: def.name.to_owned(),
            description_text: def.description.to_owned(),
            version: def.version.map(str::to_owned),
            safety: def.safety,
            categories: def.categories.iter().map(|c| (*c).to_owned()).collect(),
            tags: def.tags.iter().map(|t| (*t).to_owned()).collect(),
            priority: def.priority,
            source: def.source.clone(),
            handler,
            preview: def.preview.map(|f| Arc::new(f) as crate::tool::PreviewFn),
            described: Description::Lazy {
                def,
                cell: OnceLock::new(),
            },
            exports: Default::default(),
        }),
    }
}

/// The spec and parameters of a `#[tool]`: its schemas, generated from its Rust types.
pub(crate) fn describe(def: &ToolDef) -> Described {
    let mut generator = crate::input_schema::generator();
    let mut params = (def.params)(&mut generator);
    let definitions = generator.take_definitions(true);
    let input_schema = crate::input_schema::object_schema(&params, definitions);
    for param in &mut params {
        let expected = crate::input_schema::describe(param.schema(), &input_schema);
        param.set_expected(expected);
    }
    let output_schema =
        (def.output_schema)(&mut crate::input_schema::generator()).map(Schema::to_value);
    Described {
        spec: ToolSpec {
            name: def.name.to_owned(),
            description: def.description.to_owned(),
            version: def.version.map(str::to_owned),
            safety: def.safety,
            categories: def.categories.iter().map(|c| (*c).to_owned()).collect(),
            tags: def.tags.iter().map(|t| (*t).to_owned()).collect(),
            input_schema,
            output_schema,
        },
        params,
    }
}

/// One parameter's schema, from its type, with its description and default.
pub fn param<T: crate::ToolParam>(
    generator: &mut SchemaGenerator,
    name: &str,
    description: Option<&str>,
    required: bool,
    secret: bool,
    default: Option<Value>,
) -> ParamInfo {
    let mut schema = generator.subschema_for::<T>();
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
    pub required: fn(&mut Arguments, usize) -> Option<T>,
    pub optional: fn(&mut Arguments, usize) -> Option<T>,
    pub with_default: fn(&mut Arguments, usize, fn() -> T) -> Option<T>,
}

pub const fn param_ops<T: crate::ToolParam>() -> ParamOps<T> {
    ParamOps {
        schema: param::<T>,
        required: Arguments::required::<T>,
        optional: Arguments::optional::<T>,
        with_default: Arguments::with_default::<T>,
    }
}
