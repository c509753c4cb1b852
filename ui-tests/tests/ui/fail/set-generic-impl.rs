use toolwright::{tool, tool_set};

struct Service<T>(T);

#[tool_set]
impl<T: Send + Sync + 'static> Service<T> {
    /// Say hi.
    #[tool]
    fn hi(&self) -> String {
        String::new()
    }
}

struct Other<T>(T);

#[tool_set]
impl Other<u8>
where
    u8: Copy,
{
    /// Say ho.
    #[tool]
    fn ho(&self) -> String {
        String::new()
    }
}

fn main() {}
