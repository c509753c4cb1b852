// Every problem of every method is reported at once, as for free functions.
use toolwright::{tool, tool_set};

struct Service;

#[tool_set]
impl Service {
    #[tool]
    fn undocumented(&self) -> String {
        String::new()
    }

    /// Risky.
    #[tool(safety = "dangerus")]
    fn risky(&self, path: &str) -> String {
        path.to_owned()
    }

    /// Generic.
    #[tool]
    fn generic<T>(&self) -> String {
        String::new()
    }
}

fn main() {}
