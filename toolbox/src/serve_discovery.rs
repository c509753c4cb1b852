//! `serve --discovery search` and `--core`: a search-first tool list, a small core plus
//! `search_tools`, `describe_tool` and `call_tool` (the book, "Deferred tool lists").

use clap::ValueEnum;
use toolwright_formats::discovery::DeferPlan;
use toolwright_runtime::Discovery;

/// How `tools/list` shows the tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum DiscoveryMode {
    /// Every tool the client may call.
    #[default]
    Full,
    /// The core (--core), then search_tools, describe_tool and call_tool; every tool stays
    /// callable under its own policy.
    Search,
}

/// One `--core` choice: a tool's name, `category:NAME` or `priority:N`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CoreChoice {
    Name(String),
    Category(String),
    Priority(i32),
}

/// Parses one `--core` value.
pub(crate) fn parse_core(text: &str) -> Result<CoreChoice, String> {
    let nonempty = |value: &str, what: &str| {
        if value.is_empty() {
            Err(format!("`{text}` names no {what}"))
        } else {
            Ok(value.to_owned())
        }
    };
    if let Some(category) = text.strip_prefix("category:") {
        return nonempty(category, "category").map(CoreChoice::Category);
    }
    if let Some(priority) = text.strip_prefix("priority:") {
        return priority
            .parse()
            .map(CoreChoice::Priority)
            .map_err(|_| format!("`{text}`: the priority is a whole number, e.g. `priority:100`"));
    }
    toolwright_names::check_tool_name(text).map_err(|_| {
        format!(
            "`{text}` is not a tool name (lowercase letters, digits and `_`, starting with a \
             letter); or write `category:NAME` or `priority:N`"
        )
    })?;
    Ok(CoreChoice::Name(text.to_owned()))
}

/// The executor's discovery for `mode` and the `--core` choices, or why they do not fit
/// together.
pub(crate) fn discovery(mode: DiscoveryMode, core: &[CoreChoice]) -> Result<Discovery, String> {
    match mode {
        DiscoveryMode::Full if core.is_empty() => Ok(Discovery::Full),
        DiscoveryMode::Full => Err(
            "--core chooses the core of a search-first tool list; add --discovery search (or \
             `discovery = \"search\"` in [serve])"
                .to_owned(),
        ),
        DiscoveryMode::Search => {
            let mut plan = DeferPlan::new();
            let mut priority = None;
            for choice in core {
                plan = match choice {
                    CoreChoice::Name(name) => plan.core_names([name.as_str()]),
                    CoreChoice::Category(category) => plan.core_categories([category.as_str()]),
                    CoreChoice::Priority(at_least) => {
                        if priority.is_some_and(|earlier| earlier != *at_least) {
                            return Err("--core priority:N may be given once".to_owned());
                        }
                        priority = Some(*at_least);
                        plan.core_priority_at_least(*at_least)
                    }
                };
            }
            Ok(Discovery::search_first(plan))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_choices_parse_or_say_what_is_wrong() {
        assert_eq!(
            parse_core("read_file"),
            Ok(CoreChoice::Name("read_file".into()))
        );
        assert_eq!(
            parse_core("category:filesystem"),
            Ok(CoreChoice::Category("filesystem".into()))
        );
        assert_eq!(parse_core("priority:-5"), Ok(CoreChoice::Priority(-5)));
        assert!(
            parse_core("priority:high")
                .unwrap_err()
                .contains("whole number")
        );
        assert!(parse_core("category:").unwrap_err().contains("no category"));
        assert!(
            parse_core("Read File")
                .unwrap_err()
                .contains("not a tool name")
        );
    }

    #[test]
    fn core_needs_search_first() {
        let core = [CoreChoice::Name("read_file".into())];
        assert!(
            discovery(DiscoveryMode::Full, &core)
                .unwrap_err()
                .contains("--discovery search")
        );
        assert!(
            !discovery(DiscoveryMode::Full, &[])
                .unwrap()
                .is_search_first()
        );
        let search = discovery(DiscoveryMode::Search, &core).unwrap();
        let plan = search.plan().unwrap();
        let read = toolwright_core::Tool::builder("read_file")
            .description("Read.")
            .handler(|_| async { "" })
            .build()
            .unwrap();
        assert!(plan.is_core(&read));
        let twice = [CoreChoice::Priority(1), CoreChoice::Priority(2)];
        assert!(discovery(DiscoveryMode::Search, &twice).is_err());
    }
}
