//! Whether the function under `#[tool]` sits in an `impl` or `trait` block.
//!
//! An attribute macro sees only its item, and what `#[tool]` emits for a free function (a
//! `const _` block) does not parse inside an `impl`: rustc would answer with its own parse
//! error. So when the function shows no sign of being a method (no `self`, no `Self`), the
//! macro reads the source file the attribute is in and looks for a `#[tool]` function of
//! that name in an `impl` or `trait` block. Each file is parsed once per compilation. When the
//! answer is not certain (the file cannot be read or parsed, as an IDE's unsaved buffer, or a
//! free `#[tool]` function in the file has the same name), the function is taken as free and
//! rustc's errors stand.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;

/// The kind of block a `#[tool]` function was found in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Enclosing {
    Impl,
    Trait,
}

/// The `#[tool]` functions of one source file, by name.
#[derive(Default)]
struct Found {
    in_blocks: HashMap<String, Enclosing>,
    free: HashSet<String>,
}

/// The block around the `#[tool]` function `name`, whose attribute is at `span`, if any.
pub(crate) fn enclosing_block(span: proc_macro::Span, name: &str) -> Option<Enclosing> {
    let file = span.local_file()?;
    thread_local! {
        static FILES: RefCell<HashMap<PathBuf, Rc<Found>>> = RefCell::new(HashMap::new());
    }
    let found = FILES.with(|files| {
        if let Some(found) = files.borrow().get(&file) {
            return Some(Rc::clone(found));
        }
        let text = std::fs::read_to_string(&file).ok()?;
        let parsed = syn::parse_file(&text).ok()?;
        let mut found = Found::default();
        syn::visit::Visit::visit_file(&mut found, &parsed);
        let found = Rc::new(found);
        files.borrow_mut().insert(file, Rc::clone(&found));
        Some(found)
    })?;
    if found.free.contains(name) {
        return None;
    }
    found.in_blocks.get(name).copied()
}

fn has_tool_attr(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path()
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "tool")
    })
}

impl<'ast> syn::visit::Visit<'ast> for Found {
    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if has_tool_attr(&item.attrs) {
            self.free.insert(item.sig.ident.to_string());
        }
        syn::visit::visit_item_fn(self, item);
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if has_tool_attr(&item.attrs) {
            self.in_blocks
                .insert(item.sig.ident.to_string(), Enclosing::Impl);
        }
        syn::visit::visit_impl_item_fn(self, item);
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if has_tool_attr(&item.attrs) {
            self.in_blocks
                .insert(item.sig.ident.to_string(), Enclosing::Trait);
        }
        syn::visit::visit_trait_item_fn(self, item);
    }
}
