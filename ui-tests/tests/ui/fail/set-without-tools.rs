use toolwright::tool_set;

struct Service;

#[tool_set]
impl Service {
    fn helper(&self) {}
}

#[tool_set]
struct NotAnImpl;

fn main() {}
