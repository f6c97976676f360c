//! Graceful shutdown: the requests in flight, the moment the ones still
//! running are cut, and what a cut request and a refused new one are answered.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use http::header::{self, HeaderValue};
use http::{Response, StatusCode};
use rmcp::model::RequestId;

use crate::server::transport::jsonrpc;

use super::error_response;

/// Graceful shutdown: the requests in flight, and the moment the ones still
/// running are cut.
#[derive(Default)]
pub(crate) struct Drain {
    draining: std::sync::atomic::AtomicBool,
    in_flight: std::sync::atomic::AtomicUsize,
    idle: tokio::sync::Notify,
    /// Cancelled when the grace period ends (or nothing is in flight): rmcp's
    /// services end, and the calls cut get their error.
    pub(crate) cut: tokio_util::sync::CancellationToken,
}

impl Drain {
    /// Refuse new requests from now on.
    pub(crate) fn begin(&self) {
        self.draining.store(true, std::sync::atomic::Ordering::Release);
    }

    pub(crate) fn is_draining(&self) -> bool {
        self.draining.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Resolves once no request is in flight.
    pub(crate) async fn idle(&self) {
        loop {
            let idle = self.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            if self.in_flight.load(std::sync::atomic::Ordering::Acquire) == 0 {
                return;
            }
            idle.await;
        }
    }
}

/// A request in flight, until its answer is sent or dropped.
pub(super) struct Call(Arc<Drain>);

impl Call {
    pub(super) fn start(drain: &Arc<Drain>) -> Self {
        drain.in_flight.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Self(Arc::clone(drain))
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if self.0.in_flight.fetch_sub(1, std::sync::atomic::Ordering::AcqRel) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

/// 503 with a retryable JSON-RPC error: the server is shutting down.
pub(super) fn shutting_down(id: Option<RequestId>) -> Response<Body> {
    let mut response = error_response(StatusCode::SERVICE_UNAVAILABLE, &jsonrpc::shutting_down(id));
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The SSE event that ends the stream of a call cut by a shutdown: a
/// retryable JSON-RPC error under the request's id.
pub(super) fn cut_event(id: &RequestId) -> Bytes {
    let event = format!(
        "event: message\ndata: {}\n\n",
        String::from_utf8_lossy(&jsonrpc::shutting_down(Some(id.clone())).to_bytes())
    );
    Bytes::from(event)
}

/// The SSE answer of one request. When the grace period of a shutdown ends
/// before the stream does, the call is cut: the stream ends with a retryable
/// JSON-RPC error under the request's id (rmcp would end it with no answer),
/// unless the answer already went out.
pub(super) struct CutOnShutdown {
    body: Body,
    id: RequestId,
    cut: Pin<Box<tokio_util::sync::WaitForCancellationFutureOwned>>,
    answered: bool,
    ended: bool,
}

impl CutOnShutdown {
    pub(super) fn new(body: Body, id: RequestId, cut: tokio_util::sync::CancellationToken) -> Self {
        Self { body, id, cut: Box::pin(cut.cancelled_owned()), answered: false, ended: false }
    }

    /// Whether `frame` holds the answer to the request (a data event with its
    /// id and a `result` or `error`, not a request or notification of the server's).
    pub(super) fn answers(&self, frame: &[u8]) -> bool {
        let Ok(text) = std::str::from_utf8(frame) else { return false };
        text.lines().filter_map(|line| line.strip_prefix("data:")).any(|data| {
            serde_json::from_str::<serde_json::Value>(data.trim()).is_ok_and(|message| {
                message.get("method").is_none()
                    && (message.get("result").is_some() || message.get("error").is_some())
                    && serde_json::to_value(&self.id).is_ok_and(|id| message.get("id") == Some(&id))
            })
        })
    }
}

impl http_body::Body for CutOnShutdown {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        if this.ended {
            return Poll::Ready(None);
        }
        // The cut first: rmcp ends the stream when it is cut, which must not pass for an answer.
        if !this.answered && this.cut.as_mut().poll(cx).is_ready() {
            this.ended = true;
            return Poll::Ready(Some(Ok(http_body::Frame::data(cut_event(&this.id)))));
        }
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && let Some(data) = frame.data_ref()
            && this.answers(data)
        {
            this.answered = true;
        }
        if let Poll::Ready(None) = &polled {
            this.ended = true;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.ended
    }
}
