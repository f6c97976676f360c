//! The metrics of one server, in one registry of its own (no global
//! recorder: two servers in one process, or two tests, count apart).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use super::observe::Outcome;
use crate::call::Failure;

/// The content type of what [`Metrics::render`] writes.
pub(crate) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Seconds: from a cheap in-memory call (1 ms) to a slow upstream (30 s).
const LATENCY_BUCKETS: [f64; 14] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

/// Seconds: the bucket boundaries the semantic conventions advise for
/// `mcp.server.session.duration` (semconv 1.42.0), the operations' ones.
const SESSION_BUCKETS: [f64; 14] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    kind: &'static str,
    name: &'static str,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ErrorLabels {
    kind: &'static str,
    name: &'static str,
    code: i32,
    /// The declared reason; empty (no label, to Prometheus) for none.
    reason: String,
    /// `error.type` of the conventions: `tool_error` for a tool's error result, else the code.
    error_type: String,
    /// Who is at fault: `client`, `server` or `upstream`.
    category: &'static str,
    /// The declared reason's severity; empty for none.
    severity: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabels {
    tool: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct NameLabels {
    kind: &'static str,
    name: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RepairLabels {
    tool: &'static str,
    /// The repair's kind (`string_as_number`, `aliased`, ..): the
    /// framework's names, never the client's keys.
    kind: &'static str,
}

fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

pub(crate) struct Metrics {
    registry: Registry,
    calls: Family<CallLabels, Counter>,
    errors: Family<ErrorLabels, Counter>,
    repairs: Family<RepairLabels, Counter>,
    rejections: Family<ToolLabels, Counter>,
    duration: Family<NameLabels, Histogram, fn() -> Histogram>,
    pub(crate) in_flight: Gauge,
    sessions: Gauge,
    hibernating: Gauge,
    session_duration: Histogram,
}

/// The longest reason kept as a label value: reasons are snake_case names
/// of a contract, and a longer one is a message put where a reason goes.
const MAX_REASON_CHARS: usize = 64;

impl Metrics {
    /// `pacers` ([`Server::pacer`](crate::server::builder::Server::pacer)) are
    /// read at each scrape, as `mcp_pacer_*`.
    pub(crate) fn new(#[cfg(feature = "pacer")] pacers: Vec<crate::error::pacer::Pacer>) -> Self {
        let mut registry = Registry::default();
        #[cfg(feature = "pacer")]
        if !pacers.is_empty() {
            registry.register_collector(Box::new(pacer::Collector(pacers)));
        }
        let calls = Family::<CallLabels, Counter>::default();
        let errors = Family::<ErrorLabels, Counter>::default();
        let repairs = Family::<RepairLabels, Counter>::default();
        let rejections = Family::<ToolLabels, Counter>::default();
        let duration = Family::<NameLabels, Histogram, fn() -> Histogram>::new_with_constructor(latency_histogram);
        let (in_flight, sessions, hibernating) = (Gauge::default(), Gauge::default(), Gauge::default());
        // The names of the OpenTelemetry semantic conventions for MCP (semconv
        // 1.42.0: `mcp.server.operation.duration`, ..) as the exposition
        // format spells them: dots as underscores, the unit as a suffix.
        registry.register(
            "mcp_server_operations",
            "Tool calls, resource reads, prompts and completions that ended, by outcome",
            calls.clone(),
        );
        registry.register(
            "mcp_server_operation_errors",
            "Calls that ended with an error, by code, reason, error type, category and severity",
            errors.clone(),
        );
        registry.register(
            "mcp_server_argument_repairs",
            "Repairs of tool arguments an agent got slightly wrong, by tool and kind",
            repairs.clone(),
        );
        registry.register(
            "mcp_server_argument_rejections",
            "Tool calls refused because their arguments did not fit the input schema",
            rejections.clone(),
        );
        let seconds = prometheus_client::registry::Unit::Seconds;
        registry.register_with_unit(
            "mcp_server_operation_duration",
            "How long calls took, from receipt to answer",
            seconds,
            duration.clone(),
        );
        registry.register("mcp_server_operations_in_flight", "Calls running now", in_flight.clone());
        registry.register("mcp_server_sessions", "Open Streamable HTTP sessions", sessions.clone());
        registry.register(
            "mcp_server_sessions_hibernating",
            "Open Streamable HTTP sessions hibernating: idle, only their initialize kept",
            hibernating.clone(),
        );
        // The conventions' `mcp.server.session.duration`, with their buckets.
        let session_duration = Histogram::new(SESSION_BUCKETS);
        registry.register_with_unit(
            "mcp_server_session_duration",
            "How long sessions lasted, from the client's notifications/initialized to their end",
            prometheus_client::registry::Unit::Seconds,
            session_duration.clone(),
        );
        Self {
            registry,
            calls,
            errors,
            repairs,
            rejections,
            duration,
            in_flight,
            sessions,
            hibernating,
            session_duration,
        }
    }

    /// Count the memory event store's evictions and bytes at each scrape.
    pub(crate) fn watch_event_store(&mut self, store: std::sync::Arc<crate::server::store::events::MemoryEventStore>) {
        self.registry.register_collector(Box::new(events::Collector(store)));
    }

    pub(crate) fn finished(
        &self,
        kind: &'static str,
        name: &'static str,
        outcome: Outcome,
        failure: Option<Failure<'_>>,
        seconds: f64,
    ) {
        self.calls.get_or_create(&CallLabels { kind, name, outcome: outcome.as_str() }).inc();
        if let Some(failure) = failure {
            let reason: String = failure.reason.unwrap_or_default().chars().take(MAX_REASON_CHARS).collect();
            let labels = ErrorLabels {
                kind,
                name,
                code: failure.code,
                reason,
                error_type: failure.error_type.to_owned(),
                category: failure.category,
                severity: failure.severity.unwrap_or_default(),
            };
            self.errors.get_or_create(&labels).inc();
            if kind == "tool" && failure.reason == Some(crate::define::INVALID_ARGUMENTS) {
                self.rejections.get_or_create(&ToolLabels { tool: name }).inc();
            }
        }
        if matches!(outcome, Outcome::Ok | Outcome::Error) {
            self.duration.get_or_create(&NameLabels { kind, name }).observe(seconds);
        }
    }

    /// A session ended after `seconds`.
    pub(crate) fn session_ended(&self, seconds: f64) {
        self.session_duration.observe(seconds);
    }

    pub(crate) fn repaired(&self, tool: &'static str, kind: &'static str) {
        self.repairs.get_or_create(&RepairLabels { tool, kind }).inc();
    }

    /// The exposition text (OpenMetrics, which Prometheus scrapes), with
    /// the open sessions counted now, and of them the hibernating.
    pub(crate) fn render(&self, sessions: usize, hibernating: usize) -> String {
        self.sessions.set(i64::try_from(sessions).unwrap_or(i64::MAX));
        self.hibernating.set(i64::try_from(hibernating).unwrap_or(i64::MAX));
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

/// The pacers' figures, read from their [`PacerStats`](crate::error::pacer::PacerStats) at each scrape.
#[cfg(feature = "pacer")]
mod pacer {
    use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
    use prometheus_client::metrics::counter::ConstCounter;
    use prometheus_client::metrics::gauge::ConstGauge;
    use prometheus_client::metrics::{MetricType, TypedMetric};

    use crate::error::pacer::{Pacer, PacerStats, ShedKind};

    #[derive(Debug)]
    pub(super) struct Collector(pub(super) Vec<Pacer>);

    #[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
    struct PacerLabels {
        pacer: String,
    }

    #[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
    struct ShedLabels {
        pacer: String,
        kind: &'static str,
    }

    impl Collector {
        /// One family: `value` of each pacer, labelled by its name.
        fn family<M: EncodeMetric + TypedMetric>(
            &self,
            encoder: &mut DescriptorEncoder<'_>,
            name: &str,
            help: &str,
            value: impl Fn(&PacerStats) -> M,
        ) -> std::fmt::Result {
            let mut family = encoder.encode_descriptor(name, help, None, M::TYPE)?;
            for pacer in &self.0 {
                value(&pacer.stats()).encode(family.encode_family(&PacerLabels { pacer: pacer.name().to_owned() })?)?;
            }
            Ok(())
        }
    }

    impl prometheus_client::collector::Collector for Collector {
        fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> std::fmt::Result {
            self.family(&mut encoder, "mcp_pacer_queue_depth", "Upstream calls waiting for their turn", |stats| {
                ConstGauge::new(i64::try_from(stats.queue_depth).unwrap_or(i64::MAX))
            })?;
            self.family(&mut encoder, "mcp_pacer_started", "Upstream calls started", |stats| {
                ConstCounter::new(stats.started)
            })?;
            self.family(&mut encoder, "mcp_pacer_cooldowns", "Pauses after an upstream 429", |stats| {
                ConstCounter::new(stats.cooldowns)
            })?;
            self.family(
                &mut encoder,
                "mcp_pacer_wait_seconds",
                "Time upstream calls waited for their turn",
                |stats| ConstCounter::new(stats.waited.as_secs_f64()),
            )?;
            let mut sheds = encoder.encode_descriptor(
                "mcp_pacer_sheds",
                "Upstream calls shed, by kind",
                None,
                MetricType::Counter,
            )?;
            for pacer in &self.0 {
                let stats = pacer.stats();
                for (kind, count) in ShedKind::ALL.iter().zip(stats.shed) {
                    let labels = ShedLabels { pacer: pacer.name().to_owned(), kind: kind.as_str() };
                    ConstCounter::new(count).encode(sheds.encode_family(&labels)?)?;
                }
            }
            Ok(())
        }
    }
}

/// The memory event store's figures, read at each scrape.
mod events {
    use std::sync::Arc;

    use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
    use prometheus_client::metrics::counter::ConstCounter;
    use prometheus_client::metrics::gauge::ConstGauge;
    use prometheus_client::metrics::{MetricType, TypedMetric};

    use crate::server::store::events::MemoryEventStore;

    #[derive(Debug)]
    pub(super) struct Collector(pub(super) Arc<MemoryEventStore>);

    impl prometheus_client::collector::Collector for Collector {
        fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> std::fmt::Result {
            let evicted = ConstCounter::new(self.0.evicted());
            evicted.encode(encoder.encode_descriptor(
                "mcp_server_sse_events_evicted",
                "SSE events dropped from the event store to hold its byte budget, oldest first",
                None,
                <ConstCounter as TypedMetric>::TYPE,
            )?)?;
            let bytes = ConstGauge::new(i64::try_from(self.0.bytes()).unwrap_or(i64::MAX));
            bytes.encode(encoder.encode_descriptor(
                "mcp_server_sse_event_store_bytes",
                "What the SSE events and streams kept for resumption cost, as the byte budget counts it",
                None,
                MetricType::Gauge,
            )?)?;
            Ok(())
        }
    }
}
