//! The code `#[tool]` generates beside the function.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;

use crate::signature::{Input, Signature};
use crate::validate::ToolModel;

// Input:
//
//     /// Read a file.
//     #[tool(categories(filesystem))]
//     fn read_file(ctx: &ToolContext, /// Path
//                  path: String, max_bytes: Option<u64>) -> Result<String, ToolError> { .. }
//
// Output: the function unchanged (minus the parameters' docs and `#[arg]`s), and
//
//     const _: () = {
//         use ::tool_runtime::__private as __tool_rt;
//         fn __tool_params(gen) -> Vec<ParamInfo> { /* one schema per parameter */ }
//         fn __tool_output_schema(gen) -> Option<Schema> { /* from the return type */ }
//         fn __tool_call(ctx, args) -> Result<ToolOutput, ToolError> {
//             let mut args = Arguments::new("read_file", args, &["path", "max_bytes"]);
//             let path = (param_ops::<String>().required)(&mut args, 0);      // by position
//             let max_bytes = (param_ops::<u64>().optional)(&mut args, 1);
//             args.finish()?;                       // every problem at once
//             into_tool_output(read_file(ctx, path?, max_bytes))
//         }
//         static __TOOL: ToolFactory = ToolFactory::new(ToolDef { name: "read_file", .. });
//         inventory::submit! { LinkedTool(&__TOOL) }
//     };
pub(crate) fn expand(function: &ItemFn, signature: &Signature, model: &ToolModel) -> TokenStream {
    let krate = &model.krate;
    let fn_ident = &function.sig.ident;
    let name = &model.name;
    let description = &model.description;
    let safety = &model.safety;
    let categories = &model.categories;
    let tags = &model.tags;
    let version = match &model.version {
        Some(version) => quote!(__tool_rt::Some(#version)),
        None => quote!(__tool_rt::None),
    };
    let priority = match &model.priority {
        Some(expr) => quote!(#expr),
        None => quote!(__tool_rt::DEFAULT_PRIORITY),
    };
    let line = quote_spanned!(fn_ident.span()=> ::core::line!());
    // Spanned at the path, so a function of the wrong type is reported there.
    let preview = match &model.preview {
        Some(path) => {
            let span = path
                .segments
                .last()
                .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span());
            quote_spanned!(span=> __tool_rt::Some(__tool_rt::preview_adapter(#path)))
        }
        None => quote!(__tool_rt::None),
    };

    let params: Vec<_> = signature.params().collect();
    let json_names: Vec<&str> = params.iter().map(|p| p.json_name.as_str()).collect();

    // One function per default, so the expression is written once and its type errors
    // point at it.
    let defaults = params.iter().enumerate().filter_map(|(i, param)| {
        let expr = param.default.as_ref()?;
        let ident = format_ident!("__tool_default_{}", i);
        let ty = &param.ty;
        Some(quote_spanned! {expr_span(expr)=>
            fn #ident() -> #ty { #expr }
        })
    });

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
            let default_fn = format_ident!("__tool_default_{}", i);
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

    let bindings: Vec<_> = (0..params.len())
        .map(|i| format_ident!("__tool_arg_{}", i))
        .collect();
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
                let default_fn = format_ident!("__tool_default_{}", i);
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
                return __tool_rt::Err(__tool_rt::Arguments::internal_error(#name, #json_name));
            };
        })
    });
    let context = if signature.is_async {
        quote!(&__tool_ctx)
    } else {
        quote!(__tool_ctx)
    };
    let mut next_binding = bindings.iter();
    let call_args: Vec<TokenStream> = signature
        .inputs
        .iter()
        .map(|input| match input {
            Input::Context => context.clone(),
            Input::Param(_) => {
                let binding = next_binding.next();
                quote!(#binding)
            }
        })
        .collect();

    let output = &signature.output;
    let body = quote! {
        let mut __tool_args = __tool_rt::Arguments::new(#name, __tool_args, &[#(#json_names),*]);
        #(#extract)*
        __tool_args.finish()?;
        #(#unwrap)*
    };
    let (call_fn, handler) = if signature.is_async {
        // Spanned at the function's name, so a non-`Send` future is reported there.
        let future = quote_spanned! {fn_ident.span()=>
            __tool_rt::assert_send(async move {
                #body
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
            quote!(__tool_rt::MacroHandler::Async(__tool_call)),
        )
    } else {
        (
            quote! {
                fn __tool_call(
                    __tool_ctx: &__tool_rt::ToolContext,
                    __tool_args: __tool_rt::Map<__tool_rt::String, __tool_rt::Value>,
                ) -> __tool_rt::Result<__tool_rt::ToolOutput, __tool_rt::ToolError> {
                    #body
                    let __tool_out: #output = #fn_ident(#(#call_args),*);
                    <#output as __tool_rt::IntoToolOutput>::into_tool_output(__tool_out)
                }
            },
            quote!(__tool_rt::MacroHandler::Sync(__tool_call)),
        )
    };

    quote! {
        #function

        #[doc(hidden)]
        #[allow(non_snake_case, clippy::needless_borrow, clippy::unnecessary_lazy_evaluations)]
        const _: () = {
            use #krate::__private as __tool_rt;

            #(#defaults)*

            fn __tool_params(
                __tool_gen: &mut __tool_rt::SchemaGenerator,
            ) -> __tool_rt::Vec<__tool_rt::ParamInfo> {
                __tool_rt::Vec::from([#(#param_infos),*])
            }

            fn __tool_output_schema(
                __tool_gen: &mut __tool_rt::SchemaGenerator,
            ) -> __tool_rt::Option<__tool_rt::Schema> {
                <#output as __tool_rt::IntoToolOutput>::output_schema(__tool_gen)
            }

            #call_fn

            static __TOOL: __tool_rt::ToolFactory = __tool_rt::ToolFactory::new(__tool_rt::ToolDef {
                name: #name,
                description: #description,
                version: #version,
                safety: __tool_rt::SafetyLevel::#safety,
                categories: &[#(#categories),*],
                tags: &[#(#tags),*],
                priority: #priority,
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

            __tool_rt::inventory::submit! {
                __tool_rt::LinkedTool(&__TOOL)
            }
        };
    }
}

fn expr_span(expr: &syn::Expr) -> proc_macro2::Span {
    quote::ToTokens::to_token_stream(expr)
        .into_iter()
        .next()
        .map_or_else(proc_macro2::Span::call_site, |token| token.span())
}
