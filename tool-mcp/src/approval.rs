//! Asking the client's user, through MCP elicitation, whether a dangerous call may run.

use rmcp::RoleServer;
use rmcp::model::{
    ClientResult, ElicitRequest, ElicitRequestParams, ElicitationAction, ElicitationSchema,
    ServerRequest,
};
use rmcp::service::Peer;
use serde_json::Value;
use tool_runtime::{ApprovalDecision, ApprovalHandler, ApprovalRequest, BoxFuture};

/// Approves by asking the user of the client that made the call.
pub(crate) struct ElicitationApproval {
    pub(crate) peer: Peer<RoleServer>,
}

impl ApprovalHandler for ElicitationApproval {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<ApprovalDecision> {
        let peer = self.peer.clone();
        Box::pin(async move {
            let denied = |reason: String| ApprovalDecision::Denied { reason };
            let schema = match ElicitationSchema::builder()
                .required_bool_property("approve", |property| {
                    property
                        .title("Approve")
                        .description("Let the tool run with these arguments")
                })
                .build()
            {
                Ok(schema) => schema,
                Err(error) => return denied(format!("could not ask the user: {error}")),
            };
            let params = ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: message(&request),
                requested_schema: schema,
            };
            let response = peer
                .send_request(ServerRequest::ElicitRequest(ElicitRequest::new(params)))
                .await;
            match response {
                Ok(ClientResult::ElicitResult(result)) => match result.action {
                    ElicitationAction::Accept => {
                        let approved = result
                            .content
                            .as_ref()
                            .and_then(|content| content.get("approve"))
                            .and_then(Value::as_bool)
                            .unwrap_or(false);
                        if approved {
                            ApprovalDecision::Approved
                        } else {
                            denied("the user did not approve it".to_owned())
                        }
                    }
                    ElicitationAction::Decline => denied("the user declined it".to_owned()),
                    ElicitationAction::Cancel => denied("the user cancelled".to_owned()),
                    _ => denied("the user did not approve it".to_owned()),
                },
                Ok(_) => denied(
                    "the client answered the approval request with something else".to_owned(),
                ),
                Err(error) => denied(format!("could not ask the user: {error}")),
            }
        })
    }
}

/// What the user is shown: the tool, its arguments (secrets redacted) and its preview.
fn message(request: &ApprovalRequest) -> String {
    let arguments = serde_json::to_string_pretty(&request.arguments).unwrap_or_default();
    let mut text = format!(
        "Allow the {} tool `{}` to run?\n\n{}\n\nArguments:\n{arguments}",
        request.safety, request.tool, request.description
    );
    if let Some(preview) = &request.preview {
        text.push_str("\n\nWhat it will do:\n");
        text.push_str(preview);
    }
    text
}
