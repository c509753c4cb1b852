//! The Python module a program in code mode runs with: the channel's client, and one typed
//! function per offered tool, generated from its JSON Schema.
//!
//! Nothing a tool says is pasted into the code as it is: names become identifiers (only
//! ASCII letters, digits and `_`), and every other text (the real name, descriptions,
//! defaults) is written as a JSON string or value literal, which Python reads as the same
//! data. So a tool's metadata, a mounted server's included, cannot inject code.

use std::collections::HashSet;
use std::fmt::Write as _;

use serde_json::Value;
use toolwright_core::CatalogEntry;

/// Python's keywords (soft ones included): never a function's or a parameter's name.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "case", "class",
    "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
    "import", "in", "is", "lambda", "match", "nonlocal", "not", "or", "pass", "raise", "return",
    "try", "type", "while", "with", "yield", "_",
];

/// Names the module itself defines: a tool is never bound over one.
const RESERVED: &[&str] = &["tools", "call_tool", "ToolCallError", "Any", "Optional"];

/// The most characters of a description kept in a doc string.
const MAX_DOC_CHARS: usize = 2_000;

/// The channel's client and the program's runner, in Python (see `runtime.py`).
const RUNTIME: &str = include_str!("runtime.py");

/// `name` made a Python identifier: every character but ASCII letters, digits and `_`
/// becomes `_`, a leading digit gets a `_` before it, a keyword or reserved name an `_`
/// after it.
pub(crate) fn identifier(name: &str) -> String {
    let mut id: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, '_');
    }
    // `_tw` is the runtime's own prefix.
    if id.to_ascii_lowercase().starts_with("_tw") {
        id.insert(0, 'x');
    }
    if KEYWORDS.contains(&id.as_str()) || RESERVED.contains(&id.as_str()) {
        id.push('_');
    }
    id
}

/// `base`, or `base_2`, `base_3`, ... : the first not in `taken` (which it joins).
fn unique(base: String, taken: &mut HashSet<String>) -> String {
    let mut candidate = base.clone();
    let mut n = 2;
    while taken.contains(&candidate) {
        candidate = format!("{base}_{n}");
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

/// A JSON value as a Python literal of the same value (`null`, `true` and `false` as
/// `None`, `True`, `False`; strings as JSON writes them, which Python reads alike).
pub(crate) fn literal(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(n) => n.to_string(),
        Value::String(_) => value.to_string(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(literal).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), literal(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// The Python type of a JSON Schema, for an annotation: one of a fixed set.
fn python_type(schema: &Value) -> &'static str {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let nullable = types.contains(&"null");
    let base = match types.iter().find(|t| **t != "null") {
        Some(&"string") => "str",
        Some(&"integer") => "int",
        Some(&"number") => "float",
        Some(&"boolean") => "bool",
        Some(&"array") => "list",
        Some(&"object") => "dict",
        _ => return "Any",
    };
    if nullable {
        match base {
            "str" => "Optional[str]",
            "int" => "Optional[int]",
            "float" => "Optional[float]",
            "bool" => "Optional[bool]",
            "list" => "Optional[list]",
            _ => "Optional[dict]",
        }
    } else {
        base
    }
}

/// One parameter of a stub.
struct Param {
    /// Its identifier in Python.
    id: String,
    /// Its name in the tool's arguments.
    name: String,
    annotation: &'static str,
    required: bool,
    default: Option<Value>,
    description: String,
}

fn params(schema: &Value) -> Vec<Param> {
    let required: HashSet<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut taken: HashSet<String> = HashSet::new();
    let mut out: Vec<Param> = Vec::new();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return out;
    };
    for (name, property) in properties {
        out.push(Param {
            id: unique(identifier(name), &mut taken),
            name: name.clone(),
            annotation: python_type(property),
            required: required.contains(name.as_str()),
            default: property.get("default").cloned(),
            description: property
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        });
    }
    // Python wants the parameters without a default first.
    out.sort_by_key(|p| !p.required);
    out
}

fn shortened(text: &str) -> String {
    if text.chars().count() <= MAX_DOC_CHARS {
        text.to_owned()
    } else {
        format!(
            "{}...",
            text.chars().take(MAX_DOC_CHARS).collect::<String>()
        )
    }
}

/// The module for `tools`, running `program`: the runtime, one function per tool, and the
/// program. Returns the source and, per tool, its Python name.
pub(crate) fn module(tools: &[CatalogEntry], program: &str) -> (String, Vec<(String, String)>) {
    let mut source = String::from(RUNTIME);
    let mut taken: HashSet<String> = HashSet::new();
    let mut names = Vec::with_capacity(tools.len());
    for tool in tools {
        let id = unique(identifier(tool.name()), &mut taken);
        let params = params(tool.input_schema());
        let mut signature = Vec::with_capacity(params.len());
        let mut doc = shortened(tool.description());
        if !params.is_empty() {
            doc.push_str("\n\nArgs:");
        }
        for p in &params {
            signature.push(match (&p.default, p.required) {
                (_, true) => format!("{}: {}", p.id, p.annotation),
                (Some(default), false) => {
                    format!("{}: {} = {}", p.id, p.annotation, literal(default))
                }
                (None, false) => format!("{}: {} = _TW_UNSET", p.id, p.annotation),
            });
            let _ = write!(doc, "\n    {}: {}", p.id, shortened(&p.description));
        }
        let _ = write!(
            source,
            "\ndef {id}({signature}):\n    {doc}\n    return _tw_call({name}, {{",
            signature = signature.join(", "),
            doc = Value::String(doc),
            name = Value::String(tool.name().to_owned()),
        );
        let args: Vec<String> = params
            .iter()
            .map(|p| format!("{}: {}", Value::String(p.name.clone()), p.id))
            .collect();
        let _ = writeln!(source, "{}}})", args.join(", "));
        let _ = writeln!(source, "_tw_offer({}, {id})", Value::String(id.clone()));
        names.push((id, tool.name().to_owned()));
    }
    let _ = writeln!(source, "\n_tw_run({})", Value::String(program.to_owned()));
    (source, names)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolwright_core::ToolMeta;

    use super::*;

    #[test]
    fn names_become_identifiers_without_clashes() {
        assert_eq!(identifier("github.create-issue"), "github_create_issue");
        assert_eq!(identifier("2fa"), "_2fa");
        assert_eq!(identifier("class"), "class_");
        assert_eq!(identifier("tools"), "tools_");
        assert_eq!(identifier("_tw_call"), "x_tw_call");
        assert_eq!(identifier("_TW_UNSET"), "x_TW_UNSET");
        assert_eq!(identifier("Optional"), "Optional_");
        assert_eq!(identifier("données"), "donn_es");
        let mut taken = HashSet::new();
        assert_eq!(unique("a_b".into(), &mut taken), "a_b");
        assert_eq!(unique("a_b".into(), &mut taken), "a_b_2");
        assert_eq!(unique("a_b".into(), &mut taken), "a_b_3");
    }

    #[test]
    fn a_stub_has_types_defaults_and_the_description_as_data() {
        let entry = CatalogEntry::new(
            ToolMeta::new("get-weather", "Weather.\"\"\"\nimport os; os.system('x')"),
            json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "The city"},
                    "days": {"type": "integer", "default": 3},
                    "units": {"type": ["string", "null"]},
                    "from": {"type": "boolean"}
                },
                "required": ["city"]
            }),
            None,
        );
        let (source, names) = module(&[entry], "print(1)");
        assert_eq!(
            names,
            [("get_weather".to_owned(), "get-weather".to_owned())]
        );
        assert!(
            source.contains(
                "def get_weather(city: str, days: int = 3, units: Optional[str] = _TW_UNSET, \
                 from_: bool = _TW_UNSET):"
            ),
            "{source}"
        );
        assert!(source.contains("_tw_call(\"get-weather\", {\"city\": city, \"days\": days, \"units\": units, \"from\": from_})"), "{source}");
        // The description is one JSON string literal: its quotes and newline escaped.
        assert!(
            source.contains(r#""Weather.\"\"\"\nimport os; os.system('x')"#),
            "{source}"
        );
        assert!(!source.contains("\nimport os; os.system"), "{source}");
        assert_eq!(
            literal(&json!({"a": [null, true, 1.5, "x\n"]})),
            r#"{"a": [None, True, 1.5, "x\n"]}"#
        );
    }
}
