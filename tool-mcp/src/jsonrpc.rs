//! JSON-RPC hygiene in front of rmcp: the checks a message passes before rmcp sees it, so a
//! client that sends something malformed gets the JSON-RPC error the specification names
//! (rmcp answers some of these with nothing, or with the wrong code; still so in 3.11).

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
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
    /// `notifications/cancelled` for the request with this id (canonical JSON text).
    Cancelled { request_id: String },
    /// Another notification, or a response to a request of the server's.
    Other,
}

/// The members of a JSON-RPC message the checks look at, borrowed from the text (checking
/// a message costs a scan, not a tree: it runs on every request).
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "present")]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CancelParams<'a> {
    #[serde(default, borrow, rename = "requestId")]
    request_id: Option<&'a RawValue>,
}

/// `Some` whenever the member is there, `null` included (`Option` alone reads `null` as
/// absent, and `"id": null` must not pass for a notification).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

/// Reads and checks one message: JSON, one object (MCP removed batches), `"jsonrpc":
/// "2.0"`, a request id that is a string or a number, and `tools/call` arguments that are
/// an object.
pub(crate) fn check(text: &[u8]) -> Result<Incoming, Rejection> {
    let message = scan(text)?;
    let Some(method) = message.method else {
        return Ok(Incoming::Other);
    };
    let Some(id) = message.id else {
        if method == "notifications/cancelled"
            && let Some(params) = message.params
            && let Ok(CancelParams {
                request_id: Some(request_id),
            }) = serde_json::from_str(params.get())
        {
            return Ok(Incoming::Cancelled {
                request_id: raw_value(request_id).to_string(),
            });
        }
        return Ok(Incoming::Other);
    };
    Ok(Incoming::Request {
        id: raw_value(id).to_string(),
    })
}

/// One message that passed [`scan`]'s checks, borrowed from its text.
pub(crate) struct Scanned<'a> {
    /// Its method (`None`: a response to one of the server's requests).
    pub(crate) method: Option<Cow<'a, str>>,
    /// Its id as sent (a string or a number; `None`: a notification or a response).
    pub(crate) id: Option<&'a RawValue>,
    params: Option<&'a RawValue>,
}

/// The checks of [`check`], without building anything a message that passes does not
/// need: the HTTP guard runs it on every POST and reads the method from its answer, so the
/// body is scanned once (the id is parsed only to answer a rejection).
pub(crate) fn scan(text: &[u8]) -> Result<Scanned<'_>, Rejection> {
    let parse_error = |error: serde_json::Error| {
        Rejection::new(
            Value::Null,
            PARSE_ERROR,
            format!("Parse error: the message is not valid JSON ({error})"),
        )
    };
    let first = text.iter().find(|b| !b.is_ascii_whitespace()).copied();
    if first != Some(b'{') {
        // Not an object: say so when it is JSON, and that it is not JSON otherwise.
        serde_json::from_slice::<IgnoredAny>(text).map_err(parse_error)?;
        let what = if first == Some(b'[') {
            "a batch (an array); MCP takes one JSON-RPC message at a time"
        } else {
            "not a JSON object"
        };
        return Err(Rejection::new(
            Value::Null,
            INVALID_REQUEST,
            format!("Invalid Request: the message is {what}"),
        ));
    }
    let envelope: Envelope<'_> = serde_json::from_slice(text).map_err(parse_error)?;
    let id = envelope.id;
    let reply_id = || {
        id.filter(|id| is_valid_raw_id(id))
            .map_or(Value::Null, raw_value)
    };
    if envelope.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
        return Err(Rejection::new(
            reply_id(),
            INVALID_REQUEST,
            "Invalid Request: `jsonrpc` must be \"2.0\"",
        ));
    }
    let Some(method) = envelope.method else {
        // A response to one of the server's requests (or garbage rmcp will ignore).
        return Ok(Scanned {
            method: None,
            id: None,
            params: None,
        });
    };
    let Ok(method) = serde_json::from_str::<Cow<'_, str>>(method.get()) else {
        return Err(Rejection::new(
            reply_id(),
            INVALID_REQUEST,
            "Invalid Request: `method` must be a string",
        ));
    };
    let Some(id) = id else {
        return Ok(Scanned {
            method: Some(method),
            id: None,
            params: envelope.params,
        });
    };
    if !is_valid_raw_id(id) {
        return Err(Rejection::new(
            Value::Null,
            INVALID_REQUEST,
            format!(
                "Invalid Request: a request id must be a string or a number, got {}",
                raw_value(id)
            ),
        ));
    }
    if method == "tools/call"
        && let Some(params) = envelope.params
        && let Ok(call) = serde_json::from_str::<CallParams<'_>>(params.get())
        && let Some(arguments) = call.arguments
    {
        let kind = match arguments.get().as_bytes().first() {
            Some(b'{') | Some(b'n') => None,
            Some(b'"') => Some("a string"),
            Some(b'[') => Some("an array"),
            Some(b't' | b'f') => Some("a boolean"),
            _ => Some("a number"),
        };
        if let Some(kind) = kind {
            let name = call.name.as_deref().unwrap_or("the tool");
            return Err(Rejection::new(
                raw_value(id),
                INVALID_PARAMS,
                format!(
                    "Invalid params: the arguments of `{name}` must be a JSON object of named \
                     parameters, got {kind}"
                ),
            ));
        }
    }
    Ok(Scanned {
        method: Some(method),
        id: Some(id),
        params: envelope.params,
    })
}

/// Whether a raw id (valid JSON) is a string or a number: its first character says.
fn is_valid_raw_id(id: &RawValue) -> bool {
    matches!(id.get().as_bytes().first(), Some(b'"' | b'-' | b'0'..=b'9'))
}

/// A raw value as a `Value` (it came from valid JSON, so this cannot fail; `null` if it did).
fn raw_value(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}

fn is_valid_id(id: &Value) -> bool {
    id.is_string() || id.is_number()
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
        for arguments in [r#""x=1""#, "[1]", "3", "-3", "true"] {
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
            check(fine.as_bytes()).unwrap(),
            Incoming::Request { id: "2".into() }
        );
        let absent = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add"}}"#;
        assert!(check(absent.as_bytes()).is_ok());
    }

    #[test]
    fn notifications_and_responses_pass() {
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert_eq!(check(note.as_bytes()).unwrap(), Incoming::Other);
        let response = r#"{"jsonrpc":"2.0","id":0,"result":{}}"#;
        assert_eq!(check(response.as_bytes()).unwrap(), Incoming::Other);
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r1"}}"#;
        assert_eq!(
            check(cancel.as_bytes()).unwrap(),
            Incoming::Cancelled {
                request_id: "\"r1\"".into()
            }
        );
        // Ids are compared as canonical JSON: an escaped spelling is the same id.
        let escaped = r#"{"jsonrpc":"2.0","id":"\u0061b","method":"ping"}"#;
        assert_eq!(
            check(escaped.as_bytes()).unwrap(),
            Incoming::Request {
                id: "\"ab\"".into()
            }
        );
        assert_eq!(response_id(response.as_bytes()), Some("0".into()));
        assert_eq!(response_id(note.as_bytes()), None);
        assert_eq!(
            response_id(br#"{"jsonrpc":"2.0","id":"x","error":{}}"#),
            Some("\"x\"".into())
        );
    }
}
