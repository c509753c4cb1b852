//! The code `#[tool]` generates beside the function.
//!
//! It takes the function (with its parameters' docs and `#[arg]`s already taken off), its
//! [`Signature`] and the checked [`ToolModel`], and emits the function unchanged followed
//! by an anonymous `const` that registers the tool. For
//!
//! ```text
//! /// Read a file.
//! #[tool(categories(filesystem))]
//! fn read_file(ctx: &ToolContext, /// Path
//!              path: String, #[arg(default = 4096)] max_bytes: u64) -> Result<String, ToolError> { .. }
//! ```
//!
//! it emits (paths and names shortened; `__tool_rt` is `<crate>::__private`, where `<crate>` is
//! `crate = ...` or the front the user wrote it through, `::toolwright` here):
//!
//! ```text
//! const _: () = {
//!     use ::toolwright::__private as __tool_rt;
//!     fn __tool_default_1() -> u64 { 4096 }          // one per `default`, spanned at it
//!     fn __tool_params(gen) -> Vec<ParamInfo> {     // one schema per parameter
//!         Vec::from([(param_ops::<String>().schema)(gen, "path", Some("Path"), true, false, None), ..])
//!     }
//!     fn __tool_output_schema(gen) -> Option<Schema> { /* from the return type */ }
//!     // The arguments read into the parameters' types: once, for the call and the preview.
//!     fn __tool_read(mut map: Map<String, Value>) -> Result<(String, u64,), ToolError> {
//!         let mut slots: [Option<&mut Value>; 2] = [const { None }; 2];  // into the map
//!         let mut args = Arguments::new("read_file", &mut map, &["path", "max_bytes"], &mut slots);
//!         // by position; `take`: a `String` moves out of the JSON (autoref specialization)
//!         let arg_0 = (param_ops::<String>().required)(&mut args, 0, (&TakeFor::<String>::NEW).take());
//!         let arg_1 = (param_ops::<u64>().with_default)(&mut args, 1, __tool_default_1, (&TakeFor::<u64>::NEW).take());
//!         args.finish()?;                                             // every problem at once
//!         let Some(arg_0) = arg_0 else { return Err(missing_value("read_file", "path")) };
//!         let Some(arg_1) = arg_1 else { .. };
//!         Ok((arg_0, arg_1,))
//!     }
//!     fn __tool_call(ctx: &ToolContext, args: Map<String, Value>) -> Result<ToolOutput, ToolError> {
//!         let (arg_0, arg_1,) = __tool_read(args)?;
//!         let out: Result<String, ToolError> = read_file(ctx, arg_0, arg_1);
//!         <Result<String, ToolError> as IntoToolOutput>::into_tool_output(out)
//!     }
//!     static __TOOL: ToolFactory = ToolFactory::new(ToolDef {
//!         meta: ToolMeta { name: Cow::Borrowed("read_file"), categories: Cow::Borrowed(&[..]), .. },
//!         source: ToolSource::new(..), params: __tool_params, output_schema: __tool_output_schema,
//!         handler: StaticHandler::Sync(__tool_call), preview: None, approval: None,
//!         state: const { &[] },
//!     });
//!     inventory::submit! { LinkedTool(&__TOOL) }
//! };
//! ```
//!
//! A `#[state] pool: &Pool` parameter is read after the arguments with
//! `let __tool_state_0: &Pool = state_of::<Pool>(ctx, "read_file")?;` and listed in the
//! static's `state`. For a method of a `#[tool_set]` (see `tool_set.rs`) the call is
//! `__ToolSelf::method(..)`, and a method taking `&self` also gets `__tool_call_on(this, ctx,
//! args)`, which `__tool_call` calls with the instance found in the executor's state.
//!
//! An `async fn`'s `__tool_call` takes the context by value and returns
//! `Box::pin(assert_send(async move { .. }))` (the same body, calling with `&ctx` and
//! `.await`), named by `StaticHandler::Async`. `preview = path` adds `__tool_preview`, which
//! reads the arguments with `__tool_read` and calls `path(ctx, &arg_0, &arg_1)`;
//! `approval = path` adds `__tool_approval`, the same through `IntoApproval`. `timeout =
//! "30s"`, `max_calls = 10` and `task = "required"` go into the `ToolMeta` literal
//! (`timeout: Some(Duration::from_millis(30000))`, `max_calls: Some(10u32)`,
//! `task_support: TaskSupport::Required`).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, ItemFn, Type};

use crate::signature::{Input, Param, Signature};
use crate::validate::{PreviewTarget, ToolModel};

/// How the generated code reaches the function.
#[derive(Clone, Copy)]
pub(crate) enum Target<'a> {
    /// A free function, by its name.
    Free(&'a Ident),
    /// A method of a `#[tool_set]`, through the `__ToolSelf` alias of the impl's type; with
    /// `receiver`, it takes `&self`.
    Method { ident: &'a Ident, receiver: bool },
}

impl Target<'_> {
    fn ident(&self) -> &Ident {
        match self {
            Target::Free(ident) | Target::Method { ident, .. } => ident,
        }
    }

    fn needs_instance(&self) -> bool {
        matches!(self, Target::Method { receiver: true, .. })
    }
}

/// The function, then the `const` block that defines and registers its tool.
pub(crate) fn expand(function: &ItemFn, signature: &Signature, model: &ToolModel) -> TokenStream {
    let krate = &model.krate;
    let items = tool_items(Target::Free(&function.sig.ident), signature, model).items;
    quote! {
        #function

        #[doc(hidden)]
        #[allow(non_snake_case, clippy::needless_borrow, clippy::unnecessary_lazy_evaluations)]
        const _: () = {
            use #krate::__private as __tool_rt;

            #items
        };
    }
}

/// A tool's generated items, and for a method of a set the expressions of its
/// `SetHandler`, `SetPreviewFn` and `SetApprovalFn` (the functions that run it on an
/// instance).
pub(crate) struct ToolItems {
    pub(crate) items: TokenStream,
    pub(crate) set_handler: TokenStream,
    pub(crate) set_preview: TokenStream,
    pub(crate) set_approval: TokenStream,
}

/// Everything that defines and registers one tool, for a `const` block (or a function body)
/// where `__tool_rt` names the runtime's `__private` module.
pub(crate) fn tool_items(
    target: Target<'_>,
    signature: &Signature,
    model: &ToolModel,
) -> ToolItems {
    let params: Vec<&Param> = signature.params().collect();
    let defaults = default_fns(&params);
    let params_fn = params_fn(&params);
    let output_schema_fn = output_schema_fn(&signature.output);
    let read_fn = read_fn(&model.name, &params);
    let (call_fns, handler, set_handler) = call_fn(target, signature, &params, &model.name);
    let (preview_fns, preview, set_preview) = preview_fn(model, &params);
    let (approval_fns, approval, set_approval) = approval_fn(model, &params);
    let state_list = state_list(target, signature);
    let tool_static = tool_static(
        target.ident(),
        model,
        &StaticFns {
            handler: &handler,
            preview: &preview,
            approval: &approval,
            state: &state_list,
        },
    );
    ToolItems {
        items: quote! {
            #(#defaults)*

            #params_fn

            #output_schema_fn

            #read_fn

            #call_fns

            #preview_fns

            #approval_fns

            #tool_static

            __tool_rt::inventory::submit! {
                __tool_rt::LinkedTool(&__TOOL)
            }
        },
        set_handler,
        set_preview,
        set_approval,
    }
}

/// The types of state the tool reads: `Self` for a method taking `&self`, then the
/// `#[state]` parameters' types.
fn state_list(target: Target<'_>, signature: &Signature) -> TokenStream {
    let own = target
        .needs_instance()
        .then(|| quote!(__tool_rt::StateType::of::<__ToolSelf>()));
    let params = signature.states().filter_map(|state| {
        let ty = state.state_type()?;
        Some(quote!(__tool_rt::StateType::of::<#ty>()))
    });
    let all = own.into_iter().chain(params);
    // A `const` block: a reference to the array lives for the whole program.
    quote!(const { &[#(#all),*] })
}

/// One function per `#[arg(default = ...)]`, so the expression is written once and its
/// type errors point at it.
fn default_fns(params: &[&Param]) -> Vec<TokenStream> {
    params
        .iter()
        .enumerate()
        .filter_map(|(i, param)| {
            let expr = param.default.as_ref()?;
            let ident = default_fn_ident(i);
            let ty = &param.ty;
            Some(quote_spanned! {expr_span(expr)=>
                fn #ident() -> #ty { #expr }
            })
        })
        .collect()
}

/// `__tool_params`: the schema of every parameter, with its name, docs and flags.
fn params_fn(params: &[&Param]) -> TokenStream {
    let param_infos = params.iter().enumerate().map(|(i, param)| {
        let json_name = &param.json_name;
        let schema_ty = param.option_inner.as_ref().unwrap_or(&param.ty);
        let description = match &param.description {
            Some(text) => quote!(__tool_rt::Some(#text)),
            None => quote!(__tool_rt::None),
        };
        let required = param.is_required();
        let secret = param.secret;
        let default = if param.default.is_some() {
            let ty = &param.ty;
            let default_fn = default_fn_ident(i);
            quote! {{
                #[allow(unused_imports)]
                use __tool_rt::{DefaultViaSerialize as _, DefaultWithoutSerialize as _};
                (&__tool_rt::DefaultValue::<#ty>(#default_fn())).to_json()
            }}
        } else {
            quote!(__tool_rt::None)
        };
        let header = param
            .header
            .as_ref()
            .map(|name| quote!(.with_header(#name)));
        quote! {
            (__tool_rt::param_ops::<#schema_ty>().schema)(
                __tool_gen, #json_name, #description, #required, #secret, #default,
            ) #header
        }
    });
    quote! {
        fn __tool_params(
            __tool_gen: &mut __tool_rt::SchemaGenerator,
        ) -> __tool_rt::Vec<__tool_rt::ParamInfo> {
            __tool_rt::Vec::from([#(#param_infos),*])
        }
    }
}

/// `__tool_output_schema`: the schema of the return type, if it has one.
fn output_schema_fn(output: &Type) -> TokenStream {
    quote! {
        fn __tool_output_schema(
            __tool_gen: &mut __tool_rt::SchemaGenerator,
        ) -> __tool_rt::Option<__tool_rt::Schema> {
            <#output as __tool_rt::IntoToolOutput>::output_schema(__tool_gen)
        }
    }
}

/// The names of the bindings that hold the parameters' values, in order.
fn bindings(params: &[&Param]) -> Vec<Ident> {
    (0..params.len())
        .map(|i| format_ident!("__tool_arg_{}", i))
        .collect()
}

/// The functions that run the tool from the model's JSON arguments, the `StaticHandler` of
/// the linked tool, and (for a method taking `&self`) the `SetHandler` that runs it on an
/// instance.
///
/// A free function or an associated function gets `__tool_call(ctx, args)`. A method taking
/// `&self` gets `__tool_call_on(this, ctx, args)`, and `__tool_call(ctx, args)` finds `this`
/// in the executor's state and calls it.
fn call_fn(
    target: Target<'_>,
    signature: &Signature,
    params: &[&Param],
    tool_name: &str,
) -> (TokenStream, TokenStream, TokenStream) {
    let fn_ident = target.ident();
    let output = &signature.output;
    let bindings = bindings(params);
    let call_args = call_args(signature, &bindings);
    let callee = match target {
        Target::Free(ident) => quote!(#ident),
        Target::Method { ident, .. } => quote!(__ToolSelf::#ident),
    };
    let context = if signature.is_async {
        quote!(&__tool_ctx)
    } else {
        quote!(__tool_ctx)
    };
    let states = signature.states().enumerate().filter_map(|(i, state)| {
        let ty = state.state_type()?;
        let binding = state_binding(i);
        Some(quote! {
            let #binding: &#ty = __tool_rt::state_of::<#ty>(#context, #tool_name)?;
        })
    });
    let body = quote! {
        let (#(#bindings,)*) = __tool_read(__tool_args)?;
        #(#states)*
    };
    let args_ty = quote!(__tool_rt::Map<__tool_rt::String, __tool_rt::Value>);
    let result_ty = quote!(__tool_rt::Result<__tool_rt::ToolOutput, __tool_rt::ToolError>);
    if signature.is_async {
        // Spanned at the function's name, so a non-`Send` future is reported there.
        let future = quote_spanned! {fn_ident.span()=>
            __tool_rt::assert_send(async move {
                #body
                let __tool_out: #output = #callee(#(#call_args),*).await;
                <#output as __tool_rt::IntoToolOutput>::into_tool_output(__tool_out)
            })
        };
        let handler = quote!(__tool_rt::StaticHandler::Async(__tool_call));
        if !target.needs_instance() {
            return (
                quote! {
                    fn __tool_call(
                        __tool_ctx: __tool_rt::ToolContext,
                        __tool_args: #args_ty,
                    ) -> __tool_rt::BoxFuture<#result_ty> {
                        __tool_rt::Box::pin(#future)
                    }
                },
                handler,
                quote!(__tool_rt::None),
            );
        }
        (
            quote! {
                fn __tool_call_on(
                    __tool_this: __tool_rt::Arc<__ToolSelf>,
                    __tool_ctx: __tool_rt::ToolContext,
                    __tool_args: #args_ty,
                ) -> __tool_rt::BoxFuture<#result_ty> {
                    __tool_rt::Box::pin(#future)
                }
                fn __tool_call(
                    __tool_ctx: __tool_rt::ToolContext,
                    __tool_args: #args_ty,
                ) -> __tool_rt::BoxFuture<#result_ty> {
                    match __tool_rt::shared_instance_of::<__ToolSelf>(&__tool_ctx, #tool_name) {
                        __tool_rt::Ok(__tool_this) => __tool_call_on(__tool_this, __tool_ctx, __tool_args),
                        __tool_rt::Err(__tool_error) => __tool_rt::failed_future(__tool_error),
                    }
                }
            },
            handler,
            quote!(__tool_rt::Some(__tool_rt::SetHandler::Async(
                __tool_call_on
            ))),
        )
    } else {
        let handler = quote!(__tool_rt::StaticHandler::Sync(__tool_call));
        let run = quote! {
            #body
            let __tool_out: #output = #callee(#(#call_args),*);
            <#output as __tool_rt::IntoToolOutput>::into_tool_output(__tool_out)
        };
        if !target.needs_instance() {
            return (
                quote! {
                    fn __tool_call(
                        __tool_ctx: &__tool_rt::ToolContext,
                        __tool_args: #args_ty,
                    ) -> #result_ty {
                        #run
                    }
                },
                handler,
                quote!(__tool_rt::None),
            );
        }
        (
            quote! {
                fn __tool_call_on(
                    __tool_this: &__ToolSelf,
                    __tool_ctx: &__tool_rt::ToolContext,
                    __tool_args: #args_ty,
                ) -> #result_ty {
                    #run
                }
                fn __tool_call(
                    __tool_ctx: &__tool_rt::ToolContext,
                    __tool_args: #args_ty,
                ) -> #result_ty {
                    let __tool_this = __tool_rt::instance_of::<__ToolSelf>(__tool_ctx, #tool_name)?;
                    __tool_call_on(__tool_this, __tool_ctx, __tool_args)
                }
            },
            handler,
            quote!(__tool_rt::Some(__tool_rt::SetHandler::Sync(__tool_call_on))),
        )
    }
}

/// The binding that holds the `i`th `#[state]` parameter.
fn state_binding(i: usize) -> Ident {
    format_ident!("__tool_state_{}", i)
}

/// `__tool_read`: every argument read by position into its parameter's type, all problems
/// reported at once, then the values that must be there unwrapped. The call and the preview
/// both read through it.
fn read_fn(tool_name: &str, params: &[&Param]) -> TokenStream {
    let bindings = bindings(params);
    let types = params.iter().map(|p| &p.ty);
    let json_names = params.iter().map(|p| p.json_name.as_str());
    let extract = params
        .iter()
        .zip(&bindings)
        .enumerate()
        .map(|(i, (param, binding))| {
            // Every use of the type goes through `param_ops::<T>()`, so a type that cannot be
            // a parameter is reported once per missing trait.
            // `take`: how the value moves out of the JSON when its type allows it (a `String`).
            if let Some(inner) = &param.option_inner {
                quote! {
                    let #binding = (__tool_rt::param_ops::<#inner>().optional)(
                        &mut __tool_args, #i, (&__tool_rt::TakeFor::<#inner>::NEW).take(),
                    );
                }
            } else if param.default.is_some() {
                let ty = &param.ty;
                let default_fn = default_fn_ident(i);
                quote! {
                    let #binding = (__tool_rt::param_ops::<#ty>().with_default)(
                        &mut __tool_args, #i, #default_fn, (&__tool_rt::TakeFor::<#ty>::NEW).take(),
                    );
                }
            } else {
                let ty = &param.ty;
                quote! {
                    let #binding = (__tool_rt::param_ops::<#ty>().required)(
                        &mut __tool_args, #i, (&__tool_rt::TakeFor::<#ty>::NEW).take(),
                    );
                }
            }
        });
    let unwrap = params.iter().zip(&bindings).filter_map(|(param, binding)| {
        if param.option_inner.is_some() {
            return None;
        }
        let json_name = &param.json_name;
        Some(quote! {
            let __tool_rt::Some(#binding) = #binding else {
                return __tool_rt::Err(__tool_rt::missing_value(#tool_name, #json_name));
            };
        })
    });
    let count = params.len();
    quote! {
        fn __tool_read(
            mut __tool_map: __tool_rt::Map<__tool_rt::String, __tool_rt::Value>,
        ) -> __tool_rt::Result<(#(#types,)*), __tool_rt::ToolError> {
            #[allow(unused_imports)]
            use __tool_rt::{TakeMoving as _, TakeThroughSerde as _};
            // One slot per parameter, on the stack, pointing into the map: reading neither
            // allocates nor moves a value.
            let mut __tool_slots: [__tool_rt::Option<&mut __tool_rt::Value>; #count] =
                [const { __tool_rt::None }; #count];
            let mut __tool_args = __tool_rt::Arguments::new(
                #tool_name, &mut __tool_map, &[#(#json_names),*], &mut __tool_slots,
            );
            #(#extract)*
            __tool_args.finish()?;
            #(#unwrap)*
            __tool_rt::Ok((#(#bindings,)*))
        }
    }
}

/// The arguments of the call, in the function's order: the instance, the context (by
/// reference in an async handler, which owns it), a `#[state]` value or the next binding.
fn call_args(signature: &Signature, bindings: &[Ident]) -> Vec<TokenStream> {
    let context = if signature.is_async {
        quote!(&__tool_ctx)
    } else {
        quote!(__tool_ctx)
    };
    let instance = if signature.is_async {
        quote!(&*__tool_this)
    } else {
        quote!(__tool_this)
    };
    let mut next_binding = bindings.iter();
    let mut next_state = 0;
    signature
        .inputs
        .iter()
        .filter_map(|input| match input {
            Input::Receiver(_) => Some(instance.clone()),
            Input::Context(_) => Some(context.clone()),
            Input::State(_) => {
                let binding = state_binding(next_state);
                next_state += 1;
                Some(quote!(#binding))
            }
            Input::Param(_) => {
                let binding = next_binding.next();
                Some(quote!(#binding))
            }
            // Rejected by `validate`: there is no handler for such a function.
            Input::Unnamed(_) => None,
        })
        .collect()
}

/// The expressions of `ToolDef`'s fields that name the generated functions.
struct StaticFns<'a> {
    handler: &'a TokenStream,
    preview: &'a TokenStream,
    approval: &'a TokenStream,
    state: &'a TokenStream,
}

/// The `static __TOOL` that describes the tool: its metadata, where it was defined, and
/// the functions above.
fn tool_static(fn_ident: &Ident, model: &ToolModel, fns: &StaticFns<'_>) -> TokenStream {
    let StaticFns {
        handler,
        preview,
        approval,
        state,
    } = fns;
    let name = &model.name;
    let description = &model.description;
    let safety = &model.safety;
    let categories = &model.categories;
    let tags = &model.tags;
    let version = match &model.version {
        Some(version) => quote!(__tool_rt::Some(__tool_rt::Cow::Borrowed(#version))),
        None => quote!(__tool_rt::None),
    };
    let priority = match &model.priority {
        Some(expr) => quote!(#expr),
        None => quote!(__tool_rt::DEFAULT_PRIORITY),
    };
    let timeout = match model.timeout_ms {
        Some(ms) => quote!(__tool_rt::Some(__tool_rt::Duration::from_millis(#ms))),
        None => quote!(__tool_rt::None),
    };
    let max_calls = match model.max_calls {
        Some(limit) => quote!(__tool_rt::Some(#limit)),
        None => quote!(__tool_rt::None),
    };
    let task_support = &model.task_support;
    let inline = model.inline;
    let ask_first = model.ask_first;
    let line = quote_spanned!(fn_ident.span()=> ::core::line!());
    quote! {
        static __TOOL: __tool_rt::ToolFactory = __tool_rt::ToolFactory::new(__tool_rt::ToolDef {
            meta: __tool_rt::ToolMeta {
                name: __tool_rt::Cow::Borrowed(#name),
                description: __tool_rt::Cow::Borrowed(#description),
                version: #version,
                safety: __tool_rt::SafetyLevel::#safety,
                categories: __tool_rt::Cow::Borrowed(&[#(__tool_rt::Cow::Borrowed(#categories)),*]),
                tags: __tool_rt::Cow::Borrowed(&[#(__tool_rt::Cow::Borrowed(#tags)),*]),
                priority: #priority,
                timeout: #timeout,
                max_calls: #max_calls,
                task_support: __tool_rt::TaskSupport::#task_support,
                inline: #inline,
                ask_first: #ask_first,
            },
            source: __tool_rt::ToolSource::new(
                match ::core::option_env!("CARGO_PKG_NAME") {
                    __tool_rt::Some(name) => name,
                    __tool_rt::None => "",
                },
                ::core::module_path!(),
                ::core::file!(),
                #line,
            ),
            params: __tool_params,
            output_schema: __tool_output_schema,
            handler: #handler,
            preview: #preview,
            approval: #approval,
            state: #state,
        });
    }
}

/// With `preview = ...`: `__tool_preview`, which reads the arguments like the call does and
/// calls the preview function with `ctx, &arg_0, ..`, and the `preview` field that names it
/// (`None` without one). A set's method whose preview takes `&self` also gets
/// `__tool_preview_on(this, ctx, args)`, returned as its `SetPreviewFn`. The call is spanned
/// at the function's name, so a function of the wrong shape is reported there.
fn preview_fn(model: &ToolModel, params: &[&Param]) -> (TokenStream, TokenStream, TokenStream) {
    rule_fns(
        model.preview.as_ref(),
        &model.name,
        params,
        &RuleKind {
            fn_name: format_ident!("__tool_preview"),
            on_name: format_ident!("__tool_preview_on"),
            result_ty: quote!(__tool_rt::Result<__tool_rt::Preview, __tool_rt::ToolError>),
            into: Some(quote!(__tool_rt::IntoPreview::into_preview)),
        },
    )
}

/// With `approval = ...`: `__tool_approval` (and `__tool_approval_on` for a set's method
/// whose rule takes `&self`), like the preview's; the rule's value goes through
/// `IntoApproval`, so it may return `ApprovalNeed` or `Result<ApprovalNeed, ToolError>`, and a rule
/// that returns anything else is reported at its path.
//
// Input:  #[tool(approval = rule)] fn write(path: String, text: String)
// Output: fn __tool_approval(ctx, args) -> Result<ApprovalNeed, ToolError> {
//             let (arg_0, arg_1,) = __tool_read(args.clone())?;
//             IntoApproval::into_approval(rule(ctx, &arg_0, &arg_1))
//         }
fn approval_fn(model: &ToolModel, params: &[&Param]) -> (TokenStream, TokenStream, TokenStream) {
    rule_fns(
        model.approval.as_ref(),
        &model.name,
        params,
        &RuleKind {
            fn_name: format_ident!("__tool_approval"),
            on_name: format_ident!("__tool_approval_on"),
            result_ty: quote!(__tool_rt::Result<__tool_rt::ApprovalNeed, __tool_rt::ToolError>),
            into: Some(quote!(__tool_rt::IntoApproval::into_approval)),
        },
    )
}

/// What differs between the functions a preview and an approval rule get.
struct RuleKind {
    /// The function over the JSON arguments (`__tool_preview`).
    fn_name: Ident,
    /// The same on an instance of the set (`__tool_preview_on`).
    on_name: Ident,
    result_ty: TokenStream,
    /// The conversion the rule's value goes through, if any.
    into: Option<TokenStream>,
}

/// The functions that read the arguments once and call a function the attribute names
/// (`preview = f`, `approval = f`) with `ctx, &arg_0, ..`; the `Option` of the function for
/// `ToolDef`; and, for a set's method whose function takes `&self`, the `Option` of the one
/// that runs on an instance.
fn rule_fns(
    target: Option<&PreviewTarget>,
    tool_name: &str,
    params: &[&Param],
    kind: &RuleKind,
) -> (TokenStream, TokenStream, TokenStream) {
    let none = || quote!(__tool_rt::None);
    let Some(target) = target else {
        return (TokenStream::new(), none(), none());
    };
    let bindings = bindings(params);
    let read = quote! {
        let (#(#bindings,)*) = __tool_read(__tool_args.clone())?;
    };
    let args_ty = quote!(&__tool_rt::Map<__tool_rt::String, __tool_rt::Value>);
    let (span, callee, receiver) = match target {
        PreviewTarget::Path(path) => {
            let span = path
                .segments
                .last()
                .map_or_else(Span::call_site, |s| s.ident.span());
            (span, quote!(#path), false)
        }
        PreviewTarget::Method { ident, receiver } => {
            (ident.span(), quote!(__ToolSelf::#ident), *receiver)
        }
    };
    let this = receiver.then(|| quote!(__tool_this,));
    // The arguments too are spanned at the function's path, so "expected `&u64`, found
    // `&String`" points there rather than at the whole attribute.
    let arguments = bindings.iter().map(|binding| {
        let binding = Ident::new(&binding.to_string(), span);
        quote_spanned!(span=> &#binding)
    });
    let call = quote_spanned!(span=> #callee(#this __tool_ctx, #(#arguments),*));
    let call = match &kind.into {
        Some(into) => quote_spanned!(span=> #into(#call)),
        None => call,
    };
    let (fn_name, on_name, result_ty) = (&kind.fn_name, &kind.on_name, &kind.result_ty);
    if !receiver {
        return (
            quote! {
                fn #fn_name(
                    __tool_ctx: &__tool_rt::ToolContext,
                    __tool_args: #args_ty,
                ) -> #result_ty {
                    #read
                    #call
                }
            },
            quote!(__tool_rt::Some(#fn_name)),
            none(),
        );
    }
    (
        quote! {
            fn #on_name(
                __tool_this: &__ToolSelf,
                __tool_ctx: &__tool_rt::ToolContext,
                __tool_args: #args_ty,
            ) -> #result_ty {
                #read
                #call
            }
            fn #fn_name(
                __tool_ctx: &__tool_rt::ToolContext,
                __tool_args: #args_ty,
            ) -> #result_ty {
                let __tool_this = __tool_rt::instance_of::<__ToolSelf>(__tool_ctx, #tool_name)?;
                #on_name(__tool_this, __tool_ctx, __tool_args)
            }
        },
        quote!(__tool_rt::Some(#fn_name)),
        quote!(__tool_rt::Some(#on_name)),
    )
}

/// The name of the function that holds parameter `i`'s default.
fn default_fn_ident(i: usize) -> Ident {
    format_ident!("__tool_default_{}", i)
}

/// The span of the expression's first token, to point its type errors at it.
fn expr_span(expr: &syn::Expr) -> Span {
    quote::ToTokens::to_token_stream(expr)
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |token| token.span())
}
