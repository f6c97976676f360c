//! Testing a server (feature `testing`): an in-process [`Client`] that runs
//! the whole stack of a built [`Server`](crate::server::Server) over an
//! in-memory pipe, for `#[tokio::test]`s that call tools, read resources and
//! get prompts as a client does; and contract fuzzing, [`check_contract`],
//! which calls a tool with inputs generated from its advertised input schema
//! and reports each answer that breaks its contract, with the smallest input
//! that shows it; and the wire contract pinned in a snapshot, each change
//! of it classified as breaking or additive for the agents that call the
//! server ([`assert_contract_pinned!`](crate::assert_contract_pinned), [`compat`]).
//!
//! The unit-test side, a handler called with its tool's `test_ctx()` (a
//! caller, state, capabilities, and what the handler sent the client,
//! [`Captured`](crate::call::Captured)), needs no feature: it is in [`call`](crate::call).

mod client;
pub mod compat;
mod contract;
mod pins;
mod strategy;

pub use self::client::{Client, ClientBuilder, DEFAULT_CALL_TIMEOUT, Notification, PendingCall, ServerRequest};
pub use self::contract::{
    Cases, ContractReport, Finding, FindingKind, assert_contract, check_contract, check_prompt_contract,
    check_resource_contract, check_server_contract,
};
#[doc(hidden)]
pub use self::pins::PinPlace;
pub use self::pins::{PINNED_REQUEST_ID, Pin};
/// The snapshot crate [`assert_contract_pinned!`](crate::assert_contract_pinned) writes with.
#[doc(hidden)]
pub use insta as __insta;
