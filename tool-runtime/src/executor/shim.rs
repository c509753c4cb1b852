//! TEMPORARY: stands in for the tool-rules branch's `Tool` methods until it is merged.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::context::ToolContext;
use crate::error::ToolError;
use crate::tool::Tool;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Approval {
    Required,
    NotRequired,
}

pub(crate) trait ToolRules {
    fn has_approval_rule(&self) -> bool;
    fn approval(
        &self,
        ctx: &ToolContext,
        arguments: &Map<String, Value>,
    ) -> Option<Result<Approval, ToolError>>;
    fn max_calls(&self) -> Option<u32>;
    fn timeout(&self) -> Option<Duration>;
}

impl ToolRules for Tool {
    fn has_approval_rule(&self) -> bool {
        false
    }
    fn approval(
        &self,
        _ctx: &ToolContext,
        _arguments: &Map<String, Value>,
    ) -> Option<Result<Approval, ToolError>> {
        None
    }
    fn max_calls(&self) -> Option<u32> {
        None
    }
    fn timeout(&self) -> Option<Duration> {
        None
    }
}
