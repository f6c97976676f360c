//! The newline-delimited JSON-RPC transport of stdio, in front of rmcp.
//!
//! rmcp's own stdio transport drops what it cannot parse without an answer,
//! drops lines over 16 MiB silently, and, given two requests in flight under
//! one id, answers only the first (its service loop keeps one entry per id).
//! Here a reader task reads each line, answers what it refuses through
//! [`jsonrpc::inspect`], refuses an id already in flight, and hands the rest to
//! rmcp over a channel (so the read loop never waits for a handler).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, RequestId, ServerJsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::runtime::Handle;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::jsonrpc::{self, Inspection, Rejection};
use super::wire::{MAX_ERROR_MESSAGE_CHARS, cap_chars};

/// The longest line read: a longer one is answered with -32600 and skipped.
/// The same bound as rmcp's stdio transport.
pub(crate) const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// How many requests the transport remembers before forgetting the oldest cancelled ones.
const MAX_REMEMBERED: usize = 4096;

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
}

/// A [`rmcp::transport::Transport`] over a byte stream pair, one JSON-RPC message per line.
pub(crate) struct LineTransport {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    writer: Writer,
    in_flight: Arc<InFlight>,
    /// The reader task; `None` for the reader thread of stdin, which ends with
    /// the process (a blocking read cannot be interrupted).
    reader: Option<JoinHandle<()>>,
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
        let writer: Writer = Arc::new(tokio::sync::Mutex::new(Box::new(write)));
        let in_flight = Arc::new(InFlight::default());
        let (tx, incoming) = mpsc::channel(QUEUE);
        let reader =
            Reader { writer: Arc::clone(&writer), in_flight: Arc::clone(&in_flight), runtime: Handle::current() };
        let reader = tokio::spawn(read_lines(read, reader, tx));
        Self { incoming, writer, in_flight, reader: Some(reader) }
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
        let writer: Writer = Arc::new(tokio::sync::Mutex::new(Box::new(write)));
        let in_flight = Arc::new(InFlight::default());
        let (tx, incoming) = mpsc::channel(QUEUE);
        let reader =
            Reader { writer: Arc::clone(&writer), in_flight: Arc::clone(&in_flight), runtime: Handle::current() };
        std::thread::Builder::new().name("mcp-stdin".to_owned()).spawn(move || read_stdin(&reader, &tx))?;
        Ok(Self { incoming, writer, in_flight, reader: None })
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
            }
        }
        let line = encode(item);
        let writer = Arc::clone(&self.writer);
        futures::future::Either::Right(async move { write_line(&writer, &line).await })
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        if let Some(reader) = &self.reader {
            reader.abort();
        }
        self.incoming.close();
        self.writer.lock().await.flush().await
    }
}

fn encode(mut item: ServerJsonRpcMessage) -> Vec<u8> {
    if let ServerJsonRpcMessage::Error(error) = &mut item
        && let Some(cut) = cap_chars(&error.error.message, MAX_ERROR_MESSAGE_CHARS)
    {
        error.error.message = cut.into();
    }
    // Serializing rmcp's own message types does not fail: they hold JSON values and strings.
    serde_json::to_vec(&item).unwrap_or_else(|_| {
        Rejection::new(None, -32603, "Internal error: the answer could not be serialized.").to_bytes()
    })
}

async fn write_line(writer: &Writer, line: &[u8]) -> std::io::Result<()> {
    let mut writer = writer.lock().await;
    writer.write_all(line).await?;
    writer.write_all(b"\n").await?;
    writer.flush().await
}

/// What reads the client's lines needs: where to answer, the requests in
/// flight, and the runtime that writes answers.
struct Reader {
    writer: Writer,
    in_flight: Arc<InFlight>,
    runtime: Handle,
}

/// Reject `rejection` on its own task, so the read loop goes on reading.
fn answer(reader: &Reader, rejection: &Rejection) {
    tracing::debug!(code = rejection.code, message = rejection.message, "refused a client message");
    let writer = Arc::clone(&reader.writer);
    let line = rejection.to_bytes();
    reader.runtime.spawn(async move {
        if let Err(err) = write_line(&writer, &line).await {
            tracing::debug!(%err, "could not answer a refused client message");
        }
    });
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

/// Read one line into `line` (without its newline).
async fn read_line(reader: &mut (impl AsyncBufReadExt + Unpin), line: &mut Vec<u8>) -> std::io::Result<Line> {
    line.clear();
    let mut oversized = false;
    loop {
        let available = reader.fill_buf().await?;
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
    let mut line = Vec::new();
    loop {
        let read = read_line(&mut read, &mut line).await;
        let Some(step) = step(&reader, read, &line) else { return };
        if let Some(message) = step
            && tx.send(message).await.is_err()
        {
            return;
        }
    }
}

fn read_stdin(reader: &Reader, tx: &mpsc::Sender<ClientJsonRpcMessage>) {
    let mut stdin = std::io::BufReader::with_capacity(64 * 1024, std::io::stdin().lock());
    let mut line = Vec::new();
    loop {
        let read = read_line_blocking(&mut stdin, &mut line);
        let Some(step) = step(reader, read, &line) else { return };
        if let Some(message) = step
            && tx.blocking_send(message).is_err()
        {
            return;
        }
    }
}

/// One line read: `None` to stop reading, `Some(None)` when the line was
/// answered here or needs nothing, `Some(Some(message))` for rmcp.
fn step(reader: &Reader, read: std::io::Result<Line>, line: &[u8]) -> Option<Option<ClientJsonRpcMessage>> {
    let mut message = match read {
        Ok(Line::Eof) => return None,
        Err(err) => {
            tracing::debug!(%err, "reading the client's messages failed");
            return None;
        }
        Ok(Line::Oversized) => {
            let rejection = Rejection::new(
                jsonrpc::top_level_id(line),
                jsonrpc::INVALID_REQUEST,
                format!("Invalid Request: the message is longer than {MAX_LINE_BYTES} bytes."),
            );
            answer(reader, &rejection);
            return Some(None);
        }
        Ok(Line::Complete) => match jsonrpc::inspect(line) {
            Inspection::Forward(message) => *message,
            Inspection::Ignore => return Some(None),
            Inspection::Reject(rejection) => {
                answer(reader, &rejection);
                return Some(None);
            }
        },
    };
    let in_flight = &reader.in_flight;
    match &mut message {
        ClientJsonRpcMessage::Request(request) => {
            let bootstrap =
                matches!(request.request, ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_));
            let mut ids = in_flight.lock();
            if ids.theirs.contains_key(&request.id) {
                drop(ids);
                answer(reader, &jsonrpc::duplicate_id(request.id.clone()));
                return Some(None);
            }
            let ours = ids.next;
            ids.next += 1;
            let client_id = std::mem::replace(&mut request.id, RequestId::Number(ours));
            ids.theirs.insert(client_id.clone(), ours);
            ids.ours.insert(ours, Pending { client_id, bootstrap, cancelled: false });
        }
        _ if !in_flight.started.load(Ordering::Relaxed) => {
            tracing::debug!("dropped a notification or response sent before initialize");
            return Some(None);
        }
        other => {
            if let Some(id) = jsonrpc::cancelled_request_mut(other) {
                let mut ids = in_flight.lock();
                let Some(ours) = ids.theirs.remove(id) else {
                    // Nothing of that id is in flight: nothing to cancel.
                    return Some(None);
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
    Some(Some(message))
}
