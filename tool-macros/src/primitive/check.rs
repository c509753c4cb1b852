//! Every compile-time check of a `#[prompt]` or `#[resource]` function, all errors at once,
//! and the model the expansion reads: names, URI template against parameters, completions.

use proc_macro2::Span;
use syn::{Ident, LitStr, Path, Type};
use toolwright_names::uri_template::{UriTemplate, has_scheme, is_template};
use toolwright_names::{check_primitive_name, did_you_mean};

use super::attr::{Kind, PrimitiveAttr};
use crate::attr::ident_name;
use crate::errors::Errors;
use crate::signature::{ContextKind, Input, Signature, doc_text};

/// Where the function is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// A free function.
    Free,
    /// A method of a `#[tool_set]` impl block.
    SetMethod,
}

/// One argument (prompt) or template variable (resource), in the order written.
pub(crate) struct Arg {
    /// Its name (`rename` or the binding's).
    pub(crate) name: String,
    /// The type it is parsed into (`T` of `Option<T>`).
    pub(crate) ty: Type,
    pub(crate) optional: bool,
    pub(crate) description: Option<String>,
    /// Where its name was written.
    pub(crate) span: Span,
}

/// What the function's inputs are, in order.
pub(crate) enum Use {
    Receiver,
    Context,
    Arg(usize),
}

/// The checked definition.
pub(crate) struct Model {
    pub(crate) kind: Kind,
    pub(crate) krate: Path,
    pub(crate) name: String,
    pub(crate) uri: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) description: String,
    pub(crate) mime_type: Option<String>,
    pub(crate) version: Option<String>,
    pub(crate) tags: Vec<String>,
    pub(crate) safety: Ident,
    pub(crate) args: Vec<Arg>,
    pub(crate) uses: Vec<Use>,
    /// `(argument, function)`.
    pub(crate) completions: Vec<(String, Path)>,
    pub(crate) is_async: bool,
    pub(crate) output: Type,
}

/// Checks the function; every problem goes to `errors` (the model is meaningless then).
pub(crate) fn check(
    attr: &PrimitiveAttr,
    function: &syn::Signature,
    fn_attrs: &[syn::Attribute],
    signature: &Signature,
    place: Place,
    krate: Path,
    errors: &mut Errors,
) -> Model {
    let kind = attr.kind;
    let word = kind.word();
    check_head(function, word, errors);
    let (args, uses) = check_inputs(signature, word, place, errors);
    let name = check_name(attr, &function.ident, errors);
    let description = attr
        .description
        .get()
        .map(LitStr::value)
        .or_else(|| doc_text(fn_attrs))
        .filter(|d| !d.trim().is_empty());
    if description.is_none() {
        errors.at(
            &function.ident,
            format!(
                "a {word} needs a description: add a `///` doc comment saying what it is for, \
                 or `#[{word}(description = \"...\")]`"
            ),
        );
    }
    let uri = match kind {
        Kind::Resource => check_uri(attr, &args, &function.ident, errors),
        Kind::Prompt => None,
    };
    let completions = check_completions(attr, &args, word, errors);
    let tags = match attr.tags.get() {
        Some(items) => items
            .iter()
            .filter_map(|item| {
                if item.value.trim().is_empty() {
                    errors.push(syn::Error::new(item.span, "a tag cannot be empty"));
                    None
                } else {
                    Some(item.value.clone())
                }
            })
            .collect(),
        None => Vec::new(),
    };
    let version = attr.version.get().and_then(|lit| {
        let v = lit.value();
        if v.trim().is_empty() {
            errors.at(
                lit,
                "the version is empty: write one (`version = \"1.0.0\"`) or leave it out",
            );
            None
        } else {
            Some(v)
        }
    });
    let mime_type = attr.mime_type.get().and_then(|lit| {
        let m = lit.value();
        if m.split_once('/')
            .is_none_or(|(a, b)| a.is_empty() || b.is_empty())
        {
            errors.at(
                lit,
                format!("`{m}` is not a MIME type: write `type/subtype` (`text/markdown`)"),
            );
            None
        } else {
            Some(m)
        }
    });
    let safety = check_safety(attr.safety.get(), errors);
    Model {
        kind,
        krate,
        name,
        uri,
        title: attr.title.get().map(LitStr::value),
        description: description.unwrap_or_default(),
        mime_type,
        version,
        tags,
        safety,
        args,
        uses,
        completions,
        is_async: signature.is_async,
        output: signature.output.clone(),
    }
}

fn check_head(sig: &syn::Signature, word: &str, errors: &mut Errors) {
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.at(
            &sig.generics,
            format!("a `#[{word}]` function cannot be generic: its arguments are strings, give them concrete types"),
        );
    }
    if let Some(token) = &sig.constness {
        errors.at(token, format!("a `#[{word}]` function cannot be `const`"));
    }
    if let syn::Safety::Unsafe(token) = &sig.safety {
        errors.at(token, format!("a `#[{word}]` function cannot be `unsafe`"));
    }
    if let Some(abi) = &sig.abi {
        errors.at(abi, format!("a `#[{word}]` function cannot have an ABI"));
    }
    if let Some(variadic) = &sig.variadic {
        errors.at(
            variadic,
            format!("a `#[{word}]` function cannot be variadic"),
        );
    }
}

fn check_inputs(
    signature: &Signature,
    word: &str,
    place: Place,
    errors: &mut Errors,
) -> (Vec<Arg>, Vec<Use>) {
    let mut args: Vec<Arg> = Vec::new();
    let mut uses = Vec::new();
    let mut context_seen = false;
    for input in &signature.inputs {
        match input {
            Input::Receiver(receiver) => {
                if place == Place::Free {
                    errors.at(
                        receiver,
                        format!(
                            "`#[{word}]` on a method needs `#[tool_set]` on its `impl` block \
                             (`#[tool_set] impl Service {{ #[{word}] fn ... }}`)"
                        ),
                    );
                } else if !matches!(receiver.kind, syn::ReceiverKind::Reference(_, None, None)) {
                    errors.at(
                        receiver,
                        format!("a `#[{word}]` method takes `&self`: the instance is shared"),
                    );
                }
                uses.push(Use::Receiver);
            }
            Input::Context(context) => {
                if !matches!(context.kind, ContextKind::Shared) {
                    errors.at(&context.ty, "take the context as `ctx: &ToolContext`");
                }
                if context_seen {
                    errors.at(&context.ty, "the context is taken twice: take it once");
                }
                errors.append(&context.arg_errors);
                context_seen = true;
                uses.push(Use::Context);
            }
            Input::State(state) => errors.at(
                &state.attr,
                format!(
                    "`#[state]` is for tools: a `#[{word}]` reads state with `ctx.state::<T>()` \
                     (take `ctx: &ToolContext`)"
                ),
            ),
            Input::Unnamed(unnamed) => errors.at(
                &unnamed.pat,
                format!("give the parameter a plain name: it is the {word}'s argument's name"),
            ),
            Input::Param(param) => {
                errors.append(&param.arg_errors);
                if let Some(key) = &param.default_key {
                    errors.at(
                        key,
                        format!("`default` is for tools: a `#[{word}]` argument that may be left out is an `Option<T>`"),
                    );
                }
                if param.secret {
                    errors.push(syn::Error::new(
                        param.name_span,
                        format!("`secret` is for tools: a `#[{word}]` has no secret arguments"),
                    ));
                }
                let ty = param
                    .option_inner
                    .clone()
                    .unwrap_or_else(|| param.ty.clone());
                if matches!(ty, Type::Reference(_)) {
                    errors.at(
                        &param.ty,
                        "arguments arrive as strings the function owns: take `String` (or a type that implements `FromStr`), not a reference",
                    );
                }
                if args.iter().any(|a| a.name == param.json_name) {
                    errors.push(syn::Error::new(
                        param.name_span,
                        format!("two parameters are named `{}`", param.json_name),
                    ));
                }
                uses.push(Use::Arg(args.len()));
                args.push(Arg {
                    name: param.json_name.clone(),
                    ty,
                    optional: param.option_inner.is_some(),
                    description: param.description.clone(),
                    span: param.name_span,
                });
            }
        }
    }
    (args, uses)
}

fn check_name(attr: &PrimitiveAttr, fn_ident: &Ident, errors: &mut Errors) -> String {
    let (name, span): (String, Span) = match attr.name.get() {
        Some(lit) => (lit.value(), lit.span()),
        None => (ident_name(fn_ident), fn_ident.span()),
    };
    match attr.kind {
        Kind::Prompt => {
            if let Err(why) = check_primitive_name(&name) {
                errors.push(syn::Error::new(
                    span,
                    format!("`{name}` is not a valid prompt name: {why}"),
                ));
            }
        }
        Kind::Resource => {
            if name.trim().is_empty() || name.chars().any(char::is_control) {
                errors.push(syn::Error::new(
                    span,
                    "a resource's name cannot be empty or hold control characters",
                ));
            }
        }
    }
    name
}

/// The URI or template, checked against the parameters: each variable has a parameter and
/// each parameter is a variable.
fn check_uri(
    attr: &PrimitiveAttr,
    args: &[Arg],
    fn_ident: &Ident,
    errors: &mut Errors,
) -> Option<String> {
    let Some(lit) = attr.uri.get() else {
        errors.at(
            fn_ident,
            "a resource needs its URI: `#[resource(uri = \"notes://all\")]`, or a template \
             whose variables are the function's parameters: `#[resource(uri = \"notes://{id}\")]`",
        );
        return None;
    };
    let uri = lit.value();
    let variables: Vec<String> = if is_template(&uri) {
        match UriTemplate::parse(&uri) {
            Ok(template) => template.variables().map(|v| v.name.clone()).collect(),
            Err(error) => {
                errors.at(lit, format!("invalid URI template: {error}"));
                return None;
            }
        }
    } else {
        if !has_scheme(&uri) {
            errors.at(
                lit,
                "the URI does not start with a scheme: write it as `scheme://...` (`notes://all`)",
            );
            return None;
        }
        Vec::new()
    };
    // The names on each side that the other lacks: when one of each is left, they are
    // most likely the same name spelt two ways.
    let lone_vars: Vec<&str> = variables
        .iter()
        .map(String::as_str)
        .filter(|v| !args.iter().any(|a| a.name == *v))
        .collect();
    let lone_args: Vec<&str> = args
        .iter()
        .map(|a| a.name.as_str())
        .filter(|a| !variables.iter().any(|v| v == a))
        .collect();
    let pair = |name: &str, others: &[&str]| -> Option<String> {
        did_you_mean(name, others.iter().copied())
            .map(str::to_owned)
            .or_else(|| {
                (others.len() == 1 && lone_vars.len() == lone_args.len())
                    .then(|| others[0].to_owned())
            })
    };
    for variable in &lone_vars {
        let hint = match pair(variable, &lone_args) {
            Some(param) => format!("; did you mean the parameter `{param}`? name it `{variable}`"),
            None => format!("; add `{variable}: String` to the function"),
        };
        errors.at(
            lit,
            format!("the URI template's variable `{{{variable}}}` has no parameter{hint}"),
        );
    }
    for arg in args {
        if !variables.contains(&arg.name) {
            let message = if variables.is_empty() {
                format!(
                    "the parameter `{}` is not in the URI `{uri}`, which has no variables: \
                     a fixed resource takes no arguments (write `{{{}}}` in the URI to make it a template)",
                    arg.name, arg.name
                )
            } else {
                let hint = pair(&arg.name, &lone_vars)
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                format!(
                    "the parameter `{}` is not a variable of the URI template `{uri}`{hint}",
                    arg.name
                )
            };
            errors.push(syn::Error::new(arg_span(arg), message));
        } else if arg.optional {
            errors.push(syn::Error::new(
                arg_span(arg),
                format!(
                    "`{}` is a variable of the URI template, always present: take `T`, not `Option<T>`",
                    arg.name
                ),
            ));
        }
    }
    Some(uri)
}

/// Where to point at an argument: its name.
fn arg_span(arg: &Arg) -> Span {
    arg.span
}

fn check_completions(
    attr: &PrimitiveAttr,
    args: &[Arg],
    word: &str,
    errors: &mut Errors,
) -> Vec<(String, Path)> {
    let Some(items) = attr.complete.get() else {
        return Vec::new();
    };
    let what = match attr.kind {
        Kind::Prompt => "argument",
        Kind::Resource => "template variable",
    };
    items
        .iter()
        .filter_map(|item| {
            let name = ident_name(&item.argument);
            if args.iter().any(|a| a.name == name) {
                Some((name, item.function.clone()))
            } else {
                let hint = did_you_mean(&name, args.iter().map(|a| a.name.as_str()))
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                errors.at(
                    &item.argument,
                    format!("the {word} has no {what} `{name}` to complete{hint}"),
                );
                None
            }
        })
        .collect()
}

fn check_safety(lit: Option<&LitStr>, errors: &mut Errors) -> Ident {
    let Some(lit) = lit else {
        return Ident::new("Safe", Span::call_site());
    };
    let level = match lit.value().as_str() {
        "safe" => "Safe",
        "cautious" => "Cautious",
        "dangerous" => "Dangerous",
        other => {
            let hint = did_you_mean(other, ["safe", "cautious", "dangerous"])
                .map(|s| format!("did you mean `{s}`? "))
                .unwrap_or_default();
            errors.at(
                lit,
                format!(
                    "unknown safety `{other}`: {hint}write \"safe\", \"cautious\" or \"dangerous\""
                ),
            );
            "Safe"
        }
    };
    Ident::new(level, Span::call_site())
}
