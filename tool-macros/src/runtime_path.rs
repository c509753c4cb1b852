//! Which path the generated code uses to reach the runtime when the author gave none.
//!
//! A user may depend on the facade (`toolwright`), on `toolwright-runtime`, or, for a crate
//! that only defines tools, on `toolwright-core` alone, under any name in their
//! `Cargo.toml`; the `__private` module is toolwright-core's, re-exported by the other two.
//! Generated code must name whichever one their crate can see.

use proc_macro_crate::{FoundCrate, crate_name};

/// The runtime's path for the crate being compiled: the facade if it is a dependency, else
/// `toolwright-runtime`, else `toolwright-core`, under the name the manifest gives it, else
/// `::toolwright_runtime`
/// (a manifest we cannot read; the compile error then names that path, and
/// `#[tool(crate = ...)]` is the way out).
pub(crate) fn default_runtime() -> syn::Path {
    for package in ["toolwright", "toolwright-runtime", "toolwright-core"] {
        match crate_name(package) {
            Ok(FoundCrate::Name(name)) => {
                let ident = syn::Ident::new(&name, proc_macro2::Span::call_site());
                return syn::parse_quote!(::#ident);
            }
            // The crate's own tests, examples and doctests are separate crates that see it
            // under its library name (the library itself passes `crate = crate`).
            Ok(FoundCrate::Itself) => {
                let ident =
                    syn::Ident::new(&package.replace('-', "_"), proc_macro2::Span::call_site());
                return syn::parse_quote!(::#ident);
            }
            Err(_) => {}
        }
    }
    syn::parse_quote!(::toolwright_runtime)
}
