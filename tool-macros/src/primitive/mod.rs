//! `#[prompt]` and `#[resource]`: a function that makes a prompt's messages or reads a
//! resource, checked at compile time (names, the URI template against the parameters,
//! completions) and collected through `inventory` like `#[tool]`s.

// The layers, lowest first (no module imports one listed after it): attr, check, expand.
mod attr;
mod check;
mod expand;

use proc_macro2::TokenStream;
use quote::quote;

pub(crate) use attr::Kind;
use attr::PrimitiveAttr;
use check::Place;
use expand::Callee;

use crate::errors::Errors;
use crate::runtime_path::Front;
use crate::signature::analyze;

/// `#[prompt]` or `#[resource]` on a free function.
pub(crate) fn expand(
    kind: Kind,
    args: TokenStream,
    input: TokenStream,
    front: Front,
) -> TokenStream {
    let mut errors = Errors::default();
    let attr = PrimitiveAttr::parse(kind, args, front, &mut errors);
    let mut function = match syn::parse2::<syn::Item>(input.clone()) {
        Ok(syn::Item::Fn(function)) => function,
        Ok(item) => {
            errors.at(
                crate::errors::item_head(&item),
                format!("`#[{}]` can only be applied to a function", kind.word()),
            );
            return crate::errors::with_errors(input, errors);
        }
        Err(_) => return input,
    };
    let signature = analyze(&mut function.sig);
    let krate = attr.krate.get().cloned().unwrap_or_else(|| front.path());
    let model = check::check(
        &attr,
        &function.sig,
        &function.attrs,
        &signature,
        Place::Free,
        krate,
        &mut errors,
    );
    if !errors.is_empty() {
        return crate::errors::with_errors(quote!(#function), errors);
    }
    let items = expand::items(Callee::Free(&function.sig.ident), &model);
    let krate = &model.krate;
    quote! {
        #function

        #[doc(hidden)]
        #[allow(non_snake_case)]
        const _: () = {
            use #krate::__private as __pr;

            #items
        };
    }
}

/// The items of a `#[prompt]` or `#[resource]` method of a `#[tool_set]`, for a function
/// body inside the set's `const` block (where `__ToolSelf` names the type); `attr_tokens`
/// are the attribute's arguments. `None` when the method has errors (in `errors`).
pub(crate) fn method_items(
    kind: Kind,
    attr_tokens: TokenStream,
    function: &mut syn::ImplItemFn,
    krate: &syn::Path,
    front: Front,
    errors: &mut Errors,
) -> Option<TokenStream> {
    let mut own = Errors::default();
    let attr = PrimitiveAttr::parse(kind, attr_tokens, front, &mut own);
    if let Some(tokens) = attr.krate.tokens() {
        own.at(
            tokens,
            format!(
                "in a tool set, give the crate's path once on the set: `#[tool_set(crate = path::to::{})]`",
                front.name()
            ),
        );
    }
    let mut signature = analyze(&mut function.sig);
    let model = check::check(
        &attr,
        &function.sig,
        &function.attrs,
        &signature,
        Place::SetMethod,
        krate.clone(),
        &mut own,
    );
    let failed = !own.is_empty();
    errors.append(&own);
    if failed {
        return None;
    }
    let alias = syn::Ident::new("__ToolSelf", proc_macro2::Span::call_site());
    signature.replace_self(&alias);
    let mut model = model;
    model.output = crate::signature::replace_self_in(&model.output, &alias);
    for arg in &mut model.args {
        arg.ty = crate::signature::replace_self_in(&arg.ty, &alias);
    }
    let callee = Callee::Method {
        ident: &function.sig.ident,
        receiver: signature.has_receiver(),
    };
    Some(expand::items(callee, &model))
}
