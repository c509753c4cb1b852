use toolwright::tool;

trait Files {
    /// Read a file.
    #[tool]
    fn read_file(path: String) -> String {
        path
    }
}

fn main() {}
