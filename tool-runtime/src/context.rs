//! What a running tool can know about its call: the call id, typed state from the
//! application, and whether the call was cancelled.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::error::ToolError;
use crate::safety::SafetyLevel;

/// Values an application shares with its tools, one per type.
///
/// ```
/// use tool_runtime::ToolState;
///
/// struct Workspace(&'static str);
/// let mut state = ToolState::new();
/// state.insert(Workspace("/srv/project"));
/// assert_eq!(state.get::<Workspace>().unwrap().0, "/srv/project");
/// assert!(state.get::<String>().is_none());
/// ```
#[derive(Clone, Default)]
pub struct ToolState {
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
    names: Vec<&'static str>,
}

impl ToolState {
    /// An empty state.
    pub fn new() -> Self {
        ToolState::default()
    }

    /// Stores `value`, replacing any earlier value of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        if self
            .values
            .insert(TypeId::of::<T>(), Arc::new(value))
            .is_none()
        {
            self.names.push(type_name::<T>());
        }
    }

    /// Stores a value the application already shares, so the tools and the application
    /// hold the same instance (a tool set's `Self`, a connection pool). Read it back with
    /// [`get`](Self::get) (by reference) or [`get_shared`](Self::get_shared).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tool_runtime::ToolState;
    ///
    /// struct Pool;
    /// let pool = Arc::new(Pool);
    /// let mut state = ToolState::new();
    /// state.insert_shared(Arc::clone(&pool));
    /// assert!(Arc::ptr_eq(&state.get_shared::<Pool>().unwrap(), &pool));
    /// ```
    pub fn insert_shared<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        if self.values.insert(TypeId::of::<T>(), value).is_none() {
            self.names.push(type_name::<T>());
        }
    }

    /// The value of type `T`, if one was stored.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.values
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
    }

    /// The value of type `T` as a shared handle, if one was stored (by
    /// [`insert`](Self::insert) or [`insert_shared`](Self::insert_shared)).
    pub fn get_shared<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.values
            .get(&TypeId::of::<T>())
            .and_then(|value| Arc::clone(value).downcast::<T>().ok())
    }

    /// Whether a value of the type `state` names is stored.
    ///
    /// ```
    /// use tool_runtime::{StateType, ToolState};
    ///
    /// struct Pool;
    /// let mut state = ToolState::new();
    /// assert!(!state.contains(StateType::of::<Pool>()));
    /// state.insert(Pool);
    /// assert!(state.contains(StateType::of::<Pool>()));
    /// ```
    pub fn contains(&self, state: StateType) -> bool {
        self.values.contains_key(&state.id())
    }

    /// How many values are stored.
    ///
    /// ```
    /// # use tool_runtime::ToolState;
    /// assert_eq!(ToolState::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no value is stored.
    ///
    /// ```
    /// # use tool_runtime::ToolState;
    /// assert!(ToolState::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// A type of state a tool needs from the executor: a tool set's `Self`, or a `#[state]`
/// parameter's type. [`Tool::required_state`](crate::Tool::required_state) lists them, and
/// [`ExecutorBuilder::try_build`](crate::executor::ExecutorBuilder::try_build) checks that
/// each is provided.
///
/// ```
/// use tool_runtime::StateType;
///
/// struct Pool;
/// let pool = StateType::of::<Pool>();
/// assert!(pool.type_name().ends_with("Pool"));
/// assert_eq!(pool, StateType::of::<Pool>());
/// assert_ne!(pool, StateType::of::<String>());
/// ```
#[derive(Clone, Copy)]
pub struct StateType {
    // Functions, not values: `TypeId::of` and `type_name` are not `const` on stable, and
    // the `#[tool]` statics name them in constant context.
    id: fn() -> TypeId,
    name: fn() -> &'static str,
}

impl StateType {
    /// The state type `T`.
    pub const fn of<T: 'static>() -> StateType {
        StateType {
            id: TypeId::of::<T>,
            name: type_name::<T>,
        }
    }

    /// The type's id (named `id`, not `type_id`, which every type has from `Any`).
    pub fn id(self) -> TypeId {
        (self.id)()
    }

    /// The type's name, as Rust writes it (`my_crate::Pool`).
    pub fn type_name(self) -> &'static str {
        (self.name)()
    }
}

impl PartialEq for StateType {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id()
    }
}

impl Eq for StateType {}

impl fmt::Debug for StateType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.type_name())
    }
}

impl fmt::Debug for ToolState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(&self.names).finish()
    }
}

/// One progress report of a long-running call (forwarded, for example, as an MCP progress
/// notification).
///
/// ```
/// use tool_runtime::executor::Progress;
/// let halfway = Progress { progress: 5.0, total: Some(10.0), message: Some("5 of 10 files".into()) };
/// # let _ = halfway;
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    /// How far along the call is, in units of the tool's choosing; it only grows.
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// What is happening now.
    pub message: Option<String>,
}

/// Where a call's progress reports go.
pub(crate) type ProgressReporter = Arc<dyn Fn(Progress) + Send + Sync>;

/// What a tool knows about the call it is running: the call id, the application's typed
/// state, and the cancellation signal.
///
/// Take it as a `&ToolContext` parameter of a `#[tool]` function (it is not part of the
/// tool's schema); the executor fills it in. Cloning is cheap.
///
/// ```
/// use tool_runtime::{ToolContext, ToolState};
///
/// struct Greeting(String);
/// let mut state = ToolState::new();
/// state.insert(Greeting("hello".into()));
/// let ctx = ToolContext::new().with_call_id("call_1").with_state(state);
///
/// assert_eq!(ctx.call_id(), "call_1");
/// assert_eq!(ctx.state::<Greeting>().unwrap().0, "hello");
/// assert!(!ctx.is_cancelled());
/// ```
#[derive(Clone)]
pub struct ToolContext {
    call_id: Arc<str>,
    state: Arc<ToolState>,
    cancellation: CancellationToken,
    /// The registry the call runs under, set by the executor and read through
    /// `ToolContext::registry` (the registry module gives it its type: it sits above this one).
    pub(crate) registry: Option<Arc<dyn Any + Send + Sync>>,
    pub(crate) max_safety: SafetyLevel,
    progress: Option<ProgressReporter>,
}

impl Default for ToolContext {
    fn default() -> Self {
        ToolContext {
            call_id: Arc::from(""),
            state: Arc::default(),
            cancellation: CancellationToken::new(),
            registry: None,
            max_safety: SafetyLevel::Dangerous,
            progress: None,
        }
    }
}

impl ToolContext {
    /// A context with an empty call id, no state and a fresh cancellation token.
    pub fn new() -> Self {
        ToolContext::default()
    }

    /// The same context for the call `call_id`.
    pub fn with_call_id(mut self, call_id: impl Into<Arc<str>>) -> Self {
        self.call_id = call_id.into();
        self
    }

    /// The same context with `state` as the application's state.
    pub fn with_state(mut self, state: impl Into<Arc<ToolState>>) -> Self {
        self.state = state.into();
        self
    }

    /// The same context, cancelled when `token` is.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = token;
        self
    }

    /// The highest safety level the running executor allows.
    pub fn max_safety(&self) -> SafetyLevel {
        self.max_safety
    }

    /// The same context, sending progress reports to `reporter`.
    pub(crate) fn with_progress(mut self, reporter: ProgressReporter) -> Self {
        self.progress = Some(reporter);
        self
    }

    /// Reports how far a long call has come; the caller forwards it (an MCP server sends a
    /// progress notification) or ignores it.
    ///
    /// ```
    /// use tool_runtime::ToolContext;
    /// // Outside an executor nobody listens; reporting is harmless.
    /// ToolContext::new().report_progress(1.0, Some(3.0), "first of three");
    /// ```
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: impl Into<String>) {
        if let Some(reporter) = &self.progress {
            let message: String = message.into();
            reporter(Progress {
                progress,
                total,
                message: (!message.is_empty()).then_some(message),
            });
        }
    }

    /// The id of the call being run, as the model sent it.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The application's value of type `T`, if it registered one.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.state.get::<T>()
    }

    /// The application's value of type `T`, or a failure that says how to provide it.
    ///
    /// ```
    /// use tool_runtime::ToolContext;
    ///
    /// struct Workspace;
    /// let Err(err) = ToolContext::new().require_state::<Workspace>() else { unreachable!() };
    /// assert!(err.to_string().contains("Workspace"));
    /// ```
    pub fn require_state<T: Send + Sync + 'static>(&self) -> Result<&T, ToolError> {
        self.state.get::<T>().ok_or_else(|| {
            ToolError::new(format!(
                "this tool is not configured: it needs a `{}` in the executor's state \
                 (the application adds it with `Executor::builder(..).state(value)`)",
                type_name::<T>()
            ))
        })
    }

    /// The whole state.
    pub fn state_map(&self) -> &ToolState {
        &self.state
    }

    /// Whether the call was cancelled; long-running tools check it and stop early.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// Completes when the call is cancelled.
    pub async fn cancelled(&self) {
        self.cancellation.cancelled().await;
    }

    /// The cancellation token of the call.
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.cancellation
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("state", &self.state)
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}
