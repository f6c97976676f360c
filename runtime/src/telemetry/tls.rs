//! The export to an `https://` collector: rustls on ring, as the crate's other
//! TLS clients (the JWKS fetch, `rediss://`), trusting the system's roots or
//! the certificate of `OTEL_EXPORTER_OTLP_CERTIFICATE`.
//!
//! Over OTLP/HTTP the exporter's own client (reqwest, blocking) is kept for
//! plain `http://`: turning on reqwest's rustls would either build aws-lc-rs
//! (a C build this workspace keeps out) or, without a provider, make every
//! reqwest client of the application panic. An `https://` collector gets
//! this module's client instead: hyper over rustls, on a runtime thread of
//! its own, as the SDK exports from threads of its own, outside any runtime.

use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use opentelemetry_http::{HttpError, Request, Response};

use super::TelemetryError;

/// The variable naming the PEM file of the certificate(s) a collector's is checked against.
pub(super) const CERTIFICATE_ENV: &str = "OTEL_EXPORTER_OTLP_CERTIFICATE";

/// A collector's answer larger than this is not an OTLP answer.
const MAX_RESPONSE_BYTES: usize = 4 * 1024 * 1024;

/// How long one export may take when `OTEL_EXPORTER_OTLP_TIMEOUT` does not say (the SDK's default).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The certificates of `pem`, checked now: a file that holds none is a
/// configuration error, not an export that fails at every batch.
pub(super) fn certificates(pem: &[u8]) -> Result<Vec<rustls::pki_types::CertificateDer<'static>>, TelemetryError> {
    use rustls::pki_types::pem::PemObject;
    let certificates: Vec<_> = rustls::pki_types::CertificateDer::pem_slice_iter(pem)
        .collect::<Result<_, _>>()
        .map_err(|err| TelemetryError::Config(format!("the collector's certificate is not PEM: {err}")))?;
    if certificates.is_empty() {
        return Err(TelemetryError::Config(format!(
            "the collector's certificate holds no `BEGIN CERTIFICATE` block; give the PEM file of the CA that \
             signed the collector's certificate ({CERTIFICATE_ENV})"
        )));
    }
    Ok(certificates)
}

/// The PEM of `OTEL_EXPORTER_OTLP_CERTIFICATE`, read now, if set.
pub(super) fn certificate_from_env() -> Result<Option<Vec<u8>>, TelemetryError> {
    let Some(path) = super::env_value(&[CERTIFICATE_ENV]) else { return Ok(None) };
    std::fs::read(path.trim())
        .map(Some)
        .map_err(|err| TelemetryError::Config(format!("{CERTIFICATE_ENV} names `{path}`, which cannot be read: {err}")))
}

/// rustls on ring, given to the connector ready-made rather than installed as
/// the process's default crypto provider, which belongs to the application:
/// trusting only `pem`'s certificates when given, else the platform's verifier.
fn client_config(pem: Option<&[u8]>) -> Result<rustls::ClientConfig, TelemetryError> {
    use rustls_platform_verifier::BuilderVerifierExt;
    let fail = |err: rustls::Error| TelemetryError::Config(format!("TLS to the collector cannot be set up: {err}"));
    let builder = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(fail)?;
    let config = match pem {
        Some(pem) => {
            let mut roots = rustls::RootCertStore::empty();
            for certificate in certificates(pem)? {
                roots.add(certificate).map_err(fail)?;
            }
            builder.with_root_certificates(roots)
        }
        None => builder.with_platform_verifier().map_err(fail)?,
    };
    Ok(config.with_no_client_auth())
}

/// The OTLP/HTTP client of an `https://` collector.
#[derive(Debug)]
pub(super) struct HttpsClient {
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
    /// Its own runtime: the SDK calls it from its export threads.
    runtime: OwnRuntime,
    timeout: Duration,
}

impl HttpsClient {
    /// A client that trusts `pem`'s certificates, or the system's roots, and
    /// gives up on an export after `timeout` (else `OTEL_EXPORTER_OTLP_TIMEOUT`, else 10 s).
    pub(super) fn new(pem: Option<&[u8]>, timeout: Option<Duration>) -> Result<Self, TelemetryError> {
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(client_config(pem)?)
            .https_only()
            .enable_http1()
            .build();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("otlp-https")
            .enable_all()
            .build()
            .map_err(|err| TelemetryError::Config(format!("the export's runtime thread cannot start: {err}")))?;
        let timeout = timeout.or_else(env_timeout).unwrap_or(DEFAULT_TIMEOUT);
        // The connection pool's tasks run on the client's runtime.
        let client = Client::builder(TokioExecutor::new()).build(connector);
        Ok(Self { client, runtime: OwnRuntime(Some(runtime)), timeout })
    }
}

/// `OTEL_EXPORTER_OTLP_TIMEOUT`, in milliseconds.
fn env_timeout() -> Option<Duration> {
    let millis = super::env_value(&["OTEL_EXPORTER_OTLP_TIMEOUT"])?;
    millis.trim().parse().ok().map(Duration::from_millis)
}

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for HttpsClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let (client, timeout) = (self.client.clone(), self.timeout);
        let exchange = async move {
            let response = client.request(request.map(Full::new)).await?;
            let (parts, body) = response.into_parts();
            let body = Limited::new(body, MAX_RESPONSE_BYTES).collect().await?.to_bytes();
            Ok::<_, HttpError>(Response::from_parts(parts, body))
        };
        let Some(runtime) = &self.runtime.0 else { return Err("the export's runtime has stopped".into()) };
        // Bounded: a collector that accepts the connection and never answers
        // costs the export its timeout, not its thread.
        let sent = runtime.spawn(async move { tokio::time::timeout(timeout, exchange).await });
        match sent.await {
            Ok(Ok(answered)) => answered,
            Ok(Err(_)) => Err(format!("the collector did not answer within {} ms", timeout.as_millis()).into()),
            Err(err) => Err(Box::new(err)),
        }
    }
}

/// A runtime shut down without waiting when the client goes, wherever that
/// is (dropping a runtime blocks, which panics on a runtime's own thread).
#[derive(Debug)]
struct OwnRuntime(Option<tokio::runtime::Runtime>);

impl Drop for OwnRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

/// The gRPC channel's TLS for an `https://` collector: `pem`'s certificates
/// when given, else the system's roots.
pub(super) fn grpc_config(pem: Option<&[u8]>) -> Result<tonic::transport::ClientTlsConfig, TelemetryError> {
    let config = tonic::transport::ClientTlsConfig::new();
    Ok(match pem {
        Some(pem) => {
            // Checked here, so that a file without a certificate is refused with the fix.
            certificates(pem)?;
            config.ca_certificate(tonic::transport::Certificate::from_pem(pem))
        }
        None => config.with_native_roots(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_file_without_a_certificate_is_refused_with_the_variable_named() {
        let err = certificates(b"not a certificate").unwrap_err().to_string();
        assert!(err.contains(CERTIFICATE_ENV) && err.contains("BEGIN CERTIFICATE"), "{err}");
        let err = HttpsClient::new(Some(b""), None).unwrap_err().to_string();
        assert!(err.contains(CERTIFICATE_ENV), "{err}");
    }
}
