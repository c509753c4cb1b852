use toolwright::tool;

/// A value for a flag.
#[tool(inline = true)]
fn with_value() -> i64 { 1 }

/// A list for a flag.
#[tool(inline(always))]
fn with_list() -> i64 { 1 }

/// Async tools run on the caller's task already.
#[tool(inline)]
async fn already_on_the_task() -> i64 { 1 }

/// Said twice.
#[tool(inline, inline)]
fn twice() -> i64 { 1 }

/// Misspelt.
#[tool(inlined)]
fn misspelt() -> i64 { 1 }

fn main() {}
