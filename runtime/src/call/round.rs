//! One round of a multi-round-trip request (SEP-2322, protocol revision
//! 2026-07-28): where a handler's requests to the client go when the revision
//! has no server-to-client requests.
//!
//! On that revision a handler that asks the client (`ctx.elicit(..)`,
//! `ctx.sample(..)`, `ctx.list_roots()`) does not send anything. Its ask is
//! looked up in the answers the client sent with this request
//! (`inputResponses`) and the ones earlier rounds kept (the server's signed
//! `requestState`); an ask without an answer is written down, and the round
//! ends as soon as the handler waits for nothing but such asks: the request is
//! answered with an `input_required` result listing them. The client answers
//! and sends the request again; the handler runs again from its start, and
//! this time its asks find their answers.
//!
//! A task (SEP-2663) asks in a live round instead ([`InputRound::live_with`]):
//! its ask waits, and the task shows the request in `tasks/get` until the
//! client answers it with `tasks/update` ([`InputRound::deliver`]).
//!
//! An ask is known by its key: the one the handler names
//! ([`Context::input`](crate::call::Context::input)), else the
//! kind of the request and its rank among the handler's asks of that kind
//! (`elicitation-1`, `elicitation-2`, `sampling-1`), which the same handler
//! code reproduces on every round.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::pin;
use std::sync::{Mutex, PoisonError};
use std::task::{Poll, Waker};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::call::ClientRequestError;
use crate::error::JsonObject;

/// One request the handler made that the client has not answered yet.
#[derive(Clone, Debug, PartialEq)]
pub struct InputRequest {
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub method: &'static str,
    /// Its params, as the client would get them on a session.
    pub params: JsonObject,
}

/// How a round ended when the handler could not finish it.
#[derive(Clone, Debug, PartialEq)]
pub enum RoundEnd {
    /// The handler waits for answers: the requests by key, and the answers it
    /// used this round, which the next round must find again.
    InputRequired {
        /// The unanswered requests, by key.
        requests: BTreeMap<String, InputRequest>,
        /// The answers the handler read this round (from this request or the
        /// earlier ones), by key.
        answers: JsonObject,
    },
    /// The client's answer under `key` is not an answer of the request's kind:
    /// a protocol error of the request (-32602), whatever the handler would do.
    Invalid {
        /// The key of the answer.
        key: String,
        /// What is wrong with it.
        detail: String,
    },
}

/// The round a stateless request runs in: the answers it carries, and the
/// asks its handler makes. The server makes one per request of 2026-07-28
/// and puts it on the handler's context.
#[derive(Debug, Default)]
pub struct InputRound {
    state: Mutex<RoundState>,
    /// Cancelled when the round ends, so an ask still waiting (one the handler
    /// spawned off on a task of its own) gives up rather than wait forever.
    ended: CancellationToken,
    /// A task's round: an ask waits for its answer rather than end the round.
    live: bool,
    /// Wakes the live asks waiting for an answer, and whoever watches the asks.
    changed: tokio::sync::Notify,
}

#[derive(Debug, Default)]
struct RoundState {
    /// Answers kept by earlier rounds, from the verified `requestState`.
    kept: JsonObject,
    /// This request's `inputResponses`.
    responses: JsonObject,
    /// Answers the handler read this round.
    used: JsonObject,
    asked: BTreeMap<String, InputRequest>,
    invalid: Option<(String, String)>,
    ranks: HashMap<&'static str, u32>,
    waker: Option<Waker>,
}

impl InputRound {
    /// A round with the answers earlier rounds kept and those this request sent.
    pub fn new(kept: JsonObject, responses: JsonObject) -> Self {
        Self { state: Mutex::new(RoundState { kept, responses, ..RoundState::default() }), ..Self::default() }
    }

    /// The round of a task: an ask finds its answer in `answers` (those the
    /// call's request gathered before it became a task), or waits until
    /// [`deliver`](Self::deliver) brings it, and [`pending`](Self::pending)
    /// lists what waits.
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code, reason = "the server's tasks use it"))]
    pub(crate) fn live_with(answers: JsonObject) -> Self {
        Self { state: Mutex::new(RoundState { kept: answers, ..RoundState::default() }), live: true, ..Self::default() }
    }

    /// Every answer this round holds: kept by earlier rounds, and sent with
    /// this request where no kept one has the key (as [`answer`](Self::answer) reads them).
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code, reason = "the server's tasks use it"))]
    pub(crate) fn answers(&self) -> JsonObject {
        let state = self.lock();
        let mut answers = state.responses.clone();
        answers.extend(state.kept.clone());
        answers
    }

    /// Whether asks wait for their answers here (a task's round).
    pub(crate) fn is_live(&self) -> bool {
        self.live
    }

    /// The asks still waiting for an answer, by key.
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code, reason = "the server's tasks use it"))]
    pub(crate) fn pending(&self) -> BTreeMap<String, InputRequest> {
        self.lock().asked.clone()
    }

    /// The client's answers (`tasks/update`): the asks they answer get them
    /// and stop waiting; answers to keys nobody asked are dropped. What still
    /// waits afterwards, by key.
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code, reason = "the server's tasks use it"))]
    pub(crate) fn deliver(&self, responses: JsonObject) -> BTreeMap<String, InputRequest> {
        let mut state = self.lock();
        for (key, answer) in responses {
            if state.asked.remove(&key).is_some() {
                state.responses.insert(key, answer);
            }
        }
        let pending = state.asked.clone();
        drop(state);
        self.changed.notify_waiters();
        pending
    }

    /// Resolves when an ask starts or gets its answer, from the moment it
    /// is [enabled](tokio::sync::futures::Notified::enable).
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code, reason = "the server's tasks use it"))]
    pub(crate) fn changed(&self) -> tokio::sync::futures::Notified<'_> {
        self.changed.notified()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, RoundState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The key of the next ask of `kind` that names none: `<kind>-<rank>`.
    pub(crate) fn next_key(&self, kind: &'static str) -> String {
        let mut state = self.lock();
        let rank = state.ranks.entry(kind).or_insert(0);
        *rank += 1;
        format!("{kind}-{rank}")
    }

    /// The answer under `key`: kept by an earlier round, else sent with this request.
    pub(crate) fn answer(&self, key: &str) -> Option<Value> {
        let state = self.lock();
        state.kept.get(key).or_else(|| state.responses.get(key)).cloned()
    }

    /// The handler read the answer under `key`: the next round keeps it.
    pub(crate) fn keep(&self, key: String, answer: JsonObject) {
        self.lock().used.insert(key, Value::Object(answer));
    }

    /// Ask the client for `request` under `key`. In a request's round it
    /// waits until the round ends; in a live one, for the answer.
    pub(crate) async fn request(&self, key: String, request: InputRequest) -> Result<Value, ClientRequestError> {
        {
            let mut state = self.lock();
            state.asked.entry(key.clone()).or_insert(request);
            if let Some(waker) = state.waker.take() {
                waker.wake();
            }
        }
        if !self.live {
            self.ended.cancelled().await;
            return Err(ClientRequestError::Unavailable {
                detail: "the request ended with an input-required result".to_owned(),
            });
        }
        self.changed.notify_waiters();
        // An ask given up (its timeout, the task's cancellation) stops waiting:
        // tasks/get no longer lists it.
        let mut withdrawn = Withdraw { round: self, key: Some(key.clone()) };
        loop {
            let answered = self.changed.notified();
            let mut answered = pin!(answered);
            answered.as_mut().enable();
            if let Some(answer) = self.lock().responses.get(&key) {
                withdrawn.key = None;
                return Ok(answer.clone());
            }
            answered.await;
        }
    }

    /// The answer under `key` is no answer of its request's kind (`err`
    /// says why). In a request's round the request is answered with a
    /// protocol error, so this waits until the round ends; in a live round
    /// the handler gets `err`.
    pub(crate) async fn refuse(&self, key: String, err: ClientRequestError) -> ClientRequestError {
        if self.live {
            return err;
        }
        {
            let mut state = self.lock();
            state.invalid.get_or_insert((key, err.to_string()));
            if let Some(waker) = state.waker.take() {
                waker.wake();
            }
        }
        self.ended.cancelled().await;
        ClientRequestError::Unavailable { detail: "the request ended with a refused input response".to_owned() }
    }

    /// Run `handler` until it finishes, or until it waits for nothing but
    /// asks this round cannot answer (or one answer was refused).
    ///
    /// The check comes after each time the handler yields, so asks made
    /// together (`tokio::join!`) end the round together, as one
    /// `input_required` result with several requests.
    pub async fn drive<F: Future>(&self, handler: F) -> Result<F::Output, RoundEnd> {
        let mut handler = pin!(handler);
        let end = std::future::poll_fn(|cx| {
            if let Poll::Ready(output) = handler.as_mut().poll(cx) {
                return Poll::Ready(Ok(output));
            }
            let mut state = self.lock();
            if let Some((key, detail)) = state.invalid.take() {
                return Poll::Ready(Err(RoundEnd::Invalid { key, detail }));
            }
            if !state.asked.is_empty() {
                let requests = std::mem::take(&mut state.asked);
                return Poll::Ready(Err(RoundEnd::InputRequired { requests, answers: state.used.clone() }));
            }
            state.waker = Some(cx.waker().clone());
            Poll::Pending
        })
        .await;
        if end.is_err() {
            self.ended.cancel();
        }
        end
    }
}

/// Takes a live ask out of the pending ones when its wait is dropped unanswered.
struct Withdraw<'a> {
    round: &'a InputRound,
    key: Option<String>,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.round.lock().asked.remove(&key);
            self.round.changed.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn request(method: &'static str) -> InputRequest {
        InputRequest { method, params: JsonObject::new() }
    }

    #[tokio::test]
    async fn asks_made_together_end_the_round_together_and_answers_are_kept() {
        let responses = JsonObject::from_iter([("elicitation-1".to_owned(), json!({"action": "decline"}))]);
        let round = InputRound::new(JsonObject::new(), responses);
        let end = round
            .drive(async {
                let first = round.next_key("elicitation");
                let answer = round.answer(&first).unwrap();
                round.keep(first, answer.as_object().unwrap().clone());
                tokio::join!(
                    round.request(round.next_key("elicitation"), request("elicitation/create")),
                    round.request(round.next_key("sampling"), request("sampling/createMessage")),
                )
            })
            .await
            .unwrap_err();
        let RoundEnd::InputRequired { requests, answers } = end else { panic!("{end:?}") };
        assert_eq!(requests.keys().collect::<Vec<_>>(), ["elicitation-2", "sampling-1"]);
        assert_eq!(Value::Object(answers), json!({"elicitation-1": {"action": "decline"}}));
    }

    #[tokio::test]
    async fn an_ask_from_a_spawned_task_still_ends_the_round() {
        let round = std::sync::Arc::new(InputRound::default());
        let asking = std::sync::Arc::clone(&round);
        let end = round
            .drive(async move {
                tokio::spawn(async move { asking.request("k".to_owned(), request("roots/list")).await }).await
            })
            .await
            .unwrap_err();
        assert!(matches!(end, RoundEnd::InputRequired { ref requests, .. } if requests.contains_key("k")), "{end:?}");
    }

    #[tokio::test]
    async fn a_refused_answer_ends_the_round_as_invalid_and_a_finished_handler_is_its_output() {
        let round = InputRound::default();
        let malformed = ClientRequestError::Malformed { detail: "not an object".to_owned() };
        let end = round.drive(round.refuse("k".to_owned(), malformed.clone())).await.unwrap_err();
        assert_eq!(end, RoundEnd::Invalid { key: "k".to_owned(), detail: malformed.to_string() });
        assert_eq!(InputRound::default().drive(async { 7 }).await, Ok(7));
    }

    #[tokio::test]
    async fn in_a_live_round_an_ask_waits_for_its_answer_and_pending_lists_the_rest() {
        let round = std::sync::Arc::new(InputRound::live_with(JsonObject::new()));
        let asking = std::sync::Arc::clone(&round);
        let asks = tokio::spawn(async move {
            tokio::join!(
                asking.request("a".to_owned(), request("elicitation/create")),
                asking.request("b".to_owned(), request("elicitation/create")),
            )
        });
        tokio::time::timeout(std::time::Duration::from_secs(5), async {
            while round.pending().len() < 2 {
                tokio::task::yield_now().await;
            }
        })
        .await
        .expect("both asks wait");
        let left = round.deliver(JsonObject::from_iter([
            ("a".to_owned(), json!({"action": "decline"})),
            ("nobody".to_owned(), json!(1)),
        ]));
        assert_eq!(left.keys().collect::<Vec<_>>(), ["b"]);
        assert!(round.deliver(JsonObject::from_iter([("b".to_owned(), json!({"action": "cancel"}))])).is_empty());
        let (a, b) = tokio::time::timeout(std::time::Duration::from_secs(5), asks).await.unwrap().unwrap();
        assert_eq!((a.unwrap(), b.unwrap()), (json!({"action": "decline"}), json!({"action": "cancel"})));
        // An ask whose wait is given up is no longer pending.
        let given_up = tokio::time::timeout(
            std::time::Duration::from_millis(20),
            round.request("late".to_owned(), request("elicitation/create")),
        )
        .await;
        assert!(given_up.is_err() && round.pending().is_empty(), "{:?}", round.pending());
        let refused = round.refuse("c".to_owned(), ClientRequestError::Cancelled).await;
        assert_eq!(refused, ClientRequestError::Cancelled, "a live round hands the handler its error");
    }
}
