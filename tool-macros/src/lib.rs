//! The `#[tool]` attribute macro. Use it through `tool_runtime::tool`; this crate only
//! parses, checks and generates, and the generated code names `tool_runtime::__private` (or
//! the `__private` of the path given with `#[tool(crate = ...)]`).
//!
//! The stages: `attr` reads the options, `signature` reads the function (taking the
//! `#[arg]`s off its parameters), `validate` checks both into a `ToolModel`, and `expand`
//! writes the code. Every error is gathered in `errors::Errors` and reported at once.

mod attr;
mod errors;
mod expand;
mod signature;
mod validate;

use proc_macro::TokenStream;

/// Turns a function into a tool a language model can call. See `tool_runtime::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand_tool(args.into(), input.into()).into()
}

fn expand_tool(
    args: proc_macro2::TokenStream,
    input: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    let mut errors = errors::Errors::default();
    let attr = attr::ToolAttr::parse(args, &mut errors);
    let mut function = match syn::parse2::<syn::Item>(input.clone()) {
        Ok(syn::Item::Fn(function)) => function,
        Ok(item) => {
            errors.at(
                item_head(&item),
                "`#[tool]` can only be applied to a function: write a `fn` that does the work \
                 and put `#[tool]` on it",
            );
            return with_errors(input, errors);
        }
        // Not an item we can read: let rustc report the syntax error on the original tokens.
        Err(_) => return input,
    };
    let signature = signature::analyze(&mut function);
    let model = validate::validate(&attr, &function, &signature, &mut errors);
    if !errors.is_empty() {
        // Keep the function so the rest of the crate, and the IDE, still see it.
        return with_errors(quote::quote!(#function), errors);
    }
    expand::expand(&function, &signature, &model)
}

fn with_errors(item: proc_macro2::TokenStream, errors: errors::Errors) -> proc_macro2::TokenStream {
    match errors.into_result() {
        Ok(()) => item,
        Err(error) => {
            let error = error.to_compile_error();
            quote::quote!(#item #error)
        }
    }
}

/// The first tokens of an item, up to its name, so "not a function" underlines `struct Foo`.
fn item_head(item: &syn::Item) -> proc_macro2::TokenStream {
    use quote::quote;
    match item {
        syn::Item::Struct(s) => {
            let (t, i) = (&s.struct_token, &s.ident);
            quote!(#t #i)
        }
        syn::Item::Enum(e) => {
            let (t, i) = (&e.enum_token, &e.ident);
            quote!(#t #i)
        }
        syn::Item::Const(c) => {
            let (t, i) = (&c.const_token, &c.ident);
            quote!(#t #i)
        }
        syn::Item::Static(s) => {
            let (t, i) = (&s.static_token, &s.ident);
            quote!(#t #i)
        }
        syn::Item::Mod(m) => {
            let (t, i) = (&m.mod_token, &m.ident);
            quote!(#t #i)
        }
        syn::Item::Trait(t) => {
            let (k, i) = (&t.trait_token, &t.ident);
            quote!(#k #i)
        }
        syn::Item::Type(t) => {
            let (k, i) = (&t.type_token, &t.ident);
            quote!(#k #i)
        }
        syn::Item::Impl(i) => {
            let k = &i.impl_token;
            let ty = &i.self_ty;
            quote!(#k #ty)
        }
        syn::Item::Use(u) => {
            let k = &u.use_token;
            quote!(#k)
        }
        other => quote!(#other),
    }
}
