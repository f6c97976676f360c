//! What a request says of the trace it belongs to, kept on its [`Context`]
//! for the call's span: the W3C trace context it came with and the protocol
//! revision it speaks; and what the metrics say of a failed call. Plain strings, so that reading them costs a build
//! without OpenTelemetry nothing; the feature `otel` parents the span on them.
//!
//! [`Context`]: super::Context

use std::borrow::Cow;

/// The keys of the W3C trace context, as SEP-414 places them at the root of a
/// request's `params._meta` and as HTTP carries them in headers.
#[cfg(feature = "otel")]
pub(crate) const TRACE_CONTEXT_KEYS: [&str; 3] = ["traceparent", "tracestate", "baggage"];

/// A request's trace context and protocol revision.
#[derive(Clone, Debug, Default)]
pub(crate) struct CallTrace {
    /// The protocol revision the request speaks (`mcp.protocol.version`).
    pub(crate) protocol_version: Option<Cow<'static, str>>,
    /// `pipe` over stdio, `tcp` over Streamable HTTP (`network.transport`).
    pub(crate) transport: Option<&'static str>,
    /// The W3C trace context: `_meta`'s when the request carries a
    /// `traceparent` there, else the HTTP request's headers'; each key at
    /// most once. Only the feature `otel` reads it, and only it keeps it.
    #[cfg(feature = "otel")]
    pub(crate) carrier: Vec<(&'static str, String)>,
    /// The HTTP request's `traceparent` when `_meta`'s is the parent and
    /// names another span: the transport's context, which the call's span
    /// links to, as the conventions advise ("SHOULD link current ambient
    /// context").
    #[cfg(feature = "otel")]
    pub(crate) ambient: Option<String>,
}

#[cfg(feature = "otel")]
impl CallTrace {
    /// The value of `key` (`traceparent`, `tracestate`, `baggage`), if the request carried it.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.carrier.iter().find(|(name, _)| *name == key).map(|(_, value)| value.as_str())
    }
}

/// What the metrics (Prometheus's and OpenTelemetry's) say of a failed call.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(any(feature = "metrics", feature = "otel")), allow(dead_code, reason = "no metrics to say it to"))]
pub(crate) struct Failure<'a> {
    /// `error.type` of the conventions: `tool_error` for a tool's error
    /// result, else the JSON-RPC code.
    pub(crate) error_type: &'a str,
    pub(crate) code: i32,
    /// The declared reason, if any.
    pub(crate) reason: Option<&'a str>,
    /// Who is at fault: `client`, `server` or `upstream`.
    pub(crate) category: &'static str,
    /// The declared reason's `severity`, if it has one.
    pub(crate) severity: Option<&'static str>,
}
