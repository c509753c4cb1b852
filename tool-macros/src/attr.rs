//! The options of `#[tool(...)]` and of `#[arg(...)]` on a parameter.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Ident, Lit, LitStr, Path, Token};
use toolwright_names::did_you_mean;

use crate::errors::Errors;
use crate::runtime_path::Front;

/// One option's value and the tokens it was written with, set at most once.
pub(crate) struct Opt<T> {
    name: &'static str,
    value: Option<(TokenStream, T)>,
}

impl<T> Opt<T> {
    pub(crate) fn new(name: &'static str) -> Self {
        Opt { name, value: None }
    }

    /// The one place a repeated option is reported.
    pub(crate) fn set(&mut self, errors: &mut Errors, tokens: impl ToTokens, value: T) {
        let tokens = tokens.into_token_stream();
        if self.value.is_some() {
            errors.at(
                &tokens,
                format!("duplicate option `{}`: give it once", self.name),
            );
        } else {
            self.value = Some((tokens, value));
        }
    }

    pub(crate) fn get(&self) -> Option<&T> {
        self.value.as_ref().map(|(_, value)| value)
    }

    pub(crate) fn tokens(&self) -> Option<&TokenStream> {
        self.value.as_ref().map(|(tokens, _)| tokens)
    }
}

/// A word or string in a list option: `categories(filesystem, "web-search")`.
pub(crate) struct ListItem {
    pub(crate) value: String,
    pub(crate) span: Span,
}

/// `#[tool(...)]`.
pub(crate) struct ToolAttr {
    pub(crate) name: Opt<LitStr>,
    pub(crate) description: Opt<LitStr>,
    pub(crate) safety: Opt<LitStr>,
    pub(crate) categories: Opt<Vec<ListItem>>,
    pub(crate) tags: Opt<Vec<ListItem>>,
    pub(crate) required: Opt<Vec<ListItem>>,
    pub(crate) version: Opt<LitStr>,
    pub(crate) priority: Opt<Expr>,
    pub(crate) krate: Opt<Path>,
    pub(crate) preview: Opt<Path>,
    pub(crate) approval: Opt<Path>,
    pub(crate) timeout: Opt<LitStr>,
    pub(crate) max_calls: Opt<Expr>,
    pub(crate) task: Opt<LitStr>,
    /// `inline`: a sync tool that may run on the async runtime's worker (a flag, no value).
    pub(crate) inline: Opt<Path>,
    /// Known options that an unknown one was probably meant to be (so their absence is not
    /// reported as a second error).
    pub(crate) misspelt: Vec<&'static str>,
}

const TOOL_OPTIONS: &[&str] = &[
    "name",
    "description",
    "safety",
    "categories",
    "tags",
    "required",
    "version",
    "priority",
    "crate",
    "preview",
    "approval",
    "timeout",
    "max_calls",
    "task",
    "inline",
];

impl ToolAttr {
    /// Parses the attribute's arguments, recording every problem in `errors` and parsing on.
    /// `front` is the crate the user wrote the macro through, named in the messages.
    pub(crate) fn parse(args: TokenStream, front: Front, errors: &mut Errors) -> ToolAttr {
        let mut attr = ToolAttr {
            name: Opt::new("name"),
            description: Opt::new("description"),
            safety: Opt::new("safety"),
            categories: Opt::new("categories"),
            tags: Opt::new("tags"),
            required: Opt::new("required"),
            version: Opt::new("version"),
            priority: Opt::new("priority"),
            krate: Opt::new("crate"),
            preview: Opt::new("preview"),
            approval: Opt::new("approval"),
            timeout: Opt::new("timeout"),
            max_calls: Opt::new("max_calls"),
            task: Opt::new("task"),
            inline: Opt::new("inline"),
            misspelt: Vec::new(),
        };
        let parser = syn::meta::parser(|meta| {
            let path = meta.path.clone();
            let key = path_key(&path);
            match key.as_str() {
                // #[tool(name = "read_file")]
                "name" => {
                    if let Some(lit) = string_value(&meta, errors, "name = \"snake_case_name\"")? {
                        attr.name.set(errors, &path, lit);
                    }
                }
                // #[tool(description = "...")]
                "description" => {
                    if let Some(lit) = string_value(&meta, errors, "description = \"...\"")? {
                        attr.description.set(errors, &path, lit);
                    }
                }
                // #[tool(safety = "dangerous")]
                "safety" => {
                    if let Some(lit) = string_value(
                        &meta,
                        errors,
                        "safety = \"safe\" | \"cautious\" | \"dangerous\"",
                    )? {
                        attr.safety.set(errors, &path, lit);
                    }
                }
                // #[tool(categories(filesystem, math))]
                "categories" => {
                    if let Some(items) = list_value(&meta, errors, "categories(filesystem, ...)")? {
                        attr.categories.set(errors, &path, items);
                    }
                }
                // #[tool(tags("files", "io"))]
                "tags" => {
                    if let Some(items) = list_value(&meta, errors, "tags(\"tag\", ...)")? {
                        attr.tags.set(errors, &path, items);
                    }
                }
                // #[tool(required("path", "mode"))]
                "required" => {
                    if let Some(items) = list_value(&meta, errors, "required(\"param\", ...)")? {
                        attr.required.set(errors, &path, items);
                    }
                }
                // #[tool(version = "1.2.0")]
                "version" => {
                    if let Some(lit) = string_value(&meta, errors, "version = \"1.0.0\"")? {
                        attr.version.set(errors, &path, lit);
                    }
                }
                // #[tool(priority = 100)] or #[tool(priority = toolwright_core::priority::BUILTIN)]
                "priority" => {
                    if let Some(expr) = expr_value(&meta, errors, "priority = 100")? {
                        attr.priority.set(errors, &path, expr);
                    }
                }
                // #[tool(crate = my_crate::toolwright)]
                "crate" => {
                    let form = format!("crate = path::to::{}", front.name());
                    if let Some(expr) = expr_value(&meta, errors, &form)? {
                        match expr {
                            Expr::Path(p) if p.qself.is_none() => {
                                attr.krate.set(errors, &path, p.path)
                            }
                            other => errors.at(
                                other,
                                format!(
                                    "expected a path to the crate that re-exports the macro, \
                                     like `crate = my_crate::{}`",
                                    front.name()
                                ),
                            ),
                        }
                    }
                }
                // #[tool(preview = edit_preview)]
                "preview" => {
                    if let Some(expr) = expr_value(&meta, errors, "preview = path::to::preview_fn")?
                    {
                        match expr {
                            Expr::Path(p) if p.qself.is_none() => {
                                attr.preview.set(errors, &path, p.path)
                            }
                            other => errors.at(
                                other,
                                "expected the path of a function \
                                 `fn(&ToolContext, &P1, ..., &Pn) -> Result<String, ToolError>` \
                                 that takes the tool's parameters by reference, in order",
                            ),
                        }
                    }
                }
                // #[tool(approval = needs_approval)]
                "approval" => {
                    if let Some(expr) =
                        expr_value(&meta, errors, "approval = path::to::approval_rule")?
                    {
                        match expr {
                            Expr::Path(p) if p.qself.is_none() => {
                                attr.approval.set(errors, &path, p.path)
                            }
                            other => errors.at(
                                other,
                                "expected the path of a function \
                                 `fn(&ToolContext, &P1, ..., &Pn) -> ApprovalNeed` (or \
                                 `-> Result<ApprovalNeed, ToolError>`) that takes the tool's \
                                 parameters by reference, in order",
                            ),
                        }
                    }
                }
                // #[tool(timeout = "30s")]
                "timeout" => {
                    if let Some(lit) = string_value(&meta, errors, "timeout = \"30s\"")? {
                        attr.timeout.set(errors, &path, lit);
                    }
                }
                // #[tool(max_calls = 10)]
                "max_calls" => {
                    if let Some(expr) = expr_value(&meta, errors, "max_calls = 10")? {
                        attr.max_calls.set(errors, &path, expr);
                    }
                }
                // #[tool(task = "required")]
                "task" => {
                    if let Some(lit) =
                        string_value(&meta, errors, "task = \"optional\" | \"required\"")?
                    {
                        attr.task.set(errors, &path, lit);
                    }
                }
                // #[tool(inline)]
                "inline" => {
                    if !(meta.input.is_empty() || meta.input.peek(Token![,])) {
                        skip_value(&meta)?;
                        errors.at(
                            &path,
                            "`inline` takes no value: write `#[tool(inline)]` for a sync tool \
                             that returns quickly and never blocks, or leave it out",
                        );
                    } else {
                        attr.inline.set(errors, &path, path.clone());
                    }
                }
                _ => {
                    skip_value(&meta)?;
                    let message = match did_you_mean(&key, TOOL_OPTIONS.iter().copied()) {
                        Some(close) => {
                            attr.misspelt.push(close);
                            format!("unknown option `{key}`: did you mean `{close}`?")
                        }
                        None => format!(
                            "unknown option `{key}`: the options are `name`, `description`, \
                             `safety`, `categories`, `tags`, `required`, `version`, `priority`, \
                             `crate`, `preview`, `approval`, `timeout`, `max_calls`, `task` and `inline`"
                        ),
                    };
                    errors.at(&path, message);
                }
            }
            Ok(())
        });
        if let Err(error) = parser.parse2(args) {
            errors.push(error);
        }
        attr
    }
}

/// `#[arg(...)]` on one parameter.
pub(crate) struct ArgAttr {
    pub(crate) rename: Opt<LitStr>,
    pub(crate) description: Opt<LitStr>,
    pub(crate) default: Opt<Expr>,
    pub(crate) secret: Opt<()>,
}

const ARG_OPTIONS: &[&str] = &["rename", "description", "default", "secret"];

impl ArgAttr {
    pub(crate) fn empty() -> ArgAttr {
        ArgAttr {
            rename: Opt::new("rename"),
            description: Opt::new("description"),
            default: Opt::new("default"),
            secret: Opt::new("secret"),
        }
    }

    /// Adds the options of one `#[arg(...)]` attribute.
    pub(crate) fn parse_into(&mut self, attr: &syn::Attribute, errors: &mut Errors) {
        let syn::Meta::List(list) = &attr.meta else {
            errors.at(
                attr,
                "expected `#[arg(...)]` with options: `rename = \"...\"`, `description = \"...\"`, \
                 `default = expr`, `secret`",
            );
            return;
        };
        let result = list.parse_nested_meta(|meta| {
            let path = meta.path.clone();
            let key = path_key(&path);
            match key.as_str() {
                // #[arg(rename = "type")]
                "rename" => {
                    if let Some(lit) = string_value(&meta, errors, "rename = \"json_name\"")? {
                        self.rename.set(errors, &path, lit);
                    }
                }
                // #[arg(description = "...")]
                "description" => {
                    if let Some(lit) = string_value(&meta, errors, "description = \"...\"")? {
                        self.description.set(errors, &path, lit);
                    }
                }
                // #[arg(default = 10)]
                "default" => {
                    if let Some(expr) = expr_value(&meta, errors, "default = expression")? {
                        self.default.set(errors, &path, expr);
                    }
                }
                // #[arg(secret)]
                "secret" => {
                    if meta.input.is_empty() || meta.input.peek(Token![,]) {
                        self.secret.set(errors, &path, ());
                    } else {
                        skip_value(&meta)?;
                        errors.at(&path, "`secret` takes no value: write `#[arg(secret)]`");
                    }
                }
                _ => {
                    skip_value(&meta)?;
                    let message = match did_you_mean(&key, ARG_OPTIONS.iter().copied()) {
                        Some(close) => {
                            format!("unknown `arg` option `{key}`: did you mean `{close}`?")
                        }
                        None => format!(
                            "unknown `arg` option `{key}`: the options are `rename`, \
                             `description`, `default` and `secret`"
                        ),
                    };
                    errors.at(&path, message);
                }
            }
            Ok(())
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
}

pub(crate) fn path_key(path: &Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

/// Consumes `= expr` or `(...)` after an option, whatever it is.
pub(crate) fn skip_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.input.parse::<Token![=]>()?;
        meta.input.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<proc_macro2::Group>()?;
    }
    Ok(())
}

/// The expression after `option = `, or an error saying how the option is written.
pub(crate) fn expr_value(
    meta: &syn::meta::ParseNestedMeta,
    errors: &mut Errors,
    form: &str,
) -> syn::Result<Option<Expr>> {
    if !meta.input.peek(Token![=]) {
        skip_value(meta)?;
        errors.at(&meta.path, format!("expected `{form}`"));
        return Ok(None);
    }
    meta.input.parse::<Token![=]>()?;
    Ok(Some(meta.input.parse::<Expr>()?))
}

/// The string literal after `option = `.
pub(crate) fn string_value(
    meta: &syn::meta::ParseNestedMeta,
    errors: &mut Errors,
    form: &str,
) -> syn::Result<Option<LitStr>> {
    match expr_value(meta, errors, form)? {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        })) => Ok(Some(lit)),
        Some(other) => {
            errors.at(other, format!("expected a string literal: `{form}`"));
            Ok(None)
        }
        None => Ok(None),
    }
}

/// The words and strings in `option(a, "b")`.
pub(crate) fn list_value(
    meta: &syn::meta::ParseNestedMeta,
    errors: &mut Errors,
    form: &str,
) -> syn::Result<Option<Vec<ListItem>>> {
    if !meta.input.peek(syn::token::Paren) {
        skip_value(meta)?;
        errors.at(&meta.path, format!("expected a list: `{form}`"));
        return Ok(None);
    }
    let group: proc_macro2::Group = meta.input.parse()?;
    let parse_items = |input: ParseStream| Punctuated::<Expr, Token![,]>::parse_terminated(input);
    let exprs = match parse_items.parse2(group.stream()) {
        Ok(exprs) => exprs,
        Err(error) => {
            errors.push(error);
            return Ok(None);
        }
    };
    let mut items = Vec::new();
    for expr in exprs {
        match &expr {
            Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) => items.push(ListItem {
                value: lit.value(),
                span: lit.span(),
            }),
            Expr::Path(path) if path.path.get_ident().is_some() && path.qself.is_none() => {
                if let Some(ident) = path.path.get_ident() {
                    items.push(ListItem {
                        value: ident_name(ident),
                        span: ident.span(),
                    });
                }
            }
            other => errors.at(
                other,
                format!("expected a name or a string literal: `{form}`"),
            ),
        }
    }
    Ok(Some(items))
}

/// An identifier's name without the `r#` of a raw identifier.
pub(crate) fn ident_name(ident: &Ident) -> String {
    let name = ident.to_string();
    match name.strip_prefix("r#") {
        Some(raw) => raw.to_owned(),
        None => name,
    }
}
