//! The function under `#[tool]` read into a model: its inputs in order (the parameters the
//! model sends, with their docs and `#[arg]` options, and the `&ToolContext` parameter), its
//! return type, sync or async. Reading takes our helper attributes off the parameters;
//! `validate` checks the model.

use proc_macro2::{Span, TokenStream};
use syn::{Attribute, Expr, FnArg, GenericArgument, LitStr, Pat, PathArguments, Type};

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
    /// `#[arg(header = "Name")]`: the HTTP header it is sent in too (SEP-2243).
    pub(crate) header: Option<LitStr>,
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

/// A `#[state]` parameter: filled in from the executor's state by type, not part of the
/// schema.
pub(crate) struct StateParam {
    pub(crate) ty: Type,
    /// The `#[state]` attribute, for errors about it.
    pub(crate) attr: Attribute,
    /// Its `#[arg]` options, which it cannot take.
    pub(crate) arg: ArgAttr,
    /// The problems found in its `#[arg]` attributes.
    pub(crate) arg_errors: Errors,
}

impl StateParam {
    /// `T` when the parameter is `&T`, the one way state is taken.
    pub(crate) fn state_type(&self) -> Option<&Type> {
        match &self.ty {
            Type::Reference(reference) if reference.mutability.is_none() => Some(&reference.elem),
            _ => None,
        }
    }
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
    Receiver(Box<syn::Receiver>),
    Context(Box<ContextParam>),
    State(Box<StateParam>),
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
            _ => None,
        })
    }

    pub(crate) fn states(&self) -> impl Iterator<Item = &StateParam> {
        self.inputs.iter().filter_map(|input| match input {
            Input::State(state) => Some(&**state),
            _ => None,
        })
    }

    /// Whether the function takes `self` in some form.
    pub(crate) fn has_receiver(&self) -> bool {
        matches!(self.inputs.first(), Some(Input::Receiver(_)))
    }

    /// Replaces `Self` in every type and default the generated code names, for a method whose
    /// tool is defined outside its `impl` block (where `__ToolSelf` names the type).
    pub(crate) fn replace_self(&mut self, with: &syn::Ident) {
        self.output = replace_self_in(&self.output, with);
        for input in &mut self.inputs {
            match input {
                Input::Param(param) => {
                    param.ty = replace_self_in(&param.ty, with);
                    param.option_inner = param
                        .option_inner
                        .as_ref()
                        .map(|t| replace_self_in(t, with));
                    param.default = param.default.as_ref().map(|e| replace_self_in(e, with));
                }
                Input::State(state) => state.ty = replace_self_in(&state.ty, with),
                Input::Receiver(_) | Input::Context(_) | Input::Unnamed(_) => {}
            }
        }
    }
}

/// `node` with every `Self` token replaced by `with`.
pub(crate) fn replace_self_in<T>(node: &T, with: &syn::Ident) -> T
where
    T: syn::parse::Parse + quote::ToTokens + Clone,
{
    fn replace(tokens: TokenStream, with: &syn::Ident) -> TokenStream {
        tokens
            .into_iter()
            .map(|token| match token {
                proc_macro2::TokenTree::Ident(ident) if ident == "Self" => {
                    proc_macro2::TokenTree::Ident(syn::Ident::new(&with.to_string(), ident.span()))
                }
                proc_macro2::TokenTree::Group(group) => {
                    let mut new =
                        proc_macro2::Group::new(group.delimiter(), replace(group.stream(), with));
                    new.set_span(group.span());
                    proc_macro2::TokenTree::Group(new)
                }
                other => other,
            })
            .collect()
    }
    // The same tokens with one identifier changed for another parse the same way.
    syn::parse2(replace(node.to_token_stream(), with)).unwrap_or_else(|_| node.clone())
}

/// Reads the function's signature, taking the `///` docs, `#[arg]` and `#[state]` attributes
/// off its parameters (rustc would reject them there once the macro is done). The problems in
/// `#[arg]` attributes stay with their parameter, so `validate` reports them in the parameter's
/// turn.
pub(crate) fn analyze(sig: &mut syn::Signature) -> Signature {
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
        FnArg::Receiver(receiver) => return Input::Receiver(Box::new(receiver.clone())),
        FnArg::Typed(pat_type) => pat_type,
    };
    let mut arg_errors = Errors::default();
    let (description, arg, state) = take_param_attrs(&mut pat_type.attrs, &mut arg_errors);
    if let Some(attr) = state {
        return Input::State(Box::new(StateParam {
            ty: (*pat_type.ty).clone(),
            attr,
            arg,
            arg_errors,
        }));
    }
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
        header: arg.header.get().cloned(),
        arg_errors,
    }))
}

/// Removes `///` docs, `#[arg(...)]` and `#[state]` from a parameter, returning the doc text,
/// the options and the `#[state]` attribute.
fn take_param_attrs(
    attrs: &mut Vec<Attribute>,
    errors: &mut Errors,
) -> (Option<String>, ArgAttr, Option<Attribute>) {
    let mut arg = ArgAttr::empty();
    let mut docs = Vec::new();
    let mut state = None;
    attrs.retain(|attr| {
        if attr.path().is_ident("state") {
            if !matches!(attr.meta, syn::Meta::Path(_)) {
                errors.at(
                    attr,
                    "`#[state]` takes no options: write `#[state] name: &Type`",
                );
            }
            state = Some(attr.clone());
            false
        } else if attr.path().is_ident("doc") {
            docs.push(attr.clone());
            false
        } else if attr.path().is_ident("arg") {
            arg.parse_into(attr, errors);
            false
        } else {
            true
        }
    });
    (doc_text(&docs), arg, state)
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
