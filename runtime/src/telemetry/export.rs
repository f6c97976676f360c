//! The bound on what waits for export, and the count of what was lost.
//!
//! The SDK's batch processor drops a span that finds its queue full, but
//! keeps the count to itself until shutdown. [`Bounded`] stands in front of
//! it with the same bound, counting what it turns away, and [`Counted`]
//! stands behind it, counting what the collector did not take and freeing
//! the places of what was sent.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use opentelemetry::Context;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SpanData, SpanExporter, SpanProcessor};

/// At most one warning of lost spans in this long.
const WARN_EVERY: Duration = Duration::from_secs(60);

/// The spans lost, and when the last warning of it was logged.
#[derive(Debug, Default)]
pub(crate) struct Drops {
    count: AtomicU64,
    /// The count at the last warning, and when it was.
    warned: Mutex<Option<(u64, Instant)>>,
}

impl Drops {
    pub(crate) fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// `spans` were lost because of `why`: counted, and a warning when none
    /// was logged in the last minute (a collector that is down loses every
    /// batch; one line a minute says so, with the count).
    fn lost(&self, spans: u64, why: &str) {
        let total = self.count.fetch_add(spans, Ordering::Relaxed) + spans;
        let Ok(mut warned) = self.warned.try_lock() else { return };
        let now = Instant::now();
        if warned.is_some_and(|(_, at)| now.duration_since(at) < WARN_EVERY) {
            return;
        }
        let since = total - warned.map_or(0, |(count, _)| count);
        *warned = Some((total, now));
        drop(warned);
        tracing::warn!(
            target: "mcp_contract::telemetry",
            dropped = since,
            dropped_total = total,
            "OpenTelemetry: spans were dropped ({why}); calls go on unaffected"
        );
    }
}

/// The places of the export queue: taken by [`Bounded`] as a span ends, freed
/// by [`Counted`] once its batch was exported or lost.
#[derive(Clone, Debug)]
pub(crate) struct Queue {
    taken: Arc<AtomicUsize>,
    capacity: usize,
    drops: Arc<Drops>,
}

impl Queue {
    pub(crate) fn new(capacity: usize, drops: Arc<Drops>) -> Self {
        Self { taken: Arc::default(), capacity, drops }
    }

    fn take(&self) -> bool {
        self.taken
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |taken| (taken < self.capacity).then_some(taken + 1))
            .is_ok()
    }

    fn free(&self, spans: usize) {
        let _ = self.taken.fetch_update(Ordering::AcqRel, Ordering::Acquire, |taken| Some(taken.saturating_sub(spans)));
    }
}

/// The span processor in front of the SDK's batch processor: a sampled span
/// that finds [`Queue`] full is dropped and counted here, never waited for.
#[derive(Debug)]
pub(crate) struct Bounded<P> {
    inner: P,
    queue: Queue,
}

impl<P> Bounded<P> {
    pub(crate) fn new(inner: P, queue: Queue) -> Self {
        Self { inner, queue }
    }
}

impl<P: SpanProcessor> SpanProcessor for Bounded<P> {
    fn on_start(&self, span: &mut opentelemetry_sdk::trace::Span, cx: &Context) {
        self.inner.on_start(span, cx);
    }

    fn on_end(&self, span: SpanData) {
        // The batch processor exports sampled spans only, and so only those take a place.
        if !span.span_context.is_sampled() {
            return;
        }
        if !self.queue.take() {
            self.queue.drops.lost(1, "the export queue was full");
            return;
        }
        self.inner.on_end(span);
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// The exporter behind the batch processor: frees the places of each batch,
/// and counts a batch the collector did not take as lost.
#[derive(Debug)]
pub(crate) struct Counted<E> {
    inner: E,
    queue: Queue,
}

impl<E> Counted<E> {
    pub(crate) fn new(inner: E, queue: Queue) -> Self {
        Self { inner, queue }
    }
}

impl<E: SpanExporter> SpanExporter for Counted<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let spans = batch.len();
        let result = self.inner.export(batch).await;
        self.queue.free(spans);
        if result.is_err() {
            self.queue.drops.lost(spans as u64, "the collector did not take a batch");
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_turns_away_what_does_not_fit_and_counts_it() {
        let drops = Arc::new(Drops::default());
        let queue = Queue::new(2, Arc::clone(&drops));
        assert!(queue.take() && queue.take());
        assert!(!queue.take(), "full at its capacity");
        queue.free(1);
        assert!(queue.take(), "a freed place is taken again");
        queue.free(5);
        assert_eq!(queue.taken.load(Ordering::Relaxed), 0, "freeing more than taken never wraps");
        drops.lost(3, "a test");
        drops.lost(1, "a test");
        assert_eq!(drops.count(), 4);
    }
}
