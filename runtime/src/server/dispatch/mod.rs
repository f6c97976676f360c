//! What happens to a request once a transport has read it: rmcp's
//! `ServerHandler` (handler), the tools, resources and prompts it routes to
//! (catalog), each call's task, cancellation and panics (invoke), what runs
//! around every call (observe: masking and the call's span; metrics;
//! rate_limit; hook), multi-round-trip requests (rounds), skills (SEP-2640),
//! tasks, the requests a handler sends its client (channel), resource
//! subscriptions (changes), the response stream of each call (streams) and
//! the clocks of sessions that hibernate (hibernation).

pub(crate) mod catalog;
pub(crate) mod changes;
pub(crate) mod channel;
pub(crate) mod handler;
pub(crate) mod hibernation;
pub(crate) mod hook;
pub(crate) mod invoke;
pub(crate) mod lifecycle;
#[cfg(feature = "metrics")]
pub(crate) mod metrics;
pub(crate) mod observe;
#[cfg(feature = "rate-limit")]
pub(crate) mod rate_limit;
pub(crate) mod rounds;
pub(crate) mod skills;
pub(crate) mod streams;
pub(crate) mod tasks;
