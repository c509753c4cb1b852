#![doc = include_str!("../README.md")]

// The layers, lowest first (no module imports one listed after it): errors, runtime_path,
// attr, signature, enclosing, validate, expand, primitive, tool_set, tool_type.
mod attr;
mod enclosing;
mod errors;
mod expand;
mod primitive;
mod runtime_path;
mod signature;
mod tool_set;
mod tool_type;
mod validate;

use proc_macro::TokenStream;

use runtime_path::Front;

/// Turns a function into a tool a language model can call; the generated code names
/// `::toolwright_core`. Re-exported as `toolwright_core::tool`, where it is documented.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand_tool(
        args.into(),
        input.into(),
        proc_macro::Span::call_site(),
        Front::Core,
    )
    .into()
}

/// Makes the `#[tool]` methods of an inherent `impl` block tools that share the instance;
/// the generated code names `::toolwright_core`. Re-exported as `toolwright_core::tool_set`.
#[proc_macro_attribute]
pub fn tool_set(args: TokenStream, input: TokenStream) -> TokenStream {
    tool_set::expand_tool_set(args.into(), input.into(), Front::Core).into()
}

/// Derives `Serialize`, `Deserialize` and `JsonSchema` for a type a tool takes or returns,
/// through `::toolwright_core`'s re-exports of serde and schemars. Re-exported as
/// `toolwright_core::tool_type`, where it is documented.
#[proc_macro_attribute]
pub fn tool_type(args: TokenStream, input: TokenStream) -> TokenStream {
    tool_type::expand_tool_type(args.into(), input.into(), Front::Core).into()
}

/// Makes a function a prompt (MCP's `prompts/*`); the generated code names
/// `::toolwright_core`. Re-exported as `toolwright_core::prompt`, where it is documented.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    primitive::expand(
        primitive::Kind::Prompt,
        args.into(),
        input.into(),
        Front::Core,
    )
    .into()
}

/// Makes a function a resource or resource template (MCP's `resources/*`); the generated
/// code names `::toolwright_core`. Re-exported as `toolwright_core::resource`.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    primitive::expand(
        primitive::Kind::Resource,
        args.into(),
        input.into(),
        Front::Core,
    )
    .into()
}

/// `#[prompt]` as the facade (`toolwright`) re-exports it.
#[proc_macro_attribute]
pub fn facade_prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    primitive::expand(
        primitive::Kind::Prompt,
        args.into(),
        input.into(),
        Front::Facade,
    )
    .into()
}

/// `#[resource]` as the facade (`toolwright`) re-exports it.
#[proc_macro_attribute]
pub fn facade_resource(args: TokenStream, input: TokenStream) -> TokenStream {
    primitive::expand(
        primitive::Kind::Resource,
        args.into(),
        input.into(),
        Front::Facade,
    )
    .into()
}

/// `#[tool_type]` as the facade (`toolwright`) re-exports it.
#[proc_macro_attribute]
pub fn facade_tool_type(args: TokenStream, input: TokenStream) -> TokenStream {
    tool_type::expand_tool_type(args.into(), input.into(), Front::Facade).into()
}

/// `#[tool]` as the facade (`toolwright`) re-exports it: the generated code names
/// `::toolwright`.
#[proc_macro_attribute]
pub fn facade_tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand_tool(
        args.into(),
        input.into(),
        proc_macro::Span::call_site(),
        Front::Facade,
    )
    .into()
}

/// `#[tool_set]` as the facade (`toolwright`) re-exports it.
#[proc_macro_attribute]
pub fn facade_tool_set(args: TokenStream, input: TokenStream) -> TokenStream {
    tool_set::expand_tool_set(args.into(), input.into(), Front::Facade).into()
}

fn expand_tool(
    args: proc_macro2::TokenStream,
    input: proc_macro2::TokenStream,
    call_site: proc_macro::Span,
    front: Front,
) -> proc_macro2::TokenStream {
    let mut errors = errors::Errors::default();
    let attr = attr::ToolAttr::parse(args, front, &mut errors);
    let mut function = match syn::parse2::<syn::Item>(input.clone()) {
        Ok(syn::Item::Fn(function)) => function,
        Ok(item) => {
            errors.at(
                errors::item_head(&item),
                "`#[tool]` can only be applied to a function: write a `fn` that does the work \
                 and put `#[tool]` on it",
            );
            return errors::with_errors(input, errors);
        }
        // Not an item we can read: let rustc report the syntax error on the original tokens.
        Err(_) => return input,
    };
    let signature = signature::analyze(&mut function.sig);
    // A method shows itself by `self`, which `validate` reports; an associated function
    // without one is found by its place in the source.
    if !signature.has_receiver()
        && let Some(block) = enclosing::enclosing_block(call_site, &function.sig.ident.to_string())
    {
        let message = match block {
            enclosing::Enclosing::Impl => {
                "`#[tool]` on an associated function needs `#[tool_set]` on its `impl` block \
                 (`#[tool_set] impl Service { #[tool] fn ... }`), or make it a free function"
            }
            enclosing::Enclosing::Trait => {
                "`#[tool]` cannot go on a trait's function: put it on a free function, or on \
                 the methods of an inherent `impl` block marked `#[tool_set]`"
            }
        };
        errors.at(&function.sig.ident, message);
        // The function without `#[tool]`: nothing that would not parse in the block.
        return errors::with_errors(quote::quote!(#function), errors);
    }
    let written = validate::Written {
        attrs: &function.attrs,
        sig: &function.sig,
    };
    let model = validate::validate(
        &attr,
        &written,
        &signature,
        validate::Place::Free,
        front,
        &mut errors,
    );
    if !errors.is_empty() {
        // Keep the function so the rest of the crate, and the IDE, still see it.
        return errors::with_errors(quote::quote!(#function), errors);
    }
    expand::expand(&function, &signature, &model)
}
