//! What the server does around every call besides running it, on every
//! transport: masking a failure of its own side nobody wrote for a client,
//! and counting the call for the Prometheus endpoint (feature `metrics`) and
//! the OpenTelemetry export (feature `otel`).

use std::sync::Arc;

use crate::call::Failure;

/// Shared by every copy (every session) of one server.
#[derive(Clone, Default)]
pub(crate) struct Observe {
    /// [`Server::hook`](crate::server::builder::Server::hook), in registration order.
    pub(crate) hooks: Vec<Arc<dyn crate::server::dispatch::hook::CallHook>>,
    /// [`Server::mask_error_details`](crate::server::builder::Server::mask_error_details); the
    /// default is `true`, set by [`Server::build`](crate::server::builder::Server::build).
    pub(crate) mask_error_details: bool,
    /// [`Server::repair_arguments`](crate::server::builder::Server::repair_arguments); the
    /// default is `true`, set by [`Server::build`](crate::server::builder::Server::build).
    pub(crate) repair_arguments: bool,
    #[cfg(feature = "metrics")]
    pub(crate) metrics: Option<Arc<super::metrics::Metrics>>,
    #[cfg(feature = "rate-limit")]
    pub(crate) limiter: Option<Arc<super::rate_limit::Limiter>>,
    /// [`Server::pacer`](crate::server::builder::Server::pacer), for the metrics.
    #[cfg(feature = "pacer")]
    pub(crate) pacers: Vec<crate::error::pacer::Pacer>,
}

/// How a call ended, as the metrics and the span name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Ok,
    Error,
    Cancelled,
    Panic,
}

impl Outcome {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Error => "error",
            Self::Cancelled => "cancelled",
            Self::Panic => "panic",
        }
    }
}

impl Observe {
    /// A call starts: it is in flight until the guard drops, however it ends
    /// (answered, cancelled, or its task aborted with its session).
    pub(crate) fn started(&self) -> InFlight {
        #[cfg(feature = "metrics")]
        if let Some(metrics) = &self.metrics {
            metrics.in_flight.inc();
        }
        InFlight(
            #[cfg(feature = "metrics")]
            self.metrics.clone(),
        )
    }

    /// Whether the caller may make one more call now: with a rate limit set,
    /// one token of its bucket, keyed by its subject, else its address.
    #[cfg_attr(not(feature = "rate-limit"), allow(unused_variables, clippy::unused_self))]
    pub(crate) fn admit(
        &self,
        caller: Option<&str>,
        client_ip: Option<std::net::IpAddr>,
    ) -> Result<(), crate::error::McpError> {
        #[cfg(feature = "rate-limit")]
        if let Some(limiter) = &self.limiter {
            return limiter.admit(caller, client_ip);
        }
        Ok(())
    }

    /// The arguments of a call of the tool `name` were repaired: one count per repair.
    #[cfg_attr(not(any(feature = "metrics", feature = "otel")), allow(unused_variables))]
    pub(crate) fn repaired(&self, name: &'static str, repairs: &[crate::define::Repair]) {
        #[cfg(feature = "metrics")]
        if let Some(metrics) = &self.metrics {
            for repair in repairs {
                metrics.repaired(name, repair.kind.as_str());
            }
        }
        #[cfg(feature = "otel")]
        crate::telemetry::record_repairs(name, repairs.iter().map(|repair| repair.kind.as_str()));
    }

    /// A call (`kind` its metrics' label, `method` its MCP method) ended with
    /// `outcome` after `seconds`; `failure` says how it failed.
    #[cfg_attr(
        not(feature = "otel"),
        allow(unused_variables, reason = "`method` labels only the OpenTelemetry metrics")
    )]
    pub(crate) fn finished(
        &self,
        kind: &'static str,
        method: &'static str,
        name: &'static str,
        outcome: Outcome,
        failure: Option<Failure<'_>>,
        seconds: f64,
    ) {
        #[cfg(feature = "metrics")]
        if let Some(metrics) = &self.metrics {
            metrics.finished(kind, name, outcome, failure, seconds);
        }
        // The conventions' histogram counts the calls that were answered.
        #[cfg(feature = "otel")]
        if matches!(outcome, Outcome::Ok | Outcome::Error) {
            let target = match kind {
                "tool" => Some(("gen_ai.tool.name", name)),
                "prompt" => Some(("gen_ai.prompt.name", name)),
                _ => None,
            };
            crate::telemetry::record_operation(method, target, failure, seconds);
        }
    }
}

/// A session's time, from the client's `notifications/initialized` to the
/// session's end (closed, deleted, expired; the end of the stdio stream):
/// the conventions' `mcp.server.session.duration`. Shared by the copies of
/// one session's handler, and recorded once, by [`end`](Self::end) or when
/// the last copy goes (the Streamable HTTP transport drops a session's
/// handler as the session ends).
#[derive(Clone, Default)]
pub(crate) struct SessionClock(Arc<std::sync::OnceLock<Arc<SessionStarted>>>);

/// A [`SessionClock`] that does not keep its session's time going: it
/// records when the session's last handler goes, as an unwatched clock does.
pub(crate) struct WatchedClock(std::sync::Weak<std::sync::OnceLock<Arc<SessionStarted>>>);

/// A session's time, kept going while the session hibernates (its handler
/// gone): recorded when this is dropped, unless a restored handler took it.
pub(crate) struct HeldClock(Arc<SessionStarted>);

struct SessionStarted {
    observe: Arc<Observe>,
    at: std::time::Instant,
    /// `mcp.protocol.version`, as `initialize` settled it.
    protocol_version: Option<String>,
    /// `network.transport`: `tcp` over Streamable HTTP, `pipe` over stdio.
    transport: &'static str,
    ended: std::sync::atomic::AtomicBool,
}

impl SessionClock {
    /// The session began (its first start counts; a session initializes once).
    pub(crate) fn start(&self, observe: &Arc<Observe>, protocol_version: Option<String>, transport: &'static str) {
        let _ = self.0.set(Arc::new(SessionStarted {
            observe: Arc::clone(observe),
            at: std::time::Instant::now(),
            protocol_version,
            transport,
            ended: std::sync::atomic::AtomicBool::new(false),
        }));
    }

    /// A handle to this clock that leaves its recording to the handler's end.
    pub(crate) fn watch(&self) -> WatchedClock {
        WatchedClock(Arc::downgrade(&self.0))
    }

    /// Take the time of a session that hibernated: this restored handler's
    /// session is the same one, begun then.
    pub(crate) fn resume(&self, held: HeldClock) {
        let _ = self.0.set(held.0);
    }

    /// The session ended: its duration recorded, unless it never began or was recorded already.
    pub(crate) fn end(&self) {
        if let Some(started) = self.0.get() {
            started.end();
        }
    }
}

impl WatchedClock {
    /// Keep the session's time going past its handler's end (it hibernates);
    /// `None` when the handler is gone already or the session never began.
    pub(crate) fn hold(&self) -> Option<HeldClock> {
        self.0.upgrade()?.get().map(|started| HeldClock(Arc::clone(started)))
    }

    /// Whether the handler that owns the clock is still there.
    pub(crate) fn is_live(&self) -> bool {
        self.0.strong_count() > 0
    }
}

impl SessionStarted {
    fn end(&self) {
        if self.ended.swap(true, std::sync::atomic::Ordering::AcqRel) {
            return;
        }
        let seconds = self.at.elapsed().as_secs_f64();
        #[cfg(feature = "metrics")]
        if let Some(metrics) = &self.observe.metrics {
            metrics.session_ended(seconds);
        }
        #[cfg(not(feature = "metrics"))]
        let _ = &self.observe;
        #[cfg(feature = "otel")]
        crate::telemetry::record_session(self.protocol_version.as_deref(), self.transport, seconds);
        #[cfg(not(feature = "otel"))]
        let _ = (&self.protocol_version, self.transport, seconds);
    }
}

impl Drop for SessionStarted {
    fn drop(&mut self) {
        self.end();
    }
}

/// A call in flight; see [`Observe::started`].
pub(crate) struct InFlight(#[cfg(feature = "metrics")] Option<Arc<super::metrics::Metrics>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        #[cfg(feature = "metrics")]
        if let Some(metrics) = &self.0 {
            metrics.in_flight.dec();
        }
    }
}
