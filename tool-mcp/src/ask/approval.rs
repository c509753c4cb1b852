//! Asking the client's user, through MCP elicitation, whether a dangerous call may run.
//!
//! A call whose preview is a file change of several hunks is asked hunk by hunk: the form has
//! a required `decision` (`all`, `some` or `none`) and a boolean `hunk_1`, `hunk_2`, ... per
//! hunk (1-based for people; `hunk_N` is the hunk at [`Hunk::index`] `N - 1`). Any other call
//! gets one boolean, `approve`. The client's answer is read as untrusted: only a JSON `true`
//! approves.

use rmcp::RoleServer;
use rmcp::model::{
    ClientResult, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, EnumSchema, ServerRequest,
};
use rmcp::service::Peer;
use serde_json::Value;
use toolwright_core::BoxFuture;
use toolwright_core::file_change::Hunk;
use toolwright_runtime::{ApprovalDecision, ApprovalHandler, ApprovalRequest};

/// The one boolean of a plain approval form.
const APPROVE: &str = "approve";
/// The choice of a hunk-by-hunk form: every hunk, the checked ones, or none.
const DECISION: &str = "decision";
/// The most hunks a form offers one by one; a larger change is approved whole or not at all
/// (a form of hundreds of checkboxes helps nobody, and some clients would not show it).
const MAX_HUNK_FIELDS: usize = 50;
/// The most lines of a hunk shown in its field's description (the message has them all).
const MAX_HUNK_LINES: usize = 30;
/// The most characters of one line shown in a hunk's description.
const MAX_LINE_CHARS: usize = 200;
/// The most bytes of a hunk's description (so fifty hunks stay a form, not a megabyte).
const MAX_HUNK_BYTES: usize = 3000;

/// Approves by asking the user of the client that made the call.
pub(crate) struct ElicitationApproval {
    pub(crate) peer: Peer<RoleServer>,
}

impl ApprovalHandler for ElicitationApproval {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<ApprovalDecision> {
        let peer = self.peer.clone();
        Box::pin(async move {
            let denied = |reason: String| ApprovalDecision::Denied { reason };
            let form = match Form::for_request(&request) {
                Ok(form) => form,
                Err(error) => return denied(format!("could not ask the user: {error}")),
            };
            let response = peer
                .send_request(ServerRequest::ElicitRequest(ElicitRequest::new(
                    form.params(),
                )))
                .await;
            match response {
                Ok(ClientResult::ElicitResult(result)) => form.read(&result),
                Ok(_) => denied(
                    "the client answered the approval request with something else".to_owned(),
                ),
                Err(error) => denied(format!("could not ask the user: {error}")),
            }
        })
    }
}

/// The approval form of one request: what the user is shown and how the answer is read.
/// The same over a session (an `elicitation/create` request) and over multi round-trip
/// requests (an input request of the call's result).
pub(crate) struct Form<'a> {
    hunks: Option<&'a [Hunk]>,
    message: String,
    schema: ElicitationSchema,
}

impl<'a> Form<'a> {
    /// The form for `request`: hunk by hunk for a change of several hunks, else one boolean.
    pub(crate) fn for_request(request: &'a ApprovalRequest) -> Result<Self, String> {
        let hunks = hunks_to_choose(request);
        let schema = match hunks {
            Some(hunks) => hunks_schema(hunks)?,
            None => approve_schema()?,
        };
        Ok(Form {
            hunks,
            message: message(request),
            schema,
        })
    }

    /// The form as elicitation parameters.
    pub(crate) fn params(&self) -> ElicitRequestParams {
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: self.message.clone(),
            requested_schema: self.schema.clone(),
        }
    }

    /// The decision the user's answer makes (read as untrusted: only JSON `true` approves).
    pub(crate) fn read(&self, result: &ElicitResult) -> ApprovalDecision {
        let denied = |reason: &str| ApprovalDecision::Denied {
            reason: reason.to_owned(),
        };
        match result.action {
            ElicitationAction::Accept => match self.hunks {
                Some(hunks) => read_hunks(result.content.as_ref(), hunks),
                None => read_approve(result.content.as_ref()),
            },
            ElicitationAction::Decline => denied("the user declined it"),
            ElicitationAction::Cancel => denied("the user cancelled"),
            _ => denied("the user did not approve it"),
        }
    }
}

/// The hunks the user chooses among, when the call's change has several (and not too many).
fn hunks_to_choose(request: &ApprovalRequest) -> Option<&[Hunk]> {
    let hunks = request.change.as_ref()?.hunks.as_slice();
    (2..=MAX_HUNK_FIELDS)
        .contains(&hunks.len())
        .then_some(hunks)
}

/// The plain form: one required boolean.
fn approve_schema() -> Result<ElicitationSchema, String> {
    ElicitationSchema::builder()
        .required_bool_property(APPROVE, |property| {
            property
                .title("Approve")
                .description("Let the tool run with these arguments")
        })
        .build()
        .map_err(str::to_owned)
}

/// The hunk-by-hunk form: a required single-choice `decision` (titled choices: `all`, `some`,
/// `none`) and one boolean per hunk, checked by default, in hunk order.
///
/// A choice rather than `approve_all` / `deny_all` booleans: one answer that cannot
/// contradict itself, and a required field the user must set, so submitting the form
/// untouched applies nothing.
fn hunks_schema(hunks: &[Hunk]) -> Result<ElicitationSchema, String> {
    let count = hunks.len();
    let decision =
        EnumSchema::builder(vec!["all".to_owned(), "some".to_owned(), "none".to_owned()])
            .enum_titles(vec![
                "Apply every hunk".to_owned(),
                "Apply the hunks checked below".to_owned(),
                "Apply nothing".to_owned(),
            ])?
            .title("Apply the change?")
            .description(format!(
                "All {count} hunks, only the hunks checked below, or none of them"
            ))
            .build();
    let mut builder = ElicitationSchema::builder().required_enum_schema(DECISION, decision);
    let mut order = vec![DECISION.to_owned()];
    for (n, hunk) in (1..).zip(hunks) {
        let name = hunk_field(n);
        builder = builder.bool_property(name.clone(), |property| {
            property
                .title(format!("Hunk {n} of {count}: {}", printable(&hunk.header)))
                .description(printable(&hunk_description(hunk)).into_owned())
                .with_default(true)
        });
        order.push(name);
    }
    let mut schema = builder.build().map_err(str::to_owned)?;
    // The builder orders properties by name (`hunk_10` before `hunk_2`); show them in order.
    schema.property_order = Some(order);
    Ok(schema)
}

/// The form field of the `n`th hunk, counting from 1.
fn hunk_field(n: usize) -> String {
    format!("hunk_{n}")
}

/// A hunk's lines as in a unified diff (prefixed ` `, `-`, `+`), cut to a size a form can
/// show: lines of at most [`MAX_LINE_CHARS`] characters, at most [`MAX_HUNK_LINES`] of them
/// and [`MAX_HUNK_BYTES`] in all, then how many more there are.
fn hunk_description(hunk: &Hunk) -> String {
    let mut lines: Vec<String> = Vec::new();
    for line in &hunk.lines {
        let mut text = String::with_capacity(line.text.len() + 1);
        text.push(line.kind.prefix());
        match line.text.char_indices().nth(MAX_LINE_CHARS) {
            Some((cut, _)) => {
                text.push_str(&line.text[..cut]);
                text.push_str("...");
            }
            None => text.push_str(&line.text),
        }
        lines.push(text);
        if line.no_newline {
            lines.push("\\ No newline at end of file".to_owned());
        }
    }
    let mut shown = String::new();
    for (at, line) in lines.iter().enumerate() {
        // The first line always fits: MAX_LINE_CHARS characters are well under the budget.
        if at == MAX_HUNK_LINES || (at > 0 && shown.len() + 1 + line.len() > MAX_HUNK_BYTES) {
            let more = lines.len() - at;
            let unit = if more == 1 { "line" } else { "lines" };
            shown.push_str(&format!("\n... {more} more {unit}"));
            break;
        }
        if at > 0 {
            shown.push('\n');
        }
        shown.push_str(line);
    }
    shown
}

/// `text` as the user should see it whatever a model or a file put in it: line breaks and
/// tabs stay; every other character [`toolwright_names::escape::escape_class`] flags (a terminal
/// escape, a carriage return that would overwrite a line, bidirectional controls that reorder
/// what follows, invisible and tag characters, variation selectors, U+2028) is written as a
/// `\u{..}` escape. Clients draw these texts, some in a terminal.
pub(crate) fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    toolwright_names::escape::escape_with(text, |c, _, shown| {
        if c == '\n' || c == '\t' {
            shown.push(c);
        } else {
            shown.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    })
}

/// The plain form's answer: approved only by `approve: true`.
fn read_approve(content: Option<&Value>) -> ApprovalDecision {
    let approved = content
        .and_then(|content| content.get(APPROVE))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if approved {
        ApprovalDecision::Approved
    } else {
        ApprovalDecision::Denied {
            reason: "the user did not approve it".to_owned(),
        }
    }
}

/// The hunk-by-hunk form's answer. `all` approves, `none` denies, `some` approves the hunks
/// whose field is JSON `true` (anything else, or no field, leaves a hunk out; fields it did
/// not ask for are ignored). A missing or unknown `decision` denies.
fn read_hunks(content: Option<&Value>, hunks: &[Hunk]) -> ApprovalDecision {
    let denied = |reason: String| ApprovalDecision::Denied { reason };
    let count = hunks.len();
    let decision = content
        .and_then(|content| content.get(DECISION))
        .and_then(Value::as_str);
    match decision {
        Some("all") => ApprovalDecision::Approved,
        Some("none") => denied(format!("the user chose to apply none of the {count} hunks")),
        Some("some") => {
            let checked: Vec<usize> = (1..)
                .zip(hunks)
                .filter(|(n, _)| {
                    content.and_then(|content| content.get(hunk_field(*n)))
                        == Some(&Value::Bool(true))
                })
                .map(|(_, hunk)| hunk.index)
                .collect();
            if checked.is_empty() {
                denied(format!("the user checked none of the {count} hunks"))
            } else if checked.len() == count {
                ApprovalDecision::Approved
            } else {
                ApprovalDecision::ApprovedHunks { hunks: checked }
            }
        }
        _ => denied(format!(
            "the user's answer did not say which hunks to apply (`{DECISION}` must be `all`, \
             `some` or `none`)"
        )),
    }
}

/// What the user is shown: the tool, its arguments (secrets redacted) and its preview, and
/// for a change of several hunks how to choose among them.
fn message(request: &ApprovalRequest) -> String {
    let arguments = serde_json::to_string_pretty(&request.arguments).unwrap_or_default();
    let mut text = format!(
        "Allow the {} tool `{}` to run?\n\n{}\n\nArguments:\n{arguments}",
        request.safety,
        request.tool,
        request.description,
        arguments = printable(&arguments)
    );
    if let Some(change) = &request.change
        && let Some(requested) = &change.requested
    {
        text.push_str(&format!(
            "\n\nThe file it changes is `{}`: `{}` is a link to it.",
            printable(&change.path),
            printable(requested)
        ));
    }
    if let Some(preview) = &request.preview {
        text.push_str("\n\nWhat it will do:\n");
        text.push_str(&printable(preview));
    }
    let hunks = request
        .change
        .as_ref()
        .map_or(0, |change| change.hunks.len());
    if hunks_to_choose(request).is_some() {
        text.push_str(&format!(
            "\n\nThe change has {hunks} hunks: apply every hunk, only the hunks you check, or \
             nothing."
        ));
    } else if hunks > MAX_HUNK_FIELDS {
        text.push_str(&format!(
            "\n\nThe change has {hunks} hunks, too many to choose one by one here: approve all \
             of it or none."
        ));
    }
    text
}

/// The approval form of `request` as an `elicitation/create` input request of a task
/// (SEP-2663 `inputRequests`, answered with `tasks/update`): the form
/// [`ElicitationApproval`] sends, in JSON.
pub(crate) fn input_request(request: &ApprovalRequest) -> Result<Value, String> {
    let schema = match hunks_to_choose(request) {
        Some(hunks) => hunks_schema(hunks),
        None => approve_schema(),
    }?;
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message(request),
        requested_schema: schema,
    };
    serde_json::to_value(rmcp::model::InputRequest::Elicitation(ElicitRequest::new(
        params,
    )))
    .map_err(|error| error.to_string())
}

/// The decision in the client's answer (an `ElicitResult`, as JSON) to
/// [`input_request`]'s form for `request`, read as [`ElicitationApproval`] reads an
/// answer: untrusted, only a JSON `true` (or `all`, or checked hunks) approves.
pub(crate) fn decision_from_answer(request: &ApprovalRequest, answer: &Value) -> ApprovalDecision {
    let denied = |reason: &str| ApprovalDecision::Denied {
        reason: reason.to_owned(),
    };
    let Ok(result) = serde_json::from_value::<rmcp::model::ElicitResult>(answer.clone()) else {
        return denied("the client's answer to the approval request is not an elicitation result");
    };
    match result.action {
        ElicitationAction::Accept => match hunks_to_choose(request) {
            Some(hunks) => read_hunks(result.content.as_ref(), hunks),
            None => read_approve(result.content.as_ref()),
        },
        ElicitationAction::Decline => denied("the user declined it"),
        ElicitationAction::Cancel => denied("the user cancelled"),
        _ => denied("the user did not approve it"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolwright_core::SafetyLevel;
    use toolwright_core::file_change::FileChange;

    use super::*;

    /// A change to `f.txt` of `count` one-line hunks (hunk `i` turns line `i` into `I`).
    fn change(count: usize) -> FileChange {
        let hunks: Vec<Value> = (0..count)
            .map(|i| {
                let line = 10 * i + 1;
                json!({
                    "index": i, "header": format!("@@ -{line} +{line} @@"),
                    "old_start": line, "old_lines": 1, "new_start": line, "new_lines": 1,
                    "lines": [{"kind": "removed", "text": format!("line {i}")},
                              {"kind": "added", "text": format!("LINE {i}")}]
                })
            })
            .collect();
        serde_json::from_value(json!({"path": "f.txt", "hunks": hunks, "base_sha256": "00"}))
            .unwrap()
    }

    fn request(change: Option<FileChange>) -> ApprovalRequest {
        serde_json::from_value(json!({
            "tool": "edit_file", "call_id": "call-1", "description": "Edit a file.",
            "safety": SafetyLevel::Dangerous, "arguments": {"path": "f.txt"},
            "preview": change.as_ref().map(FileChange::unified_diff), "change": change,
        }))
        .unwrap()
    }

    fn schema_json(schema: &ElicitationSchema) -> Value {
        serde_json::to_value(schema).unwrap()
    }

    #[test]
    fn one_boolean_unless_the_change_has_several_hunks() {
        assert!(hunks_to_choose(&request(None)).is_none());
        assert!(hunks_to_choose(&request(Some(change(1)))).is_none());
        assert_eq!(hunks_to_choose(&request(Some(change(2)))).unwrap().len(), 2);
        assert_eq!(
            hunks_to_choose(&request(Some(change(MAX_HUNK_FIELDS))))
                .unwrap()
                .len(),
            MAX_HUNK_FIELDS
        );
        let huge = request(Some(change(MAX_HUNK_FIELDS + 1)));
        assert!(hunks_to_choose(&huge).is_none());
        assert!(message(&huge).contains("too many to choose one by one"));
    }

    #[test]
    fn the_form_is_flat_titled_and_in_hunk_order() {
        let change = change(11);
        let schema = schema_json(&hunks_schema(&change.hunks).unwrap());
        let properties = schema["properties"].as_object().unwrap();
        let names: Vec<&str> = properties.keys().map(String::as_str).collect();
        let mut expected = vec!["decision".to_owned()];
        expected.extend((1..=11).map(hunk_field));
        assert_eq!(names, expected);
        assert_eq!(schema["required"], json!(["decision"]));
        assert_eq!(
            properties["decision"]["oneOf"],
            json!([
                {"const": "all", "title": "Apply every hunk"},
                {"const": "some", "title": "Apply the hunks checked below"},
                {"const": "none", "title": "Apply nothing"},
            ])
        );
        assert_eq!(properties["decision"]["type"], "string");
        assert_eq!(
            properties["hunk_2"],
            json!({
                "type": "boolean", "title": "Hunk 2 of 11: @@ -11 +11 @@",
                "description": "-line 1\n+LINE 1", "default": true,
            })
        );
        // Every property is a primitive: no nesting for a client to render.
        for property in properties.values() {
            assert!(["string", "boolean"].contains(&property["type"].as_str().unwrap()));
        }
    }

    #[test]
    fn long_hunks_are_cut_in_the_form() {
        let hunk = |lines: Vec<Value>| -> Hunk {
            serde_json::from_value(json!({
                "index": 0, "header": "@@ -0,0 +1 @@", "old_start": 0, "old_lines": 0,
                "new_start": 1, "new_lines": lines.len(), "lines": lines,
            }))
            .unwrap()
        };
        // Many short lines: the first MAX_HUNK_LINES.
        let short = (0..45).map(|i| json!({"kind": "added", "text": format!("{i}")}));
        let description = hunk_description(&hunk(short.collect()));
        let shown: Vec<&str> = description.lines().collect();
        assert_eq!(shown.len(), MAX_HUNK_LINES + 1);
        assert_eq!(shown[..2], ["+0", "+1"]);
        assert_eq!(shown[MAX_HUNK_LINES], "... 15 more lines");

        // Long lines are cut on a character boundary, and the whole stays under its budget.
        let long =
            (0..45).map(|i| json!({"kind": "removed", "text": format!("{i}{}", "é".repeat(300))}));
        let description = hunk_description(&hunk(long.collect()));
        assert!(
            description.len() <= MAX_HUNK_BYTES + 40,
            "{}",
            description.len()
        );
        let shown: Vec<&str> = description.lines().collect();
        assert_eq!(shown[0].chars().count(), 1 + MAX_LINE_CHARS + 3);
        assert!(shown[0].starts_with("-0éé") && shown[0].ends_with("é..."));
        let more = 45 - (shown.len() - 1);
        assert_eq!(shown.last().unwrap(), &format!("... {more} more lines"));
        assert!(more > 15, "{more}");

        // One line too many says so in the singular; a missing newline is shown.
        let mut lines: Vec<Value> = (0..MAX_HUNK_LINES)
            .map(|i| json!({"kind": "context", "text": format!("{i}")}))
            .collect();
        lines.push(json!({"kind": "added", "text": "last"}));
        assert!(hunk_description(&hunk(lines)).ends_with("\n... 1 more line"));
        let ending = hunk(vec![
            json!({"kind": "added", "text": "end", "no_newline": true}),
        ]);
        assert_eq!(
            hunk_description(&ending),
            "+end\n\\ No newline at end of file"
        );
    }

    #[test]
    fn what_a_model_or_a_file_wrote_is_shown_not_obeyed() {
        let hostile = "x\u{1b}[2K\r\u{202e}\u{200b}\u{9b}\u{e0041}\u{2028}\u{fe0f}\u{2066}";
        let change = FileChange::between(
            "f.txt",
            "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
            &format!("1{hostile}\n2\n3\n4\n5\n6\n7\n8\n9\n10{hostile}\n"),
        );
        let mut asked = request(Some(change));
        asked.arguments = json!({"path": hostile});
        asked.preview = Some(format!("line one {hostile}\nline two"));
        let form = serde_json::to_string(&schema_json(
            &hunks_schema(hunks_to_choose(&asked).unwrap()).unwrap(),
        ))
        .unwrap();
        for text in [message(&asked), form] {
            for raw in [
                '\u{1b}',
                '\r',
                '\u{202e}',
                '\u{200b}',
                '\u{9b}',
                '\u{e0041}',
                '\u{2028}',
                '\u{fe0f}',
                '\u{2066}',
            ] {
                assert!(!text.contains(raw), "{raw:?} in {text:?}");
            }
        }
        let text = message(&asked);
        assert!(
            text.contains(
                "line one x\\u{1b}[2K\\u{d}\\u{202e}\\u{200b}\\u{9b}\\u{e0041}\\u{2028}\\u{fe0f}\\u{2066}"
            ),
            "{text}"
        );
        assert!(text.contains("\nline two"), "{text}");
    }

    #[test]
    fn answers_map_to_decisions() {
        let change = change(3);
        let read = |answer: Value| read_hunks(Some(&answer), &change.hunks);
        assert_eq!(read(json!({"decision": "all"})), ApprovalDecision::Approved);
        // `all` means all, whatever the boxes say.
        assert_eq!(
            read(json!({"decision": "all", "hunk_1": false})),
            ApprovalDecision::Approved
        );
        assert!(matches!(
            read(json!({"decision": "none", "hunk_1": true, "hunk_2": true, "hunk_3": true})),
            ApprovalDecision::Denied { .. }
        ));
        assert_eq!(
            read(json!({"decision": "some", "hunk_1": true, "hunk_2": false, "hunk_3": true})),
            ApprovalDecision::ApprovedHunks { hunks: vec![0, 2] }
        );
        assert_eq!(
            read(json!({"decision": "some", "hunk_1": true, "hunk_2": true, "hunk_3": true})),
            ApprovalDecision::Approved
        );
        let Some(ApprovalDecision::Denied { reason }) = Some(read(
            json!({"decision": "some", "hunk_1": false, "hunk_2": false, "hunk_3": false}),
        )) else {
            panic!("nothing checked must deny");
        };
        assert_eq!(reason, "the user checked none of the 3 hunks");
    }

    #[test]
    fn hostile_answers_never_approve_more_than_said() {
        let change = change(3);
        let read = |answer: Option<Value>| read_hunks(answer.as_ref(), &change.hunks);
        let denies = |answer: Value| {
            let decision = read(Some(answer.clone()));
            assert!(
                matches!(decision, ApprovalDecision::Denied { .. }),
                "{answer} gave {decision:?}"
            );
        };
        // No content, no decision, a decision of the wrong type or value.
        assert!(matches!(read(None), ApprovalDecision::Denied { .. }));
        denies(json!({}));
        denies(json!({"hunk_1": true, "hunk_2": true, "hunk_3": true}));
        denies(json!({"decision": true}));
        denies(json!({"decision": "ALL"}));
        denies(json!({"decision": ["all"]}));
        denies(json!({"approve": true}));
        denies(json!("all"));
        // Hunks given as strings, numbers or nothing are not approved.
        denies(json!({"decision": "some", "hunk_1": "true", "hunk_2": 1, "hunk_3": null}));
        denies(json!({"decision": "some"}));
        assert_eq!(
            read(Some(
                json!({"decision": "some", "hunk_1": "true", "hunk_2": true})
            )),
            ApprovalDecision::ApprovedHunks { hunks: vec![1] }
        );
        // Fields it did not ask for are ignored: no hunk 4, no 0-based names.
        assert_eq!(
            read(Some(json!({
                "decision": "some", "hunk_3": true, "hunk_4": true, "hunk_0": true,
                "hunk_03": true, "extra": {"x": 1}
            }))),
            ApprovalDecision::ApprovedHunks { hunks: vec![2] }
        );
        denies(json!({"decision": "some", "hunk_4": true, "hunk_0": true}));
    }

    #[test]
    fn the_plain_form_approves_only_on_true() {
        assert_eq!(
            read_approve(Some(&json!({"approve": true}))),
            ApprovalDecision::Approved
        );
        for answer in [json!({"approve": "true"}), json!({}), json!({"approve": 1})] {
            assert!(matches!(
                read_approve(Some(&answer)),
                ApprovalDecision::Denied { .. }
            ));
        }
        assert!(matches!(
            read_approve(None),
            ApprovalDecision::Denied { .. }
        ));
    }

    #[test]
    fn the_message_shows_the_diff_and_how_to_choose() {
        let text = message(&request(Some(change(3))));
        assert!(text.starts_with("Allow the dangerous tool `edit_file` to run?"));
        assert!(text.contains("--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-line 0\n+LINE 0\n"));
        assert!(text.ends_with(
            "The change has 3 hunks: apply every hunk, only the hunks you check, or nothing."
        ));
        assert!(!message(&request(Some(change(1)))).contains("hunks"));
    }
}
