use toolwright::tool;

struct Files;

impl Files {
    /// Read a file.
    #[tool]
    fn read_file(path: String) -> String {
        path
    }
}

fn main() {}
