//! The call: what a handler gets with each request. Its [`Context`] (or the
//! typed [`Ctx`] of its contract, whose `fail` takes only declared reasons),
//! the shared [`State`] the server registered, and its caller ([`AuthInfo`]
//! and the [`ScopePolicy`] that decides whether declared scopes are enforced).

mod caller;
mod capture;
mod client;
mod context;
mod elicit;
mod enrichment;
mod round;
mod state;
#[cfg(feature = "rmcp")]
mod trace;

use std::future::Future;
use std::pin::Pin;

pub use self::caller::{AuthInfo, ClaimsError, MAX_TENANT_LEN, ScopePolicy, check_scopes, validate_tenant};
pub use self::capture::{Captured, ClientRequestRecord, LogRecord, ProgressUpdate};
pub use self::client::{
    Capability, ClientCapabilities, ClientRequestError, DEFAULT_CLIENT_REQUEST_TIMEOUT, ModelPreferences, Root,
    SampledMessage, Sampling,
};
pub use self::context::{ClientChannel, Context, Ctx, Input, LogLevel, ProgressToken};
pub use self::elicit::{ElicitForm, Elicitation, FormChoice, FormField, form_schema};
pub use self::enrichment::{Enrichment, EnrichmentField, EnrichmentKind, Truncation};
pub use self::round::{InputRequest, InputRound, RoundEnd};
pub(crate) use self::state::StateMap;
pub use self::state::{SharedState, State, StateType};
#[cfg(feature = "otel")]
pub(crate) use self::trace::TRACE_CONTEXT_KEYS;
#[cfg(feature = "rmcp")]
pub(crate) use self::trace::{CallTrace, Failure};

/// A boxed future, as the object-safe traits ([`DynTool`](crate::define::DynTool),
/// [`ClientChannel`]) return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
