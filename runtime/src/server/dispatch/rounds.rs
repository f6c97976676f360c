//! Multi-round-trip requests on the stateless revision 2026-07-28 (SEP-2322):
//! a request whose handler asks the client is answered with an
//! `input_required` result, and its retry carries the answers.
//!
//! What a round used is kept for the next one in `requestState`, which the
//! client echoes untouched: signed (HMAC-SHA256, through rmcp's
//! [`RequestStateCodec`]) with this server's key, bound to the request (its
//! method, name and arguments) and to a time to live, so a client can neither
//! forge nor change an answer the server took, nor carry one over to another
//! call (a confirmation of one deletion to the deletion of another file).
//! The state is signed, not encrypted: it holds nothing but the client's own
//! answers.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ErrorData, InputRequest, InputRequests, InputRequiredResult, InputResponses};
use rmcp::model::{RequestStateCodec, SealOptions};
use serde_json::json;

use crate::call::{InputRound, RoundEnd};
use crate::error::JsonObject;

/// How long a `requestState` is good for: a round may wait on a person.
pub(crate) const REQUEST_STATE_TTL: Duration = Duration::from_secs(60 * 60);

/// The signing of the `requestState` of one server (and of its replicas,
/// when they share the key).
#[derive(Clone)]
pub(crate) struct RequestStates {
    codec: Arc<RequestStateCodec>,
}

/// What a `requestState` holds.
#[derive(serde::Serialize, serde::Deserialize)]
struct Kept {
    answers: JsonObject,
    /// The W3C `traceparent` of the call's first round (feature `otel`):
    /// each retry's span links to it. The client's own trace, so signed
    /// and shown as the answers are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    trace: Option<String>,
}

impl RequestStates {
    /// States signed with `key` (at least [`RequestStateCodec::MIN_KEY_LENGTH`] bytes).
    pub(crate) fn new(key: Vec<u8>) -> Result<Self, String> {
        RequestStateCodec::try_new(key).map(|codec| Self { codec: Arc::new(codec) }).map_err(|err| err.to_string())
    }

    /// States signed with a key drawn for this process from the system's
    /// random number generator; its error when there is none to draw from.
    pub(crate) fn random() -> Result<Self, String> {
        let mut key = vec![0u8; RequestStateCodec::MIN_KEY_LENGTH];
        getrandom::fill(&mut key).map_err(|err| format!("the system random number generator failed ({err})"))?;
        Self::new(key)
    }

    /// The round of a request, with the answers its verified `requestState`
    /// kept and the ones it sends. A state this server did not sign for this
    /// very request (changed, cut, of another call, expired) is refused
    /// (-32602), so no answer the handler reads was forged.
    pub(crate) fn open(
        &self,
        binding: &Binding,
        state: Option<&str>,
        responses: Option<InputResponses>,
    ) -> Result<Arc<InputRound>, ErrorData> {
        let kept = match state {
            None => JsonObject::new(),
            Some(state) => {
                let kept: Kept = self.codec.open_json_with(state, &binding.0).map_err(|err| {
                    tracing::debug!(%err, "requestState refused");
                    ErrorData::invalid_params(
                        "requestState integrity check failed: it is not a state this server gave for this request, \
                         or it has expired. Send the request again without requestState and inputResponses.",
                        None,
                    )
                })?;
                kept.answers
            }
        };
        let responses = responses.unwrap_or_default().into_iter().collect();
        Ok(Arc::new(InputRound::new(kept, responses)))
    }

    /// The `traceparent` of the first round of the call that `state`, verified
    /// for this very request, continues; none for a state that keeps none.
    #[cfg(feature = "otel")]
    pub(crate) fn first_round(&self, binding: &Binding, state: &str) -> Option<String> {
        self.codec.open_json_with::<Kept>(state, &binding.0).ok()?.trace
    }

    /// The answer to a request whose round ended before the handler finished;
    /// `trace`, the first round's `traceparent`, kept for the next round's span.
    pub(crate) fn end(
        &self,
        binding: Option<&Binding>,
        end: RoundEnd,
        trace: Option<String>,
    ) -> Result<InputRequiredResult, ErrorData> {
        // Only a stateless request has a round to end, and [`Binding`] with it.
        let Some(binding) = binding else {
            return Err(ErrorData::internal_error("A request without a round ended one.", None));
        };
        let (requests, answers) = match end {
            RoundEnd::Invalid { key, detail } => {
                let key = crate::define::cap_quoted(&key);
                return Err(ErrorData::invalid_params(
                    format!("inputResponses[`{key}`] is not an answer to the request of that key: {detail}"),
                    Some(json!({ "inputResponse": key })),
                ));
            }
            RoundEnd::InputRequired { requests, answers } => (requests, answers),
        };
        let mut input_requests = InputRequests::new();
        for (key, request) in requests {
            let wire = json!({"method": request.method, "params": request.params});
            let request: InputRequest = serde_json::from_value(wire).map_err(|err| {
                tracing::error!(key, %err, "an input request does not fit MCP's schema");
                ErrorData::internal_error(
                    format!("The server built an input request `{key}` MCP does not accept."),
                    None,
                )
            })?;
            input_requests.insert(key, request);
        }
        let options = SealOptions::new().associated_data(&binding.0).ttl(REQUEST_STATE_TTL);
        let state = self
            .codec
            .seal_json_with(&Kept { answers, trace }, &options)
            .map_err(|err| ErrorData::internal_error(format!("The requestState could not be written: {err}"), None))?;
        Ok(InputRequiredResult::new(Some(input_requests), Some(state)))
    }
}

impl std::fmt::Debug for RequestStates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestStates").finish_non_exhaustive()
    }
}

/// A handler's asks as MCP's `inputRequests`.
pub(crate) fn wire_requests(
    requests: std::collections::BTreeMap<String, crate::call::InputRequest>,
) -> Result<InputRequests, ErrorData> {
    let mut input_requests = InputRequests::new();
    for (key, request) in requests {
        let wire = json!({"method": request.method, "params": request.params});
        let request: InputRequest = serde_json::from_value(wire).map_err(|err| {
            tracing::error!(key, %err, "an input request does not fit MCP's schema");
            ErrorData::internal_error(format!("The server built an input request `{key}` MCP does not accept."), None)
        })?;
        input_requests.insert(key, request);
    }
    Ok(input_requests)
}

/// What a `requestState` is bound to: the request it was given for.
pub(crate) struct Binding(Vec<u8>);

impl Binding {
    /// `method` on `name` (a tool, a prompt, a resource URI) with `arguments`.
    pub(crate) fn new(method: &str, name: &str, arguments: Option<&JsonObject>) -> Self {
        let mut bytes = Vec::with_capacity(method.len() + name.len() + 128);
        bytes.extend_from_slice(method.as_bytes());
        bytes.push(b'\n');
        bytes.extend_from_slice(name.as_bytes());
        bytes.push(b'\n');
        match arguments {
            // serde_json's maps are sorted by key: the same arguments, the
            // same bytes (those of `Value::to_string`, written in place
            // rather than through a copy of the map and `fmt`).
            Some(arguments) => {
                serde_json::to_writer(&mut bytes, arguments).expect("a JSON object serializes into memory")
            }
            None => bytes.extend_from_slice(b"{}"),
        }
        Self(bytes)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::Binding;

    /// A replica of another version opens the states this one sealed: the
    /// bytes stay those of the arguments' `Value::to_string`.
    #[test]
    fn a_binding_is_the_method_the_name_and_the_arguments_as_compact_json() {
        let arguments = json!({"b": [1, "two", null], "a": {"é": "\"quoted\"\n"}, "c": 1.5});
        let Value::Object(arguments) = arguments else { unreachable!() };
        let expected = format!("tools/call\nexport\n{}", Value::Object(arguments.clone()));
        assert_eq!(Binding::new("tools/call", "export", Some(&arguments)).0, expected.into_bytes());
        assert_eq!(Binding::new("resources/read", "file:///a", None).0, b"resources/read\nfile:///a\n{}");
    }
}
