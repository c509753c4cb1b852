//! The function under `#[tool]`: its parameters (with their docs and `#[arg]` options),
//! the optional `&ToolContext` parameter, its return type, sync or async.

use proc_macro2::Span;
use quote::quote;
use syn::{Attribute, Expr, FnArg, GenericArgument, ItemFn, Pat, PathArguments, Type};

use crate::attr::{ArgAttr, ident_name};
use crate::errors::Errors;

/// One parameter the model sends.
pub(crate) struct Param {
    /// The key in the JSON arguments (`rename` or the binding's name).
    pub(crate) json_name: String,
    /// Where the JSON name was written, for errors about it.
    pub(crate) name_span: Span,
    pub(crate) ty: Type,
    /// `T` when the type is `Option<T>`.
    pub(crate) option_inner: Option<Type>,
    pub(crate) description: Option<String>,
    pub(crate) default: Option<Expr>,
    pub(crate) secret: bool,
}

impl Param {
    /// Whether the model must send the parameter.
    pub(crate) fn is_required(&self) -> bool {
        self.option_inner.is_none() && self.default.is_none()
    }
}

/// A function input, in order.
pub(crate) enum Input {
    /// `ctx: &ToolContext`: filled in by the executor, not part of the schema.
    Context,
    Param(Box<Param>),
}

pub(crate) struct Signature {
    pub(crate) inputs: Vec<Input>,
    /// The declared return type (`()` when there is none).
    pub(crate) output: Type,
    pub(crate) is_async: bool,
}

impl Signature {
    pub(crate) fn params(&self) -> impl Iterator<Item = &Param> {
        self.inputs.iter().filter_map(|input| match input {
            Input::Param(param) => Some(&**param),
            Input::Context => None,
        })
    }
}

/// Reads the function's signature, taking the `///` docs and `#[arg]` attributes off its
/// parameters (rustc rejects them there once the macro is done).
pub(crate) fn analyze(function: &mut ItemFn, errors: &mut Errors) -> Signature {
    let sig = &function.sig;
    if let Some(lt) = &sig.generics.lt_token {
        let generics = &sig.generics;
        errors.at(
            quote!(#lt #generics),
            "a tool cannot be generic: the model's arguments need one concrete type per parameter; \
             use concrete types (a tool may take `serde_json::Value` for arbitrary JSON)",
        );
    } else if let Some(where_clause) = &sig.generics.where_clause {
        errors.at(
            where_clause,
            "a tool cannot have a `where` clause: use concrete types",
        );
    }
    if let syn::Safety::Unsafe(token) = &sig.safety {
        errors.at(
            token,
            "a tool cannot be an `unsafe fn`: the model's arguments cannot uphold its safety \
             requirements; make it safe and keep the `unsafe` block inside",
        );
    }
    if let Some(variadic) = &sig.variadic {
        errors.at(variadic, "a tool cannot be variadic");
    }
    let is_async = sig.asyncness.is_some();
    let output = match &sig.output {
        syn::ReturnType::Default => syn::parse_quote!(()),
        syn::ReturnType::Type(_, ty) => {
            if contains_impl_trait(ty) {
                errors.at(
                    ty,
                    "a tool cannot return `impl Trait`: name the concrete type (for example \
                     `String`, `serde_json::Value` or `Json<MyOutput>`)",
                );
            }
            (**ty).clone()
        }
    };

    let mut inputs = Vec::new();
    let mut context_seen = false;
    for input in function.sig.inputs.iter_mut() {
        let pat_type = match input {
            FnArg::Receiver(receiver) => {
                errors.at(
                    receiver.self_token,
                    "a tool cannot take `self`: put `#[tool]` on a free function (not a method \
                     or an associated function), and share state through `ToolContext::state` \
                     (`ctx: &ToolContext`)",
                );
                continue;
            }
            FnArg::Typed(pat_type) => pat_type,
        };
        let (description, arg) = take_param_attrs(&mut pat_type.attrs, errors);
        if let Some(context) = context_kind(&pat_type.ty) {
            match context {
                ContextKind::Shared => {
                    if context_seen {
                        errors.at(
                            &pat_type.ty,
                            "a tool takes at most one `&ToolContext` parameter",
                        );
                    }
                    context_seen = true;
                }
                ContextKind::Mutable => errors.at(
                    &pat_type.ty,
                    "take the context by shared reference: `ctx: &ToolContext`",
                ),
                ContextKind::Owned => errors.at(
                    &pat_type.ty,
                    "take the context by reference: `ctx: &ToolContext`",
                ),
            }
            if let Some(tokens) = arg
                .rename
                .tokens()
                .or(arg.default.tokens())
                .or(arg.secret.tokens())
            {
                errors.at(tokens, "the `&ToolContext` parameter is not sent by the model and takes no `#[arg]` options");
            }
            inputs.push(Input::Context);
            continue;
        }
        let ident = match &*pat_type.pat {
            Pat::Ident(pat_ident) if pat_ident.by_ref.is_none() && pat_ident.subpat.is_none() => {
                pat_ident.ident.clone()
            }
            other => {
                errors.at(
                    other,
                    "a tool parameter must be a plain name (like `path: String`): the name is the \
                     parameter's key in the model's JSON arguments",
                );
                continue;
            }
        };
        if contains_impl_trait(&pat_type.ty) {
            errors.at(
                &pat_type.ty,
                "a tool parameter cannot be `impl Trait`: use a concrete type",
            );
            continue;
        }
        if borrows(&pat_type.ty) {
            errors.at(
                &pat_type.ty,
                "a tool parameter cannot borrow: the model's arguments are owned JSON; use an \
                 owned type such as `String` or `Vec<T>`",
            );
            continue;
        }
        let (json_name, name_span) = match arg.rename.get() {
            Some(lit) => (lit.value(), lit.span()),
            None => (ident_name(&ident), ident.span()),
        };
        let option_inner = option_inner(&pat_type.ty);
        if let (Some(_), Some(tokens)) = (&option_inner, arg.default.tokens()) {
            errors.at(
                tokens,
                "an `Option` parameter already defaults to `None`: remove `default`, or make the \
                 type non-optional to give it a default",
            );
        }
        let description = arg.description.get().map(|lit| lit.value()).or(description);
        inputs.push(Input::Param(Box::new(Param {
            json_name,
            name_span,
            ty: (*pat_type.ty).clone(),
            option_inner,
            description,
            default: arg.default.get().cloned(),
            secret: arg.secret.get().is_some(),
        })));
    }
    Signature {
        inputs,
        output,
        is_async,
    }
}

/// Removes `///` docs and `#[arg(...)]` from a parameter, returning the doc text and options.
fn take_param_attrs(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> (Option<String>, ArgAttr) {
    let mut arg = ArgAttr::empty();
    let mut docs = Vec::new();
    attrs.retain(|attr| {
        if attr.path().is_ident("doc") {
            docs.push(attr.clone());
            false
        } else if attr.path().is_ident("arg") {
            arg.parse_into(attr, errors);
            false
        } else {
            true
        }
    });
    (doc_text(&docs), arg)
}

/// The text of `///` comments, as Markdown reads it: one leading space per line removed,
/// wrapped lines joined with a space, blank lines kept as paragraph breaks, and list items,
/// headings and code blocks kept on lines of their own. `None` when there is no text.
pub(crate) fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(lit),
                ..
            }) = &nv.value
        {
            // `split`, not `lines`: a blank `///` line separates paragraphs and must stay.
            for line in lit.value().split('\n') {
                let line = line.strip_prefix(' ').unwrap_or(line);
                lines.push(line.trim_end().to_owned());
            }
        }
    }
    let mut text = String::new();
    let mut in_code = false;
    let mut previous_blank = true;
    for line in &lines {
        let trimmed = line.trim_start();
        let fence = trimmed.starts_with("```");
        let own_line = in_code
            || fence
            || trimmed.is_empty()
            || previous_blank
            || trimmed.starts_with(['-', '*', '+', '#', '|', '>'])
            || trimmed
                .split_once(". ")
                .is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()));
        if own_line {
            if !text.is_empty() {
                text.push('\n');
            }
        } else {
            text.push(' ');
        }
        text.push_str(if in_code || fence { line } else { trimmed });
        if fence {
            in_code = !in_code;
        }
        previous_blank = trimmed.is_empty();
    }
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

enum ContextKind {
    Shared,
    Mutable,
    Owned,
}

/// Whether `ty` is the context parameter: `&ToolContext` (by any path ending in it).
fn context_kind(ty: &Type) -> Option<ContextKind> {
    let is_context = |ty: &Type| match ty {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "ToolContext"),
        _ => false,
    };
    match ty {
        Type::Reference(reference) if is_context(&reference.elem) => {
            Some(if reference.mutability.is_some() {
                ContextKind::Mutable
            } else {
                ContextKind::Shared
            })
        }
        other if is_context(other) => Some(ContextKind::Owned),
        _ => None,
    }
}

/// `T` when `ty` is `Option<T>` (written `Option`, `std::option::Option` or
/// `core::option::Option`).
fn option_inner(ty: &Type) -> Option<Type> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let segments: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let is_option = matches!(
        segments
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        ["Option"] | ["std" | "core", "option", "Option"]
    );
    if !is_option {
        return None;
    }
    let last = path.path.segments.last()?;
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [GenericArgument::Type(inner)] => Some(inner.clone()),
        _ => None,
    }
}

/// Whether `ty` contains a reference or a lifetime.
fn borrows(ty: &Type) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_type_reference(&mut self, _: &'ast syn::TypeReference) {
            self.0 = true;
        }
        fn visit_lifetime(&mut self, _: &'ast syn::Lifetime) {
            self.0 = true;
        }
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_type(&mut finder, ty);
    finder.0
}

fn contains_impl_trait(ty: &Type) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_type_impl_trait(&mut self, _: &'ast syn::TypeImplTrait) {
            self.0 = true;
        }
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_type(&mut finder, ty);
    finder.0
}
