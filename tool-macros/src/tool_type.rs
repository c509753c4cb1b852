//! `#[tool_type]`: the derives a type a tool takes or returns needs (`Serialize`,
//! `Deserialize`, `JsonSchema`), through the crate the user wrote the attribute with, so a
//! crate that depends on the facade alone needs neither `serde` nor `schemars` in its
//! manifest.
//!
//! Input: `#[toolwright::tool_type] struct Point { x: f64 }`
//! Output:
//!
//! ```text
//! #[derive(::toolwright::serde::Serialize, ::toolwright::serde::Deserialize,
//!          ::toolwright::schemars::JsonSchema)]
//! #[serde(crate = "::toolwright::serde")]
//! #[schemars(crate = "::toolwright::schemars")]
//! struct Point { x: f64 }
//! ```

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

use crate::errors::{Errors, item_head, with_errors};
use crate::runtime_path::Front;

/// The derives `#[tool_type]` adds, by the names a user would write.
const DERIVED: [&str; 3] = ["Serialize", "Deserialize", "JsonSchema"];

pub(crate) fn expand_tool_type(args: TokenStream, input: TokenStream, front: Front) -> TokenStream {
    let mut errors = Errors::default();
    let krate = parse_args(args, front, &mut errors);
    let item = match syn::parse2::<syn::Item>(input.clone()) {
        Ok(item @ (syn::Item::Struct(_) | syn::Item::Enum(_))) => item,
        Ok(other) => {
            errors.at(
                item_head(&other),
                "`#[tool_type]` goes on a `struct` or an `enum` that a tool takes or returns",
            );
            return with_errors(input, errors);
        }
        // Not an item we can read: let rustc report the syntax error on the original tokens.
        Err(_) => return input,
    };
    let attrs = match &item {
        syn::Item::Struct(item) => &item.attrs,
        syn::Item::Enum(item) => &item.attrs,
        _ => return input,
    };
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let _ = attr.parse_nested_meta(|meta| {
            let last = meta.path.segments.last().map(|s| s.ident.to_string());
            if let Some(name) = last.filter(|n| DERIVED.contains(&n.as_str())) {
                errors.at(
                    &meta.path,
                    format!(
                        "`#[tool_type]` derives `{name}` already: remove it from this \
                         `#[derive(...)]`"
                    ),
                );
            }
            Ok(())
        });
    }
    if !errors.is_empty() {
        return with_errors(input, errors);
    }
    let serde_path = format!("{}::serde", path_text(&krate));
    let schemars_path = format!("{}::schemars", path_text(&krate));
    let output = quote! {
        #[derive(
            #krate::serde::Serialize,
            #krate::serde::Deserialize,
            #krate::schemars::JsonSchema
        )]
        #[serde(crate = #serde_path)]
        #[schemars(crate = #schemars_path)]
        #item
    };
    with_errors(output, errors)
}

/// `crate = path`, the one option.
fn parse_args(args: TokenStream, front: Front, errors: &mut Errors) -> syn::Path {
    let mut krate = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("crate") {
            let path: syn::Path = meta.value()?.parse()?;
            if krate.replace(path).is_some() {
                return Err(meta.error("duplicate option `crate` of `#[tool_type]`"));
            }
            return Ok(());
        }
        Err(meta.error(
            "unknown option of `#[tool_type]`: the one option is `crate = path`, the crate \
             that re-exports serde and schemars",
        ))
    });
    if let Err(error) = syn::parse::Parser::parse2(parser, args) {
        errors.push(error);
    }
    krate.unwrap_or_else(|| front.path())
}

/// A path as serde's and schemars' `crate = "..."` take it.
fn path_text(path: &syn::Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derives_through_the_front_crate() {
        let out = expand_tool_type(
            TokenStream::new(),
            quote!(
                struct Point {
                    x: f64,
                }
            ),
            Front::Facade,
        )
        .to_string();
        assert!(
            out.contains(":: toolwright :: serde :: Deserialize"),
            "{out}"
        );
        assert!(out.contains("\"::toolwright::schemars\""), "{out}");
    }

    #[test]
    fn a_derive_written_twice_is_named() {
        let out = expand_tool_type(
            TokenStream::new(),
            quote!(
                #[derive(Debug, serde::Serialize)]
                struct Point {
                    x: f64,
                }
            ),
            Front::Core,
        )
        .to_string();
        assert!(out.contains("derives `Serialize` already"), "{out}");
    }
}
