//! [`ToolFilter`]: which tools a listing, a search or a catalog shows.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use toolwright_core::{Prompt, Resource, SafetyLevel, Tool};

/// Which tools to list. Every filter that is set must hold (AND); within `categories`,
/// `tags` and `names`, any one match is enough. Disabled tools are left out unless
/// `include_disabled(true)`.
///
/// ```
/// use toolwright_core::SafetyLevel;
/// use toolwright_runtime::ToolFilter;
///
/// let filter = ToolFilter::new()
///     .max_safety(SafetyLevel::Cautious)
///     .categories(["filesystem", "math"])
///     .tags(["files"])
///     .include_disabled(false);
/// assert_eq!(filter.safety_ceiling(), Some(SafetyLevel::Cautious));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_safety: Option<SafetyLevel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    categories: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    names: Option<Vec<String>>,
    #[serde(default)]
    include_disabled: bool,
}

impl ToolFilter {
    /// A filter that lets every enabled tool through.
    ///
    /// ```
    /// # use toolwright_runtime::ToolFilter;
    /// assert_eq!(ToolFilter::new(), ToolFilter::default());
    /// ```
    pub fn new() -> Self {
        ToolFilter::default()
    }

    /// Only tools at or below `level` (`Cautious`: safe and cautious tools).
    ///
    /// ```
    /// # use toolwright_core::SafetyLevel;
    /// # use toolwright_runtime::ToolFilter;
    /// let filter = ToolFilter::new().max_safety(SafetyLevel::Safe);
    /// # let _ = filter;
    /// ```
    pub fn max_safety(mut self, level: SafetyLevel) -> Self {
        self.max_safety = Some(level);
        self
    }

    /// Only tools in at least one of `categories`.
    ///
    /// ```
    /// # use toolwright_runtime::ToolFilter;
    /// let filter = ToolFilter::new().categories(["filesystem", "math"]);
    /// # let _ = filter;
    /// ```
    pub fn categories<I, S>(mut self, categories: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.categories = Some(categories.into_iter().map(Into::into).collect());
        self
    }

    /// Only tools with at least one of `tags`.
    ///
    /// ```
    /// # use toolwright_runtime::ToolFilter;
    /// let filter = ToolFilter::new().tags(["files"]);
    /// # let _ = filter;
    /// ```
    pub fn tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags = Some(tags.into_iter().map(Into::into).collect());
        self
    }

    /// Only the tools named in `names` (for exporting exactly the tools offered in one request).
    ///
    /// ```
    /// # use toolwright_runtime::ToolFilter;
    /// let filter = ToolFilter::new().names(["read_file", "write_file"]);
    /// # let _ = filter;
    /// ```
    pub fn names<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.names = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Whether disabled tools are listed too.
    ///
    /// ```
    /// # use toolwright_runtime::ToolFilter;
    /// let everything = ToolFilter::new().include_disabled(true);
    /// # let _ = everything;
    /// ```
    pub fn include_disabled(mut self, include: bool) -> Self {
        self.include_disabled = include;
        self
    }

    /// The safety ceiling, if one is set.
    ///
    /// ```
    /// use toolwright_core::SafetyLevel;
    /// use toolwright_runtime::ToolFilter;
    /// assert_eq!(ToolFilter::new().max_safety(SafetyLevel::Safe).safety_ceiling(), Some(SafetyLevel::Safe));
    /// ```
    pub fn safety_ceiling(&self) -> Option<SafetyLevel> {
        self.max_safety
    }

    /// Whether a tool in state `enabled` passes the filter.
    ///
    /// ```
    /// use toolwright_core::{tool, SafetyLevel};
    /// use toolwright_runtime::{register_all_tools, ToolFilter};
    ///
    /// /// Delete everything.
    /// #[tool(safety = "dangerous", categories(filesystem))]
    /// fn wipe() {}
    ///
    /// let wipe = register_all_tools().unwrap().get("wipe").unwrap();
    /// assert!(ToolFilter::new().categories(["filesystem"]).matches(&wipe, true));
    /// assert!(!ToolFilter::new().max_safety(SafetyLevel::Cautious).matches(&wipe, true));
    /// assert!(!ToolFilter::new().matches(&wipe, false));
    /// ```
    pub fn matches(&self, tool: &Tool, enabled: bool) -> bool {
        fn any_of(wanted: &Option<Vec<String>>, have: &[Cow<'static, str>]) -> bool {
            wanted
                .as_ref()
                .is_none_or(|wanted| wanted.iter().any(|w| have.iter().any(|h| h == w)))
        }
        (enabled || self.include_disabled)
            && self.max_safety.is_none_or(|max| tool.safety() <= max)
            && any_of(&self.categories, tool.categories())
            && any_of(&self.tags, tool.tags())
            && self
                .names
                .as_ref()
                .is_none_or(|names| names.iter().any(|n| n == tool.name()))
    }

    /// Whether a prompt in state `enabled` passes: the safety ceiling, `tags` and `names`
    /// apply (prompts have no categories, so `categories` does not).
    ///
    /// ```
    /// use toolwright_core::{Prompt, SafetyLevel};
    /// use toolwright_runtime::ToolFilter;
    ///
    /// let p = Prompt::builder("wipe_all").safety(SafetyLevel::Dangerous)
    ///     .handler(|_, _| async { Ok("sure?") }).build().unwrap();
    /// assert!(ToolFilter::new().categories(["filesystem"]).matches_prompt(&p, true));
    /// assert!(!ToolFilter::new().max_safety(SafetyLevel::Safe).matches_prompt(&p, true));
    /// ```
    pub fn matches_prompt(&self, prompt: &Prompt, enabled: bool) -> bool {
        self.matches_primitive(prompt.name(), prompt.safety(), prompt.tags(), enabled)
    }

    /// Whether a resource (or template) in state `enabled` passes: the safety ceiling, `tags`
    /// and `names` (the resource's name) apply; `categories` does not.
    ///
    /// ```
    /// use toolwright_core::Resource;
    /// use toolwright_runtime::ToolFilter;
    ///
    /// let r = Resource::builder("readme", "docs://readme").handler(|_, _| async { Ok("hi") }).build().unwrap();
    /// assert!(ToolFilter::new().matches_resource(&r, true));
    /// assert!(!ToolFilter::new().names(["other"]).matches_resource(&r, true));
    /// ```
    pub fn matches_resource(&self, resource: &Resource, enabled: bool) -> bool {
        self.matches_primitive(resource.name(), resource.safety(), resource.tags(), enabled)
    }

    fn matches_primitive(
        &self,
        name: &str,
        safety: SafetyLevel,
        tags: &[String],
        enabled: bool,
    ) -> bool {
        (enabled || self.include_disabled)
            && self.max_safety.is_none_or(|max| safety <= max)
            && self
                .tags
                .as_ref()
                .is_none_or(|wanted| wanted.iter().any(|w| tags.contains(w)))
            && self
                .names
                .as_ref()
                .is_none_or(|names| names.iter().any(|n| n == name))
    }
}
