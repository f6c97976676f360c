//! Shared state for handlers: the database pool, HTTP client or configuration a
//! server hands to every call, registered once and typed.
//!
//! A server registers values with [`Server::state`](crate::server::Server::state);
//! a handler takes a `State<T>` parameter, and `#[mcp_tool]` hands it the value
//! of type `T`. A tool whose state type was never registered fails
//! [`Server::build`](crate::server::Server::build), naming the tool and the type,
//! so a missing registration never surfaces as a failed call.
//!
//! ```
//! use mcp_contract::{Context, State};
//!
//! struct Museum { name: &'static str }
//!
//! // What the server does for every call: the context carries the registered values.
//! let ctx = Context::new("get_object", &[]).with_state(State::new(Museum { name: "Met" }));
//! let museum: State<Museum> = ctx.state().expect("registered above");
//! assert_eq!(museum.name, "Met");
//! assert!(ctx.state::<String>().is_none());
//! ```

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::call::Context;
use crate::error::McpError;

/// A shared value of type `T`, as a handler receives it: a cheap clone of the
/// `Arc` the server holds, dereferencing to `T`.
///
/// In a unit test, call the handler with `State::new(value)`.
pub struct State<T: ?Sized>(Arc<T>);

/// What a state type must be: every call may use it at once, from any thread.
/// Implemented for every `Send + Sync + 'static` type; its purpose is the
/// message when a type is not.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be shared state: calls use it at once from several threads",
    label = "not `Send + Sync + 'static`",
    note = "shared state must be `Send + Sync + 'static`: wrap what is not in a `Mutex` or `RwLock`, use `Arc` instead of `Rc`, own the data instead of borrowing it; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#handler-type-traits"
)]
pub trait SharedState: Send + Sync + 'static {}

impl<T: Send + Sync + 'static> SharedState for T {}

impl<T: SharedState> State<T> {
    /// Share `value`.
    pub fn new(value: T) -> Self {
        Self(Arc::new(value))
    }
}

impl<T: ?Sized> State<T> {
    /// The state of type `T` on `ctx`, or the error a call gets when the server
    /// registered none. `#[mcp_tool]` calls this for each `State<T>` parameter;
    /// `Server::build` has already refused a server where it would fail.
    ///
    /// # Errors
    ///
    /// [`ConfigurationError`](crate::error::JsonRpcErrorCode::ConfigurationError) naming
    /// the tool, when no value of type `T` was registered.
    pub fn from_context(ctx: &Context) -> Result<Self, McpError>
    where
        // On the method rather than the impl, so that a type that is not shared
        // state gets the bound's message instead of "method not found".
        T: SharedState + Sized,
    {
        ctx.state().ok_or_else(|| {
            McpError::configuration_error(format!(
                "The tool `{}` needs shared state that this server does not provide.",
                ctx.tool_name()
            ))
            .with_cause(MissingState { type_name: std::any::type_name::<T>() })
        })
    }

    /// The shared `Arc` itself, to hand to other tasks or services.
    pub fn into_arc(self) -> Arc<T> {
        self.0
    }
}

impl<T: ?Sized> From<Arc<T>> for State<T> {
    fn from(value: Arc<T>) -> Self {
        Self(value)
    }
}

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> AsRef<T> for State<T> {
    fn as_ref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&&*self.0).finish()
    }
}

/// The cause of a call's `ConfigurationError` when its state is missing: the
/// type's name stays in the server's log, never in the message to the client.
#[derive(Debug)]
struct MissingState {
    type_name: &'static str,
}

impl fmt::Display for MissingState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no state of type `{}` is registered; register it with `Server::state(..)`", self.type_name)
    }
}

impl std::error::Error for MissingState {}

/// A state type a tool needs, as [`Tool::required_state`](crate::define::Tool::required_state)
/// lists it: compared by [`TypeId`], named by its type name in errors.
#[derive(Clone, Copy)]
pub struct StateType {
    // Function pointers, because `TypeId::of` and `type_name` are not yet
    // callable in the constants generated code declares these in.
    type_id: fn() -> TypeId,
    type_name: fn() -> &'static str,
}

impl StateType {
    /// The state type `T`. Only `'static` here: whether `T` can be shared is
    /// checked once, where the handler takes it ([`State::from_context`]).
    pub const fn of<T: ?Sized + 'static>() -> Self {
        Self { type_id: TypeId::of::<T>, type_name: std::any::type_name::<T> }
    }

    /// The type's [`TypeId`].
    pub fn type_id(&self) -> TypeId {
        (self.type_id)()
    }

    /// The type's name, e.g. `museum::Collection`.
    pub fn type_name(&self) -> &'static str {
        (self.type_name)()
    }
}

impl fmt::Debug for StateType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.type_name())
    }
}

impl PartialEq for StateType {
    fn eq(&self, other: &Self) -> bool {
        self.type_id() == other.type_id()
    }
}

impl Eq for StateType {}

/// The registered state values of a server, one per type; cheap to clone.
#[derive(Clone, Default)]
pub(crate) struct StateMap(Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>);

impl StateMap {
    /// Register `value` (replacing an earlier value of the same type).
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        Arc::make_mut(&mut self.0).insert(TypeId::of::<T>(), value);
    }

    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        let value = Arc::clone(self.0.get(&TypeId::of::<T>())?);
        value.downcast::<T>().ok().map(State)
    }

    #[cfg_attr(not(feature = "rmcp"), allow(dead_code))]
    pub(crate) fn contains(&self, state: StateType) -> bool {
        self.0.contains_key(&state.type_id())
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::JsonRpcErrorCode;

    #[derive(Debug, PartialEq)]
    struct Config {
        limit: u32,
    }

    #[test]
    fn values_are_found_by_type() {
        let mut map = StateMap::default();
        map.insert(Arc::new(Config { limit: 3 }));
        map.insert(Arc::new(String::from("pool")));
        assert_eq!(map.get::<Config>().map(|state| state.limit), Some(3));
        assert_eq!(map.get::<String>().as_deref().map(String::as_str), Some("pool"));
        assert!(map.get::<u8>().is_none());
        assert!(map.contains(StateType::of::<Config>()));
        assert!(!map.contains(StateType::of::<u8>()));
        assert_eq!(map.len(), 2);
    }

    #[test]
    fn a_later_value_of_a_type_replaces_the_earlier() {
        let mut map = StateMap::default();
        map.insert(Arc::new(Config { limit: 1 }));
        let before = map.clone();
        map.insert(Arc::new(Config { limit: 2 }));
        assert_eq!(map.get::<Config>().map(|state| state.limit), Some(2));
        assert_eq!(before.get::<Config>().map(|state| state.limit), Some(1), "clones keep their own values");
    }

    #[test]
    fn a_missing_state_is_a_configuration_error_without_the_type_name() {
        let ctx = Context::new("lookup", &[]);
        let err = State::<Config>::from_context(&ctx).unwrap_err();
        assert_eq!(err.code(), JsonRpcErrorCode::ConfigurationError);
        assert!(err.message().contains("`lookup`"), "{}", err.message());
        assert!(!err.message().contains("Config"), "the type name stays in the log: {}", err.message());
        assert!(err.data().is_none());
        let cause = err.cause().expect("the missing type is the cause").to_string();
        assert!(cause.contains("Config") && cause.contains("Server::state"), "{cause}");
    }

    #[test]
    fn state_types_compare_by_type() {
        assert_eq!(StateType::of::<Config>(), StateType::of::<Config>());
        assert_ne!(StateType::of::<Config>(), StateType::of::<String>());
        assert!(StateType::of::<Config>().type_name().ends_with("Config"));
    }
}
