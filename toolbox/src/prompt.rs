//! `toolwright call`'s client for a tool: elicitation becomes a form on the terminal (when stdin
//! is one and does not carry the arguments), sampling is not available, log messages go to
//! the log (stderr).

use std::io::{BufRead, IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Map, Value};
use toolwright_core::client::{
    ClientFuture, ClientPowers, ElicitationRequest, SampledMessage, SamplingRequest,
};
use toolwright_core::{ClientError, Elicitation};

use crate::shown::{visible, visible_lines};

/// The terminal as the client of one `toolwright call`.
pub(crate) struct Terminal {
    /// Whether stdin carries the arguments (`toolwright call x -`): then it cannot answer.
    pub(crate) stdin_taken: bool,
    /// Set while the user is asked, so the spinner keeps quiet.
    pub(crate) asking: Arc<AtomicBool>,
}

impl ClientPowers for Terminal {
    fn elicit(
        &self,
        request: ElicitationRequest,
    ) -> ClientFuture<Result<Elicitation<Value>, ClientError>> {
        if self.stdin_taken || !std::io::stdin().is_terminal() {
            let why = if self.stdin_taken {
                "stdin carries the arguments, so there is no terminal to ask the user on"
            } else {
                "stdin is not a terminal, so there is no user to ask"
            };
            return Box::pin(async move {
                Err(ClientError::NotAvailable {
                    what: "elicitation",
                    why: why.to_owned(),
                })
            });
        }
        let asking = Arc::clone(&self.asking);
        Box::pin(async move {
            asking.store(true, Ordering::SeqCst);
            let answer = tokio::task::spawn_blocking(move || {
                let stdin = std::io::stdin();
                let mut input = stdin.lock();
                let mut err = std::io::stderr().lock();
                fill_form(&request, &mut input, &mut err)
            })
            .await;
            asking.store(false, Ordering::SeqCst);
            answer.map_err(|_| ClientError::Protocol("the terminal prompt failed".to_owned()))
        })
    }

    fn sample(
        &self,
        _request: SamplingRequest,
    ) -> ClientFuture<Result<SampledMessage, ClientError>> {
        Box::pin(async {
            Err(ClientError::NotAvailable {
                what: "sampling",
                why: "`toolwright call` has no model to ask (serve the tool over MCP to a client \
                      that offers sampling)"
                    .to_owned(),
            })
        })
    }
}

/// Asks the request's question on `out` and reads each field of its form from `input`, in
/// the style of the approval prompt. An empty answer skips an optional field; to a required
/// one it declines; the end of input cancels.
fn fill_form(
    request: &ElicitationRequest,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Elicitation<Value> {
    // The question, and every text of the form, as the tool wrote them (maybe from a file
    // or a model): escaped so they cannot drive the terminal or read as something else.
    let _ = writeln!(
        out,
        "\nTool `{}` asks: {}",
        visible(&request.tool),
        visible_lines(&request.message)
    );
    let required: Vec<&str> = request
        .schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let empty = Map::new();
    let properties = request
        .schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut answer = Map::new();
    for (name, property) in properties {
        let is_required = required.contains(&name.as_str());
        loop {
            let _ = write!(out, "{}: ", visible(&label(name, property, is_required)));
            let _ = out.flush();
            let mut line = String::new();
            match input.read_line(&mut line) {
                Ok(0) | Err(_) => return Elicitation::Cancelled,
                Ok(_) => {}
            }
            let text = line.trim();
            if text.is_empty() {
                // SEP-1034: an empty answer takes the field's default.
                if let Some(default) = property.get("default").filter(|d| !d.is_null()) {
                    answer.insert(name.clone(), default.clone());
                    break;
                }
                if is_required {
                    let _ = writeln!(out, "(no answer to a required field: declined)");
                    return Elicitation::Declined;
                }
                break;
            }
            match parse(property, text) {
                Ok(value) => {
                    answer.insert(name.clone(), value);
                    break;
                }
                Err(problem) => {
                    let _ = writeln!(out, "{}; try again", visible(&problem));
                }
            }
        }
    }
    Elicitation::Accepted(Value::Object(answer))
}

/// One choice of an enum: the value sent back and, when the schema gives one, its title.
struct Choice<'a> {
    value: &'a str,
    title: Option<&'a str>,
}

/// The choices a string property (or an array's `items`) allows, in any of MCP's enum forms:
/// `enum` (with legacy `enumNames` as titles), `oneOf`/`anyOf` of `{const, title}`.
fn choices(property: &Value) -> Option<Vec<Choice<'_>>> {
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        let titles = property.get("enumNames").and_then(Value::as_array);
        let choices = values
            .iter()
            .enumerate()
            .filter_map(|(i, value)| {
                Some(Choice {
                    value: value.as_str()?,
                    title: titles.and_then(|t| t.get(i)).and_then(Value::as_str),
                })
            })
            .collect();
        return Some(choices);
    }
    let branches = ["oneOf", "anyOf"]
        .iter()
        .find_map(|union| property.get(*union).and_then(Value::as_array))?;
    let choices = branches
        .iter()
        .filter_map(|branch| {
            Some(Choice {
                value: branch.get("const")?.as_str()?,
                title: branch.get("title").and_then(Value::as_str),
            })
        })
        .collect();
    Some(choices)
}

/// `eu|us`, or with titles `s (Small)|l (Large)`.
fn list(choices: &[Choice<'_>]) -> String {
    let shown: Vec<String> = choices
        .iter()
        .map(|choice| match choice.title {
            Some(title) if title != choice.value => format!("{} ({title})", choice.value),
            _ => choice.value.to_owned(),
        })
        .collect();
    shown.join("|")
}

/// The choice an answer names: its value, or its title (either case-insensitively).
fn pick<'a>(choices: &[Choice<'a>], text: &str) -> Option<&'a str> {
    choices
        .iter()
        .find(|choice| {
            choice.value.eq_ignore_ascii_case(text)
                || choice.title.is_some_and(|t| t.eq_ignore_ascii_case(text))
        })
        .map(|choice| choice.value)
}

/// `region (string, one of eu|us; The region) [required]`.
fn label(name: &str, property: &Value, required: bool) -> String {
    let kind = property
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string");
    let mut label = if kind == "array" {
        let items = property.get("items").unwrap_or(&Value::Null);
        let choices = choices(items).unwrap_or_default();
        format!("{name} (several of {}, comma-separated", list(&choices))
    } else {
        let mut label = format!("{name} ({kind}");
        if let Some(choices) = choices(property) {
            label.push_str(&format!(", one of {}", list(&choices)));
        }
        label
    };
    if let Some(description) = property.get("description").and_then(Value::as_str) {
        label.push_str(&format!("; {description}"));
    }
    label.push(')');
    if let Some(default) = property.get("default").filter(|d| !d.is_null()) {
        let shown = match default {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        label.push_str(&format!(" [default: {shown}]"));
    }
    if required {
        label.push_str(" [required]");
    }
    label
}

/// The typed value of one answer, or what is wrong with it.
fn parse(property: &Value, text: &str) -> Result<Value, String> {
    let kind = property
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string");
    let value = match kind {
        "boolean" => match text.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Value::Bool(true),
            "n" | "no" | "false" => Value::Bool(false),
            _ => return Err("answer yes or no".to_owned()),
        },
        "integer" => text
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| "answer a whole number".to_owned())?,
        "number" => text
            .parse::<f64>()
            .ok()
            .and_then(|n| serde_json::Number::from_f64(n).map(Value::Number))
            .ok_or_else(|| "answer a number".to_owned())?,
        "array" => return parse_several(property, text),
        _ => Value::String(text.to_owned()),
    };
    if let Some(choices) = choices(property) {
        return match pick(&choices, text) {
            Some(value) => Ok(Value::from(value)),
            None => Err(format!(
                "answer one of {}",
                list(&choices).replace('|', ", ")
            )),
        };
    }
    Ok(value)
}

/// A multiple choice: comma-separated values (or titles), within `minItems`/`maxItems`.
fn parse_several(property: &Value, text: &str) -> Result<Value, String> {
    let items = property.get("items").unwrap_or(&Value::Null);
    let choices = choices(items).unwrap_or_default();
    let mut picked: Vec<Value> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some(value) = pick(&choices, part) else {
            return Err(format!(
                "`{part}` is not a choice: answer some of {}, comma-separated",
                list(&choices).replace('|', ", ")
            ));
        };
        if !picked.iter().any(|v| v == value) {
            picked.push(Value::from(value));
        }
    }
    let bound = |key: &str| property.get(key).and_then(Value::as_u64);
    if let Some(min) = bound("minItems").filter(|min| (picked.len() as u64) < *min) {
        return Err(format!("pick at least {min}"));
    }
    if let Some(max) = bound("maxItems").filter(|max| (picked.len() as u64) > *max) {
        return Err(format!("pick at most {max}"));
    }
    Ok(Value::Array(picked))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request() -> ElicitationRequest {
        ElicitationRequest::new(
            "deploy",
            "Where?",
            json!({
                "type": "object",
                "properties": {
                    "region": {"type": "string", "enum": ["eu", "us"]},
                    "replicas": {"type": "integer"},
                    "confirm": {"type": "boolean"}
                },
                "required": ["region"]
            }),
        )
    }

    fn run(input: &str) -> (Elicitation<Value>, String) {
        let mut out = Vec::new();
        let answer = fill_form(&request(), &mut input.as_bytes(), &mut out);
        (answer, String::from_utf8(out).unwrap())
    }

    /// A question and a form whose texts came from a file or a model: nothing in them
    /// reaches the terminal raw (escape sequences, bidirectional controls, invisible and tag
    /// characters, line separators); the question's own line breaks stay.
    #[test]
    fn a_hostile_question_and_form_show_escaped() {
        let hostile = ElicitationRequest::new(
            "deploy",
            "Deploy \u{202e}lave\u{202c} to \u{1b}[2Kprod?\u{200b}\u{e0041}\u{2028}\nSure?",
            json!({
                "type": "object",
                "properties": {
                    "region\u{2066}": {"type": "string", "description": "the \u{1b}]52;c;eA==\u{7} one",
                        "enum": ["eu\u{fe0f}", "us"], "default": "us\u{ad}"}
                }
            }),
        );
        let mut out = Vec::new();
        let _ = fill_form(&hostile, &mut "\n".as_bytes(), &mut out);
        let shown = String::from_utf8(out).unwrap();
        for c in [
            '\u{202e}',
            '\u{202c}',
            '\u{1b}',
            '\u{200b}',
            '\u{e0041}',
            '\u{2028}',
            '\u{2066}',
            '\u{7}',
            '\u{fe0f}',
            '\u{ad}',
        ] {
            assert!(!shown.contains(c), "{c:?} reached the terminal: {shown:?}");
        }
        assert!(
            shown.contains(
                "Tool `deploy` asks: Deploy \\u{202e}lave\\u{202c} to ^[[2Kprod?\\u{200b}\\u{e0041}\\u{2028}\nSure?\n"
            ),
            "{shown}"
        );
        assert!(
            shown.contains("region\\u{2066} (string, one of eu\\u{fe0f}|us; the ^[]52;c;eA==^G one) [default: us\\u{ad}]: "),
            "{shown}"
        );
    }

    #[test]
    fn a_form_is_filled_field_by_field_with_typed_answers() {
        let (answer, shown) = run("asia\neu\nthree\n3\n\n");
        assert_eq!(
            answer,
            Elicitation::Accepted(json!({"region": "eu", "replicas": 3}))
        );
        assert!(shown.contains("Tool `deploy` asks: Where?"), "{shown}");
        assert!(
            shown.contains("region (string, one of eu|us) [required]: "),
            "{shown}"
        );
        assert!(shown.contains("answer one of eu, us; try again"), "{shown}");
        assert!(
            shown.contains("answer a whole number; try again"),
            "{shown}"
        );
    }

    #[test]
    fn titled_choices_several_choices_and_defaults() {
        let request = ElicitationRequest::new(
            "order",
            "What?",
            json!({
                "type": "object",
                "properties": {
                    "size": {"type": "string", "oneOf": [
                        {"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}
                    ]},
                    "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Ay", "Bee"]},
                    "toppings": {"type": "array", "maxItems": 2,
                                 "items": {"anyOf": [
                                     {"const": "ham", "title": "Cured ham"},
                                     {"const": "olives", "title": "Black olives"},
                                     {"const": "egg", "title": "Egg"}
                                 ]}},
                    "status": {"type": "string", "enum": ["active", "inactive"],
                               "default": "active"}
                },
                "required": ["size", "toppings", "status"]
            }),
        );
        let input = "medium\nlarge\nbee\nham, pineapple\nham,olives,egg\nham, black olives\n\n";
        let mut out = Vec::new();
        let answer = fill_form(&request, &mut input.as_bytes(), &mut out);
        let shown = String::from_utf8(out).unwrap();
        assert_eq!(
            answer,
            Elicitation::Accepted(json!({
                "size": "l", "legacy": "b", "toppings": ["ham", "olives"], "status": "active"
            })),
            "{shown}"
        );
        assert!(
            shown.contains("size (string, one of s (Small)|l (Large)) [required]"),
            "{shown}"
        );
        assert!(
            shown.contains("answer one of s (Small), l (Large)"),
            "{shown}"
        );
        assert!(shown.contains("`pineapple` is not a choice"), "{shown}");
        assert!(shown.contains("pick at most 2"), "{shown}");
        assert!(
            shown.contains("status (string, one of active|inactive) [default: active]"),
            "{shown}"
        );
    }

    #[test]
    fn an_empty_required_answer_declines_and_the_end_of_input_cancels() {
        assert_eq!(run("\n").0, Elicitation::Declined);
        assert_eq!(run("eu\n").0, Elicitation::Cancelled);
    }
}
