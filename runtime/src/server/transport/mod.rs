//! How requests reach the dispatch: stdio (one JSON-RPC message per line) and
//! Streamable HTTP (the listener, the guard in front of rmcp's service, the
//! JSON-RPC inspection both transports share, trusted proxies, the HTTP side
//! of auth, and the landing page, card and status beside the endpoint).

pub(crate) mod auth;
pub(crate) mod guard;
pub(crate) mod http;
pub(crate) mod jsonrpc;
pub(crate) mod landing;
pub(crate) mod listener;
pub(crate) mod proxy;
pub(crate) mod signal;
pub(crate) mod stdio;
