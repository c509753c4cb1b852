//! A temporary workspace and an executor that approves everything (the policy is tested in
//! toolwright-runtime; here we test the tools).

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use tempfile::TempDir;
use toolwright_core::{ToolCall, ToolResult};
use toolwright_runtime::{ApprovalDecision, ApprovalRequest, Executor};
use toolwright_std::Workspace;

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
        let executor = Executor::builder(Arc::new(toolwright_std::registry().unwrap()))
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

/// The parsed JSON content of a successful `run_command` call.
pub async fn run(h: &Harness, arguments: Value) -> Value {
    serde_json::from_str(&h.ok("run_command", arguments).await).unwrap()
}

/// Whether `program` can be run here (tests that need it are skipped without it).
pub fn installed(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

/// The processes whose command line holds `argument` as one of its arguments.
pub fn processes_with_argument(argument: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if cmdline
            .split(|byte| *byte == 0)
            .any(|part| part == argument.as_bytes())
        {
            found.push(pid);
        }
    }
    found
}

/// A directory outside the workspace holding a secret, to check that commands neither read
/// it nor write next to it.
pub struct Outside {
    pub dir: TempDir,
    pub secret: String,
}

impl Outside {
    pub fn new() -> Outside {
        let dir = tempfile::tempdir().unwrap();
        let secret = format!("top-secret-{}-{}", std::process::id(), dir.path().display());
        std::fs::write(dir.path().join("secret"), &secret).unwrap();
        Outside { dir, secret }
    }

    /// The directory's path, as text for scripts.
    pub fn path(&self) -> String {
        self.dir.path().display().to_string()
    }

    /// Panics if anything was written there, or if `output` (a `run_command` result)
    /// shows the secret.
    pub fn assert_untouched(&self, output: &Value, attempt: &str) {
        let names: Vec<String> = std::fs::read_dir(self.dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            ["secret"],
            "{attempt}: something was written outside: {output}"
        );
        assert_eq!(
            std::fs::read_to_string(self.dir.path().join("secret")).unwrap(),
            self.secret
        );
        for stream in ["stdout", "stderr"] {
            let text = output[stream].as_str().unwrap_or_default();
            assert!(
                !text.contains(&self.secret),
                "{attempt}: the secret leaked into {stream}: {output}"
            );
        }
    }
}
