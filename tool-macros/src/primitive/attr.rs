//! The options of `#[prompt(...)]` and `#[resource(...)]`.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, LitStr, Path, Token};
use toolwright_names::did_you_mean;

use crate::attr::{
    ListItem, Opt, expr_value, ident_name, list_value, path_key, skip_value, string_value,
};
use crate::errors::Errors;
use crate::runtime_path::Front;

/// Which attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Prompt,
    Resource,
}

impl Kind {
    pub(crate) fn word(self) -> &'static str {
        match self {
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
        }
    }

    fn options(self) -> &'static [&'static str] {
        match self {
            Kind::Prompt => &[
                "name",
                "title",
                "description",
                "version",
                "tags",
                "safety",
                "complete",
                "crate",
            ],
            Kind::Resource => &[
                "uri",
                "name",
                "title",
                "description",
                "mime_type",
                "version",
                "tags",
                "safety",
                "complete",
                "crate",
            ],
        }
    }
}

/// One `arg = path::to::fn` in `complete(...)`.
pub(crate) struct Completion {
    pub(crate) argument: Ident,
    pub(crate) function: Path,
}

/// `#[prompt(...)]` or `#[resource(...)]`.
pub(crate) struct PrimitiveAttr {
    pub(crate) kind: Kind,
    pub(crate) uri: Opt<LitStr>,
    pub(crate) name: Opt<LitStr>,
    pub(crate) title: Opt<LitStr>,
    pub(crate) description: Opt<LitStr>,
    pub(crate) mime_type: Opt<LitStr>,
    pub(crate) version: Opt<LitStr>,
    pub(crate) tags: Opt<Vec<ListItem>>,
    pub(crate) safety: Opt<LitStr>,
    pub(crate) complete: Opt<Vec<Completion>>,
    pub(crate) krate: Opt<Path>,
}

impl PrimitiveAttr {
    /// Parses the attribute's arguments, recording every problem and parsing on.
    pub(crate) fn parse(
        kind: Kind,
        args: TokenStream,
        front: Front,
        errors: &mut Errors,
    ) -> PrimitiveAttr {
        let mut attr = PrimitiveAttr {
            kind,
            uri: Opt::new("uri"),
            name: Opt::new("name"),
            title: Opt::new("title"),
            description: Opt::new("description"),
            mime_type: Opt::new("mime_type"),
            version: Opt::new("version"),
            tags: Opt::new("tags"),
            safety: Opt::new("safety"),
            complete: Opt::new("complete"),
            krate: Opt::new("crate"),
        };
        let options = kind.options();
        let parser = syn::meta::parser(|meta| {
            let path = meta.path.clone();
            let key = path_key(&path);
            if !options.contains(&key.as_str()) {
                skip_value(&meta)?;
                let message = match did_you_mean(&key, options.iter().copied()) {
                    Some(close) => format!("unknown option `{key}`: did you mean `{close}`?"),
                    None => format!(
                        "unknown option `{key}`: the options of `#[{}]` are {}",
                        kind.word(),
                        options
                            .iter()
                            .map(|o| format!("`{o}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                errors.at(&path, message);
                return Ok(());
            }
            match key.as_str() {
                "uri" => {
                    if let Some(lit) = string_value(&meta, errors, "uri = \"scheme://{var}\"")? {
                        attr.uri.set(errors, &path, lit);
                    }
                }
                "name" => {
                    if let Some(lit) = string_value(&meta, errors, "name = \"name\"")? {
                        attr.name.set(errors, &path, lit);
                    }
                }
                "title" => {
                    if let Some(lit) = string_value(&meta, errors, "title = \"Title for people\"")?
                    {
                        attr.title.set(errors, &path, lit);
                    }
                }
                "description" => {
                    if let Some(lit) = string_value(&meta, errors, "description = \"...\"")? {
                        attr.description.set(errors, &path, lit);
                    }
                }
                "mime_type" => {
                    if let Some(lit) = string_value(&meta, errors, "mime_type = \"text/markdown\"")?
                    {
                        attr.mime_type.set(errors, &path, lit);
                    }
                }
                "version" => {
                    if let Some(lit) = string_value(&meta, errors, "version = \"1.0.0\"")? {
                        attr.version.set(errors, &path, lit);
                    }
                }
                "safety" => {
                    if let Some(lit) = string_value(
                        &meta,
                        errors,
                        "safety = \"safe\" | \"cautious\" | \"dangerous\"",
                    )? {
                        attr.safety.set(errors, &path, lit);
                    }
                }
                "tags" => {
                    if let Some(items) = list_value(&meta, errors, "tags(\"tag\", ...)")? {
                        attr.tags.set(errors, &path, items);
                    }
                }
                "complete" => {
                    if let Some(items) = completions(&meta, errors)? {
                        attr.complete.set(errors, &path, items);
                    }
                }
                "crate" => {
                    let form = format!("crate = path::to::{}", front.name());
                    match expr_value(&meta, errors, &form)? {
                        Some(Expr::Path(p)) if p.qself.is_none() => {
                            attr.krate.set(errors, &path, p.path)
                        }
                        Some(other) => errors.at(other, format!("expected `{form}`")),
                        None => {}
                    }
                }
                _ => skip_value(&meta)?,
            }
            Ok(())
        });
        if let Err(error) = parser.parse2(args) {
            errors.push(error);
        }
        attr
    }
}

/// `complete(arg = path::to::fn, ...)`.
fn completions(
    meta: &syn::meta::ParseNestedMeta,
    errors: &mut Errors,
) -> syn::Result<Option<Vec<Completion>>> {
    const FORM: &str = "complete(argument = path::to::completion_fn, ...)";
    if !meta.input.peek(syn::token::Paren) {
        skip_value(meta)?;
        errors.at(&meta.path, format!("expected `{FORM}`"));
        return Ok(None);
    }
    let group: proc_macro2::Group = meta.input.parse()?;
    let pairs = match Punctuated::<syn::MetaNameValue, Token![,]>::parse_terminated
        .parse2(group.stream())
    {
        Ok(pairs) => pairs,
        Err(error) => {
            errors.push(syn::Error::new(error.span(), format!("expected `{FORM}`")));
            return Ok(None);
        }
    };
    let mut items: Vec<Completion> = Vec::new();
    for pair in pairs {
        let Some(argument) = pair.path.get_ident().cloned() else {
            errors.at(&pair.path, format!("expected an argument's name: `{FORM}`"));
            continue;
        };
        let Expr::Path(function) = pair.value else {
            errors.at(
                &pair.value,
                "expected the path of a function `fn(&CompletionRequest) -> Completions`",
            );
            continue;
        };
        if items
            .iter()
            .any(|c| ident_name(&c.argument) == ident_name(&argument))
        {
            errors.at(
                &argument,
                format!("`{argument}` is completed twice: give one function per argument"),
            );
            continue;
        }
        items.push(Completion {
            argument,
            function: function.path,
        });
    }
    Ok(Some(items))
}
