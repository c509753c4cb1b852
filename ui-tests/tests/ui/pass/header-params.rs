use toolwright::tool;

/// Deploy to a region.
#[tool]
fn deploy(
    /// Where.
    #[arg(header = "Region")]
    region: String,
    /// How many.
    #[arg(header = "Replicas")]
    replicas: Option<u32>,
    /// Whether to wait.
    #[arg(header = "Wait", default = false)]
    wait: bool,
) -> String {
    format!("{region} {replicas:?} {wait}")
}

fn main() {
    let registry = toolwright::register_all_tools().unwrap();
    let tool = registry.get("deploy").unwrap();
    let schema = tool.input_schema();
    assert_eq!(schema["properties"]["region"]["x-mcp-header"], "Region");
    assert_eq!(schema["properties"]["replicas"]["x-mcp-header"], "Replicas");
    assert_eq!(schema["properties"]["wait"]["x-mcp-header"], "Wait");
}
