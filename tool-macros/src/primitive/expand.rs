//! What a checked `#[prompt]` or `#[resource]` expands to, inside a `const _: () = { ... }`
//! (or a function body of a `#[tool_set]`'s) where `__pr` names the crate's `__private`:
//!
//! ```text
//! fn __primitive_handler(args, ctx) -> BoxFuture<Result<..>> { read, call, convert }
//! fn __primitive_build() -> Result<Prompt, ToolDefinitionError> { Prompt::builder(..)...build() }
//! inventory::submit! { LinkedPrompt { build: __primitive_build } }
//! ```

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

use super::attr::Kind;
use super::check::{Model, Use};

/// What the handler calls.
#[derive(Clone, Copy)]
pub(crate) enum Callee<'a> {
    /// A free function.
    Free(&'a Ident),
    /// A method of a `#[tool_set]` (`__ToolSelf` names the type); `receiver`: takes `&self`.
    Method { ident: &'a Ident, receiver: bool },
}

/// The items that define and register one prompt or resource.
pub(crate) fn items(callee: Callee<'_>, model: &Model) -> TokenStream {
    let handler = handler_fn(callee, model);
    let build = build_fn(callee, model);
    let linked = match model.kind {
        Kind::Prompt => quote!(__pr::LinkedPrompt),
        Kind::Resource => quote!(__pr::LinkedResource),
    };
    quote! {
        #handler
        #build
        __pr::inventory::submit! {
            #linked { build: __primitive_build }
        }
    }
}

fn binding(i: usize) -> Ident {
    format_ident!("__pr_a{}", i)
}

fn handler_fn(callee: Callee<'_>, model: &Model) -> TokenStream {
    let name = &model.name;
    let reads = model.args.iter().enumerate().map(|(i, arg)| {
        let b = binding(i);
        let (ty, key) = (&arg.ty, &arg.name);
        // Spanned at the type, so "`T` does not implement `FromStr`" points there.
        let read = match (model.kind, arg.optional) {
            (Kind::Prompt, false) => {
                quote_spanned!(ty.span()=> __pr::prompt_arg::<#ty>(&__pr_input, #key, #name))
            }
            (Kind::Prompt, true) => {
                quote_spanned!(ty.span()=> __pr::prompt_arg_opt::<#ty>(&__pr_input, #key, #name))
            }
            (Kind::Resource, _) => {
                quote_spanned!(ty.span()=> __pr::uri_var::<#ty>(&__pr_input, #key))
            }
        };
        let bound = if arg.optional {
            quote!(__pr::Option<#ty>)
        } else {
            quote!(#ty)
        };
        quote! {
            let #b: #bound = match #read {
                __pr::Ok(value) => value,
                __pr::Err(error) => return __pr::primitive_failed(error),
            };
        }
    });
    let call_args = model.uses.iter().filter_map(|u| match u {
        Use::Receiver => None,
        Use::Context => Some(quote!(&__pr_ctx)),
        Use::Arg(i) => {
            let b = binding(*i);
            Some(quote!(#b))
        }
    });
    let (call, this) = match callee {
        Callee::Free(ident) => (quote!(#ident(#(#call_args),*)), quote!()),
        Callee::Method {
            ident,
            receiver: false,
        } => (quote!(__ToolSelf::#ident(#(#call_args),*)), quote!()),
        Callee::Method {
            ident,
            receiver: true,
        } => (
            quote!(__ToolSelf::#ident(&*__pr_this, #(#call_args),*)),
            quote! {
                let __pr_this = match __pr::shared_instance_of::<__ToolSelf>(&__pr_ctx, #name) {
                    __pr::Ok(this) => this,
                    __pr::Err(error) => return __pr::primitive_failed(error),
                };
            },
        ),
    };
    let output = &model.output;
    let (input_ty, result_ty, convert) = match model.kind {
        Kind::Prompt => (
            quote!(__pr::PromptArguments),
            quote!(__pr::PromptOutput),
            quote!(<#output as __pr::PromptReturn>::into_prompt_result(__pr_out)),
        ),
        Kind::Resource => (
            quote!(__pr::ResourceRequest),
            quote!(__pr::Vec<__pr::ResourceContents>),
            quote!(<#output as __pr::ResourceReturn>::into_resource_result(__pr_out, &__pr_uri)),
        ),
    };
    let keep_uri = match model.kind {
        Kind::Resource => quote!(let __pr_uri: __pr::String = __pr_input.uri.clone();),
        Kind::Prompt => quote!(),
    };
    let ident = match callee {
        Callee::Free(ident) | Callee::Method { ident, .. } => ident,
    };
    let run = if model.is_async {
        quote_spanned! {ident.span()=>
            __pr::Box::pin(async move {
                let __pr_out: #output = #call.await;
                #convert
            })
        }
    } else {
        // Called when the future is first polled, not when the handler is: a panic then
        // happens where the caller's guard (a future's `catch_unwind`) can see it.
        quote! {
            __pr::Box::pin(async move {
                let __pr_out: #output = #call;
                #convert
            })
        }
    };
    quote! {
        #[allow(unused_variables, clippy::needless_borrow)]
        fn __primitive_handler(
            __pr_input: #input_ty,
            __pr_ctx: __pr::ToolContext,
        ) -> __pr::BoxFuture<__pr::Result<#result_ty, __pr::ToolError>> {
            #(#reads)*
            #keep_uri
            #this
            #run
        }
    }
}

fn build_fn(callee: Callee<'_>, model: &Model) -> TokenStream {
    let name = &model.name;
    let description = &model.description;
    let start = match (&model.kind, &model.uri) {
        (Kind::Resource, Some(uri)) => quote!(__pr::Resource::builder(#name, #uri)),
        _ => quote!(__pr::Prompt::builder(#name)),
    };
    let title = model.title.as_ref().map(|t| quote!(.title(#t)));
    let version = model.version.as_ref().map(|v| quote!(.version(#v)));
    let mime = model.mime_type.as_ref().map(|m| quote!(.mime_type(#m)));
    let tags = &model.tags;
    let tags = (!tags.is_empty()).then(|| quote!(.tags([#(#tags),*])));
    let safety = &model.safety;
    let arguments = match model.kind {
        Kind::Prompt => model
            .args
            .iter()
            .map(|arg| {
                let (key, required) = (&arg.name, !arg.optional);
                let description = arg.description.as_ref().map(|d| quote!(.description(#d)));
                quote!(.argument(__pr::PromptArgument::new(#key).required(#required) #description))
            })
            .collect(),
        Kind::Resource => Vec::new(),
    };
    let completions = model.completions.iter().map(|(arg, function)| {
        // Spanned at the path, so a function of the wrong shape is reported there.
        quote_spanned! {function.span()=> .completion(#arg, #function)}
    });
    let ident = match callee {
        Callee::Free(ident) | Callee::Method { ident, .. } => ident,
    };
    let line = quote_spanned!(ident.span()=> ::core::line!());
    let ret = match model.kind {
        Kind::Prompt => quote!(__pr::Prompt),
        Kind::Resource => quote!(__pr::Resource),
    };
    quote! {
        fn __primitive_build() -> __pr::Result<#ret, __pr::ToolDefinitionError> {
            #start
                .description(#description)
                #title #version #mime #tags
                .safety(__pr::SafetyLevel::#safety)
                .source(__pr::ToolSource::new(
                    match ::core::option_env!("CARGO_PKG_NAME") {
                        __pr::Some(name) => name,
                        __pr::None => "",
                    },
                    ::core::module_path!(),
                    ::core::file!(),
                    #line,
                ))
                #(#arguments)*
                #(#completions)*
                .handler(__primitive_handler)
                .build()
        }
    }
}
