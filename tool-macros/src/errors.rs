//! Every error of one `#[tool]` attribute, gathered so they are reported together.

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
