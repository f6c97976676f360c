//! Streamable HTTP: the application every request passes (guard, auth,
//! rmcp's service, the landing page, health and metrics routes), served on
//! the listener until a shutdown signal.

mod options;

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::store::SessionStore;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;

use crate::auth::AuthConfig;
use crate::server::dispatch::handler::ToolServer;
use crate::server::dispatch::lifecycle::Serving;
use crate::server::dispatch::streams::{Primings, SessionStreams};
use crate::server::error::ServerError;
use crate::server::store::events::EventStore;
use crate::server::store::sessions::{LayeredSessions, MemorySessions};
use crate::server::transport::guard::{self, Guard};
use crate::server::transport::listener::{self, ClientSlots, ConnectionLimits};
use crate::server::transport::proxy::Proxying;

use crate::server::transport::signal::cancel_on_signal;
pub use options::{DEFAULT_SSE_RETRY, HttpOptions};
use options::{READINESS_TIMEOUT, Readiness};

impl ToolServer {
    /// Serve Streamable HTTP on a bound listener (bind port 0 and read
    /// `local_addr` to let the system choose the port).
    ///
    /// # Errors
    ///
    /// [`ServerError::Io`] when accepting connections fails; [`ServerError::Auth`]
    /// when the auth configuration (from [`Server::auth`](crate::server::Server::auth), else the environment)
    /// cannot be honoured.
    pub async fn serve_http_on(self, listener: TcpListener, options: HttpOptions) -> Result<(), ServerError> {
        let shutdown = options.shutdown.clone();
        let drain = Arc::new(guard::Drain::default());
        let lifecycle = self.lifecycle();
        let trusted = super::proxy::TrustedProxies::parse(&options.trusted_proxies)
            .map_err(|why| ServerError::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, why)))?;
        let proxying = Arc::new(Proxying {
            trusted: Arc::new(trusted),
            clients: ClientSlots::new(options.max_connections_per_client),
        });
        // Listen streams end with their final result as shutdown begins,
        // while their clients read and before the drain cuts what is left.
        let shared = self.shared_store().cloned();
        let router = self.stopping_with(shutdown.clone()).http_router(&options, &drain, &proxying)?;
        lifecycle.start(Serving { addr: listener.local_addr().ok(), stopping: shutdown.clone() }).await?;
        let signals = options.handle_signals.then(|| tokio::spawn(cancel_on_signal(shutdown.clone())));
        let limits = ConnectionLimits {
            max_connections: options.max_connections,
            header_read_timeout: options.header_read_timeout,
            idle_timeout: options.idle_timeout,
            request_read_timeout: options.request_read_timeout,
        };
        // Once `shutdown` is cancelled no connection is accepted; the calls in
        // flight have the grace period, then `cut` ends the sessions too,
        // whose open SSE streams would otherwise hold the shutdown forever.
        let grace = tokio::spawn({
            let (drain, shutdown, grace) = (Arc::clone(&drain), shutdown.clone(), options.shutdown_grace);
            async move {
                shutdown.cancelled().await;
                drain.begin();
                if tokio::time::timeout(grace, drain.idle()).await.is_err() {
                    tracing::warn!(
                        "shutting down: the grace period ended with calls in flight; they are answered with an error"
                    );
                }
                drain.cut.cancel();
            }
        });
        let clients = (Arc::clone(&proxying.clients), Arc::clone(&proxying.trusted));
        listener::serve(listener, router, limits, clients, shutdown, drain.cut.clone()).await;
        grace.abort();
        if let Some(signals) = signals {
            signals.abort();
        }
        // The events sent last may still be on their way to the shared store.
        if let Some(shared) = shared {
            shared.flush().await;
        }
        lifecycle.stop().await;
        Ok(())
    }

    /// The HTTP application: rmcp's Streamable HTTP service at `options.path`,
    /// behind the layers every request passes, outermost first:
    ///
    /// 1. [`guard::check_origin`]: `Origin` (403), CORS preflight, and the
    ///    endpoint's status document (`GET` without `text/event-stream`).
    ///
    /// 2. [`auth::protect`](super::auth::protect): the bearer token of the
    ///    MCP endpoint, when auth is on; its metadata document stays open.
    ///
    /// 3. [`guard::check_messages`]: the body read within its deadline, a
    ///    JSON-RPC error for a body that is not a valid message, one request
    ///    per id and session, the session cap, and 404 for an unknown session.
    ///
    /// Beside the endpoint, [`landing::mount`](super::landing::mount) serves
    /// the landing page, `robots.txt` and the server card, and makes the
    /// status document; the card alone is outside the Origin check (any
    /// origin may read it).
    fn http_router(
        self,
        options: &HttpOptions,
        drain: &Arc<guard::Drain>,
        proxying: &Arc<Proxying>,
    ) -> Result<axum::Router, ServerError> {
        let mut config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(!options.stateless)
            .with_json_response(options.json_response)
            .with_max_request_body_bytes(options.max_body_bytes)
            .with_cancellation_token(drain.cut.child_token());
        if let Some(hosts) = &options.allowed_hosts {
            config = config.with_allowed_hosts(hosts.clone());
        }
        let mut config = config.with_sse_retry(Some(options.sse_retry));
        // A store shared with other replicas keeps the sessions' `initialize`
        // (a replica restores a session it does not hold) and the SSE events
        // (a stream resumes on any replica); it stands in for the options' store.
        let shared = self.shared_store().cloned();
        if let Some(shared) = &shared
            && !options.stateless
        {
            config.session_store = Some(shared.session_store());
        }
        let event_store = match &shared {
            Some(shared) => Some(shared.event_store()),
            None => options.event_store.clone(),
        };
        let primings = event_store.map(|store| Arc::new(Primings::new(store)));
        let mut manager = LocalSessionManager::default();
        if let Some(primings) = &primings {
            manager = manager.with_event_store(Arc::clone(primings) as Arc<dyn EventStore>);
        }
        manager.session_config.keep_alive = Some(options.session_idle_timeout);
        // Idle sessions hibernate (past a delay, or past the cap of awake
        // sessions, the idlest first): rmcp restores one from its
        // `initialize`, kept in memory (and in the shared store, when there
        // is one). A cap the session cap makes unreachable needs none of it.
        let hibernates = options.session_hibernate_after.is_some() || options.max_awake_sessions < options.max_sessions;
        let hibernate = if hibernates && !options.stateless {
            let memory = Arc::new(MemorySessions::default());
            config.session_store = Some(match config.session_store.take() {
                Some(shared) => Arc::new(LayeredSessions { local: Arc::clone(&memory), shared }),
                None => Arc::clone(&memory) as Arc<dyn SessionStore>,
            });
            let hibernate = guard::Hibernate {
                after: options.session_hibernate_after,
                max_awake: options.max_awake_sessions,
                idle_timeout: options.session_idle_timeout,
                memory,
                clocks: Arc::default(),
                settled: tokio::sync::Notify::new(),
                crowded: Arc::default(),
            };
            // The guard ends an idle session first: a worker closed by
            // rmcp's own timer could be restored from what is kept.
            manager.session_config.keep_alive = Some(options.session_idle_timeout.saturating_add(hibernate.margin()));
            Some(hibernate)
        } else {
            None
        };
        let clocks = hibernate.as_ref().map(|hibernate| Arc::clone(&hibernate.clocks));
        manager.session_config.sse_retry = Some(options.sse_retry);
        let manager = Arc::new(manager);
        #[cfg(feature = "metrics")]
        let (server, metrics) = match &options.metrics_path {
            Some(path) => {
                let taken = [options.path.as_str(), "/healthz", "/readyz"];
                if !path.starts_with('/') || taken.contains(&path.as_str()) {
                    return Err(ServerError::Io(std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        format!(
                            "the metrics path `{path}` is not free: it must start with `/` and be none of \
                             `{}`, `/healthz` and `/readyz`; use `/metrics`",
                            options.path
                        ),
                    )));
                }
                let mut metrics = crate::server::dispatch::metrics::Metrics::new(
                    #[cfg(feature = "pacer")]
                    self.pacers(),
                );
                if let (None, Some(store)) = (&shared, &options.memory_events) {
                    metrics.watch_event_store(Arc::clone(store));
                }
                let metrics = Arc::new(metrics);
                (self.with_metrics(Arc::clone(&metrics)), Some((path.clone(), metrics)))
            }
            None => (self, None),
        };
        #[cfg(not(feature = "metrics"))]
        let server = self;
        #[cfg(feature = "rate-limit")]
        let server = match options.rate_limit {
            Some(limit) => server.with_rate_limit(limit),
            None => server,
        };
        let (template, auth) = super::auth::prepare(server, &options.path)?;
        let template = match &clocks {
            Some(clocks) => template.with_hibernation(Arc::clone(clocks)),
            None => template,
        };
        let sessions = (!options.stateless).then(|| (Arc::clone(&manager), options.max_sessions, hibernate));
        let shared_for_streams = shared.clone().filter(|_| !options.stateless);
        let mut streams = SessionStreams::new(
            Arc::clone(&manager),
            primings,
            Some(options.sse_retry),
            options.close_call_streams_after,
        );
        if let Some(shared) = shared_for_streams {
            streams = streams.with_shared_store(shared, template.rerunnable_tools());
        }
        if let Some(clocks) = clocks {
            streams = streams.with_hibernation(clocks);
        }
        let streams = Arc::new(streams);
        let mut direct = guard::Direct::new(Arc::clone(&streams), &config.allowed_hosts, config.sse_keep_alive);
        if let (None, Some(store)) = (&shared, &options.memory_events) {
            direct = direct.with_memory_events(Arc::clone(store));
        }
        let guard = Arc::new(Guard::new(
            &options.allowed_origins,
            options.max_body_bytes,
            config.allowed_hosts.clone(),
            sessions,
            Arc::clone(drain),
            shared,
            Some(direct),
        ));
        // `prepare` has accepted the config, so reading it again cannot fail.
        let auth_config = template.auth_config().cloned().map_or_else(AuthConfig::from_env, Ok).unwrap_or_default();
        let landing = super::landing::manifest(&template, &auth_config, &options.path, options.stateless);
        let service =
            Shared(Arc::new(StreamableHttpService::new(move || Ok(template.for_new_session()), streams, config)));
        let router = axum::Router::new()
            .route_service(&options.path, service)
            .route_layer(axum::middleware::from_fn_with_state(Arc::clone(&guard), guard::check_messages));
        // Auth covers only the MCP endpoint (its metadata routes stay open),
        // and sits outside the message checks, so a caller without a valid
        // token gets its 401 before any of its body is read; the Origin check
        // is outside both, and holds for every route but the server card.
        let router = super::auth::protect(router, auth);
        let router = health_routes(router, options.readiness.clone(), Arc::clone(drain));
        #[cfg(feature = "metrics")]
        let router = match metrics {
            Some((path, metrics)) => metrics_route(router, &path, metrics, Arc::clone(&guard)),
            None => router,
        };
        let mounted = super::landing::mount(router, landing, &auth_config);
        // The server card stays outside the Origin check: browsers and registries read it cross-origin.
        let origin = (guard, Arc::new(mounted.status));
        let router = mounted
            .guarded
            .layer(axum::middleware::from_fn_with_state(origin, guard::check_origin))
            .merge(mounted.open);
        if proxying.trusted.is_empty() {
            return Ok(router);
        }
        Ok(router.layer(axum::middleware::from_fn_with_state(Arc::clone(proxying), super::proxy::resolve)))
    }
}

/// rmcp's Streamable HTTP service behind an `Arc`. Every layer in front of
/// a route clones the service it wraps for each request, and rmcp's clones
/// its configuration (the allowed hosts and origins, as `String`s) with it:
/// six times a request. rmcp's own `call` clones the service and awaits
/// `handle`; so does this one, with a clone of the `Arc`.
#[derive(Clone)]
struct Shared<S>(Arc<S>);

type RmcpService = StreamableHttpService<ToolServer, SessionStreams>;

impl tower_service::Service<http::Request<axum::body::Body>> for Shared<RmcpService> {
    type Response = http::Response<http_body_util::combinators::BoxBody<axum::body::Bytes, std::convert::Infallible>>;
    type Error = std::convert::Infallible;
    type Future = futures::future::BoxFuture<'static, Result<Self::Response, Self::Error>>;

    fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<axum::body::Body>) -> Self::Future {
        let service = Arc::clone(&self.0);
        Box::pin(async move { Ok(service.handle(request).await) })
    }
}

/// `GET /healthz`, liveness: 200 while the server runs. `GET /readyz`,
/// readiness: 503 while shutting down or when the check fails, 200 otherwise.
/// Outside the bearer check: a load balancer's prober holds no token, and the
/// answers say nothing about the server beyond up or not.
fn health_routes(router: axum::Router, readiness: Option<Readiness>, drain: Arc<guard::Drain>) -> axum::Router {
    use axum::routing::get;
    let status = |code: http::StatusCode, status: &str| {
        let body = serde_json::json!({ "status": status }).to_string();
        let mut response = axum::response::Response::new(axum::body::Body::from(body));
        *response.status_mut() = code;
        let headers = response.headers_mut();
        headers.insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/json"));
        headers.insert(http::header::CACHE_CONTROL, http::HeaderValue::from_static("no-store"));
        response
    };
    let ready = move || {
        let (readiness, drain) = (readiness.clone(), Arc::clone(&drain));
        async move {
            if drain.is_draining() {
                return status(http::StatusCode::SERVICE_UNAVAILABLE, "shutting_down");
            }
            let Some(Readiness(check)) = readiness else { return status(http::StatusCode::OK, "ready") };
            match tokio::time::timeout(READINESS_TIMEOUT, check()).await {
                Ok(Ok(())) => status(http::StatusCode::OK, "ready"),
                Ok(Err(why)) => {
                    let why = crate::error::sanitize::cap_chars(&why, crate::server::wire::MAX_ERROR_MESSAGE_CHARS)
                        .unwrap_or(why);
                    tracing::warn!(reason = why, "the readiness check failed");
                    status(http::StatusCode::SERVICE_UNAVAILABLE, "not_ready")
                }
                Err(_) => {
                    tracing::warn!(timeout = ?READINESS_TIMEOUT, "the readiness check did not answer in time");
                    status(http::StatusCode::SERVICE_UNAVAILABLE, "not_ready")
                }
            }
        }
    };
    router
        .route("/healthz", get(move || async move { status(http::StatusCode::OK, "ok") }))
        .route("/readyz", get(ready))
}

/// `GET path`: the metrics, with the sessions open now.
#[cfg(feature = "metrics")]
fn metrics_route(
    router: axum::Router,
    path: &str,
    metrics: Arc<crate::server::dispatch::metrics::Metrics>,
    guard: Arc<guard::Guard>,
) -> axum::Router {
    let scrape = move || {
        let (metrics, guard) = (Arc::clone(&metrics), Arc::clone(&guard));
        async move {
            let (open, hibernating) = guard.session_count().await.unwrap_or_default();
            let body = metrics.render(open, hibernating);
            let mut response = axum::response::Response::new(axum::body::Body::from(body));
            let headers = response.headers_mut();
            let kind = http::HeaderValue::from_static(crate::server::dispatch::metrics::CONTENT_TYPE);
            headers.insert(http::header::CONTENT_TYPE, kind);
            headers.insert(http::header::CACHE_CONTROL, http::HeaderValue::from_static("no-store"));
            response
        }
    };
    router.route(path, axum::routing::get(scrape))
}

/// The HTTP application as [`ToolServer::serve_http_on`] serves it, without
/// a listener: for the fuzz target `http_headers`, which sends it requests.
#[cfg(fuzzing)]
pub(crate) fn fuzz_router(server: ToolServer, options: &HttpOptions) -> axum::Router {
    let trusted = super::proxy::TrustedProxies::parse(&options.trusted_proxies).expect("the options' proxies parse");
    let proxying = Arc::new(Proxying {
        trusted: Arc::new(trusted),
        clients: ClientSlots::new(options.max_connections_per_client),
    });
    server.http_router(options, &Arc::new(guard::Drain::default()), &proxying).expect("the application builds")
}
