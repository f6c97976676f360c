//! Sessions, SSE events and tasks in Redis, so that replicas behind a load
//! balancer share them: a session opened on one replica is restored on
//! another from its stored `initialize`, a stream cut on one is replayed on
//! another after its `Last-Event-ID`, a task started on one is read on another.
//!
//! A replay follows its stream live until the call's answer, woken by a
//! pub/sub message published with every event. The request of a call not
//! answered at once is kept beside its stream, with the replica running it,
//! and every replica renews a short-lived key while it runs: a replay that
//! follows a stream whose replica stopped before the answer ends, and the
//! session streams answer the call on the replica the client came back to.
//! A task is kept with its replica too, and reads as failed once that
//! replica stopped.
//!
//! Every key starts with `mcp:{namespace}:` (the server's name unless set), so
//! servers can share one Redis. Every command waits at most the store's
//! timeout; after a failure the store is not asked again for a moment, so
//! requests that need it are refused at once (503) instead of each waiting.

mod behind;
mod events;
mod follow;
mod health;
pub(crate) mod records;
mod replica;
mod sentinel;
mod sessions;
mod shared;
mod tasks;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use crate::server::error::RedisUrlError;
use follow::Followers;
use health::Health;
use sentinel::SentinelUrl;

/// The environment variable [`Server::run_cli`](crate::server::builder::Server::run_cli) reads
/// the Redis URL from, when the server was given none.
pub const REDIS_URL_ENV: &str = "MCP_REDIS_URL";

/// The environment variable of a PEM file [`Server::run_cli`](crate::server::builder::Server::run_cli)
/// checks a `rediss://` server of [`REDIS_URL_ENV`] against (see [`RedisStore::ca_certificate`]).
pub const REDIS_CA_FILE_ENV: &str = "MCP_REDIS_CA_FILE";

/// The environment variables of the PEM certificate and key the store of
/// [`REDIS_URL_ENV`] presents to a `rediss://` server that asks for one
/// (see [`RedisStore::client_certificate`]); both or neither.
pub const REDIS_CLIENT_CERT_FILE_ENV: &str = "MCP_REDIS_CLIENT_CERT_FILE";
/// See [`REDIS_CLIENT_CERT_FILE_ENV`].
pub const REDIS_CLIENT_KEY_FILE_ENV: &str = "MCP_REDIS_CLIENT_KEY_FILE";

/// The environment variable of the sentinels' own password for a
/// `redis+sentinel://` [`REDIS_URL_ENV`] (see [`RedisStore::sentinel_password`]).
pub const REDIS_SENTINEL_PASSWORD_ENV: &str = "MCP_REDIS_SENTINEL_PASSWORD";

/// The environment variable that turns on [`RedisStore::write_behind`] for
/// the store of [`REDIS_URL_ENV`]: `true` (or `1`, `yes`, `on`) sends a call's
/// events while they are written, `false` (or `0`, `no`, `off`, unset) once
/// they are stored.
pub const REDIS_WRITE_BEHIND_ENV: &str = "MCP_REDIS_WRITE_BEHIND";

/// How many events of one SSE stream are kept, by default: a stream is one
/// request's answer (its progress, logs, and the result) or a session's
/// standalone stream; the oldest go first.
pub const DEFAULT_EVENTS_PER_STREAM: usize = 1024;

/// How long an SSE event can be replayed, by default: past it, a client
/// resuming with `Last-Event-ID` gets only the events after it that are younger.
pub const DEFAULT_EVENT_AGE: Duration = Duration::from_secs(10 * 60);

/// How long a session is kept unused, by default, as
/// [`HttpOptions::session_idle_timeout`](crate::server::transport::http::HttpOptions::session_idle_timeout)
/// keeps one in memory: any request of the session, on any replica, pushes it back.
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(5 * 60);

/// How long one Redis command may take, by default, before the request that
/// needs it is refused (503).
pub const DEFAULT_REDIS_TIMEOUT: Duration = Duration::from_secs(1);

/// Streamable HTTP sessions, SSE events and tasks kept in Redis, for servers
/// whose replicas share them. [`Server::redis`](crate::server::builder::Server::redis) sets it
/// up from a URL in one call; this type is for a store with other retention.
///
/// A client whose stream was cut resumes it on any replica, which follows
/// the call live to its answer. When the replica running a call stopped
/// before answering, the replica the client resumed on answers it: it runs
/// the call again when that is safe (a tool annotated `read_only` or
/// `idempotent`, a resource read, a prompt, a completion), and else answers
/// that the call was lost, since it may have taken effect. A task whose
/// replica stopped reads as `failed`.
///
/// ```
/// use std::time::Duration;
/// // `mcp_contract::server::RedisStore` with the facade's `redis` feature.
/// use mcp_contract_runtime::server::{RedisStore, Server};
/// let store = RedisStore::new("redis://127.0.0.1:6379/")?
///     .namespace("museum-eu")
///     .events_per_stream(256)
///     .event_age(Duration::from_secs(120));
/// let server = Server::new("museum", "1.0.0").redis_store(store);
/// # let _ = server;
/// # Ok::<(), mcp_contract_runtime::server::RedisUrlError>(())
/// ```
///
/// Nothing connects before the first command, which waits at most
/// [`RedisStore::timeout`]; a connection lost is made again by itself.
#[derive(Clone)]
pub struct RedisStore {
    inner: Arc<Inner>,
}

/// Where the Redis is.
#[derive(Clone)]
enum Target {
    /// At the URL's address.
    Node(redis::Client),
    /// Wherever the sentinels say the primary is, asked again after a failure.
    Sentinel(SentinelUrl, Arc<tokio::sync::Mutex<redis::sentinel::SentinelClient>>),
}

/// What the builder methods set.
#[derive(Clone)]
struct Settings {
    target: Target,
    /// What the target was made with besides its URL.
    access: Access,
    namespace: Option<String>,
    events_per_stream: usize,
    event_age: Duration,
    session_idle: Duration,
    timeout: Duration,
    /// Whether a call's events go out while they are written (see [`RedisStore::write_behind`]).
    write_behind: bool,
}

struct Inner {
    settings: Settings,
    /// Made on first use (making it spawns on the tokio runtime); behind
    /// Sentinel, dropped after a failure so the next command finds the primary.
    connection: Mutex<Option<ConnectionManager>>,
    health: Mutex<Health>,
    /// Event ids given out while Redis could not store the event: unique
    /// to this process (`nonce`) and never replayed.
    nonce: String,
    unstored: AtomicU64,
    /// Sessions whose state could not be stored at `initialize`.
    store_failures: Mutex<HashSet<String>>,
    /// When this process last pushed back each session's expiry.
    touched: Mutex<HashMap<String, Instant>>,
    /// The streams of the calls started here and not kept (yet): their
    /// answer marks no record of the call, since none was written. Each
    /// stays there for the moment before its call answers or is kept.
    unkept: Mutex<HashSet<String>>,
    /// Whether this replica renews its key (from its first kept call or task on).
    beating: AtomicBool,
    /// The pub/sub connection that wakes the replays following streams,
    /// made by the first one.
    followers: tokio::sync::Mutex<Option<Arc<Followers>>>,
    /// With [`RedisStore::write_behind`], the writes of the events sent
    /// before they are stored, in the order their entries were named.
    behind: OnceLock<behind::Writer>,
    /// The streams of lost calls this replica took over, each with the entry
    /// its client resumed after: their events are stored above it.
    taken: Mutex<HashMap<String, (String, Instant)>>,
}

/// How the store proves itself and checks the servers, besides the URL.
#[derive(Clone, Default)]
pub(super) struct Access {
    /// The CA that signs the servers' certificates, in PEM; the system's roots when `None`.
    pub(super) ca: Option<Vec<u8>>,
    /// The store's own certificate and key, for servers that ask for one (mTLS).
    pub(super) client: Option<redis::ClientTlsConfig>,
    /// The sentinels' own password (`requirepass` in `sentinel.conf`).
    pub(super) sentinel_password: Option<String>,
}

impl Access {
    pub(super) fn certificates(&self) -> redis::TlsCertificates {
        redis::TlsCertificates { client_tls: self.client.clone(), root_cert: self.ca.clone() }
    }
}

impl Inner {
    fn new(settings: Settings) -> Self {
        Self {
            settings,
            connection: Mutex::new(None),
            health: Mutex::new(Health::default()),
            nonce: uuid::Uuid::new_v4().simple().to_string(),
            unstored: AtomicU64::new(0),
            store_failures: Mutex::default(),
            touched: Mutex::default(),
            unkept: Mutex::default(),
            beating: AtomicBool::new(false),
            followers: tokio::sync::Mutex::new(None),
            behind: OnceLock::new(),
            taken: Mutex::default(),
        }
    }
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("namespace", &self.inner.settings.namespace)
            .field("events_per_stream", &self.inner.settings.events_per_stream)
            .field("event_age", &self.inner.settings.event_age)
            .field("session_idle", &self.inner.settings.session_idle)
            .field("timeout", &self.inner.settings.timeout)
            .field("write_behind", &self.inner.settings.write_behind)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// A store on the Redis at `url`, with the default retention:
    /// `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS
    /// (the server's certificate checked against the system's roots, or
    /// [`ca_certificate`](Self::ca_certificate)'s). An ACL user and its
    /// password go in the URL; neither is ever logged nor shown in an error.
    ///
    /// Behind Redis Sentinel, the URL names the sentinels and the service:
    /// `redis+sentinel://[user:password@]host:port[,host:port..]/service[/db]`
    /// (`rediss+sentinel://` for TLS); the store asks them for the primary,
    /// and again after a failure, so it follows a failover.
    ///
    /// # Errors
    ///
    /// [`RedisUrlError`] when `url` is not a Redis URL.
    pub fn new(url: &str) -> Result<Self, RedisUrlError> {
        let target = match SentinelUrl::parse(url) {
            Some(sentinel) => {
                let sentinel = sentinel?;
                let client = sentinel.client(&Access::default())?;
                Target::Sentinel(sentinel, Arc::new(tokio::sync::Mutex::new(client)))
            }
            None => Target::Node(redis::Client::open(url).map_err(RedisUrlError::from_redis)?),
        };
        Ok(Self {
            inner: Arc::new(Inner::new(Settings {
                target,
                access: Access::default(),
                namespace: None,
                events_per_stream: DEFAULT_EVENTS_PER_STREAM,
                event_age: DEFAULT_EVENT_AGE,
                session_idle: DEFAULT_SESSION_IDLE,
                timeout: DEFAULT_REDIS_TIMEOUT,
                write_behind: false,
            })),
        })
    }

    /// The same store with other settings: a store of its own (settings are
    /// made before serving, so nothing it held is lost).
    fn with(self, change: impl FnOnce(&mut Settings)) -> Self {
        let mut settings = self.inner.settings.clone();
        change(&mut settings);
        Self { inner: Arc::new(Inner::new(settings)) }
    }

    /// Check a `rediss://` server's certificate against `pem` (one or more
    /// PEM certificates: the deployment's own CA) instead of the system's roots.
    ///
    /// ```no_run
    /// use mcp_contract_runtime::server::RedisStore;
    /// let ca = std::fs::read("/etc/redis/ca.crt")?;
    /// let store = RedisStore::new("rediss://mcp:secret@redis.internal:6380/")?.ca_certificate(ca)?;
    /// # let _ = store;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`RedisUrlError`] when the URL is not `rediss://` or `pem` holds no certificate.
    pub fn ca_certificate(self, pem: impl Into<Vec<u8>>) -> Result<Self, RedisUrlError> {
        use rustls::pki_types::CertificateDer;
        use rustls::pki_types::pem::PemObject;
        let pem = pem.into();
        // redis takes a PEM without a certificate as an empty set of roots,
        // which would refuse every server with a less telling error.
        let certificates: Result<Vec<_>, _> = CertificateDer::pem_slice_iter(&pem).collect();
        if !certificates.is_ok_and(|certificates| !certificates.is_empty()) {
            return Err(RedisUrlError("the CA certificate is not a certificate in PEM".to_owned()));
        }
        self.retarget("a CA certificate", |access| access.ca = Some(pem))
    }

    /// Present this certificate and key (PEM) to a `rediss://` server that
    /// asks for one (`tls-auth-clients yes`, mutual TLS), and to the
    /// sentinels and nodes of `rediss+sentinel://`. The key is never logged
    /// nor shown in an error.
    ///
    /// ```no_run
    /// use mcp_contract_runtime::server::RedisStore;
    /// let store = RedisStore::new("rediss://redis.internal:6380/")?
    ///     .ca_certificate(std::fs::read("/etc/redis/ca.crt")?)?
    ///     .client_certificate(std::fs::read("/etc/mcp/redis.crt")?, std::fs::read("/etc/mcp/redis.key")?)?;
    /// # let _ = store;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`RedisUrlError`] when the URL is not a TLS one, `certificate` holds no
    /// PEM certificate or `key` no PEM private key.
    pub fn client_certificate(
        self,
        certificate: impl Into<Vec<u8>>,
        key: impl Into<Vec<u8>>,
    ) -> Result<Self, RedisUrlError> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let (certificate, key) = (certificate.into(), key.into());
        let certificates: Result<Vec<_>, _> = CertificateDer::pem_slice_iter(&certificate).collect();
        if !certificates.is_ok_and(|certificates| !certificates.is_empty()) {
            return Err(RedisUrlError("the client certificate is not a certificate in PEM".to_owned()));
        }
        // Whatever the key holds stays out of the error.
        if PrivateKeyDer::from_pem_slice(&key).is_err() {
            return Err(RedisUrlError("the client key is not a private key in PEM".to_owned()));
        }
        let client = redis::ClientTlsConfig { client_cert: certificate, client_key: key };
        self.retarget("a client certificate", |access| access.client = Some(client))
    }

    /// The sentinels' own password (`requirepass` in `sentinel.conf`), for
    /// the `redis+sentinel://` URL, whose user and password are the nodes'.
    /// Never logged nor shown in an error.
    ///
    /// # Errors
    ///
    /// [`RedisUrlError`] when the URL is not a Sentinel URL.
    pub fn sentinel_password(self, password: impl Into<String>) -> Result<Self, RedisUrlError> {
        if !matches!(self.inner.settings.target, Target::Sentinel(..)) {
            let why = "a sentinel password is for `redis+sentinel://` (or `rediss+sentinel://`) URLs";
            return Err(RedisUrlError(why.to_owned()));
        }
        let password = password.into();
        self.retarget("a sentinel password", |access| access.sentinel_password = Some(password))
    }

    /// The same store with its client made again with `change` to its access.
    fn retarget(self, what: &str, change: impl FnOnce(&mut Access)) -> Result<Self, RedisUrlError> {
        let mut access = self.inner.settings.access.clone();
        change(&mut access);
        let target = match &self.inner.settings.target {
            Target::Node(client) => {
                let info = client.get_connection_info().clone();
                if (access.ca.is_some() || access.client.is_some())
                    && !matches!(info.addr(), redis::ConnectionAddr::TcpTls { .. })
                {
                    return Err(RedisUrlError(format!("{what} is for `rediss://`, the TLS form of the URL")));
                }
                let client = match access.ca.is_some() || access.client.is_some() {
                    true => redis::Client::build_with_tls(info, access.certificates()),
                    false => redis::Client::open(info),
                };
                Target::Node(client.map_err(RedisUrlError::from_redis)?)
            }
            Target::Sentinel(sentinel, _) => {
                if (access.ca.is_some() || access.client.is_some()) && !sentinel.is_tls() {
                    let why = format!("{what} is for `rediss+sentinel://`, the TLS form of the Sentinel URL");
                    return Err(RedisUrlError(why));
                }
                let client = sentinel.client(&access)?;
                Target::Sentinel(sentinel.clone(), Arc::new(tokio::sync::Mutex::new(client)))
            }
        };
        Ok(self.with(|settings| {
            settings.target = target;
            settings.access = access;
        }))
    }

    /// The prefix of every key, `mcp:{namespace}:`; the server's name unless set.
    pub fn namespace(self, namespace: impl Into<String>) -> Self {
        let namespace = namespace.into();
        self.with(|settings| settings.namespace = Some(namespace))
    }

    /// Keep at most `count` events per SSE stream (at least one);
    /// [`DEFAULT_EVENTS_PER_STREAM`] unless set.
    pub fn events_per_stream(self, count: usize) -> Self {
        self.with(|settings| settings.events_per_stream = count.max(1))
    }

    /// Replay events at most `age` old; [`DEFAULT_EVENT_AGE`] unless set.
    pub fn event_age(self, age: Duration) -> Self {
        self.with(|settings| settings.event_age = age.max(Duration::from_secs(1)))
    }

    /// Forget a session unused for `idle`; [`DEFAULT_SESSION_IDLE`] unless set.
    pub fn session_idle(self, idle: Duration) -> Self {
        self.with(|settings| settings.session_idle = idle.max(Duration::from_secs(1)))
    }

    /// Wait at most `timeout` for one command; [`DEFAULT_REDIS_TIMEOUT`] unless set.
    pub fn timeout(self, timeout: Duration) -> Self {
        self.with(|settings| settings.timeout = timeout.max(Duration::from_millis(1)))
    }

    /// Send each event of a call while it is written to Redis, rather than
    /// once Redis has it (the default): a call then waits for no round trip
    /// to Redis, and answers about as fast as with the in-memory stores
    /// (the performance chapter has the figures).
    ///
    /// What it gives up is a moment, about one round trip per event (at most
    /// the store's [`timeout`](Self::timeout)), in which the event is sent
    /// but not yet in Redis:
    ///
    /// - A replica that stops in that moment leaves an event that only its
    ///   client has: a client that resumes after an earlier event does not
    ///   get it again. A graceful stop waits for the writes still queued
    ///   (at most twice the store's timeout); a killed process does not. A replica that takes the call over still answers it,
    ///   with events above the one the client resumed after, whatever the
    ///   clocks of the replicas say.
    /// - A write that fails (Redis down, or the writes queued past the
    ///   store's bound) leaves its event replayable from nowhere, as an event
    ///   sent while Redis is down already is; the store then reads as down,
    ///   and later events go out unstored until it answers again.
    ///
    /// The writes of one store keep their order (one writer, which sends
    /// what queued meanwhile in one round trip), so a stream's events are
    /// stored in the order they were sent. An entry's id comes from this
    /// replica's clock, made to grow. A session's standalone stream, which
    /// the replicas write in turn, and the stream of a call taken over from a
    /// stopped replica are still stored before they are sent.
    ///
    /// ```
    /// use mcp_contract_runtime::server::RedisStore;
    /// let store = RedisStore::new("redis://127.0.0.1:6379/")?.write_behind(true);
    /// # let _ = store;
    /// # Ok::<(), mcp_contract_runtime::server::RedisUrlError>(())
    /// ```
    pub fn write_behind(self, on: bool) -> Self {
        self.with(|settings| settings.write_behind = on)
    }

    /// The store under `namespace` unless one was set.
    pub(crate) fn or_namespace(self, namespace: &str) -> Self {
        if self.inner.settings.namespace.is_some() { self } else { self.namespace(namespace) }
    }

    fn key(&self, kind: &str, id: &str) -> String {
        format!("mcp:{}:{kind}:{id}", self.inner.settings.namespace.as_deref().unwrap_or("mcp"))
    }

    /// The client of the Redis to ask: behind Sentinel, the primary's, as the
    /// sentinels say now (within the store's timeout).
    async fn client(&self) -> Result<redis::Client, String> {
        match &self.inner.settings.target {
            Target::Node(client) => Ok(client.clone()),
            Target::Sentinel(_, sentinel) => {
                let timeout = self.inner.settings.timeout;
                let asked = tokio::time::timeout(timeout, async { sentinel.lock().await.async_get_client().await });
                match asked.await {
                    Ok(Ok(client)) => Ok(client),
                    Ok(Err(err)) => Err(format!("no primary from the sentinels: {err}")),
                    Err(_) => Err(format!("no primary from the sentinels within {timeout:?}")),
                }
            }
        }
    }

    /// After a failure behind Sentinel, the next command asks the sentinels
    /// again: the primary may have changed (a failover).
    fn forget_connection(&self) {
        if matches!(self.inner.settings.target, Target::Sentinel(..)) {
            lock(&self.inner.connection).take();
        }
    }

    async fn connection(&self) -> Result<ConnectionManager, String> {
        if let Some(connection) = lock(&self.inner.connection).as_ref() {
            return Ok(connection.clone());
        }
        let client = self.client().await?;
        let timeout = Some(self.inner.settings.timeout);
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(timeout)
            .set_response_timeout(timeout)
            // Our own back-off (PROBE_INTERVAL) decides when to try again.
            .set_number_of_retries(1)
            .set_max_delay(self.inner.settings.timeout);
        let made = client.get_connection_manager_lazy(config).map_err(|err| err.to_string())?;
        Ok(lock(&self.inner.connection).get_or_insert(made).clone())
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn now_millis() -> u64 {
    millis(SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_url_is_refused_with_the_expected_form() {
        let err = RedisStore::new("http://example.org").unwrap_err();
        assert!(err.to_string().contains("redis://"), "{err}");
    }

    #[test]
    fn keys_are_namespaced() {
        let store = RedisStore::new("redis://127.0.0.1:1/").unwrap().or_namespace("museum").or_namespace("other");
        assert_eq!(store.key("session", "abc"), "mcp:museum:session:abc");
    }
}
