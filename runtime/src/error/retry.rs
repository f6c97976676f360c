//! `with_retry`: run an operation again when it fails transiently, with
//! exponential backoff, full jitter, the upstream's `Retry-After`, and bounds on
//! both attempts and total time.
//!
//! ```
//! use mcp_contract::{McpError, errors::{RetryPolicy, with_retry}};
//! use std::time::Duration;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap().block_on(async {
//! let mut calls = 0;
//! let policy = RetryPolicy::new().max_attempts(3).initial_delay(Duration::from_millis(100));
//! let answer = with_retry(policy, || {
//!     calls += 1;
//!     let failing = calls < 3;
//!     async move {
//!         if failing {
//!             Err(McpError::service_unavailable("The catalogue API answered 503."))
//!         } else {
//!             Ok(42)
//!         }
//!     }
//! })
//! .await;
//! assert_eq!(answer.unwrap(), 42);
//! assert_eq!(calls, 3);
//! # });
//! ```

use std::error::Error as StdError;
use std::time::{Duration, SystemTime};

use serde_json::Value;
use tokio::time::Instant;

use super::upstream::parse_retry_after;
use crate::error::McpError;

/// When and how often [`with_retry`] tries again.
///
/// The defaults follow the reference framework: four attempts (one call and
/// three retries), a first delay of one second doubling up to thirty, and a
/// total budget of sixty seconds — a common client request timeout, past which
/// the caller would see its own transport timeout rather than our error.
///
/// ```
/// use mcp_contract::errors::RetryPolicy;
/// use std::time::Duration;
/// let policy = RetryPolicy::new().max_attempts(5).max_elapsed(Duration::from_secs(20));
/// assert_eq!(policy.max_attempts, 5);
/// assert_eq!(policy.backoff_ceiling(0), Duration::from_secs(1));
/// assert_eq!(policy.backoff_ceiling(3), Duration::from_secs(8));
/// assert_eq!(policy.backoff_ceiling(10), Duration::from_secs(30));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in all, the first call included; 0 is taken as 1.
    pub max_attempts: u32,
    /// The ceiling of the first backoff.
    pub initial_delay: Duration,
    /// No backoff is longer; an upstream asking for a longer wait ends the retries.
    pub max_delay: Duration,
    /// No retry starts (or waits) past this much time since the first attempt.
    pub max_elapsed: Duration,
    /// How much the ceiling grows per retry; 2 doubles it.
    pub multiplier: f64,
    /// A wall-clock budget for the whole retry, attempts included: a running
    /// attempt is dropped when it ends, and no wait starts that would pass it.
    /// Unlike [`max_elapsed`](Self::max_elapsed), which only stops the waits
    /// and returns the upstream's last error, a deadline ends with an error of
    /// its own: `Timeout` with the stable reason [`RETRY_DEADLINE_EXCEEDED`]
    /// (the reference's `deadlineMs`, since 0.13.4). Default none.
    pub deadline: Option<Duration>,
}

/// The `data.reason` of the error [`with_retry`] ends with when its
/// [`deadline`](RetryPolicy::deadline) passes.
pub const RETRY_DEADLINE_EXCEEDED: &str = "retry_deadline_exceeded";

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            initial_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
            max_elapsed: Duration::from_secs(60),
            multiplier: 2.0,
            deadline: None,
        }
    }
}

impl RetryPolicy {
    /// The defaults: 4 attempts, 1 s doubling to 30 s, 60 s in all.
    pub fn new() -> Self {
        Self::default()
    }

    /// Attempts in all, the first call included.
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts;
        self
    }

    /// The ceiling of the first backoff.
    pub fn initial_delay(mut self, delay: Duration) -> Self {
        self.initial_delay = delay;
        self
    }

    /// The longest backoff, and the longest `retryAfter` still waited for.
    pub fn max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// The total time budget, from the first attempt.
    pub fn max_elapsed(mut self, budget: Duration) -> Self {
        self.max_elapsed = budget;
        self
    }

    /// A wall-clock budget across attempts (see [`deadline`](Self::deadline)).
    ///
    /// ```
    /// use mcp_contract::{JsonRpcErrorCode, McpError, errors::{RetryPolicy, with_retry}};
    /// use std::time::Duration;
    /// # tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap().block_on(async {
    /// let hangs = || std::future::pending::<Result<(), McpError>>();
    /// let err = with_retry(RetryPolicy::new().deadline(Duration::from_secs(5)), hangs).await.unwrap_err();
    /// assert_eq!(err.code(), JsonRpcErrorCode::Timeout);
    /// assert_eq!(err.reason(), Some("retry_deadline_exceeded"));
    /// # });
    /// ```
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// How much the ceiling grows per retry.
    pub fn multiplier(mut self, multiplier: f64) -> Self {
        self.multiplier = multiplier;
        self
    }

    /// The ceiling of the backoff before retry number `retry` (0 for the first):
    /// `min(max_delay, initial_delay * multiplier^retry)`. A multiplier that
    /// makes this negative, infinite or NaN gives `max_delay`.
    pub fn backoff_ceiling(&self, retry: u32) -> Duration {
        let exponent = i32::try_from(retry).unwrap_or(i32::MAX);
        let seconds = self.initial_delay.as_secs_f64() * self.multiplier.powi(exponent);
        Duration::try_from_secs_f64(seconds).map_or(self.max_delay, |ceiling| ceiling.min(self.max_delay))
    }

    /// The backoff before retry number `retry`: uniformly random in
    /// `[0, backoff_ceiling(retry))` ("full jitter"), so that clients failing
    /// together do not retry together.
    pub fn jittered_backoff(&self, retry: u32) -> Duration {
        self.backoff_ceiling(retry).mul_f64(fastrand::f64())
    }
}

/// Run `operation` until it succeeds, fails for good, or the policy's attempts or
/// time run out; return its value or its last error.
///
/// - Only a transient error is retried: an [`McpError`] whose code
///   [is transient](McpError::is_transient) (ServiceUnavailable, RateLimited,
///   Timeout) and whose `data.retryable` is not `false` — the per-error opt-out
///   of the reference framework. An error of another type is first
///   [classified](McpError::from_boxed), so an I/O timeout is retried and a
///   parse error is not.
/// - The wait before retry `n` is random in `[0, min(max_delay,
///   initial_delay * multiplier^n))`.
/// - When the error carries `data.retryAfter` (seconds as a number, or the raw
///   header as a string — delta-seconds or HTTP-date), the wait is the larger of
///   it and the jittered backoff. A `retryAfter` longer than `max_delay` ends the
///   retries at once, as in the reference: a window that will not clear within
///   our budget is the caller's to know about now, not after attempts that
///   cannot succeed.
/// - No wait runs past `max_elapsed` since the first attempt: when the next one
///   would, the last error is returned instead of sleeping into a certain
///   timeout. An attempt already running is not cut short, so the total can
///   exceed `max_elapsed` by the length of one attempt.
///
/// The last error is returned as it was, with no data added, so an
/// auto-classified error still carries code and message only.
///
/// ```
/// use mcp_contract::{JsonRpcErrorCode, McpError, errors::{RetryPolicy, with_retry}};
/// # tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap().block_on(async {
/// let mut calls = 0;
/// let result: Result<(), _> = with_retry(RetryPolicy::new(), || {
///     calls += 1;
///     async { Err(McpError::not_found("No object 7.")) }
/// })
/// .await;
/// assert_eq!(result.unwrap_err().code(), JsonRpcErrorCode::NotFound);
/// assert_eq!(calls, 1, "not transient: no retry");
/// # });
/// ```
pub async fn with_retry<T, E, F, Fut>(policy: RetryPolicy, mut operation: F) -> Result<T, McpError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
    E: Into<Box<dyn StdError + Send + Sync + 'static>>,
{
    let started = Instant::now();
    let deadline = policy.deadline.map(|budget| started + budget);
    let max_attempts = policy.max_attempts.max(1);
    let mut attempt = 1;
    loop {
        let outcome = match deadline {
            Some(deadline) => match tokio::time::timeout_at(deadline, operation()).await {
                Ok(outcome) => outcome,
                Err(_) => return Err(deadline_exceeded(&policy, attempt, None)),
            },
            None => operation().await,
        };
        let err = match outcome {
            Ok(value) => return Ok(value),
            Err(err) => McpError::from_boxed(err.into()),
        };
        if attempt >= max_attempts || !is_retryable(&err) {
            return Err(err);
        }
        let Some(delay) = next_delay(&policy, attempt - 1, &err, started.elapsed()) else {
            return Err(err);
        };
        if deadline.is_some_and(|deadline| Instant::now() + delay >= deadline) {
            return Err(deadline_exceeded(&policy, attempt, Some(err)));
        }
        tracing::warn!(
            attempt,
            max_attempts,
            delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            code = err.code().as_i32(),
            "Retrying after a transient error: {}",
            err.message(),
        );
        tokio::time::sleep(delay).await;
        attempt += 1;
    }
}

/// The error of a retry whose deadline passed after `attempts` attempts
/// (the last one cut short when `last` is `None`): `Timeout`, as the caller's
/// budget ran out, not retryable, the upstream's last error as its cause.
fn deadline_exceeded(policy: &RetryPolicy, attempts: u32, last: Option<McpError>) -> McpError {
    let budget = policy.deadline.unwrap_or_default();
    let err = McpError::timeout(format!(
        "The upstream did not answer within the retry deadline of {budget:?} ({attempts} attempt{s}).",
        s = if attempts == 1 { "" } else { "s" },
    ))
    .with_data_field("attempts", attempts)
    .with_data_field("retryable", false)
    .with_reason(RETRY_DEADLINE_EXCEEDED);
    match last {
        Some(last) => err.with_cause(last),
        None => err,
    }
}

/// Transient, and not opted out with `data.retryable: false`.
fn is_retryable(err: &McpError) -> bool {
    let opted_out = err.data().and_then(|data| data.get("retryable")).and_then(Value::as_bool) == Some(false);
    err.is_transient() && !opted_out
}

/// The wait before retry number `retry`, or `None` when the error's own
/// `retryAfter` or the time budget rules another attempt out.
fn next_delay(policy: &RetryPolicy, retry: u32, err: &McpError, elapsed: Duration) -> Option<Duration> {
    let jittered = policy.jittered_backoff(retry);
    let delay = match retry_after(err) {
        Some(asked) if asked > policy.max_delay => return None,
        Some(asked) => asked.max(jittered),
        None => jittered,
    };
    (elapsed.saturating_add(delay) <= policy.max_elapsed).then_some(delay)
}

/// `data.retryAfter` as a wait: a number of seconds (what
/// [`http_error_from_response`](crate::error::upstream::http_error_from_response) writes),
/// or a string in either `Retry-After` form (what other code may have copied
/// from the header). Negative or unreadable values are ignored.
pub(super) fn retry_after(err: &McpError) -> Option<Duration> {
    match err.data()?.get("retryAfter")? {
        // Too large for a Duration still means "not soon": saturate, so it ends the retries.
        Value::Number(number) => number
            .as_f64()
            .filter(|seconds| *seconds >= 0.0)
            .map(|seconds| Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX)),
        Value::String(text) => parse_retry_after(text, SystemTime::now()).map(Duration::from_secs),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::JsonRpcErrorCode;
    use crate::error::upstream::{HttpErrorOptions, http_error_from_response};
    use serde_json::json;
    use std::cell::RefCell;

    /// The instants, relative to the first, at which each attempt started.
    #[derive(Default)]
    struct Attempts(RefCell<Vec<Instant>>);

    impl Attempts {
        fn record(&self) -> usize {
            let mut at = self.0.borrow_mut();
            at.push(Instant::now());
            at.len()
        }
        fn count(&self) -> usize {
            self.0.borrow().len()
        }
        fn gaps(&self) -> Vec<Duration> {
            self.0.borrow().windows(2).map(|pair| pair[1] - pair[0]).collect()
        }
    }

    fn fast() -> RetryPolicy {
        RetryPolicy::new().initial_delay(Duration::from_millis(10)).max_attempts(5)
    }

    #[tokio::test(start_paused = true)]
    async fn non_transient_fails_after_one_attempt() {
        let attempts = Attempts::default();
        let result: Result<(), _> = with_retry(fast(), || {
            attempts.record();
            async { Err(McpError::invalid_params("Bad ID.")) }
        })
        .await;
        assert_eq!(result.unwrap_err().code(), JsonRpcErrorCode::InvalidParams);
        assert_eq!(attempts.count(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn transient_is_retried_up_to_max_attempts_and_the_last_error_returned() {
        let attempts = Attempts::default();
        let result: Result<(), _> = with_retry(fast(), || {
            let n = attempts.record();
            async move { Err(McpError::service_unavailable(format!("Down, attempt {n}."))) }
        })
        .await;
        assert_eq!(attempts.count(), 5);
        let err = result.unwrap_err();
        assert_eq!(err.message(), "Down, attempt 5.");
        assert!(err.data().is_none(), "returned as it was");
    }

    #[tokio::test(start_paused = true)]
    async fn success_on_the_third_attempt_returns_ok() {
        let attempts = Attempts::default();
        let result = with_retry(fast(), || {
            let n = attempts.record();
            async move { if n < 3 { Err(McpError::timeout("Slow.")) } else { Ok(n * 10) } }
        })
        .await;
        assert_eq!(result.unwrap(), 30);
        assert_eq!(attempts.count(), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn backoff_stays_under_its_ceiling() {
        let attempts = Attempts::default();
        let policy =
            RetryPolicy::new().max_attempts(6).initial_delay(Duration::from_secs(1)).max_delay(Duration::from_secs(5));
        let _ = with_retry(policy, || {
            attempts.record();
            async { Err::<(), _>(McpError::service_unavailable("Down.")) }
        })
        .await;
        let gaps = attempts.gaps();
        assert_eq!(gaps.len(), 5);
        for (retry, gap) in gaps.iter().enumerate() {
            let ceiling = policy.backoff_ceiling(retry as u32);
            assert!(*gap <= ceiling, "retry {retry}: waited {gap:?}, ceiling {ceiling:?}");
        }
    }

    #[test]
    fn ceiling_grows_by_the_multiplier_and_caps() {
        let policy = RetryPolicy::new()
            .initial_delay(Duration::from_millis(100))
            .multiplier(3.0)
            .max_delay(Duration::from_secs(2));
        let ceilings: Vec<u128> = (0..5).map(|retry| policy.backoff_ceiling(retry).as_millis()).collect();
        assert_eq!(ceilings, [100, 300, 900, 2000, 2000]);
        assert_eq!(policy.backoff_ceiling(u32::MAX), Duration::from_secs(2));
        assert_eq!(policy.multiplier(f64::NAN).backoff_ceiling(1), Duration::from_secs(2));
        // Full jitter: many draws spread over the range and never reach the ceiling.
        let draws: Vec<Duration> = (0..1000).map(|_| policy.jittered_backoff(2)).collect();
        assert!(draws.iter().all(|draw| *draw < Duration::from_millis(900)));
        assert!(draws.iter().any(|draw| *draw < Duration::from_millis(300)));
        assert!(draws.iter().any(|draw| *draw > Duration::from_millis(600)));
    }

    #[tokio::test(start_paused = true)]
    async fn retry_after_is_honoured() {
        let attempts = Attempts::default();
        let result: Result<(), _> = with_retry(fast().max_attempts(3), || {
            attempts.record();
            async { Err(McpError::rate_limited("Throttled.").with_data(json!({"retryAfter": 7}))) }
        })
        .await;
        assert_eq!(result.unwrap_err().code(), JsonRpcErrorCode::RateLimited);
        assert_eq!(attempts.count(), 3);
        for gap in attempts.gaps() {
            // At least what was asked; at most that, since the jitter ceiling (10-20 ms) is smaller.
            assert_eq!(gap, Duration::from_secs(7));
        }
    }

    #[tokio::test(start_paused = true)]
    async fn retry_after_from_an_http_response_is_honoured() {
        let attempts = Attempts::default();
        let result = with_retry(fast(), || {
            let n = attempts.record();
            async move {
                if n == 1 {
                    let response = http::Response::builder().status(503).header("Retry-After", "3").body("").unwrap();
                    Err(http_error_from_response(&response, &HttpErrorOptions::new()))
                } else {
                    Ok("fresh")
                }
            }
        })
        .await;
        assert_eq!(result.unwrap(), "fresh");
        assert_eq!(attempts.gaps(), [Duration::from_secs(3)]);
    }

    #[tokio::test(start_paused = true)]
    async fn retry_after_as_a_header_string_is_read() {
        let attempts = Attempts::default();
        let _ = with_retry(fast().max_attempts(2), || {
            attempts.record();
            async { Err::<(), _>(McpError::rate_limited("Throttled.").with_data(json!({"retryAfter": "4"}))) }
        })
        .await;
        assert_eq!(attempts.gaps(), [Duration::from_secs(4)]);
    }

    #[tokio::test(start_paused = true)]
    async fn retry_after_beyond_max_delay_fails_fast() {
        let attempts = Attempts::default();
        let result: Result<(), _> = with_retry(fast().max_delay(Duration::from_secs(30)), || {
            attempts.record();
            async { Err(McpError::rate_limited("Daily quota used.").with_data(json!({"retryAfter": 3600}))) }
        })
        .await;
        assert_eq!(result.unwrap_err().message(), "Daily quota used.");
        assert_eq!(attempts.count(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn unreadable_or_huge_retry_after() {
        for (retry_after, expected_attempts) in
            [(json!(u64::MAX), 1), (json!(1e300), 1), (json!(-5), 2), (json!("soon"), 2)]
        {
            let attempts = Attempts::default();
            let _ = with_retry(fast().max_attempts(2), || {
                attempts.record();
                let data = json!({ "retryAfter": retry_after.clone() });
                async move { Err::<(), _>(McpError::rate_limited("Throttled.").with_data(data)) }
            })
            .await;
            assert_eq!(attempts.count(), expected_attempts, "retryAfter {retry_after}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn max_elapsed_is_respected() {
        // Each wait is exactly 2 s (retryAfter 2 beats a jitter ceiling of at most 2 s),
        // so attempts start at 0, 2 and 4 s; a fourth would start at 6 s > 5 s.
        let attempts = Attempts::default();
        let policy = RetryPolicy::new()
            .max_attempts(10)
            .initial_delay(Duration::from_secs(1))
            .max_delay(Duration::from_secs(2))
            .max_elapsed(Duration::from_secs(5));
        let started = Instant::now();
        let result: Result<(), _> = with_retry(policy, || {
            attempts.record();
            async { Err(McpError::service_unavailable("Down.").with_data(json!({"retryAfter": 2}))) }
        })
        .await;
        assert!(result.is_err());
        assert_eq!(attempts.count(), 3);
        assert_eq!(started.elapsed(), Duration::from_secs(4));
    }

    #[tokio::test(start_paused = true)]
    async fn time_spent_in_attempts_counts_against_the_budget() {
        let attempts = Attempts::default();
        let policy = fast().max_attempts(10).max_elapsed(Duration::from_secs(10));
        let started = Instant::now();
        let _ = with_retry(policy, || {
            attempts.record();
            async {
                tokio::time::sleep(Duration::from_secs(4)).await;
                Err::<(), _>(McpError::timeout("Took 4 s."))
            }
        })
        .await;
        // Attempts start at ~0, ~4 and ~8 s; the third ends at ~12 s, and no wait fits after it.
        assert_eq!(attempts.count(), 3);
        assert!(started.elapsed() < Duration::from_secs(13), "{:?}", started.elapsed());
    }

    #[tokio::test(start_paused = true)]
    async fn the_deadline_cuts_a_hanging_attempt_with_its_own_reason() {
        let attempts = Attempts::default();
        let started = Instant::now();
        let policy = fast().max_attempts(10).deadline(Duration::from_secs(3));
        let err = with_retry(policy, || {
            let n = attempts.record();
            async move {
                if n < 2 {
                    Err(McpError::service_unavailable("down"))
                } else {
                    std::future::pending::<Result<(), _>>().await
                }
            }
        })
        .await
        .unwrap_err();
        assert_eq!(err.code(), JsonRpcErrorCode::Timeout);
        assert_eq!(err.reason(), Some(RETRY_DEADLINE_EXCEEDED));
        assert_eq!(err.data().unwrap()["retryable"], false);
        assert_eq!(attempts.count(), 2);
        assert_eq!(started.elapsed(), Duration::from_secs(3), "the budget holds the attempt too");
        assert!(!is_retryable(&err), "an outer retry does not spin on it");
    }

    #[tokio::test(start_paused = true)]
    async fn the_deadline_stops_a_wait_that_would_pass_it_and_keeps_the_last_error() {
        let attempts = Attempts::default();
        let policy =
            RetryPolicy::new().max_attempts(10).max_delay(Duration::from_secs(60)).deadline(Duration::from_secs(10));
        let err = with_retry(policy, || {
            attempts.record();
            async { Err::<(), _>(McpError::rate_limited("slow").with_data_field("retryAfter", 30)) }
        })
        .await
        .unwrap_err();
        assert_eq!(err.reason(), Some(RETRY_DEADLINE_EXCEEDED));
        assert_eq!(attempts.count(), 1, "no wait past the deadline");
        assert_eq!(err.source().unwrap().to_string(), "slow");
    }

    #[tokio::test(start_paused = true)]
    async fn retryable_false_opts_out() {
        let attempts = Attempts::default();
        let _ = with_retry(fast(), || {
            attempts.record();
            async { Err::<(), _>(McpError::service_unavailable("Never works.").with_data(json!({"retryable": false}))) }
        })
        .await;
        assert_eq!(attempts.count(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn other_errors_are_classified_first() {
        let attempts = Attempts::default();
        let result: Result<(), _> = with_retry(fast().max_attempts(3), || {
            attempts.record();
            async { Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "read timed out")) }
        })
        .await;
        let err = result.unwrap_err();
        assert!(err.source().unwrap().downcast_ref::<std::io::Error>().is_some());
        // Retried exactly when the classifier calls an I/O timeout transient.
        let expected = if err.is_transient() { 3 } else { 1 };
        assert_eq!(attempts.count(), expected);
    }

    #[tokio::test(start_paused = true)]
    async fn zero_attempts_still_calls_once() {
        let attempts = Attempts::default();
        let _ = with_retry(fast().max_attempts(0), || {
            attempts.record();
            async { Err::<(), _>(McpError::timeout("Slow.")) }
        })
        .await;
        assert_eq!(attempts.count(), 1);
    }
}
