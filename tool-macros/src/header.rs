//! `#[arg(header = "Name")]`: a parameter sent in the HTTP header `Mcp-Param-Name` as well
//! as in the arguments (MCP SEP-2243). Checked here as toolwright-core's `mcp_header` checks
//! a `ToolBuilder::header` at build time: an HTTP header name, unique without regard to
//! case, on a string, integer or boolean parameter, and never on a secret. Also
//! `#[tool(ask_first)]`, the other option of the 2026-07-28 revision's questions (a task tool
//! that asks before it is a task).

use std::collections::HashMap;

use syn::Type;

use crate::attr::ToolAttr;
use crate::errors::Errors;
use crate::signature::Param;

/// Reports every misused `header` of `params`, each at its own token.
pub(crate) fn check_headers(params: &[&Param], errors: &mut Errors) {
    // Each header name, lowercased, with the parameter that has it and how it wrote it.
    let mut seen: HashMap<String, (String, String)> = HashMap::new();
    for param in params {
        let Some(lit) = &param.header else {
            continue;
        };
        let header = lit.value();
        if !is_header_name(&header) {
            errors.at(
                lit,
                format!(
                    "`{header}` is not an HTTP header name: use letters, digits and \
                     !#$%&'*+-.^_`|~ (the header sent is `Mcp-Param-<name>`, e.g. \
                     `header = \"Region\"`)"
                ),
            );
            continue;
        }
        let mine = (param.json_name.clone(), header.clone());
        if let Some((other, written)) = seen.insert(header.to_ascii_lowercase(), mine) {
            errors.at(
                lit,
                format!(
                    "header `{header}` is already used by parameter `{other}` (as `{written}`): \
                     header names do not differ by case, so each parameter needs one of its own"
                ),
            );
        }
        if param.secret {
            errors.at(
                lit,
                "a `secret` parameter cannot be sent in a header: every proxy on the way reads \
                 and may log headers; leave `header` out",
            );
        }
        let ty = param.option_inner.as_ref().unwrap_or(&param.ty);
        if !is_primitive(ty) {
            errors.at(
                ty,
                "a parameter sent in a header must be a `String`, an integer or a `bool` (or an \
                 `Option` of one): SEP-2243 sends only those in headers",
            );
        }
    }
}

/// RFC 9110's token: the characters of a header name.
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// Whether `ty` is written as a type SEP-2243 sends in a header: `String`, `bool`, or an
/// integer (by its last path segment, as the types are written).
fn is_primitive(ty: &Type) -> bool {
    let Type::Path(path) = ty else {
        return false;
    };
    path.path.segments.last().is_some_and(|segment| {
        segment.arguments.is_empty()
            && matches!(
                segment.ident.to_string().as_str(),
                "String"
                    | "bool"
                    | "u8"
                    | "u16"
                    | "u32"
                    | "u64"
                    | "usize"
                    | "i8"
                    | "i16"
                    | "i32"
                    | "i64"
                    | "isize"
            )
    })
}

/// `ask_first` is for a task tool: a tool that is never a task asks in its call anyway.
pub(crate) fn check_ask_first(attr: &ToolAttr, errors: &mut Errors) -> bool {
    let Some(path) = attr.ask_first.get() else {
        return false;
    };
    let task = attr.task.get().map(syn::LitStr::value);
    if !matches!(task.as_deref(), Some("optional" | "required")) {
        errors.at(
            path,
            "`ask_first` is for a tool that runs as a task (`task = \"optional\"` or \
             `task = \"required\"`): it asks its first question in the call's own answer, then \
             becomes a task; a tool that is never a task already asks in its call",
        );
        return false;
    }
    true
}
