// An application on the facade alone: `#[tool]` and `#[tool_type]` through `toolwright`,
// no `serde` or `schemars` named anywhere.
use toolwright::model::Json;
use toolwright::{tool, tool_type};

/// A point on the plane.
#[tool_type]
#[derive(Debug, Clone, PartialEq)]
struct Point {
    /// Distance from the left edge
    x: f64,
    #[serde(rename = "Y")]
    y: f64,
}

/// How to measure.
#[tool_type]
enum Metric {
    /// As the crow flies.
    Euclid,
    /// Along the streets.
    Manhattan,
}

/// The distance of a point from the origin.
#[tool]
fn distance(point: Point, metric: Metric) -> Json<Point> {
    let d = match metric {
        Metric::Euclid => point.x.hypot(point.y),
        Metric::Manhattan => point.x.abs() + point.y.abs(),
    };
    Json(Point { x: d, y: 0.0 })
}

fn main() {
    let registry = toolwright::register_all_tools().unwrap();
    let tool = registry.get("distance").unwrap();
    let schema = tool.input_schema().to_string();
    assert!(schema.contains("Distance from the left edge"), "{schema}");
    assert!(schema.contains("\"Y\""), "{schema}");
    let args = toolwright::serde_json::json!({"point": {"x": 3.0, "Y": 4.0}, "metric": "Euclid"});
    let out = tool
        .call_blocking(&toolwright::ToolContext::new(), args.as_object().unwrap().clone())
        .unwrap()
        .unwrap();
    assert_eq!(out.structured, Some(toolwright::serde_json::json!({"x": 5.0, "Y": 0.0})));
}
