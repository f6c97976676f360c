//! What a transport tells the dispatch about the client behind a request, in
//! the request's extensions: below both, so the dispatch reads no transport
//! type.

use rmcp::model::RequestId;

/// The address of the client a request came from: the connection's peer, or
/// what a trusted proxy says the client was (Streamable HTTP).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ClientIp(pub(crate) std::net::IpAddr);

/// The id the client gave a request that reaches rmcp under one of ours
/// (stdio, where rmcp keys answers by id alone: see `transport/stdio.rs`).
#[derive(Clone, Debug)]
pub(crate) struct ClientId(pub(crate) RequestId);

/// Cancelled once the client no longer reads the answer to its request: the
/// HTTP response was sent whole, or dropped (the client disconnected). A
/// `subscriptions/listen` stream ends on it, rather than waiting for a
/// client that is gone until the server stops (Streamable HTTP).
#[derive(Clone, Debug)]
pub(crate) struct ResponseGone(pub(crate) tokio_util::sync::CancellationToken);
