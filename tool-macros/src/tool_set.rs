//! `#[tool_set]` on an inherent `impl` block: each `#[tool]` method becomes a tool.
//!
//! The impl block is emitted as written, with the `#[tool]` attributes and the parameters'
//! docs, `#[arg]`s and `#[state]`s taken off. After it comes one `const` block:
//!
//! ```text
//! const _: () = {
//!     use ::toolwright::__private as __tool_rt;
//!     type __ToolSelf = Service;                       // `Self` outside the impl
//!     fn __tool_set_0() -> &'static SetTool<__ToolSelf> {
//!         // what `#[tool]` emits for a free function (see `expand`), calling
//!         // `__ToolSelf::method(this, ..)`; for a `&self` method also
//!         // `__tool_call_on(this, ctx, args)`, and `__tool_call` finds `this` in the state
//!         static __TOOL_SET: SetTool<__ToolSelf> = SetTool::new(&__TOOL, Some(..), None);
//!         &__TOOL_SET
//!     }
//!     impl ToolSet for __ToolSelf {
//!         fn __set_tools() -> Vec<&'static SetTool<Self>> { Vec::from([__tool_set_0()]) }
//!     }
//! };
//! ```
//!
//! Each method's items live in a function body of their own, so the names `expand` gives
//! them (`__TOOL`, `__tool_call`, ...) do not clash between methods.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ImplItem, ImplItemFn, ItemImpl, Path};
use toolwright_names::did_you_mean;

use crate::attr::ToolAttr;
use crate::errors::Errors;
use crate::expand::{Target, tool_items};
use crate::primitive;
use crate::runtime_path::Front;
use crate::signature::{Signature, analyze, replace_self_in};
use crate::validate::{Place, PreviewTarget, ToolModel, Written, validate};

/// The alias of the impl's type in the generated code.
const SELF_ALIAS: &str = "__ToolSelf";

/// One `#[tool]` method, read and checked.
struct Method {
    /// The `#[tool]` attribute's path as written (`tool`, `toolwright::tool`).
    attr_path: Path,
    signature: Signature,
    model: ToolModel,
    ident: syn::Ident,
}

pub(crate) fn expand_tool_set(args: TokenStream, input: TokenStream, front: Front) -> TokenStream {
    let mut errors = Errors::default();
    let krate = parse_args(args, front, &mut errors);
    let mut item = match syn::parse2::<syn::Item>(input.clone()) {
        Ok(syn::Item::Impl(item)) => item,
        Ok(other) => {
            errors.at(
                crate::errors::item_head(&other),
                "`#[tool_set]` goes on an `impl` block whose `#[tool]` methods are tools: \
                 `#[tool_set] impl Service { #[tool] fn name(&self, ...) { ... } }`",
            );
            return crate::errors::with_errors(input, errors);
        }
        // Not an item we can read: let rustc report the syntax error on the original tokens.
        Err(_) => return input,
    };
    check_impl(&item, &mut errors);
    let alias = syn::Ident::new(SELF_ALIAS, Span::call_site());
    let methods_of_impl = method_receivers(&item);
    let mut methods = Vec::new();
    let mut primitives: Vec<(primitive::Kind, TokenStream)> = Vec::new();
    let mut primitive_paths: Vec<Path> = Vec::new();
    for impl_item in &mut item.items {
        let ImplItem::Fn(function) = impl_item else {
            continue;
        };
        if let Some((kind, attr)) = take_primitive_attr(function) {
            let tokens = match &attr.meta {
                syn::Meta::List(list) => list.tokens.clone(),
                _ => TokenStream::new(),
            };
            primitive_paths.push(attr.path().clone());
            if let Some(items) =
                primitive::method_items(kind, tokens, function, &krate, front, &mut errors)
            {
                primitives.push((kind, items));
            }
            continue;
        }
        let Some(attr) = take_tool_attr(function) else {
            continue;
        };
        let mut attr_errors = Errors::default();
        let tool_attr = match &attr.meta {
            syn::Meta::Path(_) => ToolAttr::parse(TokenStream::new(), front, &mut attr_errors),
            syn::Meta::List(list) => ToolAttr::parse(list.tokens.clone(), front, &mut attr_errors),
            syn::Meta::NameValue(_) => {
                attr_errors.at(&attr, "expected `#[tool]` or `#[tool(...)]`");
                ToolAttr::parse(TokenStream::new(), front, &mut attr_errors)
            }
        };
        if let Some(tokens) = tool_attr.krate.tokens() {
            attr_errors.at(
                tokens,
                format!(
                    "in a tool set, give the crate's path once on the set: \
                     `#[tool_set(crate = path::to::{})]`",
                    front.name()
                ),
            );
        }
        errors.append(&attr_errors);
        let mut signature = analyze(&mut function.sig);
        let written = Written {
            attrs: &function.attrs,
            sig: &function.sig,
        };
        let mut model = validate(
            &tool_attr,
            &written,
            &signature,
            Place::SetMethod,
            front,
            &mut errors,
        );
        model.preview = model
            .preview
            .map(|target| resolve_preview(target, &methods_of_impl, &alias));
        model.approval = model
            .approval
            .map(|target| resolve_preview(target, &methods_of_impl, &alias));
        signature.replace_self(&alias);
        methods.push(Method {
            attr_path: attr.path().clone(),
            signature,
            model,
            ident: function.sig.ident.clone(),
        });
    }
    check_methods(&item, &methods, primitive_paths.len(), &mut errors);
    // The `#[tool]` attributes are taken off before they expand: name their paths once, so
    // an imported `tool` counts as used (and a `tool` not in scope is reported).
    let mut attr_paths: Vec<&Path> = Vec::new();
    for path in methods.iter().map(|m| &m.attr_path).chain(&primitive_paths) {
        let written = quote!(#path).to_string();
        if !attr_paths.iter().any(|p| quote!(#p).to_string() == written) {
            attr_paths.push(path);
        }
    }
    let uses = quote! {
        #(#[allow(unused_imports)] use #attr_paths as _;)*
    };
    if !errors.is_empty() {
        // Keep the impl (attributes off) so the rest of the crate, and the IDE, still see it.
        return crate::errors::with_errors(quote!(#item const _: () = { #uses };), errors);
    }
    let self_ty = &item.self_ty;
    let set_fns = methods.iter().enumerate().map(|(i, method)| {
        let target = Target::Method {
            ident: &method.ident,
            receiver: method.signature.has_receiver(),
        };
        let generated = tool_items(target, &method.signature, &method.model);
        let (items, handler, preview, approval) = (
            generated.items,
            generated.set_handler,
            generated.set_preview,
            generated.set_approval,
        );
        let set_fn = format_ident!("__tool_set_{}", i);
        quote! {
            fn #set_fn() -> &'static __tool_rt::SetTool<__ToolSelf> {
                #items

                static __TOOL_SET: __tool_rt::SetTool<__ToolSelf> =
                    __tool_rt::SetTool::new(&__TOOL, #handler, #preview, #approval);
                &__TOOL_SET
            }
        }
    });
    let set_fn_names = (0..methods.len()).map(|i| format_ident!("__tool_set_{}", i));
    // Each `#[prompt]`/`#[resource]` method's items in a function of their own that builds
    // it, listed by the `ToolSet` impl so `register_set` can bind it to an instance.
    let primitive_fn = |i: usize| format_ident!("__tool_primitive_{}", i);
    let primitive_fns = primitives.iter().enumerate().map(|(i, (kind, items))| {
        let name = primitive_fn(i);
        let ty = match kind {
            primitive::Kind::Prompt => quote!(__tool_rt::Prompt),
            primitive::Kind::Resource => quote!(__tool_rt::Resource),
        };
        quote! {
            fn #name() -> __tool_rt::Result<#ty, __tool_rt::ToolDefinitionError> {
                use #krate::__private as __pr;
                #items
                __primitive_build()
            }
        }
    });
    let of_kind = |wanted: primitive::Kind| -> Vec<syn::Ident> {
        primitives
            .iter()
            .enumerate()
            .filter(|(_, (kind, _))| *kind == wanted)
            .map(|(i, _)| primitive_fn(i))
            .collect()
    };
    let (prompt_fns, resource_fns) = (
        of_kind(primitive::Kind::Prompt),
        of_kind(primitive::Kind::Resource),
    );
    // Spanned at the type, so "`Service` cannot be shared between threads" points there.
    let tool_set_impl = quote_spanned! {self_ty.span()=>
        impl __tool_rt::ToolSet for __ToolSelf {
            fn __set_tools() -> __tool_rt::Vec<&'static __tool_rt::SetTool<Self>> {
                __tool_rt::Vec::from([#(#set_fn_names()),*])
            }
            fn __set_prompts() -> __tool_rt::Vec<
                fn() -> __tool_rt::Result<__tool_rt::Prompt, __tool_rt::ToolDefinitionError>,
            > {
                __tool_rt::Vec::from([#(#prompt_fns as fn() -> _),*])
            }
            fn __set_resources() -> __tool_rt::Vec<
                fn() -> __tool_rt::Result<__tool_rt::Resource, __tool_rt::ToolDefinitionError>,
            > {
                __tool_rt::Vec::from([#(#resource_fns as fn() -> _),*])
            }
        }
    };
    quote! {
        #item

        #[doc(hidden)]
        #[allow(non_snake_case, clippy::needless_borrow, clippy::unnecessary_lazy_evaluations)]
        const _: () = {
            use #krate::__private as __tool_rt;
            type __ToolSelf = #self_ty;
            #uses

            #(#set_fns)*

            #(#primitive_fns)*

            #tool_set_impl
        };
    }
}

/// `#[tool_set]`'s options: only `crate = path`.
fn parse_args(args: TokenStream, front: Front, errors: &mut Errors) -> Path {
    let mut krate: Option<Path> = None;
    let parser = syn::meta::parser(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        if key == "crate" {
            let value: syn::Expr = meta.value()?.parse()?;
            match value {
                syn::Expr::Path(path) if path.qself.is_none() => {
                    if krate.is_some() {
                        errors.at(&meta.path, "duplicate option `crate`: give it once");
                    }
                    krate = Some(path.path);
                }
                other => errors.at(
                    other,
                    format!(
                        "expected a path to the crate that re-exports the macro, like \
                         `crate = my_crate::{}`",
                        front.name()
                    ),
                ),
            }
        } else {
            if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                let _: proc_macro2::Group = meta.input.parse()?;
            }
            let hint = match did_you_mean(&key, ["crate"]) {
                Some(close) => format!("did you mean `{close}`?"),
                None => format!(
                    "the one option is `crate = path::to::{}`; the tools' options go on each \
                     method's `#[tool(...)]`",
                    front.name()
                ),
            };
            errors.at(
                &meta.path,
                format!("unknown option `{key}` of `#[tool_set]`: {hint}"),
            );
        }
        Ok(())
    });
    if let Err(error) = syn::parse::Parser::parse2(parser, args) {
        errors.push(error);
    }
    krate.unwrap_or_else(|| front.path())
}

/// The impl is inherent and for one concrete type.
fn check_impl(item: &ItemImpl, errors: &mut Errors) {
    if let Some((trait_path, _)) = &item.trait_ {
        errors.at(
            trait_path,
            "`#[tool_set]` goes on an inherent `impl` block (`impl Service { ... }`), not on a \
             trait implementation: write the tools as the type's own methods (they may call \
             the trait's)",
        );
    }
    if let Some(lt) = &item.generics.lt_token {
        let generics = &item.generics;
        errors.at(
            quote!(#lt #generics),
            "a tool set cannot be generic: its tools are collected at link time, one per \
             method, so the set is one concrete type; write the impl for a concrete type \
             (`impl Service<Postgres>`)",
        );
    } else if let Some(where_clause) = &item.generics.where_clause {
        errors.at(where_clause, "a tool set cannot have a `where` clause");
    }
    if let Some(unsafety) = &item.unsafety {
        errors.at(unsafety, "a tool set cannot be an `unsafe impl`");
    }
}

/// The set has tools, and no two share a name.
fn check_methods(item: &ItemImpl, methods: &[Method], primitives: usize, errors: &mut Errors) {
    if methods.is_empty() && primitives == 0 {
        let self_ty = &item.self_ty;
        errors.at(
            self_ty,
            "this `#[tool_set]` has no `#[tool]` methods: put `#[tool]` on each method that is \
             a tool (or `#[prompt]`, `#[resource]`)",
        );
    }
    let mut seen: HashMap<&str, &syn::Ident> = HashMap::new();
    for method in methods {
        if let Some(first) = seen.insert(&method.model.name, &method.ident) {
            errors.at(
                &method.ident,
                format!(
                    "two tools of this set are named `{}` (the other is `{first}`); rename one \
                     with `#[tool(name = \"...\")]`",
                    method.model.name
                ),
            );
        }
    }
}

/// Takes the `#[prompt]` or `#[resource]` (or `#[path::prompt]`...) attribute off a method.
fn take_primitive_attr(function: &mut ImplItemFn) -> Option<(primitive::Kind, syn::Attribute)> {
    let (position, kind) = function.attrs.iter().enumerate().find_map(|(i, attr)| {
        let last = attr.path().segments.last()?;
        if last.ident == "prompt" {
            Some((i, primitive::Kind::Prompt))
        } else if last.ident == "resource" {
            Some((i, primitive::Kind::Resource))
        } else {
            None
        }
    })?;
    Some((kind, function.attrs.remove(position)))
}

/// Takes the `#[tool]` (or `#[path::tool]`) attribute off a method.
fn take_tool_attr(function: &mut ImplItemFn) -> Option<syn::Attribute> {
    let position = function.attrs.iter().position(|attr| {
        attr.path()
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "tool")
    })?;
    Some(function.attrs.remove(position))
}

/// Every function of the impl, and whether it takes `self`.
fn method_receivers(item: &ItemImpl) -> HashMap<String, bool> {
    item.items
        .iter()
        .filter_map(|item| match item {
            ImplItem::Fn(function) => Some((
                function.sig.ident.to_string(),
                function.sig.receiver().is_some(),
            )),
            _ => None,
        })
        .collect()
}

/// A preview or approval rule named by a method of the impl (`preview = check`,
/// `approval = Self::check`) is called on the instance when it takes `&self`; any other path
/// is called as written, with `Self` naming the impl's type.
fn resolve_preview(
    target: PreviewTarget,
    methods: &HashMap<String, bool>,
    alias: &syn::Ident,
) -> PreviewTarget {
    let PreviewTarget::Path(path) = target else {
        return target;
    };
    let segments: Vec<&syn::PathSegment> = path.segments.iter().collect();
    let method = match segments.as_slice() {
        [only] if path.leading_colon.is_none() => Some(&only.ident),
        [first, second] if path.leading_colon.is_none() && first.ident == "Self" => {
            Some(&second.ident)
        }
        _ => None,
    };
    if let Some(ident) = method
        && let Some(receiver) = methods.get(&ident.to_string())
    {
        return PreviewTarget::Method {
            ident: ident.clone(),
            receiver: *receiver,
        };
    }
    PreviewTarget::Path(replace_self_in(&path, alias))
}
