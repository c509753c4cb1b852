//! Values an application shares with its tools, one per type ([`ToolState`]), and the name
//! of a type a tool needs ([`StateType`]), checked before the first call.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Values an application shares with its tools, one per type.
///
/// ```
/// use toolwright_core::ToolState;
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
    /// use toolwright_core::ToolState;
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
    /// use toolwright_core::{StateType, ToolState};
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
    /// # use toolwright_core::ToolState;
    /// assert_eq!(ToolState::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no value is stored.
    ///
    /// ```
    /// # use toolwright_core::ToolState;
    /// assert!(ToolState::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// A type of state a tool needs from the executor: a tool set's `Self`, or a `#[state]`
/// parameter's type. [`Tool::required_state`](crate::Tool::required_state) lists them, and
/// `ExecutorBuilder::try_build` checks that
/// each is provided.
///
/// ```
/// use toolwright_core::StateType;
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
