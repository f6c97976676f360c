//! The metrics exported over OTLP: the conventions' `mcp.server.operation.duration`
//! and this crate's counters, recorded as the Prometheus ones are, beside them.

use std::sync::{Arc, OnceLock};

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, MeterProvider as _};
use opentelemetry_sdk::metrics::SdkMeterProvider;

use super::export::Drops;
use crate::call::Failure;

/// The bucket boundaries the conventions advise for `mcp.server.operation.duration`, in seconds.
const DURATION_BUCKETS: [f64; 14] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

struct Instruments {
    duration: Histogram<f64>,
    session_duration: Histogram<f64>,
    errors: Counter<u64>,
    repairs: Counter<u64>,
    rejections: Counter<u64>,
}

/// Installed once, by the first `Telemetry::init` that exports metrics.
static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();

pub(super) fn install(provider: &SdkMeterProvider, drops: Arc<Drops>) {
    let meter = provider.meter("mcp-contract");
    let instruments = Instruments {
        duration: meter
            .f64_histogram("mcp.server.operation.duration")
            .with_unit("s")
            .with_description("MCP request duration as observed on the receiver, from its receipt until its answer")
            .with_boundaries(DURATION_BUCKETS.to_vec())
            .build(),
        // The conventions advise the operations' buckets for sessions too.
        session_duration: meter
            .f64_histogram("mcp.server.session.duration")
            .with_unit("s")
            .with_description("The duration of the MCP session as observed on the MCP server")
            .with_boundaries(DURATION_BUCKETS.to_vec())
            .build(),
        errors: meter
            .u64_counter("mcp_contract.operation.errors")
            .with_unit("{error}")
            .with_description("Calls that ended with an error, by code, reason, category and severity")
            .build(),
        repairs: meter
            .u64_counter("mcp_contract.argument.repairs")
            .with_unit("{repair}")
            .with_description("Repairs of tool arguments an agent got slightly wrong, by tool and kind")
            .build(),
        rejections: meter
            .u64_counter("mcp_contract.argument.rejections")
            .with_unit("{call}")
            .with_description("Tool calls refused because their arguments did not fit the input schema")
            .build(),
    };
    let _dropped = meter
        .u64_observable_counter("mcp_contract.telemetry.spans.dropped")
        .with_unit("{span}")
        .with_description("Spans dropped: the export queue was full, or the collector did not take their batch")
        .with_callback(move |observer| observer.observe(drops.count(), &[]))
        .build();
    let _ = INSTRUMENTS.set(instruments);
}

/// One finished call (`method`, `target` its tool's or prompt's name), as the histogram and counters count it.
pub(crate) fn record_operation(
    method: &'static str,
    target: Option<(&'static str, &'static str)>,
    failure: Option<Failure<'_>>,
    seconds: f64,
) {
    let Some(instruments) = INSTRUMENTS.get() else { return };
    let mut attributes = Vec::with_capacity(5);
    attributes.push(KeyValue::new("mcp.method.name", method));
    if let Some((key, name)) = target {
        attributes.push(KeyValue::new(key, name));
        if key == "gen_ai.tool.name" {
            attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        }
    }
    if let Some(failure) = failure {
        attributes.push(KeyValue::new("error.type", failure.error_type.to_owned()));
    }
    instruments.duration.record(seconds, &attributes);
    let Some(failure) = failure else { return };
    if failure.reason == Some(crate::define::INVALID_ARGUMENTS) {
        instruments.rejections.add(1, &attributes[..attributes.len() - 1]);
    }
    attributes.push(KeyValue::new("mcp_contract.code", i64::from(failure.code)));
    attributes.push(KeyValue::new("mcp_contract.category", failure.category));
    if let Some(reason) = failure.reason {
        attributes.push(KeyValue::new("mcp_contract.reason", reason.to_owned()));
    }
    if let Some(severity) = failure.severity {
        attributes.push(KeyValue::new("mcp_contract.severity", severity));
    }
    instruments.errors.add(1, &attributes);
}

/// One session that ended after `seconds`, with the conventions' attributes
/// (`error.type` is not among them: a session ends without an error the
/// server could tell, closed, deleted or expired alike).
pub(crate) fn record_session(protocol_version: Option<&str>, transport: &'static str, seconds: f64) {
    let Some(instruments) = INSTRUMENTS.get() else { return };
    let mut attributes = Vec::with_capacity(3);
    attributes.push(KeyValue::new("network.transport", transport));
    if transport == "tcp" {
        attributes.push(KeyValue::new("network.protocol.name", "http"));
    }
    if let Some(version) = protocol_version {
        attributes.push(KeyValue::new("mcp.protocol.version", version.to_owned()));
    }
    instruments.session_duration.record(seconds, &attributes);
}

/// The repairs of a call of `tool`, one count per repair, by kind.
pub(crate) fn record_repairs<'a>(tool: &'static str, kinds: impl Iterator<Item = &'a str>) {
    let Some(instruments) = INSTRUMENTS.get() else { return };
    for kind in kinds {
        instruments
            .repairs
            .add(1, &[KeyValue::new("gen_ai.tool.name", tool), KeyValue::new("mcp_contract.repair", kind.to_owned())]);
    }
}
