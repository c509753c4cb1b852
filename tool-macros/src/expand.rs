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
//! `crate = ...` or `::tool_runtime`):
//!
//! ```text
//! const _: () = {
//!     use ::tool_runtime::__private as __tool_rt;
//!     fn __tool_default_1() -> u64 { 4096 }          // one per `default`, spanned at it
//!     fn __tool_params(gen) -> Vec<ParamInfo> {     // one schema per parameter
//!         Vec::from([(param_ops::<String>().schema)(gen, "path", Some("Path"), true, false, None), ..])
//!     }
//!     fn __tool_output_schema(gen) -> Option<Schema> { /* from the return type */ }
//!     // The arguments read into the parameters' types: once, for the call and the preview.
//!     fn __tool_read(args: Map<String, Value>) -> Result<(String, u64,), ToolError> {
//!         let mut args = Arguments::new("read_file", args, &["path", "max_bytes"]);
//!         let arg_0 = (param_ops::<String>().required)(&mut args, 0);   // by position
//!         let arg_1 = (param_ops::<u64>().with_default)(&mut args, 1, __tool_default_1);
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
//!         handler: StaticHandler::Sync(__tool_call), preview: None,
//!     });
//!     inventory::submit! { LinkedTool(&__TOOL) }
//! };
//! ```
//!
//! An `async fn`'s `__tool_call` takes the context by value and returns
//! `Box::pin(assert_send(async move { .. }))` (the same body, calling with `&ctx` and
//! `.await`), named by `StaticHandler::Async`. `preview = path` adds `__tool_preview`, which
//! reads the arguments with `__tool_read` and calls `path(ctx, &arg_0, &arg_1)`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, ItemFn, Type};

use crate::signature::{Input, Param, Signature};
use crate::validate::ToolModel;

/// The function, then the `const` block that defines and registers its tool.
pub(crate) fn expand(function: &ItemFn, signature: &Signature, model: &ToolModel) -> TokenStream {
    let krate = &model.krate;
    let params: Vec<&Param> = signature.params().collect();
    let defaults = default_fns(&params);
    let params_fn = params_fn(&params);
    let output_schema_fn = output_schema_fn(&signature.output);
    let read_fn = read_fn(&model.name, &params);
    let (call_fn, handler) = call_fn(function, signature, &params);
    let (preview_fn, preview) = preview_fn(model, &params);
    let tool_static = tool_static(&function.sig.ident, model, &handler, &preview);
    quote! {
        #function

        #[doc(hidden)]
        #[allow(non_snake_case, clippy::needless_borrow, clippy::unnecessary_lazy_evaluations)]
        const _: () = {
            use #krate::__private as __tool_rt;

            #(#defaults)*

            #params_fn

            #output_schema_fn

            #read_fn

            #call_fn

            #preview_fn

            #tool_static

            __tool_rt::inventory::submit! {
                __tool_rt::LinkedTool(&__TOOL)
            }
        };
    }
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
        quote! {
            (__tool_rt::param_ops::<#schema_ty>().schema)(
                __tool_gen, #json_name, #description, #required, #secret, #default,
            )
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

/// `__tool_call`, the handler from the model's JSON arguments to a call of the function,
/// and the `StaticHandler` (sync or async) that names it.
fn call_fn(
    function: &ItemFn,
    signature: &Signature,
    params: &[&Param],
) -> (TokenStream, TokenStream) {
    let fn_ident = &function.sig.ident;
    let output = &signature.output;
    let bindings = bindings(params);
    let call_args = call_args(signature, &bindings);
    let read = quote! {
        let (#(#bindings,)*) = __tool_read(__tool_args)?;
    };
    if signature.is_async {
        // Spanned at the function's name, so a non-`Send` future is reported there.
        let future = quote_spanned! {fn_ident.span()=>
            __tool_rt::assert_send(async move {
                #read
                let __tool_out: #output = #fn_ident(#(#call_args),*).await;
                <#output as __tool_rt::IntoToolOutput>::into_tool_output(__tool_out)
            })
        };
        (
            quote! {
                fn __tool_call(
                    __tool_ctx: __tool_rt::ToolContext,
                    __tool_args: __tool_rt::Map<__tool_rt::String, __tool_rt::Value>,
                ) -> __tool_rt::BoxFuture<__tool_rt::Result<__tool_rt::ToolOutput, __tool_rt::ToolError>> {
                    __tool_rt::Box::pin(#future)
                }
            },
            quote!(__tool_rt::StaticHandler::Async(__tool_call)),
        )
    } else {
        (
            quote! {
                fn __tool_call(
                    __tool_ctx: &__tool_rt::ToolContext,
                    __tool_args: __tool_rt::Map<__tool_rt::String, __tool_rt::Value>,
                ) -> __tool_rt::Result<__tool_rt::ToolOutput, __tool_rt::ToolError> {
                    #read
                    let __tool_out: #output = #fn_ident(#(#call_args),*);
                    <#output as __tool_rt::IntoToolOutput>::into_tool_output(__tool_out)
                }
            },
            quote!(__tool_rt::StaticHandler::Sync(__tool_call)),
        )
    }
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
            if let Some(inner) = &param.option_inner {
                quote! {
                    let #binding = (__tool_rt::param_ops::<#inner>().optional)(&mut __tool_args, #i);
                }
            } else if param.default.is_some() {
                let ty = &param.ty;
                let default_fn = default_fn_ident(i);
                quote! {
                    let #binding = (__tool_rt::param_ops::<#ty>().with_default)(
                        &mut __tool_args, #i, #default_fn,
                    );
                }
            } else {
                let ty = &param.ty;
                quote! {
                    let #binding = (__tool_rt::param_ops::<#ty>().required)(&mut __tool_args, #i);
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
    quote! {
        fn __tool_read(
            __tool_args: __tool_rt::Map<__tool_rt::String, __tool_rt::Value>,
        ) -> __tool_rt::Result<(#(#types,)*), __tool_rt::ToolError> {
            let mut __tool_args = __tool_rt::Arguments::new(#tool_name, __tool_args, &[#(#json_names),*]);
            #(#extract)*
            __tool_args.finish()?;
            #(#unwrap)*
            __tool_rt::Ok((#(#bindings,)*))
        }
    }
}

/// The arguments of the call, in the function's order: the context (by reference in an
/// async handler, which owns it) or the next binding.
fn call_args(signature: &Signature, bindings: &[Ident]) -> Vec<TokenStream> {
    let context = if signature.is_async {
        quote!(&__tool_ctx)
    } else {
        quote!(__tool_ctx)
    };
    let mut next_binding = bindings.iter();
    signature
        .inputs
        .iter()
        .filter_map(|input| match input {
            Input::Context(_) => Some(context.clone()),
            Input::Param(_) => {
                let binding = next_binding.next();
                Some(quote!(#binding))
            }
            // Rejected by `validate`: there is no handler for such a function.
            Input::Receiver(_) | Input::Unnamed(_) => None,
        })
        .collect()
}

/// The `static __TOOL` that describes the tool: its metadata, where it was defined, and
/// the functions above.
fn tool_static(
    fn_ident: &Ident,
    model: &ToolModel,
    handler: &TokenStream,
    preview: &TokenStream,
) -> TokenStream {
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
        });
    }
}

/// With `preview = path`: `__tool_preview`, which reads the arguments like the call does and
/// calls `path(ctx, &arg_0, ..)`, and the `preview` field that names it (`None` without one).
/// The call is spanned at the path's last segment, so a function of the wrong shape is
/// reported there.
fn preview_fn(model: &ToolModel, params: &[&Param]) -> (TokenStream, TokenStream) {
    let Some(path) = &model.preview else {
        return (TokenStream::new(), quote!(__tool_rt::None));
    };
    let span = path
        .segments
        .last()
        .map_or_else(Span::call_site, |s| s.ident.span());
    let bindings = bindings(params);
    let call = quote_spanned! {span=>
        #path(__tool_ctx, #(&#bindings),*)
    };
    (
        quote! {
            fn __tool_preview(
                __tool_ctx: &__tool_rt::ToolContext,
                __tool_args: &__tool_rt::Map<__tool_rt::String, __tool_rt::Value>,
            ) -> __tool_rt::Result<__tool_rt::String, __tool_rt::ToolError> {
                let (#(#bindings,)*) = __tool_read(__tool_args.clone())?;
                #call
            }
        },
        quote!(__tool_rt::Some(__tool_preview)),
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
