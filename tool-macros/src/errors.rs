//! Every error of one `#[tool]` (or `#[tool_set]`) attribute, gathered so they are reported
//! together, and the helpers that put them beside the item.

use std::fmt::Display;

use quote::ToTokens;

/// Collects `syn::Error`s and combines them into one.
#[derive(Default)]
pub(crate) struct Errors {
    combined: Option<syn::Error>,
}

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.combined {
            Some(combined) => combined.combine(error),
            None => self.combined = Some(error),
        }
    }

    /// An error spanned on `tokens`.
    pub(crate) fn at(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Adds a copy of every error in `other`, after those already here.
    pub(crate) fn append(&mut self, other: &Errors) {
        if let Some(error) = &other.combined {
            self.push(error.clone());
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.combined.is_none()
    }

    pub(crate) fn into_result(self) -> Result<(), syn::Error> {
        match self.combined {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

/// `item`, followed by the compile errors gathered, if any.
pub(crate) fn with_errors(
    item: proc_macro2::TokenStream,
    errors: Errors,
) -> proc_macro2::TokenStream {
    match errors.into_result() {
        Ok(()) => item,
        Err(error) => {
            let error = error.to_compile_error();
            quote::quote!(#item #error)
        }
    }
}

/// The first tokens of an item, up to its name, so "not a function" underlines `struct Foo`.
pub(crate) fn item_head(item: &syn::Item) -> proc_macro2::TokenStream {
    use quote::quote;
    match item {
        syn::Item::Struct(s) => {
            let (t, i) = (&s.struct_token, &s.ident);
            quote!(#t #i)
        }
        syn::Item::Enum(e) => {
            let (t, i) = (&e.enum_token, &e.ident);
            quote!(#t #i)
        }
        syn::Item::Const(c) => {
            let (t, i) = (&c.const_token, &c.ident);
            quote!(#t #i)
        }
        syn::Item::Static(s) => {
            let (t, i) = (&s.static_token, &s.ident);
            quote!(#t #i)
        }
        syn::Item::Mod(m) => {
            let (t, i) = (&m.mod_token, &m.ident);
            quote!(#t #i)
        }
        syn::Item::Trait(t) => {
            let (k, i) = (&t.trait_token, &t.ident);
            quote!(#k #i)
        }
        syn::Item::Type(t) => {
            let (k, i) = (&t.type_token, &t.ident);
            quote!(#k #i)
        }
        syn::Item::Impl(i) => {
            let k = &i.impl_token;
            let ty = &i.self_ty;
            quote!(#k #ty)
        }
        syn::Item::Use(u) => {
            let k = &u.use_token;
            quote!(#k)
        }
        other => quote!(#other),
    }
}
