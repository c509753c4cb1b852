//! Checks of a tool's output before its result goes back: its size, and its structured
//! output against the tool's output schema.

use std::sync::OnceLock;

use super::handle::Executor;
use super::outcome::Stopped;
use toolwright_core::__runtime::ValueChecker;
use toolwright_core::Tool;
use toolwright_core::ToolOutput;

/// A tool's output schema made ready for checking, kept with the tool (made on its first
/// checked call); `None` when the schema cannot check values.
#[derive(Default)]
struct OutputChecker(OnceLock<Option<ValueChecker>>);

/// How many of the schema's complaints a failure lists.
const MAX_PROBLEMS: usize = 5;

impl Executor {
    /// The output, or the failure of a call whose output is too large or breaks the tool's
    /// output schema.
    pub(super) fn check_output(
        &self,
        tool: &Tool,
        output: ToolOutput,
    ) -> Result<ToolOutput, Stopped> {
        let name = tool.name();
        let size = output.byte_len();
        let limit = self.inner.max_output_bytes;
        if size > limit {
            return Err(Stopped::failed(format!(
                "tool `{name}` returned {} of output, above this executor's limit of {}; it \
                 was not sent on. Ask for less (a smaller image, fewer results), or the \
                 application can raise `ExecutorBuilder::max_output_bytes`",
                format_bytes(size),
                format_bytes(limit)
            )));
        }
        if !self.inner.validate_output {
            return Ok(output);
        }
        let (Some(schema), Some(structured)) = (tool.output_schema(), &output.structured) else {
            return Ok(output);
        };
        let cache = tool.cache::<OutputChecker>();
        let checker = cache.0.get_or_init(|| match ValueChecker::new(schema) {
            Ok(checker) => Some(checker),
            Err(error) => {
                tracing::warn!(
                    tool = name,
                    "the output schema cannot be used to check output, so it is not checked: {error}"
                );
                None
            }
        });
        let Some(checker) = checker else {
            return Ok(output);
        };
        let problems = checker.problems(structured);
        if problems.is_empty() {
            return Ok(output);
        }
        let mut listed: Vec<String> = problems
            .iter()
            .take(MAX_PROBLEMS)
            .map(|(pointer, message)| {
                let place = if pointer.is_empty() {
                    "at the top level".to_owned()
                } else {
                    format!("at `{pointer}`")
                };
                format!("{place}: {message}")
            })
            .collect();
        if problems.len() > MAX_PROBLEMS {
            listed.push(format!("and {} more", problems.len() - MAX_PROBLEMS));
        }
        tracing::error!(tool = name, problems = ?listed, "structured output breaks the output schema");
        Err(Stopped::failed(format!(
            "tool `{name}` returned structured output that does not match its output schema \
             ({}); this is a bug in the tool, not in the arguments",
            listed.join("; ")
        )))
    }
}

/// A size for people: bytes, KiB or MiB.
fn format_bytes(bytes: usize) -> String {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * 1024;
    if bytes >= MIB {
        format!("{:.1} MiB", bytes as f64 / MIB as f64)
    } else if bytes >= KIB {
        format!("{:.1} KiB", bytes as f64 / KIB as f64)
    } else {
        format!("{bytes} bytes")
    }
}
