//! The HTTP/1.1 connections of Streamable HTTP: accepted with `TCP_NODELAY`,
//! capped in number, closed when a client is slow to send a request's
//! headers or leaves a keep-alive connection idle, and with a deadline on
//! each whole request, head and body.
//!
//! `axum::serve` sets none of these: its sockets keep Nagle's algorithm, which
//! holds the small data event of an SSE answer until the client ACKs the
//! headers written just before it, and the client delays that ACK by 40 ms on
//! Linux (every call took about 44 ms); and it has no timer, so a client that
//! trickles headers holds its connection forever.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use http::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::server::peer::ClientIp;
use crate::server::transport::jsonrpc::Rejection;
use crate::server::transport::proxy::TrustedProxies;

/// The limits of the connection layer, from `HttpOptions`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConnectionLimits {
    pub(crate) max_connections: usize,
    pub(crate) header_read_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    pub(crate) request_read_timeout: Duration,
}

/// What a client past a connection cap reads before the server closes: a
/// JSON-RPC error with its request id, as every error a client receives.
fn busy_response(why: &str) -> String {
    let body = Rejection::new(None, -32000, why).to_json().to_string();
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The slots of each client address, at most `max` each: its connections,
/// or, behind a trusted proxy, its requests in progress.
#[derive(Debug)]
pub(crate) struct ClientSlots {
    max: usize,
    held: Mutex<HashMap<IpAddr, usize>>,
}

impl ClientSlots {
    pub(crate) fn new(max: usize) -> Arc<Self> {
        Arc::new(Self { max, held: Mutex::new(HashMap::new()) })
    }

    /// A slot of `client`, held until dropped; `None` when it holds `max`.
    pub(crate) fn take(self: &Arc<Self>, client: IpAddr) -> Option<ClientSlot> {
        let client = client.to_canonical();
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let count = held.entry(client).or_default();
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(ClientSlot { slots: Arc::clone(self), client })
    }
}

/// One slot of [`ClientSlots`], given back when dropped.
pub(crate) struct ClientSlot {
    slots: Arc<ClientSlots>,
    client: IpAddr,
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut held = self.slots.held.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = held.get_mut(&self.client) {
            *count -= 1;
            // An address with nothing open takes no memory.
            if *count == 0 {
                held.remove(&self.client);
            }
        }
    }
}

/// Accept and serve connections until `stop` is cancelled, then let the open
/// ones finish their requests until `cut` is, and a moment more for the
/// answers to go out. A trusted proxy's connections are not counted per
/// client: [`proxy::resolve`](super::proxy::resolve) counts the requests of
/// the clients it forwards.
pub(crate) async fn serve(
    listener: TcpListener,
    app: axum::Router,
    limits: ConnectionLimits,
    clients: (Arc<ClientSlots>, Arc<TrustedProxies>),
    stop: CancellationToken,
    cut: CancellationToken,
) {
    let (clients, trusted) = clients;
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let admit = |(stream, peer): (TcpStream, std::net::SocketAddr)| {
        admit(stream, peer, (&clients, &trusted), &permits, (&app, limits), (&stop, &cut));
    };
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.cancelled() => break,
        };
        match accepted {
            Ok(accepted) => admit(accepted),
            Err(err) => {
                // Out of file descriptors and the like: wait a little and go on,
                // rather than end the server.
                tracing::warn!(%err, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
    // The connections the system accepted before the shutdown began, whose
    // clients may have sent their request whole: served like the others (a
    // request read is refused with the 503 of shutdown), rather than reset
    // with the listener. Read from the system's queue directly, without
    // waiting: the reactor may not have seen them yet.
    match listener.into_std() {
        Ok(listener) => {
            while let Ok((stream, peer)) = listener.accept() {
                match stream.set_nonblocking(true).and_then(|()| TcpStream::from_std(stream)) {
                    Ok(stream) => admit((stream, peer)),
                    Err(err) => tracing::debug!(%err, "could not serve a connection accepted before the shutdown"),
                }
            }
            // A client connecting now is refused by the system, not left waiting.
            drop(listener);
        }
        Err(err) => tracing::debug!(%err, "could not read the connections queued at shutdown"),
    }
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    let finished = async {
        let _ = permits.acquire_many(all).await;
    };
    tokio::pin!(finished);
    tokio::select! {
        () = finished.as_mut() => return,
        () = cut.cancelled() => {}
    }
    let _ = tokio::time::timeout(CUT_LINGER, finished).await;
}

/// Serve one accepted connection, within the connection caps (a connection
/// over them gets a 503 written without waiting, and is closed).
fn admit(
    stream: TcpStream,
    peer: std::net::SocketAddr,
    (clients, trusted): (&Arc<ClientSlots>, &Arc<TrustedProxies>),
    permits: &Arc<Semaphore>,
    (app, limits): (&axum::Router, ConnectionLimits),
    (stop, cut): (&CancellationToken, &CancellationToken),
) {
    let client_slot = if trusted.contains(peer.ip()) {
        None
    } else {
        let Some(slot) = clients.take(peer.ip()) else {
            tracing::warn!(
                client = %peer.ip(),
                max = clients.max,
                "refused a connection: the client holds as many as `max_connections_per_client` allows"
            );
            let _ =
                stream.try_write(busy_response("The server has too many connections from this address.").as_bytes());
            return;
        };
        Some(slot)
    };
    let Ok(permit) = Arc::clone(permits).try_acquire_owned() else {
        tracing::warn!(max = limits.max_connections, "refused a connection: at the connection cap");
        // Best effort and without waiting: the client learns why instead of timing out.
        let _ = stream.try_write(busy_response("The server has too many connections.").as_bytes());
        return;
    };
    if let Err(err) = stream.set_nodelay(true) {
        tracing::debug!(%err, "could not set TCP_NODELAY");
    }
    let app = app.clone();
    let (stop, cut) = (stop.clone(), cut.clone());
    tokio::spawn(async move {
        serve_connection(stream, peer.ip(), app, limits, stop, cut).await;
        drop((permit, client_slot));
    });
}

/// How long a connection without a request in progress is still read at
/// shutdown, so a request already sent gets the 503 of shutdown: far more
/// than reading a request that arrived takes, short enough not to hold the
/// shutdown. A request that arrives later finds its connection closed unread.
pub(crate) const SHUTDOWN_SWEEP: Duration = Duration::from_millis(50);

/// How long connections may take to send their last answers once calls are cut.
const CUT_LINGER: Duration = Duration::from_secs(2);

async fn serve_connection(
    stream: TcpStream,
    peer: std::net::IpAddr,
    app: axum::Router,
    limits: ConnectionLimits,
    stop: CancellationToken,
    cut: CancellationToken,
) {
    let watch = Arc::new(Watch::new());
    let io = TokioIo::new(WatchedIo { inner: stream, watch: Arc::clone(&watch) });
    let service = {
        let watch = Arc::clone(&watch);
        hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
            let head_began = watch.head_began();
            let busy = Busy::start(Arc::clone(&watch));
            let app = app.clone();
            // The watchdog rests while a request is in progress, so the body
            // has a deadline of its own: without it, a `Content-Length` and
            // no body held the connection forever.
            let deadline = head_began + limits.request_read_timeout;
            async move {
                let mut request = request.map(|body| Body::new(TimedBody::new(body, deadline)));
                request.extensions_mut().insert(ClientIp(peer));
                let response = tower_service_call(app, request).await;
                Ok::<_, std::convert::Infallible>(busy.hold_until_sent(response))
            }
        })
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    // The watchdog below does the timing: hyper's header timer would also run
    // while a keep-alive connection idles, so it could not differ from it.
    builder.keep_alive(true).header_read_timeout(None);
    let connection = builder.serve_connection(io, service);
    tokio::pin!(connection);
    tokio::select! {
        result = connection.as_mut() => {
            if let Err(err) = result {
                tracing::debug!(%err, "connection ended with an error");
            }
        }
        () = watch.expired(limits) => tracing::debug!("closed a slow or idle connection"),
        () = stop.cancelled() => {
            // A request the client sent before the shutdown began may still
            // be unread (in the socket, or on a connection just accepted):
            // read within the sweep, it is refused with the 503 of shutdown,
            // rather than the connection closing under it.
            if watch.busy.load(Ordering::Acquire) == 0 {
                tokio::select! {
                    _ = connection.as_mut() => return,
                    () = tokio::time::sleep(SHUTDOWN_SWEEP) => {}
                }
            }
            // Idle connections close; requests in progress finish, until the cut.
            connection.as_mut().graceful_shutdown();
            tokio::select! {
                _ = connection.as_mut() => {}
                () = cut.cancelled() => {
                    let _ = tokio::time::timeout(CUT_LINGER, connection).await;
                }
            }
        }
    }
}

/// One request through the router. A `Router` is always ready (its
/// `poll_ready` returns `Ready` at once), so it is called directly, as axum's
/// own `serve` does.
async fn tower_service_call(mut app: axum::Router, request: Request<Body>) -> Response<Body> {
    use tower_service::Service;
    match app.call(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// What the watchdog of one connection knows: requests in progress, and
/// since when the connection idles or reads a request's head.
struct Watch {
    epoch: Instant,
    busy: AtomicUsize,
    /// Milliseconds since `epoch` when the current phase (idle, or reading a head) began.
    phase_start: AtomicU64,
    /// Whether bytes of a new request arrived since the connection became idle.
    reading_head: AtomicBool,
    idle: Notify,
}

impl Watch {
    fn new() -> Self {
        Self {
            epoch: Instant::now(),
            busy: AtomicUsize::new(0),
            phase_start: AtomicU64::new(0),
            // A new connection owes its first request's head at once.
            reading_head: AtomicBool::new(true),
            idle: Notify::new(),
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// When the head of the request hyper just read began to arrive.
    fn head_began(&self) -> Instant {
        if self.reading_head.load(Ordering::Acquire) {
            self.epoch + Duration::from_millis(self.phase_start.load(Ordering::Acquire))
        } else {
            // Pipelined behind a request in progress: its bytes came meanwhile.
            Instant::now()
        }
    }

    fn on_read(&self) {
        if self.busy.load(Ordering::Acquire) == 0 && !self.reading_head.swap(true, Ordering::AcqRel) {
            self.phase_start.store(self.now(), Ordering::Release);
        }
    }

    /// A write to the socket returned `polled`: progress when it took bytes.
    /// `Busy` ends when hyper takes the body's last frame, while hyper may
    /// still hold up to its whole write buffer (a `Full` body: all of it) for
    /// a client that reads slowly: each write that makes progress begins the
    /// idle spell again, so a client that reads steadily gets its answer
    /// whole, and one that stops reading is closed an idle timeout after the
    /// last byte it took.
    fn on_write(&self, polled: &Poll<io::Result<usize>>) {
        if matches!(polled, Poll::Ready(Ok(n)) if *n > 0) && self.busy.load(Ordering::Acquire) == 0 {
            self.phase_start.store(self.now(), Ordering::Release);
        }
    }

    /// Resolves when the client took too long for a request's head, or left the connection idle too long.
    async fn expired(&self, limits: ConnectionLimits) {
        loop {
            if self.busy.load(Ordering::Acquire) > 0 {
                let idle = self.idle.notified();
                if self.busy.load(Ordering::Acquire) > 0 {
                    idle.await;
                }
                continue;
            }
            let limit = if self.reading_head.load(Ordering::Acquire) {
                limits.header_read_timeout
            } else {
                limits.idle_timeout
            };
            let deadline =
                self.phase_start.load(Ordering::Acquire) + u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
            let now = self.now();
            if now >= deadline {
                return;
            }
            // Re-checked on waking: a request may have started meanwhile.
            tokio::time::sleep(Duration::from_millis(deadline - now)).await;
        }
    }
}

/// One request in progress on a connection, until its answer is sent (or dropped).
struct Busy(Arc<Watch>);

impl Busy {
    fn start(watch: Arc<Watch>) -> Self {
        watch.busy.fetch_add(1, Ordering::AcqRel);
        watch.reading_head.store(false, Ordering::Release);
        Self(watch)
    }

    fn hold_until_sent(self, response: Response<Body>) -> Response<Body> {
        let (parts, body) = response.into_parts();
        Response::from_parts(parts, Body::new(Guarded::new(body, self)))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.phase_start.store(self.0.now(), Ordering::Release);
        if self.0.busy.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.reading_head.store(false, Ordering::Release);
            self.0.idle.notify_one();
        }
    }
}

/// The connection's socket, telling the watchdog when bytes arrive.
struct WatchedIo {
    inner: TcpStream,
    watch: Arc<Watch>,
}

impl AsyncRead for WatchedIo {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.watch.on_read();
        }
        polled
    }
}

impl AsyncWrite for WatchedIo {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.watch.on_write(&polled);
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.watch.on_write(&polled);
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// A request's body, which fails with [`RequestTimedOut`] once its deadline
/// passes before its last byte arrived.
struct TimedBody {
    inner: hyper::body::Incoming,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl TimedBody {
    fn new(inner: hyper::body::Incoming, deadline: Instant) -> Self {
        Self { inner, deadline: Box::pin(tokio::time::sleep_until(deadline)) }
    }
}

impl http_body::Body for TimedBody {
    type Data = axum::body::Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|frame| frame.map_err(Into::into)));
        }
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(RequestTimedOut)))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// The error of a request body that did not arrive in time.
#[derive(Debug)]
pub(crate) struct RequestTimedOut;

impl std::fmt::Display for RequestTimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request did not arrive within the request read timeout")
    }
}

impl std::error::Error for RequestTimedOut {}

impl RequestTimedOut {
    /// Whether `err`, or an error it wraps, is a timed-out body.
    pub(crate) fn caused(err: &(dyn std::error::Error + 'static)) -> bool {
        let mut cause = Some(err);
        while let Some(err) = cause {
            if err.is::<Self>() {
                return true;
            }
            cause = err.source();
        }
        false
    }
}

/// A response body that keeps `G` alive until the body is done or dropped.
pub(crate) struct Guarded<G> {
    body: Body,
    _guard: G,
}

impl<G> Guarded<G> {
    pub(crate) fn new(body: Body, guard: G) -> Self {
        Self { body, _guard: guard }
    }
}

impl<G: Unpin> http_body::Body for Guarded<G> {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    // The kernel's send buffer (up to 4 MiB on Linux) takes the first part of
    // the answer at once and wakes hyper to write more only once half of it
    // is free: the idle timeout is longer than a steady reader takes to read
    // that half (2 MiB at 6 MiB/s, or at a quarter of that speed on a busy
    // machine), and the answer many times the buffer.
    const SIZE: usize = 32 << 20;
    const IDLE: Duration = Duration::from_millis(1500);

    /// A server of one 32 MiB answer, with a short idle timeout; a client of
    /// it with a small receive buffer, fixed (no autotuning), so most of the
    /// answer waits on the server's side for the client to read; the request
    /// sent. The shutdown's `stop` and `cut` are one token.
    async fn large_answer() -> (tokio::net::TcpStream, CancellationToken, tokio::task::JoinHandle<()>) {
        let stop = CancellationToken::new();
        let (client, server) = large_answer_until(stop.clone(), stop.clone()).await;
        (client, stop, server)
    }

    async fn large_answer_until(
        stop: CancellationToken,
        cut: CancellationToken,
    ) -> (tokio::net::TcpStream, tokio::task::JoinHandle<()>) {
        let app = axum::Router::new().route("/", axum::routing::get(|| async { vec![b'x'; SIZE] }));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let limits = ConnectionLimits {
            max_connections: 8,
            header_read_timeout: IDLE,
            idle_timeout: IDLE,
            request_read_timeout: Duration::from_secs(5),
        };
        let clients = (ClientSlots::new(8), Arc::new(TrustedProxies::default()));
        let server = tokio::spawn(serve(listener, app, limits, clients, stop, cut));
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(64 << 10).unwrap();
        let mut client = socket.connect(address).await.unwrap();
        client.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").await.unwrap();
        (client, server)
    }

    /// Read steadily, 64 KiB every 10 ms, until the answer's body is whole
    /// or the connection ends; then `stop` once `stop_after` bytes are read.
    async fn read_steadily(
        client: &mut tokio::net::TcpStream,
        stop_after: Option<(usize, &CancellationToken)>,
    ) -> Vec<u8> {
        let mut received = Vec::new();
        let mut chunk = vec![0; 64 << 10];
        loop {
            // Each pause well within the idle timeout: the client never stalls.
            tokio::time::sleep(Duration::from_millis(10)).await;
            match client.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&chunk[..n]),
            }
            if let Some((after, stop)) = stop_after
                && received.len() >= after
            {
                stop.cancel();
            }
            if received.len() >= SIZE && body_length(&received).is_some_and(|body| body >= SIZE) {
                break;
            }
        }
        received
    }

    fn body_length(received: &[u8]) -> Option<usize> {
        let head = received.windows(4).position(|w| w == b"\r\n\r\n")?;
        Some(received.len() - head - 4)
    }

    /// A client that reads a large answer steadily but more slowly than the
    /// server writes it gets it whole: hyper takes the body's last frame (and
    /// the guard's `Busy` goes) long before its bytes are written, and the
    /// idle timer must not cut the connection while they still go out.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_slow_reader_gets_a_large_answer_whole() {
        let (mut client, stop, server) = large_answer().await;
        let began = Instant::now();
        let received = read_steadily(&mut client, None).await;
        let body = body_length(&received).unwrap_or(0);
        let took = began.elapsed();
        assert_eq!(body, SIZE, "the client got {body} of {SIZE} bytes in {took:?}");
        // Reading took longer than an idle timeout after the body's end, or the test proves nothing.
        assert!(took > IDLE * 2, "the client read the answer in {took:?}");
        stop.cancel();
        server.await.unwrap();
    }

    /// A client that stops reading an answer is closed an idle timeout after
    /// the last byte it took: a stalled reader holds no connection slot for
    /// ever, though the server still holds bytes for it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_reader_that_stalls_is_closed() {
        let (mut client, stop, server) = large_answer().await;
        // Many idle timeouts without reading a byte.
        tokio::time::sleep(IDLE * 4).await;
        let mut received = Vec::new();
        let mut chunk = vec![0; 256 << 10];
        let drained = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                match client.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => received.extend_from_slice(&chunk[..n]),
                }
            }
        })
        .await;
        let body = body_length(&received).unwrap_or(0);
        // Closed: the read ends (what the kernels held arrives first), short of the answer.
        assert!(drained.is_ok(), "the stalled connection is still open after 30 s ({body} bytes read)");
        assert!(body < SIZE, "the stalled client got the whole answer: the test proves nothing");
        stop.cancel();
        server.await.unwrap();
    }

    /// An answer whose last bytes are still being written when a shutdown
    /// begins goes out whole within the grace period: the connection closes
    /// after it (keep-alive off), not under it, and the server then ends.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_answer_being_written_at_shutdown_goes_out_whole() {
        let (stop, cut) = (CancellationToken::new(), CancellationToken::new());
        let (mut client, server) = large_answer_until(stop.clone(), cut).await;
        // The shutdown begins a few MiB in, with most of the answer still to write.
        let received = read_steadily(&mut client, Some((4 << 20, &stop))).await;
        assert!(stop.is_cancelled(), "the shutdown never began: {} bytes read", received.len());
        let body = body_length(&received).unwrap_or(0);
        assert_eq!(body, SIZE, "the client got {body} of {SIZE} bytes across the shutdown");
        // Nothing more on the connection: it closes, and the server ends without the cut.
        let mut rest = [0; 16];
        let closed = tokio::time::timeout(Duration::from_secs(10), client.read(&mut rest)).await;
        assert!(matches!(closed, Ok(Ok(0) | Err(_))), "the connection stayed open after the answer: {closed:?}");
        tokio::time::timeout(Duration::from_secs(10), server).await.expect("the server ended").unwrap();
    }
}
