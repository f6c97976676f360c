//! Rate limits per caller (feature `rate-limit`): a token bucket per
//! verified subject, or per client address without auth, on governor's
//! GCRA, which keeps one timestamp per key rather than a counter.

use std::hash::{Hash, Hasher};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use governor::clock::Clock as _;

use crate::error::McpError;

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
        assert_eq!(refused.code(), crate::error::JsonRpcErrorCode::RateLimited);
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
