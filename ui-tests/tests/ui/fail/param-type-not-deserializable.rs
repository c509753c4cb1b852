use toolwright::tool;

struct Point {
    x: f64,
    y: f64,
}

/// Distance of a point from the origin.
#[tool]
fn norm(point: Point) -> f64 {
    (point.x * point.x + point.y * point.y).sqrt()
}

fn main() {}
