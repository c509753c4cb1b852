//! A tool's registration and the options it is registered with.

use jiff::Timestamp;
use toolwright_core::Tool;

/// A tool in a registry, with the registry's state for it.
///
/// ```
/// use toolwright_core::tool;
/// use toolwright_runtime::{register_all_tools, ToolRegistry};
///
/// /// Say hello.
/// #[tool]
/// fn hello() -> &'static str { "hello" }
///
/// let tool = register_all_tools().unwrap().get("hello").unwrap();
/// let registry = ToolRegistry::new();
/// let registration = registry.register(tool).unwrap();
/// assert!(registration.enabled);
/// assert_eq!(registration.priority, 10);
/// ```
#[derive(Debug, Clone)]
pub struct Registration {
    /// The registered tool.
    pub tool: Tool,
    /// Whether models may see and call it.
    pub enabled: bool,
    /// Its priority in listings (higher first).
    pub priority: i32,
    /// When the registry registered it (from the registry's clock).
    pub created_at: Timestamp,
}

/// How [`ToolRegistry::register_with`](super::ToolRegistry::register_with) (and the other
/// `_with` methods) registers a tool.
///
/// The default registers it enabled, at the tool's own priority.
///
/// ```
/// use toolwright_runtime::RegisterOptions;
///
/// let options = RegisterOptions::new().enabled(false).priority(50);
/// assert!(!options.is_enabled());
/// assert_eq!(options.priority_override(), Some(50));
/// assert!(RegisterOptions::default().is_enabled());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegisterOptions {
    pub(super) enabled: bool,
    pub(super) priority: Option<i32>,
    pub(super) replace: bool,
}

impl Default for RegisterOptions {
    fn default() -> Self {
        RegisterOptions {
            enabled: true,
            priority: None,
            replace: false,
        }
    }
}

impl RegisterOptions {
    /// Enabled, at the tool's own priority.
    ///
    /// ```
    /// # use toolwright_runtime::RegisterOptions;
    /// assert_eq!(RegisterOptions::new(), RegisterOptions::default());
    /// ```
    pub fn new() -> Self {
        RegisterOptions::default()
    }

    /// Whether the new registration is enabled. Registered disabled, a tool is never visible to
    /// a model until [`ToolRegistry::set_enabled`](super::ToolRegistry::set_enabled) enables
    /// it: the registry changes once.
    ///
    /// ```
    /// # use toolwright_runtime::RegisterOptions;
    /// assert!(!RegisterOptions::new().enabled(false).is_enabled());
    /// ```
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// The new registration's priority, instead of the tool's own.
    ///
    /// ```
    /// # use toolwright_runtime::RegisterOptions;
    /// assert_eq!(RegisterOptions::new().priority(-5).priority_override(), Some(-5));
    /// ```
    pub fn priority(mut self, priority: i32) -> Self {
        self.priority = Some(priority);
        self
    }

    /// Whether the new registration replaces a tool already registered under the same
    /// name, whatever its version (logged at `warn` when the two differ). Without it, a
    /// different tool under a taken name and version is refused
    /// ([`RegistryError::VersionConflict`](super::RegistryError::VersionConflict)).
    ///
    /// ```
    /// use toolwright_runtime::{RegisterOptions, ToolRegistry};
    /// use toolwright_core::Tool;
    ///
    /// let registry = ToolRegistry::new();
    /// let v1 = Tool::builder("greet").description("Say hello.").handler(|_| async { "hello" }).build().unwrap();
    /// let v2 = Tool::builder("greet").description("Say hi.").handler(|_| async { "hi" }).build().unwrap();
    /// registry.register(v1).unwrap();
    /// assert!(registry.register(v2.clone()).is_err());
    /// registry.register_with(v2, RegisterOptions::new().replace(true)).unwrap();
    /// assert_eq!(registry.get("greet").unwrap().description(), "Say hi.");
    /// ```
    pub fn replace(mut self, replace: bool) -> Self {
        self.replace = replace;
        self
    }

    /// Whether these options register enabled.
    ///
    /// ```
    /// # use toolwright_runtime::RegisterOptions;
    /// assert!(RegisterOptions::new().is_enabled());
    /// ```
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// The priority these options set, if not the tool's own.
    ///
    /// ```
    /// # use toolwright_runtime::RegisterOptions;
    /// assert_eq!(RegisterOptions::new().priority_override(), None);
    /// ```
    pub fn priority_override(&self) -> Option<i32> {
        self.priority
    }
}
