//! Which path the generated code uses to reach the runtime when the author gave none.
//!
//! Each crate that re-exports the macros re-exports its own entry point: the facade
//! (`toolwright`) re-exports [`facade_tool`](crate::facade_tool) as `tool`, and the core
//! [`tool`](crate::tool). The entry
//! point a user's `#[tool]` resolves to says which crate they wrote it through, the way
//! `$crate` does for `macro_rules!`, so the generated code names that crate without reading
//! the user's manifest. A crate that depends on one of them under another name says so with
//! `#[tool(crate = my_name)]` (`#[tool_set(crate = my_name)]`).

/// The crate whose re-export of the macro the user wrote.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Front {
    /// `toolwright_core::tool`: a crate of tools on the core alone.
    Core,
    /// `toolwright::tool`: an application on the facade.
    Facade,
}

impl Front {
    /// The absolute path of the crate, as a dependency under its own name sees it.
    pub(crate) fn path(self) -> syn::Path {
        match self {
            Front::Core => syn::parse_quote!(::toolwright_core),
            Front::Facade => syn::parse_quote!(::toolwright),
        }
    }

    /// The crate's name as the user writes it in a path, for the messages that show one.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Front::Core => "toolwright_core",
            Front::Facade => "toolwright",
        }
    }
}
