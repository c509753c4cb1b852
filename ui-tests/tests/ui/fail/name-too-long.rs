use toolwright::tool;

/// Does something with a very long name.
#[tool(name = "a_tool_name_that_is_much_too_long_for_any_model_api_to_accept_because_it_has_70")]
fn long_name() -> String {
    String::new()
}

fn main() {}
