//! Testing a server (feature `testing`): an in-process [`Client`] that runs
//! the whole stack of a built [`Server`](crate::server::Server) over an
//! in-memory pipe, for `#[tokio::test]`s that call tools, read resources and
//! get prompts as a client does; and contract fuzzing, [`check_contract`],
//! which calls a tool with inputs generated from its advertised input schema
//! and reports each answer that breaks its contract, with the smallest input
//! that shows it.
//!
//! The unit-test side, a handler called with its tool's `test_ctx()` (a
//! caller, state, capabilities, and what the handler sent the client,
//! [`Captured`](crate::call::Captured)), needs no feature: it is in [`call`](crate::call).

mod client;
mod contract;
mod strategy;

pub use self::client::{Client, ClientBuilder, DEFAULT_CALL_TIMEOUT, Notification, ServerRequest};
pub use self::contract::{Cases, ContractReport, Finding, FindingKind, assert_contract, check_contract};
