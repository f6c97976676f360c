//! The newline-delimited JSON-RPC transport of stdio, in front of rmcp.
//!
//! rmcp's own stdio transport drops what it cannot parse without an answer,
//! drops lines over 16 MiB silently, and, given two requests in flight under
//! one id, answers only the first (its service loop keeps one entry per id).
//! Here a reader task reads each line, answers what it refuses through
//! [`jsonrpc::inspect`], refuses an id already in flight, and hands the rest to
//! rmcp over a channel (so the read loop never waits for a handler).
//!
//! Refusals wait in a queue as bounded as the requests', so a client that
//! sends bad lines without reading the answers is slowed down, not buffered;
//! and once an answer cannot be written (stdout closed), the transport ends,
//! since nothing it does can reach the client any more.
//!
//! At shutdown, once rmcp has stopped, [`LineTransport::close`] sweeps the
//! input: what the client had written already (what is readable without
//! waiting, within a byte and a time cap) is read, each request in it
//! answered with the retryable -32000 of shutdown, and only then the output
//! closes. A request in the pipe is then answered rather than lost unread.

use foldhash::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorCode, ErrorData, GetMeta, RequestId, ServerJsonRpcMessage, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::error::sanitize::cap_chars;
use crate::server::peer::ClientId;
use crate::server::transport::jsonrpc::{self, Inspection, Rejection};
use crate::server::wire::{MAX_ERROR_MESSAGE_CHARS, stamped};

/// The longest line read: a longer one is answered with -32600 and skipped.
/// The same bound as rmcp's stdio transport.
pub(crate) const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// How many requests the transport remembers before forgetting the oldest cancelled ones.
const MAX_REMEMBERED: usize = 4096;

/// The most the shutdown sweep reads of what the client wrote before it (a
/// line begun under the cap is read to its end, within [`SWEEP_TIME`]).
pub(crate) const SWEEP_BYTES: u64 = 1024 * 1024;
/// The longest the shutdown sweep reads; writing the answers it owes has a
/// bound as long, and so has closing the output.
pub(crate) const SWEEP_TIME: Duration = Duration::from_millis(500);
/// The sweep reads what is readable now: a read that waits this long finds
/// nothing the client had written before, and ends it. Long enough for the
/// runtime (or the stdin thread) to see data a pipe holds already.
pub(crate) const SWEEP_SETTLE: Duration = Duration::from_millis(10);

type Writer = Arc<tokio::sync::Mutex<Box<dyn AsyncWrite + Send + Unpin>>>;

/// Requests handed to rmcp and not answered yet.
///
/// rmcp keys a request's answer by the client's id alone, so a cancelled
/// call's late answer could go out under a new request that reuses its id
/// (and the new request's answer be dropped). Each request therefore reaches
/// rmcp under an id of our own, mapped back on the way out.

#[derive(Default)]
struct InFlight {
    state: Mutex<Ids>,
    /// Whether rmcp's lifecycle has begun: before it, rmcp ends the whole
    /// session on a notification or a response, so those are dropped.
    started: AtomicBool,
    /// Shutting down: new requests are refused, those in flight may finish.
    draining: AtomicBool,
    /// Woken each time a request is answered, for [`Drainer::idle`].
    answered: tokio::sync::Notify,
}

#[derive(Default)]
struct Ids {
    next: i64,
    /// Ours to the client's, for every request rmcp has not answered.
    ours: HashMap<i64, Pending>,
    /// The client's to ours, for requests not answered nor cancelled.
    theirs: HashMap<RequestId, i64>,
}

struct Pending {
    client_id: RequestId,
    /// Ping and server/discover are answered before the lifecycle begins, so
    /// their answer does not mean it began.
    bootstrap: bool,
    /// The client cancelled it: whatever rmcp still sends for it is dropped.
    cancelled: bool,
}

impl InFlight {
    fn lock(&self) -> std::sync::MutexGuard<'_, Ids> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The shutdown error of `message` when it is a request read and handed
    /// over that rmcp never took (it had stopped): read, so owed an answer.
    fn unserved(&self, message: &ClientJsonRpcMessage) -> Option<Vec<u8>> {
        let ClientJsonRpcMessage::Request(request) = message else { return None };
        let RequestId::Number(ours) = request.id else { return None };
        let mut ids = self.lock();
        let pending = ids.ours.remove(&ours)?;
        ids.theirs.remove(&pending.client_id);
        (!pending.cancelled).then(|| jsonrpc::shutting_down(Some(pending.client_id)).to_bytes())
    }

    /// rmcp names a `subscriptions/listen` stream by its request's id (in the
    /// acknowledgement, each notification of the stream and the final result),
    /// and that id is ours here: the client matches them on the id it sent.
    fn restore_subscription_id(&self, item: &mut ServerJsonRpcMessage) {
        let ours = match &*item {
            ServerJsonRpcMessage::Notification(notification) => notification.notification.get_meta().subscription_id(),
            ServerJsonRpcMessage::Response(response) => match &response.result {
                ServerResult::SubscriptionsListenResult(result) => result.meta.subscription_id(),
                _ => None,
            },
            _ => None,
        };
        let Some(RequestId::Number(ours)) = ours else { return };
        let Some(client_id) = self.lock().ours.get(&ours).map(|pending| pending.client_id.clone()) else { return };
        match item {
            ServerJsonRpcMessage::Notification(notification) => {
                notification.notification.get_meta_mut().set_subscription_id(client_id);
            }
            ServerJsonRpcMessage::Response(response) => {
                if let ServerResult::SubscriptionsListenResult(result) = &mut response.result {
                    result.meta.set_subscription_id(client_id);
                }
            }
            _ => {}
        }
    }
}

/// The shutdown sweep, shared by the transport and its reader.
#[derive(Default)]
struct Sweep {
    /// Shutting down, rmcp stopped: read what the client wrote already,
    /// refuse its requests, stop.
    begun: CancellationToken,
    /// The shutdown errors of the requests read while sweeping, for
    /// [`LineTransport::close`] to write; `None` once it took them, after
    /// which nothing read counts.
    answers: Mutex<Option<Vec<Vec<u8>>>>,
    /// Lines stdin's thread has read, and whether it waits in `read` now:
    /// unchanged and waiting for [`SWEEP_SETTLE`], nothing is left to read.
    lines: AtomicU64,
    waiting: AtomicBool,
    /// stdin's thread ended (end of input, a read error).
    ended: AtomicBool,
}

impl Sweep {
    fn answers(&self) -> std::sync::MutexGuard<'_, Option<Vec<Vec<u8>>>> {
        self.answers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keep `answer` for the sweep's end; dropped once the sweep is over.
    fn keep(&self, answer: Vec<u8>) {
        if let Some(answers) = &mut *self.answers() {
            answers.push(answer);
        }
    }

    /// End the sweep: what it kept, and nothing kept after.
    fn finish(&self) -> Vec<Vec<u8>> {
        self.answers().take().unwrap_or_default()
    }
}

/// A [`rmcp::transport::Transport`] over a byte stream pair, one JSON-RPC message per line.
pub(crate) struct LineTransport {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    writer: Writer,
    in_flight: Arc<InFlight>,
    /// The reader task; `None` for the reader thread of stdin, which ends with
    /// the process (a blocking read cannot be interrupted).
    reader: Option<JoinHandle<()>>,
    /// The task writing refusals; it ends once the sweep begins and its queue is written.
    refusals: Option<JoinHandle<()>>,
    sweep: Arc<Sweep>,
    /// Cancelled when an answer could not be written: the client is gone.
    closed: CancellationToken,
}

/// A few messages of slack between the reader and rmcp; past them the reader
/// waits, so a client that floods the server is slowed down instead of
/// growing a queue.
const QUEUE: usize = 64;

impl LineTransport {
    /// Read `read` on a task of the runtime.
    pub(crate) fn new<R, W>(read: R, write: W) -> Self
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (reader, parts) = Reader::start(Box::new(write));
        let task = tokio::spawn(read_lines(read, reader, parts.tx));
        Self {
            incoming: parts.incoming,
            writer: parts.writer,
            in_flight: parts.in_flight,
            reader: Some(task),
            refusals: Some(parts.refusals),
            sweep: parts.sweep,
            closed: parts.closed,
        }
    }

    /// Read the process's stdin on a thread of its own.
    ///
    /// A tokio worker busy in a handler that computes without yielding may be
    /// the one that polls the IO driver; the other workers then sleep and no
    /// read of a pipe completes until the handler ends (every call waited for
    /// a 7 s search). A thread blocked in `read` needs no driver: each line it
    /// hands over wakes a sleeping worker, which serves it.
    pub(crate) fn stdin<W>(write: W) -> std::io::Result<Self>
    where
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (reader, parts) = Reader::start(Box::new(write));
        let tx = parts.tx;
        std::thread::Builder::new().name("mcp-stdin".to_owned()).spawn(move || read_stdin(&reader, &tx))?;
        Ok(Self {
            incoming: parts.incoming,
            writer: parts.writer,
            in_flight: parts.in_flight,
            reader: None,
            refusals: Some(parts.refusals),
            sweep: parts.sweep,
            closed: parts.closed,
        })
    }
}

impl LineTransport {
    /// What shuts the transport down gracefully while rmcp owns it.
    pub(crate) fn drainer(&self) -> Drainer {
        Drainer {
            in_flight: Arc::clone(&self.in_flight),
            writer: Arc::clone(&self.writer),
            closed: self.closed.clone(),
        }
    }
}

/// Graceful shutdown of a [`LineTransport`]: refuse new requests, wait for
/// those in flight, then answer the ones left with a retryable error.
pub(crate) struct Drainer {
    in_flight: Arc<InFlight>,
    writer: Writer,
    closed: CancellationToken,
}

impl Drainer {
    /// Refuse every request from now on (-32000, retryable).
    pub(crate) fn begin(&self) {
        self.in_flight.draining.store(true, Ordering::Release);
    }

    /// Resolves once no request is waiting for its answer.
    pub(crate) async fn idle(&self) {
        loop {
            let answered = self.in_flight.answered.notified();
            tokio::pin!(answered);
            answered.as_mut().enable();
            if !self.in_flight.lock().ours.values().any(|pending| !pending.cancelled) {
                return;
            }
            answered.await;
        }
    }

    /// Answer every request still in flight with the shutdown error; whatever
    /// rmcp sends for them later is dropped.
    pub(crate) async fn cut(&self) {
        let cut: Vec<RequestId> = {
            let mut ids = self.in_flight.lock();
            let Ids { ours, theirs, .. } = &mut *ids;
            ours.values_mut()
                .filter(|pending| !pending.cancelled)
                .map(|pending| {
                    pending.cancelled = true;
                    theirs.remove(&pending.client_id);
                    pending.client_id.clone()
                })
                .collect()
        };
        if !cut.is_empty() {
            tracing::warn!(requests = cut.len(), "shutting down: answered the requests still in flight with an error");
        }
        for id in cut {
            let line = jsonrpc::shutting_down(Some(id)).to_bytes();
            if write_or_close(&self.writer, line, &self.closed).await.is_err() {
                return;
            }
        }
    }
}

impl Drop for LineTransport {
    fn drop(&mut self) {
        if let Some(reader) = &self.reader {
            reader.abort();
        }
    }
}

impl rmcp::transport::Transport<RoleServer> for LineTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let mut item = item;
        self.in_flight.restore_subscription_id(&mut item);
        let answered = match &mut item {
            ServerJsonRpcMessage::Response(response) => Some((&mut response.id, true)),
            ServerJsonRpcMessage::Error(error) => error.id.as_mut().map(|id| (id, false)),
            _ => None,
        };
        if let Some((id, success)) = answered
            && let RequestId::Number(ours) = *id
        {
            let mut ids = self.in_flight.lock();
            if let Some(pending) = ids.ours.remove(&ours) {
                if pending.cancelled {
                    // MCP: a cancelled request gets no answer.
                    return futures::future::Either::Left(std::future::ready(Ok(())));
                }
                ids.theirs.remove(&pending.client_id);
                if success && !pending.bootstrap {
                    self.in_flight.started.store(true, Ordering::Relaxed);
                }
                *id = pending.client_id;
                drop(ids);
                self.in_flight.answered.notify_waiters();
            }
        }
        let line = encode(item);
        let writer = Arc::clone(&self.writer);
        let closed = self.closed.clone();
        futures::future::Either::Right(async move { write_or_close(&writer, line, &closed).await })
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        tokio::select! {
            message = self.incoming.recv() => message,
            // Ends rmcp's service: every answer would be lost.
            () = self.closed.cancelled() => None,
        }
    }

    /// rmcp stopped (shutdown, the client's end of input, its output
    /// closed): sweep the input, answer the requests nobody will serve, and
    /// close the output, each within [`SWEEP_TIME`] (and a little).
    async fn close(&mut self) -> Result<(), Self::Error> {
        // Whatever is read from now on is refused.
        self.in_flight.draining.store(true, Ordering::Release);
        self.sweep.begun.cancel();
        let deadline = tokio::time::Instant::now() + SWEEP_TIME + SWEEP_SETTLE;
        // Requests the reader handed over that rmcp never took: read, so owed an answer.
        self.incoming.close();
        let mut unserved = Vec::new();
        while let Ok(message) = self.incoming.try_recv() {
            unserved.extend(self.in_flight.unserved(&message));
        }
        match self.reader.take() {
            Some(mut reader) => {
                if tokio::time::timeout_at(deadline, &mut reader).await.is_err() {
                    reader.abort();
                }
            }
            None => stdin_settled(&self.sweep, deadline).await,
        }
        let swept = self.sweep.finish();
        // The refusals queued before the sweep go first: they answer lines
        // read before. Their queue is short, so its own bound.
        if let Some(mut refusals) = self.refusals.take()
            && tokio::time::timeout(SWEEP_TIME, &mut refusals).await.is_err()
        {
            refusals.abort();
        }
        if !self.closed.is_cancelled() {
            let answered = unserved.len() + swept.len();
            if answered > 0 {
                tracing::info!(
                    requests = answered,
                    "shutting down: answered the requests read at the end with an error"
                );
            }
            // Bounded: a client that reads nothing cannot hold the shutdown.
            let written = tokio::time::timeout(SWEEP_TIME, async {
                for line in unserved.into_iter().chain(swept) {
                    if write_or_close(&self.writer, line, &self.closed).await.is_err() {
                        return;
                    }
                }
            });
            let _ = written.await;
        }
        // The output closes: the client learns that nothing more will come.
        // Bounded as the rest: a writer stuck on a client that reads nothing
        // holds the lock.
        let closed = tokio::time::timeout(SWEEP_TIME, async {
            let mut writer = self.writer.lock().await;
            let flushed = writer.flush().await;
            let _ = writer.shutdown().await;
            flushed
        });
        closed.await.unwrap_or(Ok(()))
    }
}

/// stdin's thread read what the client had written: it ended, or it has
/// waited in `read` for [`SWEEP_SETTLE`] without a line, or `deadline` passed.
async fn stdin_settled(sweep: &Sweep, deadline: tokio::time::Instant) {
    let mut seen = sweep.lines.load(Ordering::Acquire);
    let mut quiet_since = tokio::time::Instant::now();
    loop {
        if sweep.ended.load(Ordering::Acquire) || tokio::time::Instant::now() >= deadline {
            return;
        }
        let lines = sweep.lines.load(Ordering::Acquire);
        if lines != seen || !sweep.waiting.load(Ordering::Acquire) {
            seen = lines;
            quiet_since = tokio::time::Instant::now();
        } else if quiet_since.elapsed() >= SWEEP_SETTLE {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

fn encode(mut item: ServerJsonRpcMessage) -> Vec<u8> {
    if let ServerJsonRpcMessage::Error(error) = &mut item {
        if let Some(cut) = cap_chars(&error.error.message, MAX_ERROR_MESSAGE_CHARS) {
            error.error.message = cut.into();
        }
        // Every error the client reads has its request id: a call's carries
        // the id of its log line already; rmcp's own (a method it does not
        // know, params it cannot read) gets a fresh one here, where all pass.
        error.error = stamped(std::mem::replace(&mut error.error, ErrorData::new(ErrorCode(0), "", None)));
    }
    // Room for a small answer at once, rather than growing through several copies.
    let mut line = Vec::with_capacity(512);
    // Serializing rmcp's own message types does not fail: they hold JSON values and strings.
    match serde_json::to_writer(&mut line, &item) {
        Ok(()) => line,
        Err(_) => Rejection::new(None, -32603, "Internal error: the answer could not be serialized.").to_bytes(),
    }
}

/// [`write_line`], marking the transport closed when the client cannot be written to.
async fn write_or_close(writer: &Writer, line: Vec<u8>, closed: &CancellationToken) -> std::io::Result<()> {
    let written = write_line(writer, line).await;
    if let Err(err) = &written
        && !closed.is_cancelled()
    {
        tracing::info!(%err, "the client's end of the transport is closed; stopping");
        closed.cancel();
    }
    written
}

/// Write `line` and its newline in one write: tokio's stdout hands each
/// write to a blocking thread, and a newline of its own would cost another.
async fn write_line(writer: &Writer, mut line: Vec<u8>) -> std::io::Result<()> {
    line.push(b'\n');
    let mut writer = writer.lock().await;
    writer.write_all(&line).await?;
    writer.flush().await
}

/// What reads the client's lines needs: the queue of refusals to answer, the
/// requests in flight, and whether the client is gone.
struct Reader {
    refusals: mpsc::Sender<Vec<u8>>,
    in_flight: Arc<InFlight>,
    sweep: Arc<Sweep>,
    closed: CancellationToken,
}

/// The transport's side of a new [`Reader`].
struct Parts {
    tx: mpsc::Sender<ClientJsonRpcMessage>,
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    writer: Writer,
    in_flight: Arc<InFlight>,
    refusals: JoinHandle<()>,
    sweep: Arc<Sweep>,
    closed: CancellationToken,
}

impl Reader {
    /// A reader writing its refusals to `write` from a task of its own.
    fn start(write: Box<dyn AsyncWrite + Send + Unpin>) -> (Self, Parts) {
        let writer: Writer = Arc::new(tokio::sync::Mutex::new(write));
        let in_flight = Arc::new(InFlight::default());
        let sweep = Arc::new(Sweep { answers: Mutex::new(Some(Vec::new())), ..Sweep::default() });
        let closed = CancellationToken::new();
        let (tx, incoming) = mpsc::channel(QUEUE);
        let (refusals, queued) = mpsc::channel(QUEUE);
        let writing = tokio::spawn(write_refusals(queued, Arc::clone(&writer), Arc::clone(&sweep), closed.clone()));
        let reader =
            Self { refusals, in_flight: Arc::clone(&in_flight), sweep: Arc::clone(&sweep), closed: closed.clone() };
        (reader, Parts { tx, incoming, writer, in_flight, refusals: writing, sweep, closed })
    }

    /// Queue `answer` for the refusal writer; once the sweep began, keep it
    /// for the sweep's end instead (the queue closes then).
    async fn refuse(&self, answer: Vec<u8>) -> Result<(), ()> {
        if self.sweep.begun.is_cancelled() {
            self.sweep.keep(answer);
            return Ok(());
        }
        match self.refusals.send(answer).await {
            Ok(()) => Ok(()),
            Err(mpsc::error::SendError(answer)) if self.sweep.begun.is_cancelled() => {
                self.sweep.keep(answer);
                Ok(())
            }
            Err(_) => Err(()),
        }
    }

    /// [`Self::refuse`] from stdin's thread.
    fn refuse_blocking(&self, answer: Vec<u8>) -> Result<(), ()> {
        if self.sweep.begun.is_cancelled() {
            self.sweep.keep(answer);
            return Ok(());
        }
        match self.refusals.blocking_send(answer) {
            Ok(()) => Ok(()),
            Err(mpsc::error::SendError(answer)) if self.sweep.begun.is_cancelled() => {
                self.sweep.keep(answer);
                Ok(())
            }
            Err(_) => Err(()),
        }
    }
}

/// Answer the refused lines in order, until the reader stops, the sweep
/// begins (then what is queued is written, and the task ends) or the client is gone.
async fn write_refusals(
    mut queued: mpsc::Receiver<Vec<u8>>,
    writer: Writer,
    sweep: Arc<Sweep>,
    closed: CancellationToken,
) {
    let mut sweeping = false;
    loop {
        let line = tokio::select! {
            line = queued.recv() => line,
            () = sweep.begun.cancelled(), if !sweeping => {
                // No more refusals come this way: the reader keeps them for the sweep's end.
                sweeping = true;
                queued.close();
                continue;
            }
            () = closed.cancelled() => None,
        };
        let Some(line) = line else { return };
        if write_or_close(&writer, line, &closed).await.is_err() {
            return;
        }
    }
}

/// What one line read asks of the read loop.
enum Step {
    /// Stop reading: end of input, a read error, or the client is gone.
    Stop,
    /// The line needs nothing more.
    Done,
    /// Answer the line with this refusal.
    Refuse(Vec<u8>),
    Forward(Box<ClientJsonRpcMessage>),
}

fn refuse(rejection: &Rejection) -> Step {
    tracing::debug!(code = rejection.code, message = rejection.message, "refused a client message");
    Step::Refuse(rejection.to_bytes())
}

enum Line {
    Complete,
    /// Longer than [`MAX_LINE_BYTES`]: the buffer holds its first bytes.
    Oversized,
    Eof,
}

/// Take what `available` holds of the current line into `line`, keeping at
/// most [`MAX_LINE_BYTES`]; returns the bytes used and whether the line ended.
fn take_line(available: &[u8], line: &mut Vec<u8>, oversized: &mut bool) -> (usize, bool) {
    let (chunk, found) = match memchr(available) {
        Some(at) => (&available[..at], true),
        None => (available, false),
    };
    let room = MAX_LINE_BYTES.saturating_sub(line.len());
    *oversized |= chunk.len() > room;
    line.extend_from_slice(&chunk[..chunk.len().min(room)]);
    (chunk.len() + usize::from(found), found)
}

fn line_end(line: &[u8], oversized: bool, eof: bool) -> Line {
    match (eof && line.is_empty() && !oversized, oversized) {
        (true, _) => Line::Eof,
        (false, true) => Line::Oversized,
        (false, false) => Line::Complete,
    }
}

/// A line being read: what it holds so far survives a read that was
/// cancelled (the sweep's bounded reads), so no line is read in two halves.
#[derive(Default)]
struct Partial {
    line: Vec<u8>,
    oversized: bool,
}

impl Partial {
    fn clear(&mut self) {
        self.line.clear();
        self.oversized = false;
    }
}

/// Read the rest of one line into `partial` (without its newline); the
/// caller clears it once it used the line. Cancel-safe.
async fn read_line(reader: &mut (impl AsyncBufReadExt + Unpin), partial: &mut Partial) -> std::io::Result<Line> {
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(line_end(&partial.line, partial.oversized, true));
        }
        let (used, found) = take_line(available, &mut partial.line, &mut partial.oversized);
        reader.consume(used);
        if found {
            return Ok(line_end(&partial.line, partial.oversized, false));
        }
    }
}

/// [`read_line`] on a blocking reader.
fn read_line_blocking(reader: &mut impl std::io::BufRead, line: &mut Vec<u8>) -> std::io::Result<Line> {
    line.clear();
    let mut oversized = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            return Ok(line_end(line, oversized, true));
        }
        let (used, found) = take_line(available, line, &mut oversized);
        reader.consume(used);
        if found {
            return Ok(line_end(line, oversized, false));
        }
    }
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&byte| byte == b'\n')
}

async fn read_lines<R>(read: R, reader: Reader, tx: mpsc::Sender<ClientJsonRpcMessage>)
where
    R: AsyncRead + Send + Unpin,
{
    let mut read = BufReader::with_capacity(64 * 1024, read);
    let mut partial = Partial::default();
    loop {
        let read = tokio::select! {
            read = read_line(&mut read, &mut partial) => read,
            () = reader.closed.cancelled() => return,
            () = reader.sweep.begun.cancelled() => break,
        };
        // A full queue makes the loop wait: the client is slowed down, never buffered.
        let sent = match step(&reader, read, &partial.line) {
            Step::Stop => return,
            Step::Done => Ok(()),
            Step::Refuse(answer) => reader.refuse(answer).await,
            Step::Forward(message) => match tx.send(*message).await {
                Ok(()) => Ok(()),
                // rmcp stopped before it took the message.
                Err(mpsc::error::SendError(message)) => {
                    if let Some(answer) = reader.in_flight.unserved(&message) {
                        reader.sweep.keep(answer);
                    }
                    Err(())
                }
            },
        };
        partial.clear();
        if sent.is_err() {
            if reader.sweep.begun.is_cancelled() {
                break;
            }
            return;
        }
    }
    sweep_lines(&mut read, &reader, &mut partial).await;
}

/// The shutdown sweep of the task's reader: read the lines readable now
/// (each read waits [`SWEEP_SETTLE`] at most), [`SWEEP_BYTES`] and
/// [`SWEEP_TIME`] at most, and keep the refusal of each request (the
/// draining flag makes it the shutdown error); notifications get nothing,
/// and no request is in flight any more for a cancellation to stop.
async fn sweep_lines<R>(read: &mut BufReader<R>, reader: &Reader, partial: &mut Partial)
where
    R: AsyncRead + Send + Unpin,
{
    let deadline = tokio::time::Instant::now() + SWEEP_TIME;
    let mut bytes = 0u64;
    while bytes < SWEEP_BYTES && !reader.closed.is_cancelled() {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            return;
        }
        let Ok(line) = tokio::time::timeout(SWEEP_SETTLE.min(left), read_line(read, partial)).await else { return };
        bytes += partial.line.len() as u64 + 1;
        match step(reader, line, &partial.line) {
            Step::Stop => return,
            Step::Refuse(answer) => reader.sweep.keep(answer),
            Step::Done | Step::Forward(_) => {}
        }
        partial.clear();
    }
}

/// stdin, telling the shutdown sweep when the thread waits in `read`.
struct Watched<'a> {
    stdin: std::io::StdinLock<'static>,
    sweep: &'a Sweep,
}

impl std::io::Read for Watched<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.sweep.waiting.store(true, Ordering::Release);
        let read = self.stdin.read(buf);
        self.sweep.waiting.store(false, Ordering::Release);
        read
    }
}

fn read_stdin(reader: &Reader, tx: &mpsc::Sender<ClientJsonRpcMessage>) {
    read_stdin_lines(reader, tx);
    reader.sweep.ended.store(true, Ordering::Release);
}

fn read_stdin_lines(reader: &Reader, tx: &mpsc::Sender<ClientJsonRpcMessage>) {
    let watched = Watched { stdin: std::io::stdin().lock(), sweep: &reader.sweep };
    let mut stdin = std::io::BufReader::with_capacity(64 * 1024, watched);
    let mut line = Vec::new();
    let mut swept = 0u64;
    loop {
        let read = read_line_blocking(&mut stdin, &mut line);
        let sweeping = reader.sweep.begun.is_cancelled();
        if sweeping {
            // The shutdown sweep: `close` decides when it ends (see `stdin_settled`).
            swept += line.len() as u64 + 1;
            if swept > SWEEP_BYTES {
                return;
            }
        }
        let sent = match step(reader, read, &line) {
            Step::Stop => return,
            Step::Done => Ok(()),
            Step::Refuse(answer) => reader.refuse_blocking(answer),
            // rmcp has stopped: nothing takes a notification any more.
            Step::Forward(_) if sweeping => Ok(()),
            Step::Forward(message) => tx.blocking_send(*message).map_err(|mpsc::error::SendError(message)| {
                // rmcp stopped before it took the message.
                if let Some(answer) = reader.in_flight.unserved(&message) {
                    reader.sweep.keep(answer);
                }
            }),
        };
        reader.sweep.lines.fetch_add(1, Ordering::AcqRel);
        // A failed hand-over at shutdown is the sweep's beginning, not the end of reading.
        if (sent.is_err() && !reader.sweep.begun.is_cancelled()) || reader.closed.is_cancelled() {
            return;
        }
    }
}

/// One line read, and what it asks of the read loop.
fn step(reader: &Reader, read: std::io::Result<Line>, line: &[u8]) -> Step {
    let mut message = match read {
        Ok(Line::Eof) => return Step::Stop,
        Err(err) => {
            tracing::debug!(%err, "reading the client's messages failed");
            return Step::Stop;
        }
        Ok(Line::Oversized) => {
            let rejection = Rejection::new(
                jsonrpc::top_level_id(line),
                jsonrpc::INVALID_REQUEST,
                format!("Invalid Request: the message is longer than {MAX_LINE_BYTES} bytes."),
            );
            return refuse(&rejection);
        }
        Ok(Line::Complete) => match jsonrpc::inspect(line) {
            Inspection::Forward(message, _) => *message,
            Inspection::Ignore => return Step::Done,
            Inspection::Reject(rejection) => return refuse(&rejection),
        },
    };
    let in_flight = &reader.in_flight;
    match &mut message {
        ClientJsonRpcMessage::Request(request) if in_flight.draining.load(Ordering::Acquire) => {
            return refuse(&jsonrpc::shutting_down(Some(request.id.clone())));
        }
        ClientJsonRpcMessage::Request(request) => {
            let bootstrap =
                matches!(request.request, ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_));
            let mut ids = in_flight.lock();
            if ids.theirs.contains_key(&request.id) {
                drop(ids);
                return refuse(&jsonrpc::duplicate_id(request.id.clone()));
            }
            let ours = ids.next;
            ids.next += 1;
            let client_id = std::mem::replace(&mut request.id, RequestId::Number(ours));
            // The handler's context and the call's span name the client's id.
            rmcp::model::GetExtensions::extensions_mut(&mut request.request).insert(ClientId(client_id.clone()));
            ids.theirs.insert(client_id.clone(), ours);
            ids.ours.insert(ours, Pending { client_id, bootstrap, cancelled: false });
        }
        _ if !in_flight.started.load(Ordering::Relaxed) => {
            tracing::debug!("dropped a notification or response sent before initialize");
            return Step::Done;
        }
        other => {
            if let Some(id) = jsonrpc::cancelled_request_mut(other) {
                let mut ids = in_flight.lock();
                let Some(ours) = ids.theirs.remove(id) else {
                    // Nothing of that id is in flight: nothing to cancel.
                    return Step::Done;
                };
                if let Some(pending) = ids.ours.get_mut(&ours) {
                    pending.cancelled = true;
                }
                // rmcp sends nothing for most cancelled calls, so their
                // entries would pile up; only a late answer, racing the
                // cancellation, needs one.
                if ids.ours.len() > MAX_REMEMBERED {
                    let horizon = ours.saturating_sub(MAX_REMEMBERED as i64);
                    ids.ours.retain(|&id, pending| !pending.cancelled || id > horizon);
                }
                *id = RequestId::Number(ours);
            }
        }
    }
    Step::Forward(Box::new(message))
}

/// What the read loop makes of `bytes` arriving in pieces cut at `cuts`
/// through a read buffer of `capacity` bytes: each line read, and what
/// [`jsonrpc::inspect`] makes of it (the message forwarded, the answer of a
/// refusal, or nothing), both through the task's reader and stdin's. The
/// same bytes must give the same messages however they were cut: the fuzz
/// target `stdio_framing` compares this with the bytes split at each newline.
#[cfg(fuzzing)]
pub(crate) fn fuzz_lines(bytes: &[u8], cuts: &[usize], capacity: usize) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
    use std::collections::VecDeque;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    /// A reader that hands out one piece per read, as a pipe may.
    struct Pieces(VecDeque<Vec<u8>>);

    impl Pieces {
        fn new(bytes: &[u8], cuts: &[usize]) -> Self {
            let mut cuts: Vec<usize> = cuts.iter().map(|&cut| cut.min(bytes.len())).collect();
            cuts.push(bytes.len());
            cuts.sort_unstable();
            cuts.dedup();
            let mut from = 0;
            let mut pieces = VecDeque::with_capacity(cuts.len());
            for cut in cuts {
                // An empty read means the end: no empty piece before the end.
                if cut > from {
                    pieces.push_back(bytes[from..cut].to_vec());
                    from = cut;
                }
            }
            Self(pieces)
        }

        fn read_into(&mut self, buf: &mut [u8]) -> usize {
            let Some(piece) = self.0.front_mut() else { return 0 };
            let n = piece.len().min(buf.len());
            buf[..n].copy_from_slice(&piece[..n]);
            piece.drain(..n);
            if piece.is_empty() {
                self.0.pop_front();
            }
            n
        }
    }

    impl AsyncRead for Pieces {
        fn poll_read(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            let this = self.get_mut();
            let n = this.read_into(buf.initialize_unfilled());
            buf.advance(n);
            Poll::Ready(Ok(()))
        }
    }

    impl std::io::Read for Pieces {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            Ok(self.read_into(buf))
        }
    }

    let outcome = |line: &[u8], read: Line| -> Option<(Vec<u8>, Option<Vec<u8>>)> {
        match read {
            Line::Eof => None,
            Line::Oversized => Some((line.to_vec(), None)),
            Line::Complete => {
                let message = match jsonrpc::inspect(line) {
                    Inspection::Forward(message, _) => {
                        Some(serde_json::to_vec(&*message).expect("a message serializes"))
                    }
                    Inspection::Ignore => None,
                    // Without the fresh `requestId` each refusal draws.
                    Inspection::Reject(rejection) => {
                        let mut answer = rejection.to_json();
                        if let Some(data) = answer["error"]["data"].as_object_mut() {
                            data.remove("requestId");
                        }
                        Some(answer.to_string().into_bytes())
                    }
                };
                Some((line.to_vec(), message))
            }
        }
    };
    let capacity = capacity.max(1);
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    let mut task = BufReader::with_capacity(capacity, Pieces::new(bytes, cuts));
    let mut lines = Vec::new();
    let mut partial = Partial::default();
    loop {
        let read = runtime.block_on(read_line(&mut task, &mut partial)).expect("reading pieces does not fail");
        let Some(read) = outcome(&partial.line, read) else { break };
        lines.push(read);
        partial.clear();
    }
    let mut line = Vec::new();
    let mut stdin = std::io::BufReader::with_capacity(capacity, Pieces::new(bytes, cuts));
    let mut blocking = Vec::new();
    loop {
        let read = read_line_blocking(&mut stdin, &mut line).expect("reading pieces does not fail");
        let Some(read) = outcome(&line, read) else { break };
        blocking.push(read);
    }
    assert_eq!(lines, blocking, "the task's reader and stdin's read the same lines");
    lines
}
