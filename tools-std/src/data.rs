//! Data: arithmetic, JSON lookups, the time.

use serde_json::Value;
use toolwright_core::{ToolError, tool};

/// Longest expression `calculate` evaluates.
const MAX_EXPRESSION: usize = 1000;

/// Evaluate an arithmetic expression and return the number. Supports `+ - * / ^` (`**` is
/// `^`), parentheses, the functions `sqrt cbrt abs exp ln log log2 log10 sin cos tan asin
/// acos atan atan2 sinh cosh tanh floor ceil round trunc signum fract min max` (`log` is the
/// natural logarithm; `atan2(y, x)`, `min(a, b)`, `max(a, b)` take two arguments), the
/// constants `pi`, `e` and `tau`, and numbers like `2`, `0.5`, `1e3`. Precedence as in
/// mathematics, from tightest: `^` (right to left: `2^3^2 = 512`), then a sign (`-2^2 = -4`,
/// `(-2)^2 = 4`, `2^-1 = 0.5`), then `* /`, then `+ -` (left to right: `1-2-3 = -4`).
/// Division is exact (7/2 = 3.5). No variables, no code. Errors give the 1-based character
/// position of the problem.
#[tool(categories(data), tags("math"), inline)]
pub fn calculate(
    /// The expression, e.g. `sqrt(144) + 2^10 / 4`
    expression: String,
) -> Result<String, ToolError> {
    if expression.len() > MAX_EXPRESSION {
        return Err(ToolError::new(format!(
            "the expression is {} characters; the limit is {MAX_EXPRESSION}",
            expression.len()
        )));
    }
    if expression.trim().is_empty() {
        return Err(ToolError::new("the expression is empty"));
    }
    let value = crate::expression::evaluate(&expression).map_err(|e| {
        let hint = if e.syntax {
            "; use numbers, + - * / ^, parentheses, functions like sqrt(x), and pi, e, tau"
        } else {
            ""
        };
        ToolError::new(format!("cannot evaluate `{expression}`: {e}{hint}"))
    })?;
    if !value.is_finite() {
        return Err(ToolError::new(format!(
            "`{expression}` is not a finite number ({value}); a value is too large for a 64-bit float or out of a function's domain"
        )));
    }
    Ok(format_number(value))
}

/// Integers without `.0`; other numbers as Rust prints them (shortest round trip).
fn format_number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

/// Look up a value in a JSON document with a JSON Pointer (`/items/0/name`) or a dotted path
/// (`items[0].name`, `.items.0.name`). Returns the value's JSON text.
#[tool(categories(data), tags("json"))]
pub fn json_query(
    /// The JSON document (an object or array, or a string holding JSON text)
    document: Value,
    /// JSON Pointer or dotted path; empty for the whole document
    query: String,
) -> Result<String, ToolError> {
    let document = match document {
        Value::String(text) => serde_json::from_str(&text).map_err(|e| {
            ToolError::new(format!("`document` is a string that is not JSON text: {e}"))
        })?,
        other => other,
    };
    let pointer = to_pointer(&query)?;
    match document.pointer(&pointer) {
        Some(found) => Ok(found.to_string()),
        None => Err(ToolError::new(not_found(&document, &pointer, &query))),
    }
}

/// A dotted path (`a.b[0]`, `.a.0`, `a["x.y"]`) as a JSON Pointer; a pointer stays as it is.
fn to_pointer(query: &str) -> Result<String, ToolError> {
    let query = query.trim();
    if query.is_empty() || query.starts_with('/') {
        return Ok(query.to_owned());
    }
    let mut segments = Vec::new();
    let mut rest = query.trim_start_matches('$').trim_start_matches('.');
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('[') {
            let end = after
                .find(']')
                .ok_or_else(|| ToolError::new(format!("`{query}` has a `[` without `]`")))?;
            let inside = after[..end].trim();
            let key = inside.trim_matches(|c| c == '"' || c == '\'');
            segments.push(key.to_owned());
            rest = after[end + 1..].trim_start_matches('.');
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            segments.push(rest[..end].to_owned());
            rest = rest[end..].trim_start_matches('.');
        }
    }
    Ok(segments
        .iter()
        .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
        .collect())
}

/// Says how far the path got and what was there.
fn not_found(document: &Value, pointer: &str, query: &str) -> String {
    let segments: Vec<&str> = pointer.split('/').skip(1).collect();
    let mut at = document;
    let mut path = String::new();
    for segment in segments {
        let next = match at {
            Value::Object(map) => map.get(&segment.replace("~1", "/").replace("~0", "~")),
            Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        };
        match next {
            Some(value) => {
                at = value;
                path.push('/');
                path.push_str(segment);
            }
            None => {
                let here = if path.is_empty() {
                    "the document".to_owned()
                } else {
                    format!("`{path}`")
                };
                let what = match at {
                    Value::Object(map) => format!(
                        "{here} is an object with keys {}",
                        map.keys()
                            .take(20)
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    Value::Array(items) => format!(
                        "{here} is an array of {} items (indexes 0 to {})",
                        items.len(),
                        items.len().saturating_sub(1)
                    ),
                    other => format!("{here} is {other}, which has no `{segment}`"),
                };
                return format!("nothing at `{query}`: {what}");
            }
        }
    }
    format!("nothing at `{query}`")
}

/// The current date and time in a time zone (an IANA name like `Europe/Paris`; default UTC),
/// with the weekday and the UTC offset.
#[tool(categories(data), tags("time"))]
pub fn current_time(
    /// IANA time zone, e.g. `America/New_York` (default `UTC`)
    timezone: Option<String>,
) -> Result<String, ToolError> {
    let name = timezone.unwrap_or_else(|| "UTC".to_owned());
    let zone = jiff::tz::TimeZone::get(&name).map_err(|_| {
        let close = close_time_zones(
            &name,
            jiff::tz::db().available().map(|n| n.as_str().to_owned()),
        );
        let hint = if close.is_empty() {
            "use an IANA name such as `Europe/Paris` or `America/New_York`".to_owned()
        } else {
            format!(
                "did you mean {}?",
                close
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        ToolError::new(format!("unknown time zone `{name}`: {hint}"))
    })?;
    let now = jiff::Timestamp::now().to_zoned(zone);
    Ok(format_time(&now, &name))
}

/// `2026-11-23T12:06:13+00:00 (Monday, UTC)`, `... (Monday, Europe/Paris CET)`: the zone's
/// abbreviation only where it says more than its name and the offset (not `UTC UTC`, not
/// `+04` again).
fn format_time(now: &jiff::Zoned, name: &str) -> String {
    let abbreviation = now.strftime("%Z").to_string();
    let zone = if abbreviation.eq_ignore_ascii_case(name)
        || abbreviation.is_empty()
        || abbreviation.starts_with(['+', '-'])
    {
        name.to_owned()
    } else {
        format!("{name} {abbreviation}")
    };
    format!(
        "{} ({}, {zone})",
        now.strftime("%Y-%m-%dT%H:%M:%S%:z"),
        now.strftime("%A"),
    )
}

/// Up to five zone names `given` may have meant, closest first (by
/// [`toolwright_names::edit_distance`] to the zone's city, `paris` -> `Europe/Paris`, or to the whole
/// name), ties alphabetical: the names that contain it and the likely typos of its city.
fn close_time_zones(given: &str, zones: impl Iterator<Item = String>) -> Vec<String> {
    let wanted = given.trim().to_lowercase().replace(' ', "_");
    let mut ranked: Vec<(usize, String)> = zones
        .filter_map(|zone| {
            let lower = zone.to_lowercase();
            let city = lower.rsplit('/').next().unwrap_or(&lower);
            let distance = toolwright_names::edit_distance(&wanted, city)
                .min(toolwright_names::edit_distance(&wanted, &lower));
            let typo = toolwright_names::did_you_mean(&wanted, [city, lower.as_str()]).is_some();
            (lower.contains(&wanted) || typo).then_some((distance, zone))
        })
        .collect();
    ranked.sort_unstable();
    ranked.into_iter().take(5).map(|(_, zone)| zone).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_from_paths() {
        assert_eq!(to_pointer("a.b[0].c").unwrap(), "/a/b/0/c");
        assert_eq!(to_pointer(".items.0").unwrap(), "/items/0");
        assert_eq!(to_pointer("a[\"x.y\"]").unwrap(), "/a/x.y");
        assert_eq!(to_pointer("/already/pointer").unwrap(), "/already/pointer");
        assert_eq!(to_pointer("").unwrap(), "");
        assert!(to_pointer("a[0").is_err());
    }

    #[test]
    fn the_zone_is_named_once() {
        let at = |zone: &str| {
            let time: jiff::Timestamp = "2026-11-23T12:06:13Z".parse().unwrap();
            format_time(&time.to_zoned(jiff::tz::TimeZone::get(zone).unwrap()), zone)
        };
        assert_eq!(at("UTC"), "2026-11-23T12:06:13+00:00 (Monday, UTC)");
        assert_eq!(
            at("Europe/Paris"),
            "2026-11-23T13:06:13+01:00 (Monday, Europe/Paris CET)"
        );
        assert_eq!(
            at("Asia/Dubai"),
            "2026-11-23T16:06:13+04:00 (Monday, Asia/Dubai)"
        );
    }

    #[test]
    fn time_zones_closest_first() {
        let zones = [
            "America/Paramaribo",
            "Europe/Paris",
            "Europe/London",
            "Europe/Prague",
        ]
        .map(str::to_owned);
        assert_eq!(
            close_time_zones("Paris", zones.iter().cloned()),
            ["Europe/Paris"]
        );
        assert_eq!(
            close_time_zones("pairs", zones.iter().cloned()),
            ["Europe/Paris"]
        );
        assert_eq!(
            close_time_zones("europe/", zones.iter().cloned()),
            ["Europe/Paris", "Europe/London", "Europe/Prague"]
        );
        assert_eq!(
            close_time_zones("par", zones.iter().cloned()),
            ["Europe/Paris", "America/Paramaribo"]
        );
    }
}
