//! The metrics of one server, in one registry of its own (no global
//! recorder: two servers in one process, or two tests, count apart).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use super::observe::Outcome;

/// The content type of what [`Metrics::render`] writes.
pub(crate) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Seconds: from a cheap in-memory call (1 ms) to a slow upstream (30 s).
const LATENCY_BUCKETS: [f64; 14] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

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
    duration: Family<NameLabels, Histogram, fn() -> Histogram>,
    pub(crate) in_flight: Gauge,
    sessions: Gauge,
}

/// The longest reason kept as a label value: reasons are snake_case names
/// of a contract, and a longer one is a message put where a reason goes.
const MAX_REASON_CHARS: usize = 64;

impl Metrics {
    pub(crate) fn new() -> Self {
        let mut registry = Registry::default();
        let calls = Family::<CallLabels, Counter>::default();
        let errors = Family::<ErrorLabels, Counter>::default();
        let repairs = Family::<RepairLabels, Counter>::default();
        let duration = Family::<NameLabels, Histogram, fn() -> Histogram>::new_with_constructor(latency_histogram);
        let (in_flight, sessions) = (Gauge::default(), Gauge::default());
        registry.register(
            "mcp_calls",
            "Tool calls, resource reads, prompts and completions that ended, by outcome",
            calls.clone(),
        );
        registry.register("mcp_call_errors", "Calls that ended with an error, by code and reason", errors.clone());
        registry.register(
            "mcp_input_repairs",
            "Repairs of tool arguments an agent got slightly wrong, by tool and kind",
            repairs.clone(),
        );
        let seconds = prometheus_client::registry::Unit::Seconds;
        registry.register_with_unit("mcp_call_duration", "How long calls took", seconds, duration.clone());
        registry.register("mcp_calls_in_flight", "Calls running now", in_flight.clone());
        registry.register("mcp_sessions", "Open Streamable HTTP sessions", sessions.clone());
        Self { registry, calls, errors, repairs, duration, in_flight, sessions }
    }

    pub(crate) fn finished(
        &self,
        kind: &'static str,
        name: &'static str,
        outcome: Outcome,
        error: Option<(i32, Option<&str>)>,
        seconds: f64,
    ) {
        self.calls.get_or_create(&CallLabels { kind, name, outcome: outcome.as_str() }).inc();
        if let Some((code, reason)) = error {
            let reason: String = reason.unwrap_or_default().chars().take(MAX_REASON_CHARS).collect();
            self.errors.get_or_create(&ErrorLabels { kind, name, code, reason }).inc();
        }
        if matches!(outcome, Outcome::Ok | Outcome::Error) {
            self.duration.get_or_create(&NameLabels { kind, name }).observe(seconds);
        }
    }

    pub(crate) fn repaired(&self, tool: &'static str, kind: &'static str) {
        self.repairs.get_or_create(&RepairLabels { tool, kind }).inc();
    }

    /// The exposition text (OpenMetrics, which Prometheus scrapes), with
    /// the open sessions counted now.
    pub(crate) fn render(&self, sessions: usize) -> String {
        self.sessions.set(i64::try_from(sessions).unwrap_or(i64::MAX));
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}
