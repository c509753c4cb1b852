use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;
use toolwright::serde_json::json;
use toolwright::{ToolContext, tool};

#[derive(Deserialize, JsonSchema)]
struct Point {
    x: f64,
    y: f64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Shape {
    Circle { center: Point, radius: f64 },
    Polygon(Vec<Point>),
    Empty,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Metres,
    Feet,
}

#[derive(Deserialize, JsonSchema)]
struct Drawing {
    shapes: Vec<Shape>,
    labels: HashMap<String, Point>,
    unit: Option<Unit>,
}

/// Count the parts of a drawing.
#[tool]
fn count_parts(
    drawing: Drawing,
    extra: Vec<Option<Vec<u32>>>,
    weights: HashMap<String, f64>,
    nested: Option<Vec<HashMap<String, Vec<Point>>>>,
    unit: Unit,
    value: toolwright::serde_json::Value,
) -> usize {
    let shape_points: usize = drawing
        .shapes
        .iter()
        .map(|shape| match shape {
            Shape::Circle { center, radius } => usize::from(center.x + center.y + radius >= 0.0),
            Shape::Polygon(points) => points.len(),
            Shape::Empty => 0,
        })
        .sum();
    let _ = (drawing.unit, unit, value, weights.values().sum::<f64>());
    shape_points
        + drawing.labels.len()
        + extra.into_iter().flatten().flatten().count()
        + nested.map_or(0, |n| n.iter().map(|m| m.values().map(Vec::len).sum::<usize>()).sum())
}

fn main() {
    let tool = toolwright::register_all_tools().unwrap().get("count_parts").unwrap();
    let schema = tool.input_schema();
    assert_eq!(tool.required(), ["drawing", "extra", "weights", "unit", "value"]);
    for name in ["Drawing", "Shape", "Point", "Unit"] {
        assert!(schema["$defs"].get(name).is_some(), "no $defs/{name} in {schema}");
    }
    assert_eq!(schema["properties"]["weights"]["type"], "object");
    assert_eq!(schema["properties"]["extra"]["type"], "array");

    let args = json!({
        "drawing": {
            "shapes": [
                {"circle": {"center": {"x": 0.0, "y": 0.0}, "radius": 1.0}},
                {"polygon": [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": 1}]},
                "empty"
            ],
            "labels": {"origin": {"x": 0, "y": 0}},
            "unit": null
        },
        "extra": [[1, 2], null, []],
        "weights": {"a": 0.5},
        "nested": [{"k": [{"x": 1, "y": 1}]}],
        "unit": "feet",
        "value": [true, "anything"]
    });
    let out = tool
        .call_blocking(&ToolContext::new(), args.as_object().unwrap().clone())
        .unwrap()
        .unwrap();
    // 1 circle + 3 polygon points + 1 label + 2 extras + 1 nested point
    assert_eq!(out.content, "8");

    let bad = json!({"drawing": {"shapes": [], "labels": {}}, "extra": [], "weights": {},
                     "unit": "inches", "value": null});
    let err = tool
        .call_blocking(&ToolContext::new(), bad.as_object().unwrap().clone())
        .unwrap()
        .unwrap_err();
    assert!(err.to_string().contains("unit"), "{err}");
}
