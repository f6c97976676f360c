//! OpenTelemetry over OTLP (feature `otel`): the spans the server makes, its
//! metrics and, opt-in, its log lines, sent to the collector a team already
//! runs; the trace context carried in and out.
//!
//! Every call already has a `tracing` span, `mcp_call`, with the attributes
//! of the OpenTelemetry semantic conventions for MCP (semconv **1.42.0**,
//! status *Development*: span name `{mcp.method.name} {target}`, kind
//! `SERVER`, `mcp.method.name`, `gen_ai.tool.name`, `gen_ai.prompt.name`,
//! `gen_ai.operation.name`, `jsonrpc.request.id`, `mcp.session.id`,
//! `mcp.protocol.version`, `network.transport`, `error.type`,
//! `rpc.response.status_code`) and this crate's own (`mcp_contract.outcome`:
//! `ok`, `declared_failure`, `undeclared_failure`, `input_required`,
//! `cancelled` or `panic`; `mcp_contract.reason`, `mcp_contract.code`,
//! `mcp_contract.request_id`, the `data.requestId` of its errors). This module
//! only exports them, through `tracing-opentelemetry`, and records the
//! `mcp.server.operation.duration` and `mcp.server.session.duration`
//! histograms (the latter as a session ends: an HTTP session closed, deleted
//! or expired, the end of a stdio stream).
//!
//! ```no_run
//! use mcp_contract_runtime::server::Server;
//! use mcp_contract_runtime::telemetry::Telemetry;
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // Stderr logs as `logging::init` writes them, plus OTLP: the endpoint,
//!     // protocol, headers, sampler and resource come from the OTEL_* variables.
//!     let telemetry = Telemetry::new("museum").init()?;
//!     Server::new("museum", "1.0.0")
//!         // Flushes what is queued when serving stops, within its bound.
//!         .telemetry(&telemetry)
//!         .serve_stdio()
//!         .await?;
//!     Ok(())
//! }
//! ```
//!
//! The variables read: `OTEL_EXPORTER_OTLP_ENDPOINT` (and the per-signal
//! `OTEL_EXPORTER_OTLP_{TRACES,METRICS,LOGS}_ENDPOINT`),
//! `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default, or `grpc`),
//! `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT`,
//! `OTEL_EXPORTER_OTLP_CERTIFICATE` (the PEM an `https://` collector's
//! certificate is checked against, else the system's roots),
//! `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER` and
//! `OTEL_TRACES_SAMPLER_ARG`, `OTEL_BSP_*` (the batch), `OTEL_METRIC_EXPORT_INTERVAL`,
//! and `OTEL_SDK_DISABLED`. What [`Telemetry`]'s methods set wins over them.
//!
//! Exporting never holds up a call. Ended spans wait in a queue of at most
//! [`DEFAULT_MAX_QUEUE_SIZE`] spans (`OTEL_BSP_MAX_QUEUE_SIZE`,
//! [`Telemetry::max_queue_size`]) for the exporter's own thread; a span that
//! finds the queue full, or whose batch the collector did not take, is
//! dropped and counted ([`TelemetryHandle::dropped_spans`], the metric
//! `mcp_contract.telemetry.spans.dropped`), with a warning at most once a
//! minute. [`TelemetryHandle::shutdown`] sends what is queued within
//! [`Telemetry::shutdown_timeout`].
//!
//! Trace context: a call's span is the child of the `traceparent` (with
//! `tracestate` and `baggage`) at the root of the request's `params._meta`,
//! where SEP-414 and the conventions place it, else of the HTTP request's
//! `traceparent` header (linked, when `_meta`'s is the parent and it names
//! another span). A task's later rounds (`tasks/get`, `tasks/update`,
//! `tasks/cancel`) are spans linked to the call that created the task, and
//! on 2026-07-28 a retried call's span links to its first round. Requests the server sends the client (elicitation,
//! sampling, roots) carry the call's context in their `_meta`, and
//! [`inject_headers`] puts it on a handler's own upstream request.

mod export;
mod metrics;
mod tls;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use opentelemetry::propagation::{Extractor, Injector, TextMapCompositePropagator, TextMapPropagator as _};
use opentelemetry::trace::TraceContextExt as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry::{Context as OtelContext, KeyValue};
use opentelemetry_http::HttpClient;
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig, WithTonicConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::logs::SdkLoggerProvider;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use opentelemetry_sdk::trace::{BatchConfigBuilder, BatchSpanProcessor, SdkTracerProvider};
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

pub use opentelemetry_sdk::trace::Sampler;

pub(crate) use self::metrics::{record_operation, record_repairs, record_session};
use crate::call::CallTrace;

/// The most spans waiting for export; more are dropped and counted (the
/// OpenTelemetry SDK's default, `OTEL_BSP_MAX_QUEUE_SIZE`).
pub const DEFAULT_MAX_QUEUE_SIZE: usize = 2_048;

/// How long [`TelemetryHandle::shutdown`] waits for what is queued to be sent.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);

/// The layer of [`Telemetry::layer`]: the spans' export, and the log lines' when asked for.
pub type TelemetryLayer<S> = Box<dyn Layer<S> + Send + Sync + 'static>;

/// The OTLP transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Protocol {
    /// OTLP/HTTP with protobuf bodies (`http/protobuf`, port 4318): the default.
    HttpProtobuf,
    /// OTLP/gRPC (`grpc`, port 4317).
    Grpc,
}

impl Protocol {
    /// The protocol an `OTEL_EXPORTER_OTLP_PROTOCOL` value names.
    fn from_env_value(value: &str) -> Result<Self, TelemetryError> {
        match value.trim() {
            "http/protobuf" => Ok(Self::HttpProtobuf),
            "grpc" => Ok(Self::Grpc),
            other => Err(TelemetryError::Config(format!(
                "OTEL_EXPORTER_OTLP_PROTOCOL is `{other}`; this server exports `http/protobuf` or `grpc`"
            ))),
        }
    }
}

/// Why [`Telemetry::init`] installed nothing.
#[derive(Debug)]
#[non_exhaustive]
pub enum TelemetryError {
    /// A setting (an `OTEL_*` variable or a method's value) that cannot be used.
    Config(String),
    /// The OTLP exporter could not be built (a malformed endpoint, say).
    Exporter(opentelemetry_otlp::ExporterBuildError),
    /// A global `tracing` subscriber is installed already (the application's
    /// own, or `logging::init`'s): add [`Telemetry`]'s layers to it instead.
    SubscriberInstalled,
}

impl fmt::Display for TelemetryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Config(what) => write!(f, "OpenTelemetry is misconfigured: {what}"),
            Self::Exporter(err) => write!(f, "the OTLP exporter could not be built: {err}"),
            Self::SubscriberInstalled => f.write_str(
                "a global tracing subscriber is installed already; Telemetry::init installs its own, \
                 so call it instead of logging::init",
            ),
        }
    }
}

impl std::error::Error for TelemetryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Exporter(err) => Some(err),
            _ => None,
        }
    }
}

impl From<opentelemetry_otlp::ExporterBuildError> for TelemetryError {
    fn from(err: opentelemetry_otlp::ExporterBuildError) -> Self {
        Self::Exporter(err)
    }
}

/// What to export and where: the `OTEL_*` variables, and what code sets over them.
#[derive(Clone, Debug)]
#[must_use = "a Telemetry does nothing until `init`"]
pub struct Telemetry {
    service_name: String,
    endpoint: Option<String>,
    protocol: Option<Protocol>,
    headers: Vec<(String, String)>,
    resource_attributes: Vec<(String, String)>,
    sampler: Option<Sampler>,
    max_queue_size: Option<usize>,
    export_metrics: bool,
    metric_interval: Option<Duration>,
    export_logs: bool,
    shutdown_timeout: Duration,
    certificate: Option<Vec<u8>>,
}

impl Telemetry {
    /// Telemetry of the service `service_name` (`service.name`, unless
    /// `OTEL_SERVICE_NAME` names another), configured by the `OTEL_*`
    /// variables: traces and metrics exported, log lines not.
    pub fn new(service_name: impl Into<String>) -> Self {
        Self {
            service_name: service_name.into(),
            endpoint: None,
            protocol: None,
            headers: Vec::new(),
            resource_attributes: Vec::new(),
            sampler: None,
            max_queue_size: None,
            export_metrics: true,
            metric_interval: None,
            export_logs: false,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            certificate: None,
        }
    }

    /// The collector's base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`): over HTTP,
    /// each signal goes to its path under it (`/v1/traces`, `/v1/metrics`,
    /// `/v1/logs`); over gRPC, to the URL itself.
    pub fn endpoint(mut self, url: impl Into<String>) -> Self {
        self.endpoint = Some(url.into());
        self
    }

    /// The transport (`OTEL_EXPORTER_OTLP_PROTOCOL`; [`Protocol::HttpProtobuf`] by default).
    pub fn protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = Some(protocol);
        self
    }

    /// A header (gRPC: metadata) sent with every export, such as a vendor's
    /// API key (`OTEL_EXPORTER_OTLP_HEADERS`).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// A resource attribute (`deployment.environment.name`, ..) beside those
    /// of `OTEL_RESOURCE_ATTRIBUTES`.
    pub fn resource_attribute(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.resource_attributes.push((key.into(), value.into()));
        self
    }

    /// Which traces are kept (`OTEL_TRACES_SAMPLER`; parent-based, always on,
    /// by default). A span sampled out costs its `tracing` span, nothing more.
    pub fn sampler(mut self, sampler: Sampler) -> Self {
        self.sampler = Some(sampler);
        self
    }

    /// The most spans waiting for export (`OTEL_BSP_MAX_QUEUE_SIZE`,
    /// [`DEFAULT_MAX_QUEUE_SIZE`] by default); more are dropped and counted.
    pub fn max_queue_size(mut self, spans: usize) -> Self {
        self.max_queue_size = Some(spans.max(1));
        self
    }

    /// Whether the metrics go over OTLP too (on by default); how often
    /// (`OTEL_METRIC_EXPORT_INTERVAL`, 60 s by default) is [`metric_interval`](Self::metric_interval).
    pub fn metrics(mut self, export: bool) -> Self {
        self.export_metrics = export;
        self
    }

    /// How often the metrics are exported.
    pub fn metric_interval(mut self, interval: Duration) -> Self {
        self.metric_interval = Some(interval);
        self
    }

    /// Whether the log lines (the `tracing` events the stderr log shows, as
    /// `RUST_LOG` filters them) go over OTLP too; off by default, as a log
    /// pipeline usually collects stderr already.
    pub fn logs(mut self, export: bool) -> Self {
        self.export_logs = export;
        self
    }

    /// The certificate an `https://` collector's is checked against: the PEM
    /// of the CA that signed it, or the collector's own
    /// (`OTEL_EXPORTER_OTLP_CERTIFICATE` names such a file). Without one, the
    /// system's roots are trusted.
    pub fn certificate(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.certificate = Some(pem.into());
        self
    }

    /// How long [`TelemetryHandle::shutdown`] may take ([`DEFAULT_SHUTDOWN_TIMEOUT`] by default).
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// Build the pipeline and install it: the global `tracing` subscriber
    /// (stderr as [`logging::init`](crate::logging::init) writes it, filtered
    /// by `RUST_LOG`, plus the OTLP export), and OpenTelemetry's global
    /// propagator (W3C trace context and baggage) and tracer and meter
    /// providers. With `OTEL_SDK_DISABLED=true`, only the stderr log.
    ///
    /// Over gRPC, call it inside the tokio runtime that serves.
    ///
    /// # Errors
    ///
    /// [`TelemetryError`]: a setting that cannot be used, an exporter that
    /// cannot be built, or a global subscriber installed already.
    pub fn init(self) -> Result<TelemetryHandle, TelemetryError> {
        let (filter, stderr, writer) = crate::logging::stderr_layer();
        if disabled_by_env() {
            tracing_subscriber::registry()
                .with(filter)
                .with(stderr)
                .try_init()
                .map_err(|_| TelemetryError::SubscriberInstalled)?;
            crate::logging::installed(writer);
            return Ok(TelemetryHandle { inner: Arc::new(Inner::disabled(self.shutdown_timeout)) });
        }
        let (layer, handle) = self.layer()?;
        tracing_subscriber::registry()
            .with(filter)
            .with(stderr)
            .with(layer)
            .try_init()
            .map_err(|_| TelemetryError::SubscriberInstalled)?;
        crate::logging::installed(writer);
        Ok(handle)
    }

    /// [`init`](Self::init) for an application that installs its own
    /// subscriber: the layer that exports the spans (and, with
    /// [`logs`](Self::logs), the log lines), to add to it. OpenTelemetry's
    /// global propagator and providers are set; no subscriber is installed.
    ///
    /// ```no_run
    /// use tracing_subscriber::layer::SubscriberExt;
    /// use tracing_subscriber::util::SubscriberInitExt;
    ///
    /// let (otel, telemetry) = mcp_contract_runtime::telemetry::Telemetry::new("museum").layer()?;
    /// tracing_subscriber::registry().with(otel).init();
    /// # Ok::<(), mcp_contract_runtime::telemetry::TelemetryError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A setting that cannot be used, or an exporter that cannot be built.
    pub fn layer<S>(self) -> Result<(TelemetryLayer<S>, TelemetryHandle), TelemetryError>
    where
        S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span> + Send + Sync,
    {
        let inner = self.build()?;
        // A list, not `Option`s: a `None` layer hints "no level at all", which
        // would turn every span off under a subscriber with no other layer.
        let mut layers: Vec<TelemetryLayer<S>> = Vec::new();
        if let Some(provider) = &inner.tracer_provider {
            layers.push(tracing_opentelemetry::layer().with_tracer(provider.tracer("mcp-contract")).boxed());
        }
        // The exporters' own HTTP and gRPC clients log too: their events are
        // never exported as log records, which would feed the export itself.
        if let Some(provider) = &inner.logger_provider {
            let bridge = opentelemetry_appender_tracing::layer::OpenTelemetryTracingBridge::new(provider)
                .with_filter(tracing_subscriber::filter::filter_fn(|metadata| !is_exporter_target(metadata.target())));
            layers.push(bridge.boxed());
        }
        opentelemetry::global::set_text_map_propagator(TextMapCompositePropagator::new(vec![
            Box::new(TraceContextPropagator::new()),
            Box::new(BaggagePropagator::new()),
        ]));
        if let Some(provider) = &inner.tracer_provider {
            opentelemetry::global::set_tracer_provider(provider.clone());
        }
        if let Some(provider) = &inner.meter_provider {
            opentelemetry::global::set_meter_provider(provider.clone());
            metrics::install(provider, Arc::clone(&inner.drops));
        }
        Ok((layers.boxed(), TelemetryHandle { inner: Arc::new(inner) }))
    }

    /// The providers, unregistered.
    fn build(mut self) -> Result<Inner, TelemetryError> {
        let sampler = self.sampler.take();
        let protocol = match self.protocol {
            Some(protocol) => protocol,
            None => match env_value(&["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"]) {
                Some(value) => Protocol::from_env_value(&value)?,
                None => Protocol::HttpProtobuf,
            },
        };
        // tonic's channel is served by a task of the runtime it is built in.
        if protocol == Protocol::Grpc && tokio::runtime::Handle::try_current().is_err() {
            return Err(TelemetryError::Config(
                "the gRPC export must be set up inside the tokio runtime that serves: call Telemetry::init \
                 in `#[tokio::main] async fn main`, or export over `http/protobuf`"
                    .to_owned(),
            ));
        }
        let mut resource = Resource::builder();
        if std::env::var("OTEL_SERVICE_NAME").map_or(true, |name| name.trim().is_empty()) {
            resource = resource.with_service_name(self.service_name.clone());
        }
        let resource = resource
            .with_attributes(
                self.resource_attributes.iter().map(|(key, value)| KeyValue::new(key.clone(), value.clone())),
            )
            .build();
        let certificate = match &self.certificate {
            Some(pem) => Some(pem.clone()),
            None => tls::certificate_from_env()?,
        };
        let signals = [TRACES_ENDPOINT_ENV, METRICS_ENDPOINT_ENV, LOGS_ENDPOINT_ENV];
        let https = match protocol {
            // One client, and its runtime thread, for the signals that go to an `https://` collector.
            Protocol::HttpProtobuf if signals.iter().any(|signal| self.is_https(signal)) => {
                Some(Arc::new(tls::HttpsClient::new(certificate.as_deref(), None)?) as Arc<dyn HttpClient>)
            }
            _ => None,
        };
        let exporters = Exporters {
            protocol,
            endpoint: self.endpoint.as_deref(),
            headers: &self.headers,
            telemetry: &self,
            https,
            certificate: certificate.as_deref(),
        };
        let max_queue_size = self
            .max_queue_size
            .or_else(|| env_value(&["OTEL_BSP_MAX_QUEUE_SIZE"]).and_then(|size| size.trim().parse().ok()))
            .unwrap_or(DEFAULT_MAX_QUEUE_SIZE)
            .max(1);
        let drops = Arc::new(export::Drops::default());
        let queue = export::Queue::new(max_queue_size, Arc::clone(&drops));
        let span_exporter = export::Counted::new(exporters.spans()?, queue.clone());
        let batch = BatchSpanProcessor::builder(span_exporter)
            // The gate in front keeps at most `max_queue_size` spans queued or
            // in export, so the SDK's own queue, as large, never overflows
            // uncounted.
            .with_batch_config(BatchConfigBuilder::default().with_max_queue_size(max_queue_size).build())
            .build();
        let mut tracer_provider = SdkTracerProvider::builder()
            .with_span_processor(export::Bounded::new(batch, queue))
            .with_resource(resource.clone());
        if let Some(sampler) = sampler {
            tracer_provider = tracer_provider.with_sampler(sampler);
        }
        let meter_provider = if self.export_metrics {
            let mut reader = PeriodicReader::builder(exporters.metrics()?);
            if let Some(interval) = self.metric_interval {
                reader = reader.with_interval(interval);
            }
            Some(SdkMeterProvider::builder().with_reader(reader.build()).with_resource(resource.clone()).build())
        } else {
            None
        };
        let logger_provider = if self.export_logs {
            Some(SdkLoggerProvider::builder().with_batch_exporter(exporters.logs()?).with_resource(resource).build())
        } else {
            None
        };
        Ok(Inner {
            tracer_provider: Some(tracer_provider.build()),
            meter_provider,
            logger_provider,
            drops,
            shutdown_timeout: self.shutdown_timeout,
        })
    }
}

/// The variables of each signal's own endpoint, over the shared one's.
const TRACES_ENDPOINT_ENV: &str = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
const METRICS_ENDPOINT_ENV: &str = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT";
const LOGS_ENDPOINT_ENV: &str = "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT";

impl Telemetry {
    /// Whether the signal whose endpoint variable is `signal_env` goes to an
    /// `https://` collector, as the exporter resolves its endpoint: what code
    /// set, else the signal's variable, else the shared one.
    fn is_https(&self, signal_env: &str) -> bool {
        let endpoint = self.endpoint.clone().or_else(|| env_value(&[signal_env, "OTEL_EXPORTER_OTLP_ENDPOINT"]));
        endpoint.is_some_and(|url| url.trim().get(..8).is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://")))
    }
}

/// The exporters of one [`Telemetry`]: the same transport, endpoint and headers for each signal.
struct Exporters<'a> {
    protocol: Protocol,
    endpoint: Option<&'a str>,
    headers: &'a [(String, String)],
    telemetry: &'a Telemetry,
    /// The OTLP/HTTP client of the signals that go to an `https://` collector.
    https: Option<Arc<dyn HttpClient>>,
    /// The PEM a collector's certificate is checked against, if given.
    certificate: Option<&'a [u8]>,
}

/// One `build` per signal: the three exporter builders share no trait that builds.
macro_rules! build_exporter {
    ($self:ident, $builder:expr, $path:literal, $signal_env:expr) => {{
        let https = $self.telemetry.is_https($signal_env);
        match $self.protocol {
            Protocol::HttpProtobuf => {
                let mut builder = $builder.with_http().with_protocol(opentelemetry_otlp::Protocol::HttpBinary);
                if let Some(base) = $self.endpoint {
                    builder = builder.with_endpoint(format!("{}{}", base.trim_end_matches('/'), $path));
                }
                if let Some(client) = $self.https.as_ref().filter(|_| https) {
                    builder = builder.with_shared_http_client(Arc::clone(client));
                }
                if !$self.headers.is_empty() {
                    builder = builder.with_headers($self.headers.iter().cloned().collect::<HashMap<_, _>>());
                }
                builder.build()?
            }
            Protocol::Grpc => {
                let mut builder = $builder.with_tonic().with_protocol(opentelemetry_otlp::Protocol::Grpc);
                if let Some(base) = $self.endpoint {
                    builder = builder.with_endpoint(base.to_owned());
                }
                if https {
                    builder = builder.with_tls_config(tls::grpc_config($self.certificate)?);
                }
                if !$self.headers.is_empty() {
                    builder = builder.with_metadata($self.metadata()?);
                }
                builder.build()?
            }
        }
    }};
}

impl Exporters<'_> {
    fn spans(&self) -> Result<opentelemetry_otlp::SpanExporter, TelemetryError> {
        Ok(build_exporter!(self, opentelemetry_otlp::SpanExporter::builder(), "/v1/traces", TRACES_ENDPOINT_ENV))
    }

    fn metrics(&self) -> Result<opentelemetry_otlp::MetricExporter, TelemetryError> {
        Ok(build_exporter!(self, opentelemetry_otlp::MetricExporter::builder(), "/v1/metrics", METRICS_ENDPOINT_ENV))
    }

    fn logs(&self) -> Result<opentelemetry_otlp::LogExporter, TelemetryError> {
        Ok(build_exporter!(self, opentelemetry_otlp::LogExporter::builder(), "/v1/logs", LOGS_ENDPOINT_ENV))
    }

    fn metadata(&self) -> Result<tonic::metadata::MetadataMap, TelemetryError> {
        let mut headers = http::HeaderMap::new();
        for (name, value) in self.headers {
            let bad = || TelemetryError::Config(format!("the export header `{name}` is not a valid header"));
            let name = http::HeaderName::from_bytes(name.to_ascii_lowercase().as_bytes()).map_err(|_| bad())?;
            headers.insert(name, http::HeaderValue::from_str(value).map_err(|_| bad())?);
        }
        Ok(tonic::metadata::MetadataMap::from_headers(headers))
    }
}

/// The first of `names` set to a non-empty value.
fn env_value(names: &[&str]) -> Option<String> {
    names.iter().find_map(|name| std::env::var(name).ok().filter(|value| !value.trim().is_empty()))
}

/// `OTEL_SDK_DISABLED=true`: the SDK's switch for "no telemetry".
fn disabled_by_env() -> bool {
    env_value(&["OTEL_SDK_DISABLED"]).is_some_and(|value| value.trim().eq_ignore_ascii_case("true"))
}

/// The targets of the exporters' own clients, whose events never become log records.
fn is_exporter_target(target: &str) -> bool {
    [
        "opentelemetry",
        "opentelemetry_sdk",
        "opentelemetry_otlp",
        "opentelemetry_http",
        "hyper",
        "hyper_util",
        "h2",
        "tonic",
        "tower",
        "reqwest",
    ]
    .iter()
    .any(|prefix| target.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with("::")))
}

/// The installed pipeline: flushed by [`shutdown`](Self::shutdown), which
/// [`Server::telemetry`](crate::server::Server::telemetry) calls when serving stops.
/// Cloning is cheap; the clones share the pipeline.
#[derive(Clone)]
pub struct TelemetryHandle {
    inner: Arc<Inner>,
}

struct Inner {
    tracer_provider: Option<SdkTracerProvider>,
    meter_provider: Option<SdkMeterProvider>,
    logger_provider: Option<SdkLoggerProvider>,
    drops: Arc<export::Drops>,
    shutdown_timeout: Duration,
}

impl Inner {
    fn disabled(shutdown_timeout: Duration) -> Self {
        Self {
            tracer_provider: None,
            meter_provider: None,
            logger_provider: None,
            drops: Arc::default(),
            shutdown_timeout,
        }
    }
}

impl fmt::Debug for TelemetryHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TelemetryHandle")
            .field("traces", &self.inner.tracer_provider.is_some())
            .field("metrics", &self.inner.meter_provider.is_some())
            .field("logs", &self.inner.logger_provider.is_some())
            .field("dropped_spans", &self.dropped_spans())
            .finish()
    }
}

impl TelemetryHandle {
    /// The spans dropped so far: those that found the queue full, and those
    /// whose batch the collector did not take.
    pub fn dropped_spans(&self) -> u64 {
        self.inner.drops.count()
    }

    /// How long [`shutdown`](Self::shutdown) may take.
    pub fn shutdown_timeout(&self) -> Duration {
        self.inner.shutdown_timeout
    }

    /// Send what is queued (spans, the metrics read now, log records) and stop
    /// exporting, all within the shutdown timeout; `true` when everything was
    /// sent in time. Blocking: from async code, call it on a blocking thread
    /// (`tokio::task::spawn_blocking`), as [`Server::telemetry`](crate::server::Server::telemetry) does.
    pub fn shutdown(&self) -> bool {
        let lost_before = self.dropped_spans();
        let deadline = Instant::now() + self.inner.shutdown_timeout;
        let left = || deadline.saturating_duration_since(Instant::now());
        let mut whole = true;
        if let Some(provider) = &self.inner.tracer_provider {
            whole &= provider.shutdown_with_timeout(left()).is_ok();
        }
        if let Some(provider) = &self.inner.meter_provider {
            whole &= provider.shutdown_with_timeout(left()).is_ok();
        }
        if let Some(provider) = &self.inner.logger_provider {
            whole &= provider.shutdown_with_timeout(left()).is_ok();
        }
        // The SDK's shutdown succeeds when the collector refused the last
        // batch; the count says whether it was sent.
        whole && self.dropped_spans() == lost_before
    }

    /// Send the spans queued so far now, waiting at most the shutdown timeout
    /// (for a test, or before a process exits by another way than shutdown).
    pub fn force_flush(&self) -> bool {
        let mut whole = true;
        if let Some(provider) = &self.inner.tracer_provider {
            whole &= provider.force_flush().is_ok();
        }
        if let Some(provider) = &self.inner.meter_provider {
            whole &= provider.force_flush().is_ok();
        }
        if let Some(provider) = &self.inner.logger_provider {
            whole &= provider.force_flush().is_ok();
        }
        whole
    }
}

/// Put the current span's trace context (`traceparent`, `tracestate`, and
/// any baggage) into `headers`, for a handler's own request upstream: the
/// upstream's spans then continue the call's trace.
///
/// ```
/// let mut headers = mcp_contract_runtime::http::HeaderMap::new();
/// mcp_contract_runtime::telemetry::inject_headers(&mut headers);
/// // Without Telemetry::init (no propagator, no sampled span) nothing is added.
/// assert!(headers.get("traceparent").is_none());
/// ```
pub fn inject_headers(headers: &mut http::HeaderMap) {
    let context = tracing::Span::current().context();
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(&context, &mut HeaderInjector(headers));
    });
}

/// [`inject_headers`] on a `reqwest` request being built (feature `reqwest`).
///
/// ```no_run
/// # async fn f(client: reqwest::Client) -> Result<(), reqwest::Error> {
/// let request = client.get("https://catalogue.example/items");
/// let response = mcp_contract_runtime::telemetry::inject_reqwest(request).send().await?;
/// # Ok(()) }
/// ```
#[cfg(feature = "reqwest")]
pub fn inject_reqwest(request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    let mut headers = http::HeaderMap::new();
    inject_headers(&mut headers);
    request.headers(headers)
}

struct HeaderInjector<'a>(&'a mut http::HeaderMap);

impl Injector for HeaderInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(name), Ok(value)) =
            (http::HeaderName::from_bytes(key.as_bytes()), http::HeaderValue::from_str(&value))
        {
            self.0.insert(name, value);
        }
    }
}

/// The current span's trace context, as the entries of a request's `_meta`
/// (SEP-414 places `traceparent`, `tracestate` and `baggage` at its root):
/// what a request the server sends the client carries.
pub(crate) fn current_meta() -> Vec<(String, String)> {
    let context = tracing::Span::current().context();
    let mut entries = MetaInjector(Vec::new());
    opentelemetry::global::get_text_map_propagator(|propagator| propagator.inject_context(&context, &mut entries));
    entries.0
}

struct MetaInjector(Vec<(String, String)>);

impl Injector for MetaInjector {
    fn set(&mut self, key: &str, value: String) {
        self.0.push((key.to_owned(), value));
    }
}

/// A request's carrier, for the propagator to read.
struct CarrierExtractor<'a>(&'a CallTrace);

impl Extractor for CarrierExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.carrier.iter().map(|(key, _)| *key).collect()
    }
}

/// Make the call's span what the OpenTelemetry export shows: named
/// `{mcp.method.name} {target}`, and the child of the trace context the
/// request came with (none: a root, or the child of the span current here).
pub(crate) fn adopt(span: &tracing::Span, method: &str, target: Option<&str>, trace: Option<&CallTrace>) {
    if span.is_disabled() {
        return;
    }
    match target {
        Some(target) => span.record("otel.name", format!("{method} {target}")),
        None => span.record("otel.name", method),
    };
    let Some(trace) = trace.filter(|trace| trace.get("traceparent").is_some()) else { return };
    let parent: OtelContext =
        opentelemetry::global::get_text_map_propagator(|propagator| propagator.extract(&CarrierExtractor(trace)));
    // A malformed `traceparent` extracts as no span: the call's span stays a root then.
    let _ = span.set_parent(parent);
    if let Some(ambient) = &trace.ambient {
        link(span, ambient);
    }
}

/// Link `span` to the span a W3C `traceparent` names (the HTTP request's,
/// beside `_meta`'s parent; the call that created a task, on its later
/// rounds). A malformed one links nothing.
pub(crate) fn link(span: &tracing::Span, traceparent: &str) {
    if span.is_disabled() {
        return;
    }
    let carrier = HashMap::from([("traceparent".to_owned(), traceparent.to_owned())]);
    let context = TraceContextPropagator::new().extract(&carrier);
    let linked = context.span().span_context().clone();
    if linked.is_valid() {
        span.add_link(linked);
    }
}

/// The W3C `traceparent` of `span` as OpenTelemetry exports it, for a span
/// to link to it later, maybe from another replica; none for a span that is
/// not recorded (no subscriber, or the layer is not installed).
pub(crate) fn traceparent(span: &tracing::Span) -> Option<String> {
    let context = span.context();
    let span_context = context.span().span_context().clone();
    span_context.is_valid().then(|| {
        format!("00-{}-{}-{:02x}", span_context.trace_id(), span_context.span_id(), span_context.trace_flags().to_u8())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exporters_own_clients_are_kept_from_the_log_export() {
        assert!(is_exporter_target("hyper"));
        assert!(is_exporter_target("hyper::proto::h1"));
        assert!(is_exporter_target("opentelemetry_sdk"));
        assert!(!is_exporter_target("hyperion"));
        assert!(!is_exporter_target("mcp_contract_runtime::server"));
    }

    #[test]
    fn the_grpc_export_outside_a_runtime_is_refused_with_the_fix() {
        let err = Telemetry::new("test").protocol(Protocol::Grpc).endpoint("http://127.0.0.1:4317").build();
        let err = err.err().expect("refused outside a runtime").to_string();
        assert!(err.contains("#[tokio::main]") && err.contains("http/protobuf"), "{err}");
    }

    #[test]
    fn the_protocol_names_of_the_variable_are_read_and_others_refused() {
        assert_eq!(Protocol::from_env_value("grpc").unwrap(), Protocol::Grpc);
        assert_eq!(Protocol::from_env_value(" http/protobuf ").unwrap(), Protocol::HttpProtobuf);
        let refused = Protocol::from_env_value("http/json").unwrap_err().to_string();
        assert!(refused.contains("http/json") && refused.contains("grpc"), "{refused}");
    }
}
