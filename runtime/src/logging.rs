//! Seeing what the crate logs, without breaking stdio (feature `logging`).
//!
//! mcp-contract reports through [`tracing`]: `try_catch` logs each failure once,
//! the server logs failed calls, panics and dropped connections. Nothing is
//! printed until the application installs a subscriber, and a stdio server must
//! never print to stdout, which carries the protocol. [`init`] installs one that
//! writes to **stderr**, filtered by `RUST_LOG` ([`DEFAULT_FILTER`] when unset):
//!
//! ```no_run
//! #[tokio::main]
//! async fn main() {
//!     mcp_contract::logging::init();
//!     // RUST_LOG=debug, or RUST_LOG=warn,mcp_contract_runtime=debug, ... as usual.
//! }
//! ```
//!
//! Applications with their own subscriber keep it: everything the crate logs
//! goes through `tracing`, under the targets `mcp_contract::*`.
//!
//! Logging never holds up or ends a request. The subscriber of [`init`] hands
//! each line to a thread of its own through a queue of [`QUEUE_LINES`] lines,
//! and that thread writes stderr. A line that finds the queue full (stderr is a
//! pipe nobody drains) or cannot be written (`2>/dev/full`, a closed pipe) is
//! dropped and counted; the first line written after a loss says how many were
//! lost. A line longer than [`MAX_LINE_BYTES`] is cut, so a handler's 10 MB
//! message cannot fill the log. [`flush`] waits (a bounded time) for the lines
//! queued so far, for a program about to exit; [`Server::run_cli`] calls it.
//!
//! [`Server::run_cli`]: crate::server::Server::run_cli

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::fmt::format::{DefaultFields, Format};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::{SubscriberInitExt, TryInitError};

/// The log lines waiting for stderr at most; more are dropped and counted.
pub const QUEUE_LINES: usize = 1024;

/// The longest log line written; a longer one is cut, saying how much was cut.
pub const MAX_LINE_BYTES: usize = 8 * 1024;

/// The filter when `RUST_LOG` is unset or empty: `info`, but only warnings of
/// rmcp, whose `info` narrates every connection.
pub const DEFAULT_FILTER: &str = "info,rmcp=warn";

/// Install a `tracing` subscriber that writes to stderr, filtered by `RUST_LOG`
/// ([`DEFAULT_FILTER`] when unset). Does nothing when a global subscriber is
/// already installed, so it is safe to call from tests and libraries alike.
pub fn init() {
    // Another subscriber is the application's choice, and it stays.
    let _ = try_init();
}

/// [`init`], telling whether a subscriber was installed.
///
/// # Errors
///
/// When a global subscriber is already installed.
pub fn try_init() -> Result<(), TryInitError> {
    let (filter, layer, writer) = stderr_layer();
    let installed = tracing_subscriber::registry().with(filter).with(layer).try_init();
    if installed.is_ok() {
        let _ = INSTALLED.set(writer);
    }
    installed
}

/// [`init`]'s parts, for a subscriber that adds layers of its own (the
/// feature `otel`'s): the filter of `RUST_LOG`, the stderr layer, and its
/// writer, which [`installed`] hands to [`flush`] once the subscriber is in.
pub(crate) fn stderr_layer<S>()
-> (EnvFilter, tracing_subscriber::fmt::Layer<S, DefaultFields, Format, LogWriter>, LogWriter)
where
    S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
{
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) if !directives.trim().is_empty() => EnvFilter::new(directives),
        _ => EnvFilter::new(DEFAULT_FILTER),
    };
    let writer = LogWriter::spawn(std::io::stderr(), QUEUE_LINES);
    let layer = tracing_subscriber::fmt::layer().with_writer(writer.clone()).with_ansi(false);
    (filter, layer, writer)
}

/// The subscriber holding `writer`'s layer was installed: [`flush`] waits for it.
#[cfg(feature = "otel")]
pub(crate) fn installed(writer: LogWriter) {
    let _ = INSTALLED.set(writer);
}

/// The writer of the subscriber [`init`] installed, for [`flush`].
static INSTALLED: OnceLock<LogWriter> = OnceLock::new();

/// Wait until the lines logged so far reached stderr (or were dropped), at
/// most `timeout`; `true` when none is left. Lines are written by a thread of
/// their own, which a process that exits ends with whatever it still holds.
/// Without [`init`]'s subscriber there is nothing to wait for.
///
/// ```
/// mcp_contract::logging::init();
/// tracing::error!("the catalogue is unreadable; stopping");
/// mcp_contract::logging::flush(std::time::Duration::from_secs(1));
/// ```
pub fn flush(timeout: Duration) -> bool {
    INSTALLED.get().is_none_or(|writer| writer.shared.wait_drained(timeout))
}

/// The writer of [`init`]'s subscriber: a bounded queue in front of a thread
/// that owns the sink, so a slow or broken sink costs a request nothing.
#[derive(Clone)]
pub(crate) struct LogWriter {
    queue: SyncSender<Vec<u8>>,
    shared: Arc<Shared>,
}

/// What the log thread and the loggers share: the count of lines dropped
/// since the last report, and of lines queued and not yet written.
#[derive(Default)]
struct Shared {
    dropped: AtomicU64,
    pending: AtomicU64,
    lock: Mutex<()>,
    drained: Condvar,
}

impl Shared {
    fn done_with_one(&self) {
        if self.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            // Under the lock, so that a `wait_drained` between its check and its wait is woken.
            let _held = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
            self.drained.notify_all();
        }
    }

    fn wait_drained(&self, timeout: Duration) -> bool {
        let held = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let (_held, waited) = self
            .drained
            .wait_timeout_while(held, timeout, |()| self.pending.load(Ordering::Acquire) > 0)
            .unwrap_or_else(PoisonError::into_inner);
        !waited.timed_out()
    }
}

impl LogWriter {
    fn spawn<W: Write + Send + 'static>(sink: W, capacity: usize) -> Self {
        let (queue, lines) = std::sync::mpsc::sync_channel(capacity);
        let shared = Arc::new(Shared::default());
        let counters = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name("mcp-contract-log".to_owned())
            .spawn(move || drain(sink, &lines, &counters));
        // Without the thread, every line counts as dropped: logging still never fails.
        drop(spawned);
        Self { queue, shared }
    }

    fn send(&self, line: &[u8]) {
        self.shared.pending.fetch_add(1, Ordering::AcqRel);
        match self.queue.try_send(cut(line)) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.shared.dropped.fetch_add(1, Ordering::Relaxed);
                self.shared.done_with_one();
            }
        }
    }
}

/// `line`, cut to [`MAX_LINE_BYTES`] (at a character boundary) with a note of what was cut.
fn cut(line: &[u8]) -> Vec<u8> {
    if line.len() <= MAX_LINE_BYTES {
        return line.to_vec();
    }
    let mut end = MAX_LINE_BYTES;
    // Not inside a UTF-8 sequence: continuation bytes are 0b10xx_xxxx.
    while end > 0 && line[end] & 0xC0 == 0x80 {
        end -= 1;
    }
    let mut kept = line[..end].to_vec();
    kept.extend_from_slice(format!("… ({} bytes cut)\n", line.len() - end).as_bytes());
    kept
}

/// The log thread: write each line; count the ones the sink refuses, and
/// report the loss once a line gets through again.
fn drain<W: Write>(mut sink: W, lines: &Receiver<Vec<u8>>, shared: &Shared) {
    while let Ok(line) = lines.recv() {
        write_line(&mut sink, &line, &shared.dropped);
        shared.done_with_one();
    }
}

fn write_line<W: Write>(sink: &mut W, line: &[u8], dropped: &AtomicU64) {
    let lost = dropped.swap(0, Ordering::Relaxed);
    if lost > 0 {
        let notice = format!("mcp-contract: {lost} log lines were dropped (the log could not keep up or be written)\n");
        if sink.write_all(notice.as_bytes()).and_then(|()| sink.flush()).is_err() {
            dropped.fetch_add(lost + 1, Ordering::Relaxed);
            return;
        }
    }
    if sink.write_all(line).and_then(|()| sink.flush()).is_err() {
        dropped.fetch_add(1, Ordering::Relaxed);
    }
}

impl Write for LogWriter {
    /// The formatter writes each event whole in one call: one call, one line.
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.send(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for LogWriter {
    type Writer = Self;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    /// Whether the gate is open, whether writes then fail, what was written,
    /// and whether a write has reached the gate.
    type GateState = (bool, bool, Vec<u8>, bool);

    /// A sink that blocks until opened, then fails or keeps what it gets.
    #[derive(Clone, Default)]
    struct Gate(Arc<(Mutex<GateState>, Condvar)>);

    impl Gate {
        fn open(&self, failing: bool) {
            let (state, wake) = &*self.0;
            let mut state = state.lock().unwrap();
            state.0 = true;
            state.1 = failing;
            wake.notify_all();
        }

        fn written(&self) -> String {
            String::from_utf8_lossy(&self.0.0.lock().unwrap().2).into_owned()
        }

        fn reached(&self) -> bool {
            self.0.0.lock().unwrap().3
        }
    }

    impl Write for Gate {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let (state, wake) = &*self.0;
            let mut state = state.lock().unwrap();
            state.3 = true;
            let mut state = wake.wait_while(state, |state| !state.0).unwrap();
            if state.1 {
                return Err(std::io::Error::other("the pipe is closed"));
            }
            state.2.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn wait_for(what: impl Fn() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !what() {
            assert!(Instant::now() < deadline, "timed out");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Regression: logging wrote stderr on the request's thread, so a stderr
    /// pipe nobody drained stalled every worker, and a closed one panicked.
    #[test]
    fn a_stalled_sink_never_blocks_the_logger_and_the_loss_is_reported_once() {
        let gate = Gate::default();
        let mut writer = LogWriter::spawn(gate.clone(), 4);
        // The log thread holds the first line at the stalled sink before the
        // flood: a thread that starts late would otherwise take the count of
        // the lines dropped before it ran for a notice of its own.
        writer.write_all(b"line 0\n").unwrap();
        wait_for(|| gate.reached());
        let started = Instant::now();
        for n in 1..1000 {
            writer.write_all(format!("line {n}\n").as_bytes()).unwrap();
        }
        assert!(started.elapsed() < Duration::from_secs(1), "logging waited for the sink");
        assert!(writer.shared.dropped.load(Ordering::Relaxed) >= 990, "what did not fit is counted");
        assert!(!writer.shared.wait_drained(Duration::from_millis(50)), "flushing a stalled sink gives up in time");
        gate.open(false);
        assert!(writer.shared.wait_drained(Duration::from_secs(5)), "then drains");
        wait_for(|| gate.written().contains("line 0\n"));
        writer.write_all(b"after\n").unwrap();
        wait_for(|| gate.written().contains("after\n"));
        let written = gate.written();
        assert_eq!(written.matches("log lines were dropped").count(), 1, "{written}");
        assert!(written.find("were dropped").unwrap() < written.find("after").unwrap(), "{written}");
    }

    #[test]
    fn an_unwritable_sink_counts_its_lines_as_dropped() {
        let gate = Gate::default();
        gate.open(true);
        let mut writer = LogWriter::spawn(gate.clone(), 4);
        writer.write_all(b"lost\n").unwrap();
        assert!(writer.shared.wait_drained(Duration::from_secs(5)), "a failed write is done with too");
        assert_eq!(writer.shared.dropped.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn long_lines_are_cut_at_a_character_boundary() {
        let line = "é".repeat(MAX_LINE_BYTES);
        let kept = String::from_utf8(cut(line.as_bytes())).expect("still UTF-8");
        assert!(kept.len() < MAX_LINE_BYTES + 40, "{}", kept.len());
        assert!(kept.ends_with(&format!("({} bytes cut)\n", line.len() - MAX_LINE_BYTES)), "{kept:.60}");
    }
}
