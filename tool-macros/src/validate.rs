//! The checks `#[tool]` makes at compile time, and the checked model of the tool.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::{Expr, Ident, ItemFn, LitStr, Path};

use crate::attr::{ToolAttr, ident_name};
use crate::errors::{Errors, did_you_mean};
use crate::signature::{Signature, doc_text};

/// Longest tool name providers accept (OpenAI and Anthropic: 64).
const MAX_NAME_LEN: usize = 64;

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
    pub(crate) preview: Option<Path>,
}

pub(crate) fn validate(
    attr: &ToolAttr,
    function: &ItemFn,
    signature: &Signature,
    errors: &mut Errors,
) -> ToolModel {
    let name = check_name(attr, &function.sig.ident, errors);
    let description = check_description(attr, function, errors);
    let safety = check_safety(attr.safety.get(), errors);
    check_params(attr, signature, errors);

    let items =
        |opt: &crate::attr::Opt<Vec<crate::attr::ListItem>>, what: &str, errors: &mut Errors| {
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
        };
    let categories = items(&attr.categories, "a category", errors);
    let tags = items(&attr.tags, "a tag", errors);

    let version = attr.version.get().and_then(|lit| {
        let value = lit.value();
        if value.trim().is_empty() || value.chars().any(char::is_whitespace) {
            errors.at(
                lit,
                "a version is a non-empty string without spaces, like \"1.2.0\"",
            );
            None
        } else {
            Some(value)
        }
    });

    ToolModel {
        name,
        description,
        safety,
        categories,
        tags,
        version,
        priority: attr.priority.get().cloned(),
        krate: attr
            .krate
            .get()
            .cloned()
            .unwrap_or_else(|| syn::parse_quote!(::tool_runtime)),
        preview: attr.preview.get().cloned(),
    }
}

/// `^[a-z][a-z0-9_]*$`, at most 64 characters.
fn check_name(attr: &ToolAttr, fn_ident: &Ident, errors: &mut Errors) -> String {
    let (name, span) = match attr.name.get() {
        Some(lit) => (lit.value(), lit.span()),
        None => (ident_name(fn_ident), fn_ident.span()),
    };
    if name.is_empty() {
        errors.push(syn::Error::new(span, "the tool name cannot be empty"));
        return name;
    }
    let from = if attr.name.get().is_some() {
        "tool name"
    } else {
        "tool name (taken from the function's name)"
    };
    if !is_snake_case(&name) {
        let fixed = to_snake_case(&name);
        let hint = if is_snake_case(&fixed) {
            format!("; did you mean `{fixed}`?")
        } else {
            String::new()
        };
        let rename = if attr.name.get().is_some() {
            ""
        } else {
            " Set one with `#[tool(name = \"...\")]`."
        };
        errors.push(syn::Error::new(
            span,
            format!(
                "{from} `{name}` is not snake_case: it must start with a lowercase letter and \
                 contain only lowercase letters, digits and `_`{hint}{rename}"
            ),
        ));
    } else if name.len() > MAX_NAME_LEN {
        errors.push(syn::Error::new(
            span,
            format!(
                "{from} `{name}` is {} characters long; model APIs accept at most {MAX_NAME_LEN}",
                name.len()
            ),
        ));
    }
    name
}

pub(crate) fn is_snake_case(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// `readFile`, `ReadFile`, `read-file` -> `read_file`.
fn to_snake_case(name: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if previous_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            previous_lower = false;
        } else if c == '-' || c == ' ' || c == '.' {
            out.push('_');
            previous_lower = false;
        } else {
            out.push(c);
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        }
    }
    out
}

fn check_description(attr: &ToolAttr, function: &ItemFn, errors: &mut Errors) -> String {
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
    match doc_text(&function.attrs) {
        Some(text) => text,
        // A misspelt `description = ...` was reported already.
        None if attr.misspelt.contains(&"description") => String::new(),
        None => {
            errors.at(
                &function.sig.ident,
                "a tool needs a description, which the model reads to decide when to use it: \
                 add a doc comment (`/// What the tool does`) or `#[tool(description = \"...\")]`",
            );
            String::new()
        }
    }
}

fn check_safety(lit: Option<&LitStr>, errors: &mut Errors) -> Ident {
    const LEVELS: [(&str, &str); 3] = [
        ("safe", "Safe"),
        ("cautious", "Cautious"),
        ("dangerous", "Dangerous"),
    ];
    let Some(lit) = lit else {
        return Ident::new("Safe", Span::call_site());
    };
    let value = lit.value();
    match LEVELS.iter().find(|(level, _)| *level == value) {
        Some((_, variant)) => Ident::new(variant, lit.span()),
        None => {
            let expected = "expected \"safe\", \"cautious\" or \"dangerous\"";
            let message = match did_you_mean(
                &value.to_lowercase(),
                LEVELS.iter().map(|(level, _)| *level),
            ) {
                Some(close) => format!(
                    "unknown safety level `{value}`: did you mean \"{close}\"? ({expected})"
                ),
                None => format!("unknown safety level `{value}`: {expected}"),
            };
            errors.at(lit, message);
            Ident::new("Safe", Span::call_site())
        }
    }
}

/// Parameter names are unique and valid; `required(...)` agrees with the types.
fn check_params(attr: &ToolAttr, signature: &Signature, errors: &mut Errors) {
    let mut seen: HashMap<&str, ()> = HashMap::new();
    for param in signature.params() {
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
        if seen.insert(name, ()).is_some() {
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
    let names: Vec<&str> = signature.params().map(|p| p.json_name.as_str()).collect();
    let mut listed: Vec<&str> = Vec::new();
    // Parameters a misspelt entry was meant to name: not reported again as missing.
    let mut implied: Vec<&str> = Vec::new();
    for item in required {
        let value = item.value.as_str();
        if listed.contains(&value) {
            errors.push(syn::Error::new(
                item.span,
                format!("`{value}` is listed twice in `required`"),
            ));
            continue;
        }
        listed.push(value);
        match signature.params().find(|p| p.json_name == value) {
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
    for param in signature.params() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case() {
        assert!(is_snake_case("read_file"));
        assert!(is_snake_case("a1"));
        assert!(!is_snake_case("ReadFile"));
        assert!(!is_snake_case("_x"));
        assert!(!is_snake_case("1x"));
        assert!(!is_snake_case(""));
        assert_eq!(to_snake_case("readFile"), "read_file");
        assert_eq!(to_snake_case("ReadFile"), "read_file");
        assert_eq!(to_snake_case("read-file"), "read_file");
    }
}
