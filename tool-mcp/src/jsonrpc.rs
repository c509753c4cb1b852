//! JSON-RPC hygiene in front of rmcp: the checks a message passes before rmcp sees it, so a
//! client that sends something malformed gets the JSON-RPC error the specification names
//! (rmcp 3.9 answers some of these with nothing, or with the wrong code).

use serde_json::{Value, json};

/// JSON-RPC's "Parse error": the text is not JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "Invalid Request": JSON, but not a request the server takes.
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's "Invalid params".
pub(crate) const INVALID_PARAMS: i64 = -32602;

/// A JSON-RPC error response to send instead of passing a message on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rejection {
    /// The request's id, or `null` when it has none or could not be read.
    pub(crate) id: Value,
    pub(crate) code: i64,
    pub(crate) message: String,
}

impl Rejection {
    fn new(id: Value, code: i64, message: impl Into<String>) -> Self {
        Rejection {
            id,
            code,
            message: message.into(),
        }
    }

    /// The error response, as JSON.
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        })
    }
}

/// What one incoming message is, once it passed the checks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Incoming {
    /// A request, with its id as canonical JSON text (for in-flight bookkeeping).
    Request { id: String },
    /// A notification or a response to a request of the server's.
    Other,
}

/// Reads and checks one message: JSON, one object (MCP removed batches), `"jsonrpc":
/// "2.0"`, a request id that is a string or a number, and `tools/call` arguments that are
/// an object.
pub(crate) fn check(text: &[u8]) -> Result<(Value, Incoming), Rejection> {
    let value: Value = serde_json::from_slice(text).map_err(|error| {
        Rejection::new(
            Value::Null,
            PARSE_ERROR,
            format!("Parse error: the message is not valid JSON ({error})"),
        )
    })?;
    let incoming = check_value(&value)?;
    Ok((value, incoming))
}

fn check_value(value: &Value) -> Result<Incoming, Rejection> {
    let Some(object) = value.as_object() else {
        let what = if value.is_array() {
            "a batch (an array); MCP takes one JSON-RPC message at a time"
        } else {
            "not a JSON object"
        };
        return Err(Rejection::new(
            Value::Null,
            INVALID_REQUEST,
            format!("Invalid Request: the message is {what}"),
        ));
    };
    let id = object.get("id").cloned();
    let reply_id = id.clone().filter(is_valid_id).unwrap_or(Value::Null);
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(Rejection::new(
            reply_id,
            INVALID_REQUEST,
            "Invalid Request: `jsonrpc` must be \"2.0\"",
        ));
    }
    let Some(method) = object.get("method") else {
        // A response to one of the server's requests (or garbage rmcp will ignore).
        return Ok(Incoming::Other);
    };
    let Some(method) = method.as_str() else {
        return Err(Rejection::new(
            reply_id,
            INVALID_REQUEST,
            "Invalid Request: `method` must be a string",
        ));
    };
    let Some(id) = id else {
        return Ok(Incoming::Other);
    };
    if !is_valid_id(&id) {
        return Err(Rejection::new(
            Value::Null,
            INVALID_REQUEST,
            format!("Invalid Request: a request id must be a string or a number, got {id}"),
        ));
    }
    if method == "tools/call" {
        let arguments = object
            .get("params")
            .and_then(|params| params.get("arguments"));
        if let Some(arguments) = arguments.filter(|a| !a.is_object() && !a.is_null()) {
            let name = object
                .get("params")
                .and_then(|params| params.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("the tool");
            return Err(Rejection::new(
                id,
                INVALID_PARAMS,
                format!(
                    "Invalid params: the arguments of `{name}` must be a JSON object of named \
                     parameters, got {}",
                    kind(arguments)
                ),
            ));
        }
    }
    Ok(Incoming::Request { id: id.to_string() })
}

fn is_valid_id(id: &Value) -> bool {
    id.is_string() || id.is_number()
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The id of a response the server sends, as canonical JSON text (`None` for anything that
/// is not a response).
pub(crate) fn response_id(text: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(text).ok()?;
    let object = value.as_object()?;
    if object.contains_key("method") {
        return None;
    }
    if !(object.contains_key("result") || object.contains_key("error")) {
        return None;
    }
    object
        .get("id")
        .filter(|id| is_valid_id(id))
        .map(Value::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(text: &str) -> Rejection {
        match check(text.as_bytes()) {
            Err(rejection) => rejection,
            Ok(accepted) => panic!("{text} was accepted: {accepted:?}"),
        }
    }

    #[test]
    fn malformed_messages_get_the_errors_json_rpc_names() {
        assert_eq!(rejected("{not json").code, PARSE_ERROR);
        assert_eq!(rejected("{not json").id, Value::Null);
        let batch = rejected(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
        assert_eq!(batch.code, INVALID_REQUEST);
        assert!(batch.message.contains("batch"), "{}", batch.message);
        assert_eq!(rejected("3").code, INVALID_REQUEST);
        let null_id = rejected(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
        assert_eq!((null_id.code, null_id.id), (INVALID_REQUEST, Value::Null));
        let object_id = rejected(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#);
        assert_eq!(object_id.code, INVALID_REQUEST);
        let version = rejected(r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#);
        assert_eq!((version.code, version.id), (INVALID_REQUEST, json!(7)));
    }

    #[test]
    fn tool_arguments_must_be_an_object() {
        for arguments in [r#""x=1""#, "[1]", "3", "true"] {
            let text = format!(
                r#"{{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{{"name":"add","arguments":{arguments}}}}}"#
            );
            let rejection = rejected(&text);
            assert_eq!(rejection.code, INVALID_PARAMS, "{text}");
            assert_eq!(rejection.id, json!("a"));
            assert!(rejection.message.contains("`add`"), "{}", rejection.message);
        }
        let fine = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}"#;
        assert_eq!(
            check(fine.as_bytes()).unwrap().1,
            Incoming::Request { id: "2".into() }
        );
        let absent = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add"}}"#;
        assert!(check(absent.as_bytes()).is_ok());
    }

    #[test]
    fn notifications_and_responses_pass() {
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert_eq!(check(note.as_bytes()).unwrap().1, Incoming::Other);
        let response = r#"{"jsonrpc":"2.0","id":0,"result":{}}"#;
        assert_eq!(check(response.as_bytes()).unwrap().1, Incoming::Other);
        assert_eq!(response_id(response.as_bytes()), Some("0".into()));
        assert_eq!(response_id(note.as_bytes()), None);
        assert_eq!(
            response_id(br#"{"jsonrpc":"2.0","id":"x","error":{}}"#),
            Some("\"x\"".into())
        );
    }
}
