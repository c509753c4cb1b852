//! A temporary workspace and an executor that approves everything (the policy is tested in
//! tool-runtime; here we test the tools).

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use tempfile::TempDir;
use tool_runtime::{ApprovalDecision, ApprovalRequest, Executor, ToolCall, ToolResult};
use tools_std::Workspace;

pub struct Harness {
    pub dir: TempDir,
    pub executor: Executor,
}

impl Harness {
    pub fn new() -> Harness {
        Harness::with(|ws| ws)
    }

    pub fn with(configure: impl FnOnce(Workspace) -> Workspace) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let workspace = configure(Workspace::new(dir.path()).unwrap());
        let executor = Executor::builder(Arc::new(tools_std::registry().unwrap()))
            .state(workspace)
            .approval(|_: ApprovalRequest| async { ApprovalDecision::Approved })
            .build();
        Harness { dir, executor }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, path: &str, content: &str) {
        let full = self.root().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }

    pub fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.root().join(path)).unwrap()
    }

    pub async fn call(&self, name: &str, arguments: Value) -> ToolResult {
        self.executor
            .execute(ToolCall::new("test", name, arguments))
            .await
    }

    /// The content of a successful call, or a panic with its error.
    pub async fn ok(&self, name: &str, arguments: Value) -> String {
        let result = self.call(name, arguments.clone()).await;
        assert!(
            result.success,
            "{name}({arguments}) failed: {:?}",
            result.error
        );
        result.content
    }

    /// The error of a failed call, or a panic with its content.
    pub async fn err(&self, name: &str, arguments: Value) -> String {
        let result = self.call(name, arguments.clone()).await;
        assert!(
            !result.success,
            "{name}({arguments}) should fail, got {:?}",
            result.content
        );
        result.error.unwrap()
    }
}
