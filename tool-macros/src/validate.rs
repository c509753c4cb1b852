//! The checks `#[tool]` makes at compile time, and the checked model of the tool.

use std::collections::HashSet;

use quote::quote;
use syn::{Attribute, Expr, Ident, Path, Type};
use toolwright_names::{MAX_NAME_LEN, NAME_RULE, NameError, did_you_mean};

use crate::attr::{ListItem, Opt, ToolAttr, ident_name};
use crate::errors::Errors;
use crate::option_values::{
    check_max_calls, check_safety, check_task, check_timeout, check_version,
};
use crate::runtime_path::Front;
use crate::signature::{ContextKind, ContextParam, Input, Param, Signature, StateParam, doc_text};

/// Where the function under `#[tool]` is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// A free function (`#[tool]` alone).
    Free,
    /// A method of a `#[tool_set]` impl block.
    SetMethod,
}

/// The function as written: its attributes (for the docs) and its signature.
pub(crate) struct Written<'a> {
    pub(crate) attrs: &'a [Attribute],
    pub(crate) sig: &'a syn::Signature,
}

/// Everything `expand` needs, checked.
pub(crate) struct ToolModel {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) safety: Ident,
    pub(crate) categories: Vec<String>,
    pub(crate) tags: Vec<String>,
    pub(crate) version: Option<String>,
    pub(crate) priority: Option<Expr>,
    pub(crate) krate: Path,
    pub(crate) preview: Option<PreviewTarget>,
    pub(crate) approval: Option<PreviewTarget>,
    /// `timeout = "..."`, in milliseconds.
    pub(crate) timeout_ms: Option<u64>,
    pub(crate) max_calls: Option<u32>,
    /// `task = "..."`: the `TaskSupport` variant (`Forbidden` unless given).
    pub(crate) task_support: Ident,
    /// `inline`: the sync tool may run on the async runtime's worker.
    pub(crate) inline: bool,
    /// `ask_first`: the task tool asks its first question before it is a task.
    pub(crate) ask_first: bool,
}

/// The function `preview = ...` or `approval = ...` names.
pub(crate) enum PreviewTarget {
    /// A function called as `path(ctx, &arg_0, ..)`.
    Path(Path),
    /// A method of the tool's set, called on the instance when it takes `&self`.
    Method { ident: Ident, receiver: bool },
}

/// Checks everything, in the order the errors are reported: the signature (as written, input
/// by input), the name, the description, the safety level, the parameters against
/// `required(...)`, the categories and tags, the version.
pub(crate) fn validate(
    attr: &ToolAttr,
    function: &Written<'_>,
    signature: &Signature,
    place: Place,
    front: Front,
    errors: &mut Errors,
) -> ToolModel {
    let params = check_signature(function, signature, place, errors);
    let name = check_name(attr, &function.sig.ident, errors);
    let description = check_description(attr, function.attrs, &function.sig.ident, errors);
    let safety = check_safety(attr.safety.get(), errors);
    check_params(attr, &params, errors);
    crate::header::check_headers(&params, errors);
    let categories = check_list(&attr.categories, "a category", errors);
    let tags = check_list(&attr.tags, "a tag", errors);

    let version = check_version(attr.version.get(), errors);
    let timeout_ms = attr
        .timeout
        .get()
        .and_then(|lit| check_timeout(lit, errors));
    let max_calls = attr
        .max_calls
        .get()
        .and_then(|expr| check_max_calls(expr, errors));
    let task_support = check_task(attr.task.get(), errors);
    let inline = check_inline(attr.inline.get(), signature, errors);
    let ask_first = crate::header::check_ask_first(attr, errors);

    ToolModel {
        name,
        description,
        safety,
        categories,
        tags,
        version,
        priority: attr.priority.get().cloned(),
        krate: attr.krate.get().cloned().unwrap_or_else(|| front.path()),
        preview: attr.preview.get().cloned().map(PreviewTarget::Path),
        approval: attr.approval.get().cloned().map(PreviewTarget::Path),
        timeout_ms,
        max_calls,
        task_support,
        inline,
        ask_first,
    }
}

/// `inline` is for sync functions: an async tool already runs on the caller's task.
fn check_inline(inline: Option<&Path>, signature: &Signature, errors: &mut Errors) -> bool {
    let Some(path) = inline else {
        return false;
    };
    if signature.is_async {
        errors.at(
            path,
            "`inline` is for sync functions: an async tool already runs on the caller's task; \
             remove `inline`",
        );
        return false;
    }
    true
}

/// The signature as written, input by input, so the errors read in its order (those of
/// a parameter's `#[arg]` attributes first, then the checks on it); returns the parameters
/// the model can send.
fn check_signature<'a>(
    function: &Written<'_>,
    signature: &'a Signature,
    place: Place,
    errors: &mut Errors,
) -> Vec<&'a Param> {
    check_head(function.sig, errors);
    if place == Place::Free && !signature.has_receiver() && mentions_self(function.sig) {
        errors.at(
            &function.sig.ident,
            "`#[tool]` on an associated function needs `#[tool_set]` on its `impl` block \
             (`#[tool_set] impl Service { #[tool] fn ... }`), or make it a free function",
        );
    }
    let mut params = Vec::new();
    let mut context_seen = false;
    for input in &signature.inputs {
        match input {
            Input::Receiver(receiver) => check_receiver(receiver, place, errors),
            Input::State(state) => {
                errors.append(&state.arg_errors);
                check_state(state, errors);
            }
            Input::Context(context) => {
                errors.append(&context.arg_errors);
                check_context(context, &mut context_seen, errors);
            }
            Input::Unnamed(unnamed) => {
                errors.append(&unnamed.arg_errors);
                errors.at(
                    &unnamed.pat,
                    "a tool parameter must be a plain name (like `path: String`): the name is the \
                     parameter's key in the model's JSON arguments",
                );
            }
            Input::Param(param) => {
                errors.append(&param.arg_errors);
                if check_param(param, errors) {
                    params.push(&**param);
                }
            }
        }
    }
    params
}

/// Everything but the inputs: not generic, not `unsafe`, not variadic, no `impl Trait`
/// returned.
fn check_head(sig: &syn::Signature, errors: &mut Errors) {
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
    if let syn::ReturnType::Type(_, ty) = &sig.output
        && contains_impl_trait(ty)
    {
        errors.at(
            ty,
            "a tool cannot return `impl Trait`: name the concrete type (for example \
             `String`, `serde_json::Value` or `Json<MyOutput>`)",
        );
    }
}

/// A method of a set takes `&self`; a free `#[tool]` takes no `self` at all.
fn check_receiver(receiver: &syn::Receiver, place: Place, errors: &mut Errors) {
    if place == Place::Free {
        errors.at(
            receiver,
            "`#[tool]` on a method needs `#[tool_set]` on its `impl` block \
             (`#[tool_set] impl Service { #[tool] fn name(&self, ...) }`): the executor then \
             finds the instance in its state, or `ToolRegistry::register_set` binds one",
        );
        return;
    }
    let message = match &receiver.kind {
        syn::ReceiverKind::Reference(_, None, None) => return,
        syn::ReceiverKind::Reference(_, _, Some(_)) => {
            "a tool method takes `&self`, not `&mut self`: calls run concurrently on one shared \
             instance; keep what changes behind a `Mutex`, an `RwLock` or an atomic"
        }
        syn::ReceiverKind::Value => {
            "a tool method takes `&self`, not `self`: every call shares the one instance, so no \
             call can take it by value"
        }
        _ => "a tool method takes `&self`: every call shares the one instance",
    };
    errors.at(receiver, message);
}

/// A `#[state]` parameter is `&T` for a concrete `T`, with no `#[arg]` options.
fn check_state(state: &StateParam, errors: &mut Errors) {
    match &state.ty {
        ty if context_like(ty) => errors.at(
            &state.attr,
            "the context is not state: remove `#[state]` (`ctx: &ToolContext` is filled in \
             on its own)",
        ),
        Type::Reference(reference) if reference.mutability.is_some() => errors.at(
            &state.ty,
            "take state by shared reference (`&T`, not `&mut T`): calls run concurrently on \
             the one value; keep what changes behind a `Mutex`, an `RwLock` or an atomic",
        ),
        Type::Reference(reference) => {
            if contains_impl_trait(&reference.elem)
                || matches!(&*reference.elem, Type::TraitObject(_))
            {
                errors.at(
                    &reference.elem,
                    "state is found by its type: name a concrete type (for a trait object, \
                     store an `Arc<dyn Trait>` and take `&Arc<dyn Trait>`)",
                );
            }
        }
        _ => errors.at(
            &state.ty,
            "a `#[state]` parameter is a shared reference to the state's type (`#[state] db: \
             &Pool`): the executor holds one value and lends it to every call",
        ),
    }
    let arg = &state.arg;
    if let Some(tokens) = arg
        .rename
        .tokens()
        .or(arg.default.tokens())
        .or(arg.secret.tokens())
        .or(arg.description.tokens())
        .or(arg.header.tokens())
    {
        errors.at(
            tokens,
            "a `#[state]` parameter is not sent by the model and takes no `#[arg]` options",
        );
    }
}

/// Whether `ty` is `ToolContext` or a reference to it.
fn context_like(ty: &Type) -> bool {
    let ty = match ty {
        Type::Reference(reference) => &*reference.elem,
        other => other,
    };
    matches!(ty, Type::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == "ToolContext"))
}

/// Whether the signature names `Self` (so the function is in an `impl` block).
fn mentions_self(sig: &syn::Signature) -> bool {
    fn has_self(tokens: proc_macro2::TokenStream) -> bool {
        tokens.into_iter().any(|token| match token {
            proc_macro2::TokenTree::Ident(ident) => ident == "Self",
            proc_macro2::TokenTree::Group(group) => has_self(group.stream()),
            _ => false,
        })
    }
    has_self(quote!(#sig))
}

/// The context is taken once, by shared reference, and without `#[arg]` options.
fn check_context(context: &ContextParam, context_seen: &mut bool, errors: &mut Errors) {
    match context.kind {
        ContextKind::Shared => {
            if *context_seen {
                errors.at(
                    &context.ty,
                    "a tool takes at most one `&ToolContext` parameter",
                );
            }
            *context_seen = true;
        }
        ContextKind::Mutable => errors.at(
            &context.ty,
            "take the context by shared reference: `ctx: &ToolContext`",
        ),
        ContextKind::Owned => errors.at(
            &context.ty,
            "take the context by reference: `ctx: &ToolContext`",
        ),
    }
    let arg = &context.arg;
    if let Some(tokens) = arg
        .rename
        .tokens()
        .or(arg.default.tokens())
        .or(arg.secret.tokens())
        .or(arg.header.tokens())
    {
        errors.at(
            tokens,
            "the `&ToolContext` parameter is not sent by the model and takes no `#[arg]` options",
        );
    }
}

/// Whether the model can send `param`: its type is concrete and owned (else reported). An
/// `Option` parameter takes no `default` (reported, but the parameter still counts).
fn check_param(param: &Param, errors: &mut Errors) -> bool {
    if contains_impl_trait(&param.ty) {
        errors.at(
            &param.ty,
            "a tool parameter cannot be `impl Trait`: use a concrete type",
        );
        return false;
    }
    if borrows(&param.ty) {
        errors.at(
            &param.ty,
            "a tool parameter cannot borrow: the model's arguments are owned JSON; use an \
             owned type such as `String` or `Vec<T>`",
        );
        return false;
    }
    if let (Some(_), Some(tokens)) = (&param.option_inner, &param.default_key) {
        errors.at(
            tokens,
            "an `Option` parameter already defaults to `None`: remove `default`, or make the \
             type non-optional to give it a default",
        );
    }
    true
}

/// The tool's name (`name = "..."`, else the function's) by the rules of
/// `toolwright_names::check_tool_name`, each problem worded for the function's author.
fn check_name(attr: &ToolAttr, fn_ident: &Ident, errors: &mut Errors) -> String {
    let (name, span) = match attr.name.get() {
        Some(lit) => (lit.value(), lit.span()),
        None => (ident_name(fn_ident), fn_ident.span()),
    };
    let from = if attr.name.get().is_some() {
        "tool name"
    } else {
        "tool name (taken from the function's name)"
    };
    let message = match toolwright_names::check_tool_name(&name) {
        Ok(()) => return name,
        Err(NameError::Empty) => "the tool name cannot be empty".to_owned(),
        Err(NameError::NotSnakeCase { suggestion }) => {
            let hint = match suggestion {
                Some(fixed) => format!("; did you mean `{fixed}`?"),
                None => String::new(),
            };
            let rename = if attr.name.get().is_some() {
                ""
            } else {
                " Set one with `#[tool(name = \"...\")]`."
            };
            format!("{from} `{name}` is not snake_case: {NAME_RULE}{hint}{rename}")
        }
        Err(NameError::TooLong { len }) => format!(
            "{from} `{name}` is {len} characters long; model APIs accept at most {MAX_NAME_LEN}"
        ),
    };
    errors.push(syn::Error::new(span, message));
    name
}

/// The values of `categories(...)` or `tags(...)`: none empty, none twice.
fn check_list(opt: &Opt<Vec<ListItem>>, what: &str, errors: &mut Errors) -> Vec<String> {
    let mut values: Vec<String> = Vec::new();
    for item in opt.get().into_iter().flatten() {
        if item.value.trim().is_empty() {
            errors.push(syn::Error::new(
                item.span,
                format!("{what} cannot be empty"),
            ));
        } else if values.contains(&item.value) {
            errors.push(syn::Error::new(
                item.span,
                format!("{what} `{}` is listed twice", item.value),
            ));
        } else {
            values.push(item.value.clone());
        }
    }
    values
}

fn check_description(
    attr: &ToolAttr,
    attrs: &[Attribute],
    fn_ident: &Ident,
    errors: &mut Errors,
) -> String {
    if let Some(lit) = attr.description.get() {
        let text = lit.value().trim().to_owned();
        if text.is_empty() {
            errors.at(
                lit,
                "the description is empty: say what the tool does and when to use it",
            );
        }
        return text;
    }
    match doc_text(attrs) {
        Some(text) => text,
        // A misspelt `description = ...` was reported already.
        None if attr.misspelt.contains(&"description") => String::new(),
        None => {
            errors.at(
                fn_ident,
                "a tool needs a description, which the model reads to decide when to use it: \
                 add a doc comment (`/// What the tool does`) or `#[tool(description = \"...\")]`",
            );
            String::new()
        }
    }
}

/// Parameter names are unique and valid; `required(...)` agrees with the types.
fn check_params(attr: &ToolAttr, params: &[&Param], errors: &mut Errors) {
    let mut seen: HashSet<&str> = HashSet::new();
    for param in params {
        let name = param.json_name.as_str();
        if !is_valid_param_name(name) {
            errors.push(syn::Error::new(
                param.name_span,
                format!(
                    "parameter name `{name}` is not valid in a tool schema: use 1 to 64 letters, \
                     digits, `_`, `-` or `.`"
                ),
            ));
        }
        if !seen.insert(name) {
            errors.push(syn::Error::new(
                param.name_span,
                format!(
                    "two parameters are named `{name}` in the tool's arguments; rename one with \
                     `#[arg(rename = \"...\")]`"
                ),
            ));
        }
    }

    let Some(required) = attr.required.get() else {
        return;
    };
    let names: Vec<&str> = params.iter().map(|p| p.json_name.as_str()).collect();
    let mut listed: HashSet<&str> = HashSet::new();
    // Parameters a misspelt entry was meant to name: not reported again as missing.
    let mut implied: Vec<&str> = Vec::new();
    for item in required {
        let value = item.value.as_str();
        if !listed.insert(value) {
            errors.push(syn::Error::new(
                item.span,
                format!("`{value}` is listed twice in `required`"),
            ));
            continue;
        }
        match params.iter().find(|p| p.json_name == value) {
            None => {
                let close = did_you_mean(value, names.iter().copied());
                // The parameter it was meant to name counts as listed: one error, not two.
                implied.extend(close);
                let hint = match close {
                    Some(close) => format!("did you mean `{close}`?"),
                    None if names.is_empty() => "the tool has no parameters".to_owned(),
                    None => format!(
                        "its parameters are {}",
                        names
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                errors.push(syn::Error::new(
                    item.span,
                    format!(
                        "`required` names `{value}`, which is not a parameter of this tool; {hint}"
                    ),
                ));
            }
            Some(param) if param.option_inner.is_some() => errors.push(syn::Error::new(
                item.span,
                format!(
                    "parameter `{value}` is an `Option`, so it cannot be required; remove it from \
                     `required` or change its type to the inner type"
                ),
            )),
            Some(param) if param.default.is_some() => errors.push(syn::Error::new(
                item.span,
                format!(
                    "parameter `{value}` has a default, so it is not required; remove it from \
                     `required` or remove the default"
                ),
            )),
            Some(_) => {}
        }
    }
    for param in params {
        let name = param.json_name.as_str();
        if param.is_required() && !listed.contains(&name) && !implied.contains(&name) {
            errors.push(syn::Error::new(
                param.name_span,
                format!(
                    "parameter `{}` is required by its type but missing from `required(...)`; \
                     add it there, make its type `Option<_>`, or give it `#[arg(default = ...)]`",
                    param.json_name
                ),
            ));
        }
    }
}

fn is_valid_param_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
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

/// Whether `ty` contains an `impl Trait`.
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
