//! The function under `#[tool]` read into a model: its inputs in order (the parameters the
//! model sends, with their docs and `#[arg]` options, and the `&ToolContext` parameter), its
//! return type, sync or async. Reading takes our helper attributes off the parameters;
//! `validate` checks the model.

use proc_macro2::{Span, TokenStream};
use syn::{Attribute, Expr, FnArg, GenericArgument, ItemFn, Pat, PathArguments, Token, Type};

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
    /// The `default` key as written in `#[arg(...)]`, for errors about it.
    pub(crate) default_key: Option<TokenStream>,
    pub(crate) secret: bool,
    /// The problems found in the parameter's `#[arg]` attributes.
    pub(crate) arg_errors: Errors,
}

impl Param {
    /// Whether the model must send the parameter.
    pub(crate) fn is_required(&self) -> bool {
        self.option_inner.is_none() && self.default.is_none()
    }
}

/// A parameter whose type is `ToolContext` (by any path ending in it): filled in by the
/// executor, not part of the schema.
pub(crate) struct ContextParam {
    pub(crate) ty: Type,
    pub(crate) kind: ContextKind,
    /// Its `#[arg]` options, which it cannot take.
    pub(crate) arg: ArgAttr,
    /// The problems found in its `#[arg]` attributes.
    pub(crate) arg_errors: Errors,
}

/// A parameter whose pattern is not a plain name (`(a, b): (i64, i64)`, `ref x`, `_`), so
/// it has no key in the model's JSON arguments.
pub(crate) struct UnnamedParam {
    pub(crate) pat: Pat,
    /// The problems found in its `#[arg]` attributes.
    pub(crate) arg_errors: Errors,
}

/// A function input, in order, as written.
pub(crate) enum Input {
    /// `self` in any form.
    Receiver(Token![self]),
    Context(Box<ContextParam>),
    Unnamed(Box<UnnamedParam>),
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
            Input::Receiver(_) | Input::Context(_) | Input::Unnamed(_) => None,
        })
    }
}

/// Reads the function's signature, taking the `///` docs and `#[arg]` attributes off its
/// parameters (rustc would reject them there once the macro is done). The problems in `#[arg]`
/// attributes stay with their parameter, so `validate` reports them in the parameter's turn.
pub(crate) fn analyze(function: &mut ItemFn) -> Signature {
    let sig = &mut function.sig;
    let output = match &sig.output {
        syn::ReturnType::Default => syn::parse_quote!(()),
        syn::ReturnType::Type(_, ty) => (**ty).clone(),
    };
    Signature {
        inputs: sig.inputs.iter_mut().map(read_input).collect(),
        output,
        is_async: sig.asyncness.is_some(),
    }
}

/// One input, with its docs and `#[arg]` attributes taken off (a receiver keeps its own).
fn read_input(input: &mut FnArg) -> Input {
    let pat_type = match input {
        FnArg::Receiver(receiver) => return Input::Receiver(receiver.self_token),
        FnArg::Typed(pat_type) => pat_type,
    };
    let mut arg_errors = Errors::default();
    let (description, arg) = take_param_attrs(&mut pat_type.attrs, &mut arg_errors);
    if let Some(kind) = context_kind(&pat_type.ty) {
        return Input::Context(Box::new(ContextParam {
            ty: (*pat_type.ty).clone(),
            kind,
            arg,
            arg_errors,
        }));
    }
    let ident = match &*pat_type.pat {
        Pat::Ident(pat_ident) if pat_ident.by_ref.is_none() && pat_ident.subpat.is_none() => {
            &pat_ident.ident
        }
        other => {
            return Input::Unnamed(Box::new(UnnamedParam {
                pat: other.clone(),
                arg_errors,
            }));
        }
    };
    let (json_name, name_span) = match arg.rename.get() {
        Some(lit) => (lit.value(), lit.span()),
        None => (ident_name(ident), ident.span()),
    };
    let description = arg.description.get().map(|lit| lit.value()).or(description);
    Input::Param(Box::new(Param {
        json_name,
        name_span,
        ty: (*pat_type.ty).clone(),
        option_inner: option_inner(&pat_type.ty),
        description,
        default: arg.default.get().cloned(),
        default_key: arg.default.tokens().cloned(),
        secret: arg.secret.get().is_some(),
        arg_errors,
    }))
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

/// How a `ToolContext` parameter is taken.
pub(crate) enum ContextKind {
    /// `&ToolContext`, the one way a tool takes it.
    Shared,
    /// `&mut ToolContext`.
    Mutable,
    /// `ToolContext`, by value.
    Owned,
}

/// How `ty` takes the context, when it is `ToolContext` (by any path ending in it), by
/// reference or not.
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
