//! What the server does around every call besides running it, on every
//! transport: masking a failure of its own side nobody wrote for a client,
//! and (feature `metrics`) counting the call for the Prometheus endpoint.

use std::sync::Arc;

#[cfg(feature = "rate-limit")]
pub use limit::RateLimit;

/// Shared by every copy (every session) of one server.
#[derive(Clone, Default)]
pub(crate) struct Observe {
    /// [`Server::hook`](crate::server::Server::hook), in registration order.
    pub(crate) hooks: Vec<Arc<dyn crate::server::CallHook>>,
    /// [`Server::mask_error_details`](crate::server::Server::mask_error_details); the
    /// default is `true`, set by [`Server::build`](crate::server::Server::build).
    pub(crate) mask_error_details: bool,
    #[cfg(feature = "metrics")]
    pub(crate) metrics: Option<Arc<metrics::Metrics>>,
    #[cfg(feature = "rate-limit")]
    pub(crate) limiter: Option<Arc<limit::Limiter>>,
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
    ) -> Result<(), crate::McpError> {
        #[cfg(feature = "rate-limit")]
        if let Some(limiter) = &self.limiter {
            return limiter.admit(caller, client_ip);
        }
        Ok(())
    }

    /// A call ended with `outcome` after `seconds`; `error` is its code and reason.
    #[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
    pub(crate) fn finished(
        &self,
        kind: &'static str,
        name: &'static str,
        outcome: Outcome,
        error: Option<(i32, Option<&str>)>,
        seconds: f64,
    ) {
        #[cfg(feature = "metrics")]
        if let Some(metrics) = &self.metrics {
            metrics.finished(kind, name, outcome, error, seconds);
        }
    }
}

/// A call in flight; see [`Observe::started`].
pub(crate) struct InFlight(#[cfg(feature = "metrics")] Option<Arc<metrics::Metrics>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        #[cfg(feature = "metrics")]
        if let Some(metrics) = &self.0 {
            metrics.in_flight.dec();
        }
    }
}

#[cfg(feature = "metrics")]
pub(crate) mod metrics {
    //! The metrics of one server, in one registry of its own (no global
    //! recorder: two servers in one process, or two tests, count apart).

    use prometheus_client::encoding::EncodeLabelSet;
    use prometheus_client::metrics::counter::Counter;
    use prometheus_client::metrics::family::Family;
    use prometheus_client::metrics::gauge::Gauge;
    use prometheus_client::metrics::histogram::Histogram;
    use prometheus_client::registry::Registry;

    use super::Outcome;

    /// The content type of what [`Metrics::render`] writes.
    pub(crate) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    /// Seconds: from a cheap in-memory call (1 ms) to a slow upstream (30 s).
    const LATENCY_BUCKETS: [f64; 14] =
        [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

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

    fn latency_histogram() -> Histogram {
        Histogram::new(LATENCY_BUCKETS)
    }

    pub(crate) struct Metrics {
        registry: Registry,
        calls: Family<CallLabels, Counter>,
        errors: Family<ErrorLabels, Counter>,
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
            let duration = Family::<NameLabels, Histogram, fn() -> Histogram>::new_with_constructor(latency_histogram);
            let (in_flight, sessions) = (Gauge::default(), Gauge::default());
            registry.register(
                "mcp_calls",
                "Tool calls, resource reads, prompts and completions that ended, by outcome",
                calls.clone(),
            );
            registry.register("mcp_call_errors", "Calls that ended with an error, by code and reason", errors.clone());
            let seconds = prometheus_client::registry::Unit::Seconds;
            registry.register_with_unit("mcp_call_duration", "How long calls took", seconds, duration.clone());
            registry.register("mcp_calls_in_flight", "Calls running now", in_flight.clone());
            registry.register("mcp_sessions", "Open Streamable HTTP sessions", sessions.clone());
            Self { registry, calls, errors, duration, in_flight, sessions }
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
}

#[cfg(feature = "rate-limit")]
pub(crate) mod limit {
    //! Rate limits per caller (feature `rate-limit`): a token bucket per
    //! verified subject, or per client address without auth, on governor's
    //! GCRA, which keeps one timestamp per key rather than a counter.

    use std::hash::{Hash, Hasher};
    use std::net::IpAddr;
    use std::num::NonZeroU32;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    use governor::clock::Clock as _;

    use crate::McpError;

    /// How many calls (tool calls, resource reads, prompts) one caller may
    /// make: `per_minute` on average, `burst` at once (by default, a minute's
    /// worth). See `HttpOptions::rate_limit`.
    ///
    /// ```
    /// use mcp_contract::server::RateLimit;
    /// let limit = RateLimit::per_minute(120).burst(20);
    /// assert_eq!("120/min".parse::<RateLimit>().unwrap(), RateLimit::per_minute(120));
    /// assert_eq!("2/s,burst=20".parse::<RateLimit>().unwrap(), limit);
    /// ```
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct RateLimit {
        /// One call's token comes back after this long.
        period: Duration,
        burst: NonZeroU32,
    }

    impl RateLimit {
        /// `calls` a minute on average, as many at once (at least one).
        pub fn per_minute(calls: u32) -> Self {
            Self::per(calls, Duration::from_secs(60))
        }

        /// `calls` a second on average, as many at once (at least one).
        pub fn per_second(calls: u32) -> Self {
            Self::per(calls, Duration::from_secs(1))
        }

        fn per(calls: u32, window: Duration) -> Self {
            let calls = NonZeroU32::new(calls).unwrap_or(NonZeroU32::MIN);
            Self { period: window / calls.get(), burst: calls }
        }

        /// At most `calls` at once (at least one), the rate unchanged.
        pub fn burst(mut self, calls: u32) -> Self {
            self.burst = NonZeroU32::new(calls).unwrap_or(NonZeroU32::MIN);
            self
        }

        fn quota(self) -> governor::Quota {
            // `per` never makes a zero period: a window over at most u32::MAX calls.
            let period = self.period.max(Duration::from_nanos(1));
            governor::Quota::with_period(period)
                .unwrap_or_else(|| governor::Quota::per_second(NonZeroU32::MAX))
                .allow_burst(self.burst)
        }
    }

    /// `N/s`, `N/min` or `N/h`, then optionally `,burst=B`: what
    /// `--rate-limit` and `MCP_RATE_LIMIT` take.
    impl std::str::FromStr for RateLimit {
        type Err = String;

        fn from_str(text: &str) -> Result<Self, String> {
            let wrong = || format!("`{text}` is no rate limit: write calls per time, e.g. `120/min`, `10/s,burst=20`");
            let (rate, burst) = match text.split_once(',') {
                Some((rate, burst)) => (rate, Some(burst.trim().strip_prefix("burst=").ok_or_else(wrong)?)),
                None => (text, None),
            };
            let (calls, unit) = rate.trim().split_once('/').ok_or_else(wrong)?;
            let calls: u32 = calls.trim().parse().ok().filter(|&calls| calls > 0).ok_or_else(wrong)?;
            let window = match unit.trim() {
                "s" | "sec" | "second" => Duration::from_secs(1),
                "min" | "minute" => Duration::from_secs(60),
                "h" | "hour" => Duration::from_secs(3600),
                _ => return Err(wrong()),
            };
            let limit = Self::per(calls, window);
            match burst {
                None => Ok(limit),
                Some(burst) => Ok(limit.burst(burst.parse().ok().filter(|&b: &u32| b > 0).ok_or_else(wrong)?)),
            }
        }
    }

    /// A caller: its subject with auth on, else its address. Hashed to a
    /// fixed size, so a long subject costs no more memory than a short one.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    struct Key(u64);

    impl Key {
        fn of(caller: Option<&str>, client_ip: Option<IpAddr>) -> Option<Self> {
            let mut hasher = std::hash::DefaultHasher::new();
            match (caller, client_ip) {
                (Some(subject), _) => ("subject", subject).hash(&mut hasher),
                (None, Some(ip)) => ("address", ip).hash(&mut hasher),
                (None, None) => return None,
            }
            Some(Self(hasher.finish()))
        }
    }

    pub(crate) struct Limiter {
        limiter: governor::DefaultKeyedRateLimiter<Key>,
        limit: RateLimit,
        checks: AtomicU64,
    }

    /// Every this many checks, the callers whose bucket is full again are forgotten.
    const PRUNE_EVERY: u64 = 4096;

    impl Limiter {
        pub(crate) fn new(limit: RateLimit) -> Self {
            Self { limiter: governor::RateLimiter::keyed(limit.quota()), limit, checks: AtomicU64::new(0) }
        }

        pub(crate) fn admit(&self, caller: Option<&str>, client_ip: Option<IpAddr>) -> Result<(), McpError> {
            // Over stdio there is one client, and nobody to tell apart.
            let Some(key) = Key::of(caller, client_ip) else { return Ok(()) };
            if self.checks.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
                self.limiter.retain_recent();
            }
            let Err(not_until) = self.limiter.check_key(&key) else { return Ok(()) };
            let wait = not_until.wait_time_from(self.limiter.clock().now());
            // Whole seconds, rounded up: a client that waits that long gets a token.
            let retry_after = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let per_minute = Duration::from_secs(60).as_nanos() / self.limit.period.as_nanos().max(1);
            Err(McpError::rate_limited(format!(
                "Too many calls: this server allows {per_minute} a minute per caller, {} at once. \
                 Wait {retry_after} s, then call again.",
                self.limit.burst
            ))
            .with_data_field("retryAfter", retry_after))
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn a_rate_limit_reads_calls_per_time_and_a_burst() {
            assert_eq!("120/min".parse::<RateLimit>(), Ok(RateLimit::per_minute(120)));
            assert_eq!("10/s".parse::<RateLimit>(), Ok(RateLimit::per_second(10)));
            assert_eq!(" 2/s , burst=20 ".parse::<RateLimit>(), Ok(RateLimit::per_second(2).burst(20)));
            assert_eq!("3600/h".parse::<RateLimit>(), Ok(RateLimit::per_second(1).burst(3600)));
            for wrong in ["", "120", "0/min", "-1/s", "10/day", "10/s,20", "10/s,burst=0", "many/min"] {
                let err = wrong.parse::<RateLimit>().expect_err(wrong);
                assert!(err.contains("e.g. `120/min`"), "{wrong}: {err}");
            }
        }

        #[test]
        fn each_subject_has_a_bucket_of_its_own_wherever_it_calls_from_and_without_auth_each_address() {
            let limiter = Limiter::new(RateLimit::per_minute(60).burst(2));
            let (here, there): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
            assert!(limiter.admit(Some("alice"), Some(here)).is_ok());
            assert!(limiter.admit(Some("alice"), Some(there)).is_ok());
            let refused = limiter.admit(Some("alice"), Some(here)).expect_err("alice's two tokens are spent");
            assert_eq!(refused.code(), crate::JsonRpcErrorCode::RateLimited);
            assert_eq!(refused.data().and_then(|data| data.get("retryAfter")), Some(&serde_json::json!(1)));
            assert!(refused.message().contains("60 a minute per caller, 2 at once"), "{}", refused.message());
            assert!(limiter.admit(Some("bob"), Some(here)).is_ok(), "bob is not alice");
            assert!(limiter.admit(None, Some(here)).is_ok(), "an address is not a subject");
            assert!(limiter.admit(None, Some(here)).is_ok());
            assert!(limiter.admit(None, Some(here)).is_err());
            assert!(limiter.admit(None, Some(there)).is_ok(), "another address");
            for _ in 0..10 {
                assert!(limiter.admit(None, None).is_ok(), "stdio: one client, not limited");
            }
        }
    }
}
