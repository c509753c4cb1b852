//! Data: arithmetic, JSON lookups, the time.

use serde_json::Value;
use tool_runtime::{ToolError, tool};

/// Longest expression `calculate` evaluates.
const MAX_EXPRESSION: usize = 1000;

/// Evaluate an arithmetic expression and return the number. Supports `+ - * / ^`,
/// parentheses, the functions `sqrt abs exp ln log log2 log10 sin cos tan asin acos atan
/// atan2 sinh cosh tanh floor ceil round trunc signum fract min max`, and the constants `pi`,
/// `e` and `tau`. Division is exact (7/2 = 3.5). No variables, no code.
#[tool(categories(data), tags("math"))]
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
    let normalized = expand_exponents(&normalize_constants(&expression));
    let value = exmex::eval_str::<f64>(&normalized).map_err(|e| {
        ToolError::new(format!(
            "cannot evaluate `{expression}`: {}; use numbers, + - * / ^, parentheses, functions like sqrt(x), and pi, e, tau",
            e.msg().trim()
        ))
    })?;
    if !value.is_finite() {
        return Err(ToolError::new(format!(
            "`{expression}` is not a finite number ({value}); check for division by zero or a value out of a function's domain"
        )));
    }
    Ok(format_number(value))
}

/// `pi`, `e`, `tau` (any case) as exmex spells them; `1e5` stays a number.
fn normalize_constants(expression: &str) -> String {
    let mut out = String::with_capacity(expression.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let replaced = match word.to_ascii_lowercase().as_str() {
            "pi" | "π" => "PI".to_owned(),
            "e" => "E".to_owned(),
            "tau" => "TAU".to_owned(),
            _ => word.clone(),
        };
        out.push_str(&replaced);
        word.clear();
    };
    let mut previous_digit = false;
    for c in expression.chars() {
        if c.is_alphanumeric() || c == '_' || c == 'π' {
            // `2e3`: a letter right after a digit is part of a number.
            if word.is_empty() && previous_digit {
                out.push(c);
                continue;
            }
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
        previous_digit = c.is_ascii_digit() && word.is_empty();
    }
    flush(&mut word, &mut out);
    out
}

/// `1e3` and `2.5E-2` as plain decimals (the evaluator has no exponent notation).
fn expand_exponents(expression: &str) -> String {
    static EXPONENT: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\b(\d+(?:\.\d+)?)[eE]([+-]?\d+)\b").ok());
    match EXPONENT.as_ref() {
        Some(exponent) => exponent
            .replace_all(expression, |caps: &regex::Captures<'_>| {
                caps[0]
                    .parse::<f64>()
                    .map_or_else(|_| caps[0].to_owned(), |value| format!("({value})"))
            })
            .into_owned(),
        None => expression.to_owned(),
    }
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
        let close: Vec<String> = jiff::tz::db()
            .available()
            .map(|n| n.as_str().to_owned())
            .filter(|n| {
                n.to_lowercase()
                    .contains(&name.to_lowercase().replace(' ', "_"))
            })
            .take(5)
            .collect();
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
    Ok(format!(
        "{} ({}, {} {})",
        now.strftime("%Y-%m-%dT%H:%M:%S%:z"),
        now.strftime("%A"),
        name,
        now.strftime("%Z"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_and_scientific_notation() {
        assert_eq!(normalize_constants("2*pi + e - tau"), "2*PI + E - TAU");
        assert_eq!(normalize_constants("1e5 + 2E3"), "1e5 + 2E3");
        assert_eq!(normalize_constants("exp(1)"), "exp(1)");
        assert_eq!(
            expand_exponents("1e3 + 2.5E-2 * exp(1)"),
            "(1000) + (0.025) * exp(1)"
        );
    }

    #[test]
    fn pointers_from_paths() {
        assert_eq!(to_pointer("a.b[0].c").unwrap(), "/a/b/0/c");
        assert_eq!(to_pointer(".items.0").unwrap(), "/items/0");
        assert_eq!(to_pointer("a[\"x.y\"]").unwrap(), "/a/x.y");
        assert_eq!(to_pointer("/already/pointer").unwrap(), "/already/pointer");
        assert_eq!(to_pointer("").unwrap(), "");
        assert!(to_pointer("a[0").is_err());
    }
}
