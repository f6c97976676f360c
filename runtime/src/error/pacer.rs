//! [`Pacer`]: one queue in front of one rate-limited upstream (feature
//! `pacer`), the reference's `createPacer` (0.13.4, 0.13.9).
//!
//! Every call a server makes to the upstream goes through
//! [`Pacer::run`]: calls start in arrival order, at most so many a second
//! (a GCRA bucket on governor), at most so many at once, and after the
//! upstream answers `429` nothing starts until its `Retry-After` (or a
//! doubling cooldown) has passed. A call that would wait too long is shed at
//! once, rather than holding the agent's request until its client gives up: a
//! [`RateLimited`](crate::error::JsonRpcErrorCode::RateLimited) error with
//! `data.reason: "pacer_shed"`, `data.shedKind` and `data.retryAfter`, which
//! a tool declares in its contract like any reason.
//!
//! ```
//! use std::time::Duration;
//! use mcp_contract::McpError;
//! use mcp_contract::errors::{Pacer, PacerOptions};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap().block_on(async {
//! let catalogue = Pacer::new(
//!     "catalogue",
//!     PacerOptions::per_second(5).max_concurrent(2).max_queue(32).max_wait(Duration::from_secs(10)),
//! );
//! let title = catalogue.run(|| async { Ok::<_, McpError>("The Night Watch") }).await?;
//! assert_eq!(title, "The Night Watch");
//! assert_eq!(catalogue.stats().started, 1);
//! # Ok::<(), McpError>(())
//! # }).unwrap();
//! ```

use std::fmt;
use std::future::Future;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use governor::clock::Clock;
use governor::middleware::NoOpMiddleware;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};
use tokio::sync::{Semaphore, SemaphorePermit};
use tokio::time::Instant;

use super::retry::retry_after;
use crate::error::{JsonRpcErrorCode, McpError};

/// The reason a shed call fails with.
pub const PACER_SHED: &str = "pacer_shed";

/// How a [`Pacer`] paces its upstream. Every limit is optional; the default
/// paces nothing but the cooldown after a `429`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct PacerOptions {
    /// One start's token comes back after this long (a rate), with `burst`
    /// starts at once.
    pub interval: Option<Duration>,
    /// Starts allowed at once, when a rate is set (at least one).
    pub burst: u32,
    /// The shortest time between two starts.
    pub min_gap: Option<Duration>,
    /// Calls running at once.
    pub max_concurrent: Option<usize>,
    /// Calls waiting for their turn; an arrival that finds this many waiting
    /// is shed (`queue_full`). Zero: start when free, never wait.
    pub max_queue: usize,
    /// The longest a call waits for its turn; one projected to wait longer is
    /// shed at arrival (`wait_projected`), one still waiting then is shed
    /// (`wait_elapsed`).
    pub max_wait: Duration,
    /// After an upstream `429` without `Retry-After`, nothing starts for this
    /// long, doubled for each `429` in a row, up to `cooldown_max`.
    pub cooldown_base: Duration,
    /// The longest cooldown, and how long the gate must stay open before the
    /// doubling starts again from `cooldown_base`.
    pub cooldown_max: Duration,
}

impl Default for PacerOptions {
    fn default() -> Self {
        Self {
            interval: None,
            burst: 1,
            min_gap: None,
            max_concurrent: None,
            max_queue: 64,
            max_wait: Duration::from_secs(30),
            cooldown_base: Duration::from_secs(1),
            cooldown_max: Duration::from_secs(60),
        }
    }
}

impl PacerOptions {
    /// `starts` a second on average (at least one), as many at once.
    pub fn per_second(starts: u32) -> Self {
        Self::per(starts, Duration::from_secs(1))
    }

    /// `starts` a minute on average (at least one), as many at once.
    pub fn per_minute(starts: u32) -> Self {
        Self::per(starts, Duration::from_secs(60))
    }

    fn per(starts: u32, window: Duration) -> Self {
        let starts = starts.max(1);
        Self { interval: Some(window / starts), burst: starts, ..Self::default() }
    }

    /// At most `starts` at once (at least one), the rate unchanged.
    pub fn burst(mut self, starts: u32) -> Self {
        self.burst = starts.max(1);
        self
    }

    /// At least `gap` between two starts.
    pub fn min_gap(mut self, gap: Duration) -> Self {
        self.min_gap = Some(gap);
        self
    }

    /// At most `calls` running at once (at least one).
    pub fn max_concurrent(mut self, calls: usize) -> Self {
        self.max_concurrent = Some(calls.max(1));
        self
    }

    /// At most `calls` waiting for their turn.
    pub fn max_queue(mut self, calls: usize) -> Self {
        self.max_queue = calls;
        self
    }

    /// The longest a call waits for its turn.
    pub fn max_wait(mut self, wait: Duration) -> Self {
        self.max_wait = wait;
        self
    }

    /// The cooldown after an upstream `429` that says no `Retry-After`:
    /// `base`, doubled for each one in a row, up to `max`.
    pub fn cooldown(mut self, base: Duration, max: Duration) -> Self {
        self.cooldown_base = base;
        self.cooldown_max = max.max(base);
        self
    }
}

/// Why a [`Pacer`] shed a call: its `data.shedKind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShedKind {
    /// `max_queue` calls were already waiting.
    QueueFull,
    /// The wait ahead, as projected at arrival, was longer than `max_wait`.
    WaitProjected,
    /// The call waited `max_wait` without its turn coming.
    WaitElapsed,
}

impl ShedKind {
    /// Every kind.
    pub const ALL: [Self; 3] = [Self::QueueFull, Self::WaitProjected, Self::WaitElapsed];

    /// The snake_case name, as in `data.shedKind` and the metrics' label.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::QueueFull => "queue_full",
            Self::WaitProjected => "wait_projected",
            Self::WaitElapsed => "wait_elapsed",
        }
    }
}

impl fmt::Display for ShedKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a [`Pacer`] has done so far, for metrics (`Server::pacer` exports
/// it as `mcp_pacer_*`) and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PacerStats {
    /// Calls waiting for their turn now.
    pub queue_depth: usize,
    /// Calls started.
    pub started: u64,
    /// Calls shed, by kind, in [`ShedKind::ALL`]'s order.
    pub shed: [u64; 3],
    /// Cooldowns begun after an upstream `429`.
    pub cooldowns: u64,
    /// Time calls spent waiting for their turn, in all.
    pub waited: Duration,
}

/// One queue in front of one rate-limited upstream; see the [module](self).
/// Cloning gives another handle to the same queue.
#[derive(Clone)]
pub struct Pacer {
    inner: Arc<Inner>,
}

type Bucket = RateLimiter<NotKeyed, InMemoryState, TokioClock, NoOpMiddleware<Duration>>;

struct Inner {
    name: String,
    options: PacerOptions,
    clock: TokioClock,
    rate: Option<Bucket>,
    /// When the last call started, for `min_gap`.
    last_start: Mutex<Option<Instant>>,
    /// Held by the call whose turn is next, while it waits for the gates:
    /// tokio's mutex is fair, so calls start in arrival order.
    turn: tokio::sync::Mutex<()>,
    slots: Option<Semaphore>,
    waiting: AtomicUsize,
    cooldown: Mutex<Cooldown>,
    started: AtomicU64,
    shed: [AtomicU64; 3],
    cooldowns: AtomicU64,
    waited_micros: AtomicU64,
}

#[derive(Default)]
struct Cooldown {
    /// Nothing starts before this.
    until: Option<Instant>,
    /// `429`s in a row.
    streak: u32,
}

/// governor's clock on tokio's, so a paused test clock paces too.
#[derive(Clone, Copy, Debug)]
struct TokioClock {
    origin: Instant,
}

impl Clock for TokioClock {
    type Instant = Duration;

    fn now(&self) -> Duration {
        self.origin.elapsed()
    }
}

fn bucket(interval: Duration, burst: u32, clock: TokioClock) -> Bucket {
    let quota = Quota::with_period(interval.max(Duration::from_nanos(1)))
        .unwrap_or_else(|| Quota::per_second(NonZeroU32::MAX))
        .allow_burst(NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN));
    RateLimiter::direct_with_clock(quota, clock)
}

impl Pacer {
    /// A pacer for the upstream called `name` (in logs and metrics).
    pub fn new(name: impl Into<String>, options: PacerOptions) -> Self {
        let clock = TokioClock { origin: Instant::now() };
        Self {
            inner: Arc::new(Inner {
                name: name.into(),
                options,
                clock,
                rate: options.interval.map(|interval| bucket(interval, options.burst, clock)),
                last_start: Mutex::new(None),
                turn: tokio::sync::Mutex::new(()),
                slots: options.max_concurrent.map(Semaphore::new),
                waiting: AtomicUsize::new(0),
                cooldown: Mutex::new(Cooldown::default()),
                started: AtomicU64::new(0),
                shed: Default::default(),
                cooldowns: AtomicU64::new(0),
                waited_micros: AtomicU64::new(0),
            }),
        }
    }

    /// The upstream's name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The options it paces by.
    pub fn options(&self) -> &PacerOptions {
        &self.inner.options
    }

    /// What it has done so far.
    pub fn stats(&self) -> PacerStats {
        let inner = &self.inner;
        PacerStats {
            queue_depth: inner.waiting.load(Ordering::Relaxed),
            started: inner.started.load(Ordering::Relaxed),
            shed: std::array::from_fn(|kind| inner.shed[kind].load(Ordering::Relaxed)),
            cooldowns: inner.cooldowns.load(Ordering::Relaxed),
            waited: Duration::from_micros(inner.waited_micros.load(Ordering::Relaxed)),
        }
    }

    /// Run `call` when its turn comes, or shed it (a `RateLimited` error with
    /// `data.reason: "pacer_shed"`). A `RateLimited` answer of the call itself
    /// (the upstream's `429`, as [`http_error_from_status`](super::upstream::http_error_from_status)
    /// makes it) closes the gate for its `data.retryAfter`, or for the
    /// doubling cooldown; a shed of a pacer nested inside does not.
    pub async fn run<T, F, Fut>(&self, call: F) -> Result<T, McpError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, McpError>>,
    {
        let permit = self.turn().await?;
        self.inner.started.fetch_add(1, Ordering::Relaxed);
        let answer = call().await;
        drop(permit);
        if let Err(err) = &answer {
            self.after_failure(err);
        } else {
            self.lock_cooldown().streak = 0;
        }
        answer
    }

    /// Wait for this call's turn: the cooldown, a slot, the gap, the rate.
    async fn turn(&self) -> Result<Option<SemaphorePermit<'_>>, McpError> {
        let inner = &self.inner;
        let arrived = Instant::now();
        // A call that finds every gate open starts without queueing.
        if let Ok(_turn) = inner.turn.try_lock()
            && self.cooldown_left(arrived).is_zero()
            && self.gap_left(arrived).is_zero()
            && let Some(permit) = self.try_slot()
            && inner.rate.as_ref().is_none_or(|rate| rate.check().is_ok())
        {
            self.mark_start();
            return Ok(permit);
        }
        let ahead = inner.waiting.load(Ordering::Relaxed);
        if ahead >= inner.options.max_queue {
            return Err(self.shed(ShedKind::QueueFull, self.projected(ahead, arrived)));
        }
        let projected = self.projected(ahead, arrived);
        if projected > inner.options.max_wait {
            return Err(self.shed(ShedKind::WaitProjected, projected));
        }
        inner.waiting.fetch_add(1, Ordering::Relaxed);
        let waited = tokio::time::timeout(inner.options.max_wait, self.wait_for_turn()).await;
        inner.waiting.fetch_sub(1, Ordering::Relaxed);
        let micros = u64::try_from(arrived.elapsed().as_micros()).unwrap_or(u64::MAX);
        inner.waited_micros.fetch_add(micros, Ordering::Relaxed);
        waited.map_err(|_| {
            let ahead = inner.waiting.load(Ordering::Relaxed);
            self.shed(ShedKind::WaitElapsed, self.projected(ahead, Instant::now()))
        })
    }

    async fn wait_for_turn(&self) -> Option<SemaphorePermit<'_>> {
        // Holding the turn while the gates open keeps arrival order.
        let _turn = self.inner.turn.lock().await;
        let permit = match &self.inner.slots {
            Some(slots) => Some(slots.acquire().await.ok()?),
            None => None,
        };
        loop {
            let now = Instant::now();
            let wait = self.cooldown_left(now).max(self.gap_left(now));
            if !wait.is_zero() {
                tokio::time::sleep(wait).await;
                continue;
            }
            match self.inner.rate.as_ref().map(Bucket::check) {
                Some(Err(not_until)) => {
                    let now = self.inner.clock.now();
                    tokio::time::sleep(not_until.wait_time_from(now).max(Duration::from_millis(1))).await;
                }
                // A 429 that came in meanwhile closes the gate again.
                _ if !self.cooldown_left(Instant::now()).is_zero() => {}
                _ => break,
            }
        }
        self.mark_start();
        permit
    }

    fn try_slot(&self) -> Option<Option<SemaphorePermit<'_>>> {
        match &self.inner.slots {
            Some(slots) => slots.try_acquire().ok().map(Some),
            None => Some(None),
        }
    }

    fn mark_start(&self) {
        *self.inner.last_start.lock().unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
    }

    fn gap_left(&self, now: Instant) -> Duration {
        let last = *self.inner.last_start.lock().unwrap_or_else(PoisonError::into_inner);
        match (self.inner.options.min_gap, last) {
            (Some(gap), Some(last)) => (last + gap).saturating_duration_since(now),
            _ => Duration::ZERO,
        }
    }

    /// The wait of a call arriving behind `ahead` others: the cooldown, then
    /// one start interval (or the gap) each, the burst aside.
    fn projected(&self, ahead: usize, now: Instant) -> Duration {
        let options = &self.inner.options;
        let spacing = options.interval.unwrap_or_default().max(options.min_gap.unwrap_or_default());
        // The burst lets all but one of its starts through at once.
        let behind = u32::try_from(ahead + 1).unwrap_or(u32::MAX).saturating_sub(options.burst.max(1) - 1);
        self.cooldown_left(now).max(self.gap_left(now)) + spacing * behind
    }

    fn cooldown_left(&self, now: Instant) -> Duration {
        self.lock_cooldown().until.map_or(Duration::ZERO, |until| until.saturating_duration_since(now))
    }

    fn lock_cooldown(&self) -> std::sync::MutexGuard<'_, Cooldown> {
        self.inner.cooldown.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn after_failure(&self, err: &McpError) {
        if err.code() != JsonRpcErrorCode::RateLimited || err.reason() == Some(PACER_SHED) {
            return;
        }
        let options = &self.inner.options;
        let now = Instant::now();
        let mut cooldown = self.lock_cooldown();
        // A gate that stood open for the longest cooldown starts the doubling again.
        if cooldown.until.is_some_and(|until| now.saturating_duration_since(until) >= options.cooldown_max) {
            cooldown.streak = 0;
        }
        let doubled = options.cooldown_base.saturating_mul(1 << cooldown.streak.min(16)).min(options.cooldown_max);
        let wait = retry_after(err).unwrap_or(doubled);
        cooldown.streak = cooldown.streak.saturating_add(1);
        cooldown.until = Some(cooldown.until.map_or(now + wait, |until| until.max(now + wait)));
        self.inner.cooldowns.fetch_add(1, Ordering::Relaxed);
        tracing::info!(pacer = %self.inner.name, wait_ms = wait.as_millis(), "upstream rate-limited; pausing its calls");
    }

    fn shed(&self, kind: ShedKind, retry_after: Duration) -> McpError {
        self.inner.shed[kind as usize].fetch_add(1, Ordering::Relaxed);
        let retry_after = retry_after.as_secs_f64().ceil().max(1.0);
        tracing::info!(pacer = %self.inner.name, shed = %kind, retry_after, "upstream call shed");
        McpError::rate_limited(format!(
            "Too many calls to {} are waiting; this one was not sent ({kind}).",
            self.inner.name
        ))
        .with_reason(PACER_SHED)
        .with_data_field("shedKind", kind.as_str())
        .with_data_field("retryAfter", retry_after)
    }
}

impl fmt::Debug for Pacer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pacer")
            .field("name", &self.inner.name)
            .field("options", &self.inner.options)
            .field("stats", &self.stats())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex as StdMutex;

    use futures::future::join_all;

    use super::*;

    fn paused() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().expect("a runtime")
    }

    #[test]
    fn calls_start_in_order_at_the_rate() {
        paused().block_on(async {
            let pacer = Pacer::new("catalogue", PacerOptions::per_second(2).burst(1).max_wait(Duration::from_secs(60)));
            let origin = Instant::now();
            let starts = Arc::new(StdMutex::new(Vec::new()));
            let calls = (0..5).map(|index| {
                let (pacer, starts) = (pacer.clone(), starts.clone());
                async move {
                    pacer
                        .run(|| async move {
                            starts.lock().unwrap().push((index, origin.elapsed().as_millis()));
                            Ok::<_, McpError>(())
                        })
                        .await
                }
            });
            assert!(join_all(calls).await.iter().all(Result::is_ok));
            let starts = starts.lock().unwrap().clone();
            assert_eq!(starts.iter().map(|(index, _)| *index).collect::<Vec<_>>(), [0, 1, 2, 3, 4], "arrival order");
            for pair in starts.windows(2) {
                assert!(pair[1].1 - pair[0].1 >= 499, "two starts a second: {starts:?}");
            }
            assert_eq!(pacer.stats().started, 5);
        });
    }

    #[test]
    fn a_full_queue_and_a_long_wait_shed_with_their_kind() {
        paused().block_on(async {
            let options = PacerOptions::per_minute(1).max_queue(1).max_wait(Duration::from_secs(90));
            let pacer = Pacer::new("slow", options);
            pacer.run(|| async { Ok::<_, McpError>(()) }).await.expect("the first starts at once");
            // The second waits a minute (within max_wait); the third finds the queue full.
            let second = tokio::spawn({
                let pacer = pacer.clone();
                async move { pacer.run(|| async { Ok::<_, McpError>(()) }).await }
            });
            tokio::task::yield_now().await;
            let third = pacer.run(|| async { Ok::<_, McpError>(()) }).await.expect_err("shed");
            assert_eq!(third.code(), JsonRpcErrorCode::RateLimited);
            assert_eq!(third.reason(), Some(PACER_SHED));
            let data = third.data().expect("data");
            assert_eq!(data["shedKind"], "queue_full");
            assert!(data["retryAfter"].as_f64().is_some_and(|seconds| seconds >= 60.0), "{data:?}");
            second.await.expect("joined").expect("the second ran");

            let strict = Pacer::new("slow", PacerOptions::per_minute(1).max_wait(Duration::from_secs(10)));
            strict.run(|| async { Ok::<_, McpError>(()) }).await.expect("the first starts at once");
            let projected = strict.run(|| async { Ok::<_, McpError>(()) }).await.expect_err("a minute is too long");
            assert_eq!(projected.data().expect("data")["shedKind"], "wait_projected");
            assert_eq!(strict.stats().shed, [0, 1, 0]);
        });
    }

    #[test]
    fn a_call_still_waiting_at_max_wait_is_shed() {
        paused().block_on(async {
            let pacer = Pacer::new("one", PacerOptions::default().max_concurrent(1).max_wait(Duration::from_secs(5)));
            let (release, hold) = tokio::sync::oneshot::channel::<()>();
            let first = tokio::spawn({
                let pacer = pacer.clone();
                async move {
                    pacer
                        .run(|| async move {
                            let _ = hold.await;
                            Ok::<_, McpError>(())
                        })
                        .await
                }
            });
            tokio::task::yield_now().await;
            let second = pacer.run(|| async { Ok::<_, McpError>(()) }).await.expect_err("the slot never frees");
            assert_eq!(second.data().expect("data")["shedKind"], "wait_elapsed");
            let _ = release.send(());
            first.await.expect("joined").expect("the first ran");
            assert_eq!(pacer.stats().queue_depth, 0);
        });
    }

    #[test]
    fn an_upstream_429_pauses_every_call_for_its_retry_after() {
        paused().block_on(async {
            let pacer =
                Pacer::new("api", PacerOptions::default().cooldown(Duration::from_secs(2), Duration::from_secs(8)));
            let limited = pacer
                .run(|| async { Err::<(), _>(McpError::rate_limited("429").with_data_field("retryAfter", 5)) })
                .await
                .expect_err("the upstream's answer");
            assert_eq!(limited.reason(), None, "the upstream's own error, unchanged");
            let before = Instant::now();
            pacer.run(|| async { Ok::<_, McpError>(()) }).await.expect("runs after the cooldown");
            assert!(before.elapsed() >= Duration::from_secs(5), "{:?}", before.elapsed());
            // Without Retry-After: the base, doubled for each 429 in a row.
            let _ = pacer.run(|| async { Err::<(), _>(McpError::rate_limited("429")) }).await;
            for expected in [2, 4] {
                let before = Instant::now();
                let _ = pacer.run(|| async { Err::<(), _>(McpError::rate_limited("429")) }).await;
                assert!(before.elapsed() >= Duration::from_secs(expected), "{expected}: {:?}", before.elapsed());
            }
            assert_eq!(pacer.stats().cooldowns, 4);
            // A nested pacer's shed closes nothing.
            let cooldowns = pacer.stats().cooldowns;
            tokio::time::sleep(Duration::from_secs(60)).await;
            let shed = McpError::rate_limited("shed").with_reason(PACER_SHED);
            let _ = pacer.run(|| async { Err::<(), _>(shed) }).await;
            assert_eq!(pacer.stats().cooldowns, cooldowns);
        });
    }

    #[test]
    fn starts_keep_the_gap_even_within_the_rate() {
        paused().block_on(async {
            let options =
                PacerOptions::per_second(100).min_gap(Duration::from_millis(250)).max_wait(Duration::from_secs(5));
            let pacer = Pacer::new("gapped", options);
            let origin = Instant::now();
            let mut starts = Vec::new();
            for _ in 0..4 {
                pacer.run(|| async { Ok::<_, McpError>(()) }).await.expect("within max_wait");
                starts.push(origin.elapsed().as_millis());
            }
            for pair in starts.windows(2) {
                assert!(pair[1] - pair[0] >= 250, "a start every 250 ms at most: {starts:?}");
            }
        });
    }
}
