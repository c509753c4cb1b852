//! What a tool is, apart from its code and schemas: its name, description, version,
//! safety, labels, priority, timeout, call limit and task support ([`ToolMeta`],
//! [`TaskSupport`]), and where it was defined ([`ToolSource`]).
//!
//! One value serves every way a tool is made: the static a `#[tool]` expands to holds it
//! with borrowed strings (collecting a tool allocates nothing), [`ToolBuilder`] fills it
//! with owned ones, and a [`Tool`] keeps it as given.
//!
//! [`ToolBuilder`]: crate::ToolBuilder
//! [`Tool`]: crate::Tool

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::safety::SafetyLevel;

/// A tool's name, description, version, safety level, categories, tags, priority, and the
/// timeout, call limit, task support and inline running it declares.
///
/// ```
/// use std::borrow::Cow;
/// use toolwright_core::{SafetyLevel, ToolMeta};
///
/// let meta = ToolMeta::new("lookup_city", "Look up a city.")
///     .with_safety(SafetyLevel::Cautious);
/// assert_eq!(meta.name, "lookup_city");
/// assert_eq!(meta.priority, toolwright_core::priority::DEFAULT);
/// assert!(meta.categories.is_empty());
/// assert_eq!((meta.timeout, meta.max_calls), (None, None));
/// assert_eq!(meta.task_support, toolwright_core::TaskSupport::Forbidden);
/// assert!(!meta.inline);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolMeta {
    /// The snake_case name the model calls the tool by.
    pub name: Cow<'static, str>,
    /// What the tool does and when to use it, for the model.
    pub description: Cow<'static, str>,
    /// The tool's version, if it has one.
    pub version: Option<Cow<'static, str>>,
    /// How much the tool may change the world.
    pub safety: SafetyLevel,
    /// Categories for filtering, e.g. `filesystem`.
    pub categories: Cow<'static, [Cow<'static, str>]>,
    /// Free-form tags for filtering and search.
    pub tags: Cow<'static, [Cow<'static, str>]>,
    /// The default priority in listings, higher first (see [`priority`](crate::priority)).
    pub priority: i32,
    /// How long one call may run, when the tool says (`None`: the executor's timeout).
    pub timeout: Option<Duration>,
    /// The most calls allowed, when the tool says (`None`: no limit of its own).
    pub max_calls: Option<u32>,
    /// Whether a front end may run a call of the tool as a task the client polls (an MCP
    /// server: the `io.modelcontextprotocol/tasks` extension). Default: forbidden.
    pub task_support: TaskSupport,
    /// Whether a sync tool returns quickly and never blocks, so an executor may run it on
    /// the async runtime's worker instead of a thread of its own (`#[tool(inline)]`,
    /// [`ToolBuilder::inline`](crate::ToolBuilder::inline)). Default: `false`.
    pub inline: bool,
    /// Whether a task tool asks its first question in the call's own answer and becomes a
    /// task on the call that answers it (`#[tool(task = "...", ask_first)]`,
    /// [`ToolBuilder::ask_first`](crate::ToolBuilder::ask_first); MCP 2026-07-28 clients
    /// that declared the tasks extension). Default: `false` (a task from the first call).
    pub ask_first: bool,
}

impl ToolMeta {
    /// A safe tool without version, labels or priority of its own.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
    ) -> Self {
        ToolMeta {
            name: name.into(),
            description: description.into(),
            version: None,
            safety: SafetyLevel::Safe,
            categories: Cow::Borrowed(&[]),
            tags: Cow::Borrowed(&[]),
            priority: crate::priority::DEFAULT,
            timeout: None,
            max_calls: None,
            task_support: TaskSupport::Forbidden,
            inline: false,
            ask_first: false,
        }
    }

    /// The same metadata with `safety` as the safety level.
    ///
    /// ```
    /// # use toolwright_core::{SafetyLevel, ToolMeta};
    /// assert_eq!(ToolMeta::new("a", "b").with_safety(SafetyLevel::Dangerous).safety, SafetyLevel::Dangerous);
    /// ```
    #[must_use]
    pub fn with_safety(mut self, safety: SafetyLevel) -> Self {
        self.safety = safety;
        self
    }
}

/// Whether a call of a tool may run as a task: answered at once with a handle the client
/// polls for the result, while the tool runs on (`#[tool(task = "optional")]`,
/// [`ToolBuilder::task_support`](crate::ToolBuilder::task_support)).
///
/// What a front end does with it is its own: an MCP server runs a call of an `Optional` or
/// `Required` tool as a task when the client declared the tasks extension, and refuses a
/// `Required` tool's call from a client that did not (its result would not arrive before
/// the client gave up on it); `Forbidden` tools always answer in the call itself.
///
/// ```
/// use toolwright_core::TaskSupport;
///
/// assert_eq!(TaskSupport::default(), TaskSupport::Forbidden);
/// assert_eq!("required".parse::<TaskSupport>().unwrap(), TaskSupport::Required);
/// assert_eq!(TaskSupport::Optional.to_string(), "optional");
/// assert_eq!(serde_json::to_string(&TaskSupport::Required).unwrap(), "\"required\"");
/// assert!(TaskSupport::Optional.allows_task() && !TaskSupport::Forbidden.allows_task());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// Never a task: the result comes in the call's answer (the default).
    #[default]
    Forbidden,
    /// A task when the client supports tasks; otherwise the result comes in the call's answer.
    Optional,
    /// Only ever a task: a client that does not support tasks cannot call the tool.
    Required,
}

impl TaskSupport {
    /// Every value.
    ///
    /// ```
    /// assert_eq!(toolwright_core::TaskSupport::ALL.len(), 3);
    /// ```
    pub const ALL: [TaskSupport; 3] = [
        TaskSupport::Forbidden,
        TaskSupport::Optional,
        TaskSupport::Required,
    ];

    /// The lowercase name, as written in `#[tool(task = "...")]` and in JSON.
    ///
    /// ```
    /// assert_eq!(toolwright_core::TaskSupport::Required.as_str(), "required");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }

    /// Whether a call may run as a task (`Optional` or `Required`).
    ///
    /// ```
    /// assert!(toolwright_core::TaskSupport::Required.allows_task());
    /// ```
    pub const fn allows_task(self) -> bool {
        !matches!(self, TaskSupport::Forbidden)
    }
}

impl fmt::Display for TaskSupport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a [`TaskSupport`] from a string that names none.
///
/// ```
/// let err = "sometimes".parse::<toolwright_core::TaskSupport>().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "unknown task support `sometimes`: expected one of `forbidden`, `optional`, `required`"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown task support `{given}`: expected one of `forbidden`, `optional`, `required`")]
pub struct ParseTaskSupportError {
    given: String,
}

impl FromStr for TaskSupport {
    type Err = ParseTaskSupportError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TaskSupport::ALL
            .into_iter()
            .find(|support| support.as_str() == s)
            .ok_or_else(|| ParseTaskSupportError {
                given: s.to_owned(),
            })
    }
}

/// Where a tool was defined: the crate, module, file and line of its `#[tool]` function,
/// or of the code that built it at run time.
///
/// ```
/// use toolwright_core::ToolSource;
///
/// let source = ToolSource::new("my-crate", "my_crate::tools", "src/tools.rs", 12);
/// assert_eq!(source.to_string(), "my-crate (my_crate::tools) at src/tools.rs:12");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ToolSource {
    /// The Cargo package that defined the tool.
    #[serde(rename = "crate")]
    pub crate_name: Cow<'static, str>,
    /// The module path of the definition.
    pub module_path: Cow<'static, str>,
    /// The source file of the definition.
    pub file: Cow<'static, str>,
    /// The line of the definition.
    pub line: u32,
}

impl ToolSource {
    /// A source location.
    pub const fn new(
        crate_name: &'static str,
        module_path: &'static str,
        file: &'static str,
        line: u32,
    ) -> Self {
        ToolSource {
            crate_name: Cow::Borrowed(crate_name),
            module_path: Cow::Borrowed(module_path),
            file: Cow::Borrowed(file),
            line,
        }
    }
}

impl fmt::Display for ToolSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}) at {}:{}",
            self.crate_name, self.module_path, self.file, self.line
        )
    }
}
