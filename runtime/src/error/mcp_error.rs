//! The error type of every MCP tool: [`McpError`] with its [`JsonRpcErrorCode`].
//!
//! An `McpError` is what reaches the client, so its shape is the wire's:
//! `{code, message, data?}`. Everything else it carries (the cause chain, the
//! contract's recovery hint before it is opted in) stays on the server.

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt;
use std::sync::Arc;

use serde::de::Deserializer;
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ErrorCategory, ErrorContract, JsonRpcErrorCode};

/// A JSON object, the shape of an error's `data`.
pub type JsonObject = Map<String, Value>;

/// The cause of an error, kept as the std `source()` chain.
///
/// An `Arc` rather than a `Box` so that `McpError` stays `Clone`.
pub type Cause = Arc<dyn StdError + Send + Sync + 'static>;

/// An error of an MCP tool: a JSON-RPC code, a message for the model, optional
/// structured `data`, and the cause that stays on the server.
///
/// `data.reason` (see [`with_reason`](Self::with_reason)) and
/// `data.recovery.hint` (see [`with_recovery_hint`](Self::with_recovery_hint))
/// are kept apart from the caller's data and written over it, so no later
/// [`with_data`](Self::with_data) can change the reason a contract gave.
///
/// ```
/// use mcp_contract::{JsonRpcErrorCode, McpError};
/// use serde_json::json;
///
/// let err = McpError::not_found("No object 42")
///     .with_data(json!({"objectId": 42, "reason": "overridden?"}))
///     .with_reason("not_in_collection")
///     .with_recovery_hint("Search first to find valid IDs.");
/// assert_eq!(err.code(), JsonRpcErrorCode::NotFound);
/// assert_eq!(
///     serde_json::to_value(&err).unwrap(),
///     json!({
///         "code": -32001,
///         "message": "No object 42",
///         "data": {
///             "objectId": 42,
///             "recovery": {"hint": "Search first to find valid IDs."},
///             "reason": "not_in_collection",
///         },
///     })
/// );
/// ```
#[derive(Clone)]
pub struct McpError(Box<Repr>);

/// Boxed so that `Result<T, McpError>` stays one pointer wide on the error side.
#[derive(Clone)]
struct Repr {
    code: JsonRpcErrorCode,
    message: Cow<'static, str>,
    /// The wire `data`: the caller's object with `recovery.hint` and `reason`
    /// applied over it, rebuilt by every builder that touches one of the three.
    data: Option<JsonObject>,
    reason: Option<Cow<'static, str>>,
    recovery_hint: Option<Cow<'static, str>>,
    /// The contract's hint for a reason marked `recovery_private`, held back
    /// until the call site opts it in with [`with_recovery`](Self::with_recovery).
    contract_recovery: Option<&'static str>,
    /// `data.retryable` as the contract says it, applied under the caller's
    /// data: a `retryable` the caller's data holds wins.
    contract_retryable: Option<bool>,
    cause: Option<Cause>,
    /// The message is a foreign error's own text, taken by
    /// [`from_error`](McpError::from_error) (`?`), not one written for a client.
    foreign_message: bool,
    /// Answered as a JSON-RPC error rather than a tool error
    /// ([`into_protocol_error`](McpError::into_protocol_error)).
    protocol: bool,
}

macro_rules! factories {
    ($( $(#[doc = $doc:literal])* $fn:ident => $code:ident, )*) => {
        impl McpError {
            $(
                $(#[doc = $doc])*
                ///
                /// Add structured data with [`with_data`](Self::with_data) and the
                /// underlying error with [`with_cause`](Self::with_cause).
                pub fn $fn(message: impl Into<Cow<'static, str>>) -> Self {
                    Self::new(JsonRpcErrorCode::$code, message)
                }
            )*
        }

        // The factories are the table's: each one the code's `factory()` names, and
        // every code with a name has its factory. Checked here, at compile time.
        const _: () = {
            let mut count = 0;
            $(
                assert!(same_name(JsonRpcErrorCode::$code.factory(), stringify!($fn)));
                count += 1;
            )*
            let mut named = 0;
            let mut index = 0;
            while index < JsonRpcErrorCode::ALL.len() {
                named += JsonRpcErrorCode::ALL[index].factory().is_some() as usize;
                index += 1;
            }
            assert!(count == named);
        };
    };
}

const fn same_name(named: Option<&str>, factory: &str) -> bool {
    let Some(named) = named else { return false };
    let (named, factory) = (named.as_bytes(), factory.as_bytes());
    if named.len() != factory.len() {
        return false;
    }
    let mut index = 0;
    while index < named.len() {
        if named[index] != factory[index] {
            return false;
        }
        index += 1;
    }
    true
}

factories! {
    /// The arguments do not decode ([`InvalidParams`](JsonRpcErrorCode::InvalidParams)).
    invalid_params => InvalidParams,
    /// The request is not valid ([`InvalidRequest`](JsonRpcErrorCode::InvalidRequest)).
    invalid_request => InvalidRequest,
    /// The thing asked for does not exist ([`NotFound`](JsonRpcErrorCode::NotFound)).
    not_found => NotFound,
    /// The caller may not do this ([`Forbidden`](JsonRpcErrorCode::Forbidden)).
    forbidden => Forbidden,
    /// The caller is not authenticated ([`Unauthorized`](JsonRpcErrorCode::Unauthorized)).
    unauthorized => Unauthorized,
    /// The arguments break a domain rule ([`ValidationError`](JsonRpcErrorCode::ValidationError)).
    validation_error => ValidationError,
    /// The request conflicts with the current state ([`Conflict`](JsonRpcErrorCode::Conflict)).
    conflict => Conflict,
    /// Throttled ([`RateLimited`](JsonRpcErrorCode::RateLimited)); transient.
    rate_limited => RateLimited,
    /// Took too long ([`Timeout`](JsonRpcErrorCode::Timeout)); transient.
    timeout => Timeout,
    /// An upstream is down ([`ServiceUnavailable`](JsonRpcErrorCode::ServiceUnavailable)); transient.
    service_unavailable => ServiceUnavailable,
    /// The server is misconfigured ([`ConfigurationError`](JsonRpcErrorCode::ConfigurationError)).
    configuration_error => ConfigurationError,
    /// A bug or unexpected state ([`InternalError`](JsonRpcErrorCode::InternalError)).
    internal_error => InternalError,
    /// A value could not be (de)serialized ([`SerializationError`](JsonRpcErrorCode::SerializationError)).
    serialization_error => SerializationError,
    /// A database operation failed ([`DatabaseError`](JsonRpcErrorCode::DatabaseError)).
    database_error => DatabaseError,
    /// The caller abandoned the request ([`RequestCancelled`](JsonRpcErrorCode::RequestCancelled)):
    /// never retried, as nobody is left to answer.
    request_cancelled => RequestCancelled,
}

impl McpError {
    /// An error with any code; prefer the factory of the code where one exists
    /// ([`McpError::not_found`], ...).
    pub fn new(code: JsonRpcErrorCode, message: impl Into<Cow<'static, str>>) -> Self {
        Self(Box::new(Repr {
            code,
            message: message.into(),
            data: None,
            reason: None,
            recovery_hint: None,
            contract_recovery: None,
            contract_retryable: None,
            cause: None,
            foreign_message: false,
            protocol: false,
        }))
    }

    /// Classify any error ([`classify`](crate::error::classify())) and keep it as the cause.
    ///
    /// The result carries code and message only, never `data`: nothing internal
    /// reaches a client through an error nobody built on purpose. An `McpError`
    /// passed in (boxed, or at the top of the chain) is returned as it is.
    pub fn from_error<E>(err: E) -> Self
    where
        E: StdError + Send + Sync + 'static,
    {
        Self::from_boxed(Box::new(err))
    }

    /// [`from_error`](Self::from_error) for an error already boxed, as
    /// `anyhow`-style and `Box<dyn Error>` code hands them over.
    pub fn from_boxed(err: Box<dyn StdError + Send + Sync + 'static>) -> Self {
        match err.downcast::<McpError>() {
            Ok(mcp) => *mcp,
            Err(err) => {
                let code = crate::error::classify(&*err);
                Self::new(code, err.to_string()).with_cause_arc(Arc::from(err)).with_foreign_message()
            }
        }
    }

    /// Whether this error was classified from a foreign error (by `?`,
    /// [`from_error`](Self::from_error) or [`try_catch`](crate::error::try_catch())) and
    /// still carries that error's own message, which nobody wrote for a client.
    /// A server masks such an error of the server's category
    /// ([`ErrorCategory::Server`]) without a reason: see
    /// [`Server::mask_error_details`](crate::server::Server::mask_error_details).
    /// [`with_message`](Self::with_message) makes it an error written on purpose.
    ///
    /// ```
    /// use mcp_contract::McpError;
    ///
    /// let err = McpError::from_error(std::io::Error::other("disk /dev/sda2 failed"));
    /// assert!(err.is_auto_classified());
    /// assert!(!err.with_message("The catalogue is unavailable.").is_auto_classified());
    /// assert!(!McpError::internal_error("The index is rebuilding.").is_auto_classified());
    /// ```
    pub fn is_auto_classified(&self) -> bool {
        self.0.foreign_message
    }

    /// Make this error a protocol error: a tool call that fails with it is
    /// answered with a JSON-RPC error response (`{code, message, data?}` under
    /// `error`) rather than a tool error result (`isError: true`), and a task
    /// that fails with it ends `failed` with it as its `error`, where a tool
    /// error ends the task `completed` with an error result (SEP-2663
    /// reserves `failed` for protocol errors).
    ///
    /// For a failure of the request itself rather than of the tool's work,
    /// which the model has nothing to learn from: the tool's backend refused
    /// the server's own credentials, a dependency the request needs is gone.
    /// Resource reads and prompts always answer errors this way; there the
    /// mark changes nothing.
    ///
    /// ```
    /// use mcp_contract::{JsonRpcErrorCode, McpError};
    ///
    /// let err = McpError::internal_error("The job runner is gone.").into_protocol_error();
    /// assert!(err.is_protocol_error());
    /// assert_eq!(err.code(), JsonRpcErrorCode::InternalError);
    /// assert!(!McpError::internal_error("The job failed.").is_protocol_error());
    /// ```
    #[must_use]
    pub fn into_protocol_error(mut self) -> Self {
        self.0.protocol = true;
        self
    }

    /// Whether this error is answered as a JSON-RPC error even from a tool
    /// ([`into_protocol_error`](Self::into_protocol_error)).
    pub fn is_protocol_error(&self) -> bool {
        self.0.protocol
    }

    pub(crate) fn with_foreign_message(mut self) -> Self {
        self.0.foreign_message = true;
        self
    }

    /// The JSON-RPC code.
    pub fn code(&self) -> JsonRpcErrorCode {
        self.0.code
    }

    /// The message for the model.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The wire `data`, with `recovery.hint` and `reason` applied.
    pub fn data(&self) -> Option<&JsonObject> {
        self.0.data.as_ref()
    }

    /// The reason of the contract this error was raised for (`data.reason`).
    pub fn reason(&self) -> Option<&str> {
        self.0.reason.as_deref()
    }

    /// The id of the request this error answered (`data.requestId`), once the
    /// server answered it: the id its log line and span carry too.
    pub fn request_id(&self) -> Option<&str> {
        self.data()?.get("requestId")?.as_str()
    }

    /// The recovery hint that reaches the client (`data.recovery.hint`): one
    /// set at the call site, or the contract's for the error's reason.
    pub fn recovery_hint(&self) -> Option<&str> {
        self.0.recovery_hint.as_deref()
    }

    /// The cause, as kept for the server's logs; also reachable through `source()`.
    pub fn cause(&self) -> Option<&Cause> {
        self.0.cause.as_ref()
    }

    /// Who is at fault.
    pub fn category(&self) -> ErrorCategory {
        self.0.code.category()
    }

    /// Whether trying again later may succeed (see [`JsonRpcErrorCode::is_transient`]).
    pub fn is_transient(&self) -> bool {
        self.0.code.is_transient()
    }

    /// Replace the message. The error then goes out as written, even one
    /// classified from a foreign error (see [`is_auto_classified`](Self::is_auto_classified)).
    pub fn with_message(mut self, message: impl Into<Cow<'static, str>>) -> Self {
        self.0.message = message.into();
        self.0.foreign_message = false;
        self
    }

    /// Set structured data. A JSON object is taken as it is; any other value is
    /// kept under `data.value`. `reason` and `recovery.hint`, when set, are
    /// written over it.
    pub fn with_data(mut self, data: impl Into<Value>) -> Self {
        self.0.data = match data.into() {
            Value::Object(object) => Some(object),
            Value::Null => None,
            other => Some(JsonObject::from_iter([("value".to_owned(), other)])),
        };
        self.apply_overlays();
        self
    }

    /// Set one key of `data`.
    pub fn with_data_field(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.0.data.get_or_insert_with(JsonObject::new).insert(key.into(), value.into());
        self.apply_overlays();
        self
    }

    /// Keep the underlying error as the cause (`source()`); it is logged, never sent.
    pub fn with_cause<E>(self, cause: E) -> Self
    where
        E: StdError + Send + Sync + 'static,
    {
        self.with_cause_arc(Arc::new(cause))
    }

    /// [`with_cause`](Self::with_cause) for a cause already shared.
    pub fn with_cause_arc(mut self, cause: Cause) -> Self {
        self.0.cause = Some(cause);
        self
    }

    /// Set `data.reason`, the stable name of the failure mode. Written after any
    /// data, so it cannot be overridden.
    pub fn with_reason(mut self, reason: impl Into<Cow<'static, str>>) -> Self {
        self.0.reason = Some(reason.into());
        self.apply_overlays();
        self
    }

    /// Set `data.recovery.hint`, the next step for the model. An explicit hint
    /// wins over the contract's.
    pub fn with_recovery_hint(mut self, hint: impl Into<Cow<'static, str>>) -> Self {
        self.0.recovery_hint = Some(hint.into());
        self.apply_overlays();
        self
    }

    /// Send the contract's recovery hint of a reason marked `recovery_private`
    /// with this error after all. A declared hint reaches the client by
    /// default, so for any other reason this changes nothing (and adds no
    /// second hint); nor does it where a hint was set explicitly or the error
    /// was not raised through a contract (`ctx.fail`).
    pub fn with_recovery(self) -> Self {
        match (self.0.recovery_hint.is_some(), self.0.contract_recovery) {
            (false, Some(hint)) => self.with_recovery_hint(hint),
            _ => self,
        }
    }

    /// What the contract's entry for this error's reason says of it, filled in
    /// where the error says nothing itself: the recovery hint (held back for
    /// [`with_recovery`](Self::with_recovery) when the entry keeps it private)
    /// and `data.retryable`. The reference fills the hint since its 0.13.10,
    /// from `ctx.fail` and for errors built below the handler alike.
    ///
    /// `retryable` is written when the contract can say it: `true` for an
    /// entry declared `retryable`, `false` for a code that is not transient.
    /// An entry of a transient code not declared `retryable` leaves it out: the
    /// contract cannot tell "no" from "not said" there, and a `false` would
    /// stop every retry of a rate limit.
    pub(crate) fn with_contract_entry(mut self, entry: &ErrorContract) -> Self {
        let data = self.0.data.as_ref();
        if self.0.recovery_hint.is_none() && data.is_none_or(|data| !data.contains_key("recovery")) {
            if entry.recovery_private {
                self.0.contract_recovery = Some(entry.recovery);
            } else if !entry.recovery.trim().is_empty() {
                self = self.with_recovery_hint(entry.recovery);
            }
        }
        if entry.retryable || !self.code().is_transient() {
            self.0.contract_retryable = Some(entry.retryable);
            self.apply_overlays();
        }
        self
    }

    /// [`with_contract_entry`](Self::with_contract_entry) with the entry of
    /// `contract` that names this error's reason; the error as it is without one.
    #[cfg(feature = "rmcp")]
    pub(crate) fn with_contract(self, contract: &[ErrorContract]) -> Self {
        match self.reason().and_then(|reason| contract.iter().find(|entry| entry.reason == reason)) {
            Some(entry) => self.with_contract_entry(entry),
            None => self,
        }
    }

    /// The id of the request this error answers, as `data.requestId`; the
    /// caller's own `requestId`, if any, gives way (the reference's since 0.13.10).
    #[cfg(feature = "rmcp")]
    pub(crate) fn with_request_id(self, id: &str) -> Self {
        self.with_data_field("requestId", id)
    }

    /// Write the contract's `retryable` under the caller's data, then
    /// `recovery.hint` and `reason` over it.
    fn apply_overlays(&mut self) {
        if self.0.reason.is_none() && self.0.recovery_hint.is_none() && self.0.contract_retryable.is_none() {
            return;
        }
        let data = self.0.data.get_or_insert_with(JsonObject::new);
        if let Some(retryable) = self.0.contract_retryable {
            data.entry("retryable").or_insert(Value::Bool(retryable));
        }
        if let Some(hint) = &self.0.recovery_hint {
            let recovery = data.entry("recovery").or_insert_with(|| Value::Object(JsonObject::new()));
            if !recovery.is_object() {
                *recovery = Value::Object(JsonObject::new());
            }
            if let Value::Object(recovery) = recovery {
                recovery.insert("hint".to_owned(), Value::String(hint.to_string()));
            }
        }
        if let Some(reason) = &self.0.reason {
            // Removed first so that `reason` is also the last key on the wire.
            data.remove("reason");
            data.insert("reason".to_owned(), Value::String(reason.to_string()));
        }
    }
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl fmt::Debug for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("McpError");
        debug.field("code", &self.0.code).field("message", &self.0.message);
        if let Some(data) = &self.0.data {
            debug.field("data", data);
        }
        if let Some(cause) = &self.0.cause {
            debug.field("cause", cause);
        }
        if self.0.protocol {
            debug.field("protocol", &true);
        }
        debug.finish()
    }
}

impl StdError for McpError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.0.cause.as_deref().map(|cause| cause as &(dyn StdError + 'static))
    }
}

/// Two errors are equal when they look the same on the wire; causes are not compared.
impl PartialEq for McpError {
    fn eq(&self, other: &Self) -> bool {
        self.0.code == other.0.code && self.0.message == other.0.message && self.0.data == other.0.data
    }
}

impl Serialize for McpError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut wire = serializer.serialize_struct("McpError", 2 + usize::from(self.0.data.is_some()))?;
        wire.serialize_field("code", &self.0.code)?;
        wire.serialize_field("message", &self.0.message)?;
        if let Some(data) = &self.0.data {
            wire.serialize_field("data", data)?;
        }
        wire.end()
    }
}

impl<'de> Deserialize<'de> for McpError {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Wire {
            code: JsonRpcErrorCode,
            message: String,
            #[serde(default)]
            data: Option<JsonObject>,
        }
        let wire = Wire::deserialize(deserializer)?;
        let mut err = Self::new(wire.code, wire.message);
        if let Some(data) = wire.data {
            err.0.reason = data.get("reason").and_then(Value::as_str).map(|r| Cow::Owned(r.to_owned()));
            err.0.recovery_hint = data
                .get("recovery")
                .and_then(|recovery| recovery.get("hint"))
                .and_then(Value::as_str)
                .map(|hint| Cow::Owned(hint.to_owned()));
            err.0.data = Some(data);
        }
        Ok(err)
    }
}

// `?` in a handler: the errors a handler meets most, classified as
// `McpError::from_error` does, so they carry code and message only. No blanket
// `impl<E: Error> From<E>`: it would overlap `From<McpError> for McpError`.

/// `?` on an I/O error: classified by its kind ([`McpError::from_error`]).
///
/// ```
/// use mcp_contract::{JsonRpcErrorCode, McpError};
///
/// fn read_catalogue() -> Result<String, McpError> {
///     Ok(std::fs::read_to_string("/no/such/catalogue.json")?)
/// }
/// let err = read_catalogue().unwrap_err();
/// assert_eq!(err.code(), JsonRpcErrorCode::NotFound);
/// assert!(err.data().is_none(), "nothing internal reaches the client");
/// ```
impl From<std::io::Error> for McpError {
    fn from(err: std::io::Error) -> Self {
        Self::from_error(err)
    }
}

/// `?` on a JSON error: a syntax or data error is the caller's
/// ([`ValidationError`](JsonRpcErrorCode::ValidationError)), an I/O one goes by
/// its kind ([`McpError::from_error`]).
impl From<serde_json::Error> for McpError {
    fn from(err: serde_json::Error) -> Self {
        Self::from_error(err)
    }
}

/// `?` on a boxed error ([`McpError::from_boxed`]): a boxed `McpError` comes
/// back as it was, anything else is classified.
impl From<Box<dyn StdError + Send + Sync + 'static>> for McpError {
    fn from(err: Box<dyn StdError + Send + Sync + 'static>) -> Self {
        Self::from_boxed(err)
    }
}

/// `?` on an [`anyhow::Error`] (feature `anyhow`): as [`McpError::from_boxed`]
/// with the error anyhow holds, so an `McpError` comes back as it was and the
/// classifier sees the original error and its `.context(..)` chain. Any
/// backtrace anyhow captured is dropped.
#[cfg(feature = "anyhow")]
impl From<anyhow::Error> for McpError {
    fn from(err: anyhow::Error) -> Self {
        // `into_boxed_dyn_error` would box anyhow's own wrapper, which neither
        // downcasts to the original type nor lists it in its `source()` chain.
        Self::from_boxed(err.reallocate_into_boxed_dyn_error_without_backtrace())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn codes_have_the_reference_values() {
        let table: Vec<(&str, i32)> = JsonRpcErrorCode::ALL.iter().map(|c| (c.name(), c.as_i32())).collect();
        assert_eq!(
            table,
            [
                ("ParseError", -32700),
                ("InvalidRequest", -32600),
                ("MethodNotFound", -32601),
                ("InvalidParams", -32602),
                ("InternalError", -32603),
                ("ServiceUnavailable", -32000),
                ("NotFound", -32001),
                ("Conflict", -32002),
                ("RateLimited", -32003),
                ("Timeout", -32004),
                ("Forbidden", -32005),
                ("Unauthorized", -32006),
                ("ValidationError", -32007),
                ("ConfigurationError", -32008),
                ("InitializationFailed", -32009),
                ("DatabaseError", -32010),
                ("RequestCancelled", -32011),
                ("SerializationError", -32070),
                ("UnknownError", -32099),
            ]
        );
    }

    #[test]
    fn codes_round_trip_through_number_and_name() {
        for code in JsonRpcErrorCode::ALL {
            assert_eq!(JsonRpcErrorCode::from_i32(code.as_i32()), Some(code));
            assert_eq!(JsonRpcErrorCode::from_name(code.name()), Some(code));
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, json!(code.as_i32()));
            assert_eq!(serde_json::from_value::<JsonRpcErrorCode>(json).unwrap(), code);
        }
        assert_eq!(JsonRpcErrorCode::from_i32(-1), None);
        assert!(serde_json::from_value::<JsonRpcErrorCode>(json!(-1)).is_err());
    }

    #[test]
    fn categories_follow_the_reference() {
        use JsonRpcErrorCode::*;
        let of =
            |category| JsonRpcErrorCode::ALL.into_iter().filter(move |c| c.category() == category).collect::<Vec<_>>();
        assert_eq!(of(ErrorCategory::Upstream), [ServiceUnavailable, RateLimited, Timeout]);
        assert_eq!(
            of(ErrorCategory::Server),
            [InternalError, ConfigurationError, InitializationFailed, DatabaseError, SerializationError, UnknownError]
        );
        assert!(RateLimited.is_transient() && !NotFound.is_transient() && !InternalError.is_transient());
        assert_eq!(RequestCancelled.category(), ErrorCategory::Client, "a caller that went away is no fault of ours");
        assert!(!RequestCancelled.is_transient() && RequestCancelled.is_baseline());
    }

    #[test]
    fn every_factory_builds_its_code() {
        let built = [
            (McpError::invalid_params("m"), JsonRpcErrorCode::InvalidParams),
            (McpError::invalid_request("m"), JsonRpcErrorCode::InvalidRequest),
            (McpError::not_found("m"), JsonRpcErrorCode::NotFound),
            (McpError::forbidden("m"), JsonRpcErrorCode::Forbidden),
            (McpError::unauthorized("m"), JsonRpcErrorCode::Unauthorized),
            (McpError::validation_error("m"), JsonRpcErrorCode::ValidationError),
            (McpError::conflict("m"), JsonRpcErrorCode::Conflict),
            (McpError::rate_limited("m"), JsonRpcErrorCode::RateLimited),
            (McpError::timeout("m"), JsonRpcErrorCode::Timeout),
            (McpError::service_unavailable("m"), JsonRpcErrorCode::ServiceUnavailable),
            (McpError::configuration_error("m"), JsonRpcErrorCode::ConfigurationError),
            (McpError::internal_error("m"), JsonRpcErrorCode::InternalError),
            (McpError::serialization_error("m"), JsonRpcErrorCode::SerializationError),
            (McpError::database_error("m"), JsonRpcErrorCode::DatabaseError),
            (McpError::request_cancelled("m"), JsonRpcErrorCode::RequestCancelled),
        ];
        for (err, code) in built {
            assert_eq!(err.code(), code);
            assert_eq!(
                code.factory().map(|name| name.to_owned()),
                Some(format!("{code:?}").chars().fold(String::new(), |mut snake, ch| {
                    if ch.is_uppercase() && !snake.is_empty() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                    snake
                }))
            );
        }
        assert_eq!(JsonRpcErrorCode::UnknownError.factory(), None);
    }

    #[test]
    fn reason_is_written_last_and_survives_later_data() {
        let err = McpError::not_found("gone")
            .with_reason("not_in_collection")
            .with_data(json!({"reason": "spoofed", "id": 7}))
            .with_data_field("reason", "spoofed again");
        assert_eq!(err.reason(), Some("not_in_collection"));
        let data = err.data().unwrap();
        assert_eq!(data["reason"], "not_in_collection");
        assert_eq!(data["id"], 7);
    }

    const ENTRY: ErrorContract = ErrorContract::new("r", JsonRpcErrorCode::NotFound, "w", "from contract");

    #[test]
    fn the_contract_fills_the_hint_and_with_recovery_adds_no_second_one() {
        let filled = McpError::not_found("gone").with_reason("r").with_contract(&[ENTRY]);
        assert_eq!(filled.recovery_hint(), Some("from contract"));
        assert_eq!(filled.data().unwrap()["retryable"], false, "NotFound is not transient");
        assert_eq!(filled.clone().with_recovery(), filled, "harmless");
        let explicit =
            McpError::not_found("gone").with_reason("r").with_recovery_hint("explicit").with_contract(&[ENTRY]);
        assert_eq!(explicit.data().unwrap()["recovery"], json!({"hint": "explicit"}), "a call site's hint wins");
        let other = McpError::not_found("gone").with_reason("other").with_contract(&[ENTRY]);
        assert_eq!(other.data().unwrap().len(), 1, "a reason the contract lacks is left alone: {other:?}");
    }

    #[test]
    fn a_private_hint_waits_for_with_recovery() {
        let held = McpError::not_found("gone").with_reason("r").with_contract(&[ENTRY.with_recovery_private()]);
        assert_eq!(held.recovery_hint(), None);
        assert!(held.data().unwrap().get("recovery").is_none());
        assert_eq!(held.with_recovery().recovery_hint(), Some("from contract"));
    }

    #[test]
    fn retryable_is_written_only_where_the_contract_can_say_it() {
        let busy = ErrorContract::new("r", JsonRpcErrorCode::RateLimited, "w", "Wait, then call again.");
        let unsaid = McpError::rate_limited("slow").with_reason("r").with_contract(&[busy]);
        assert!(unsaid.data().unwrap().get("retryable").is_none(), "a transient code not declared retryable");
        let said = McpError::rate_limited("slow").with_reason("r").with_contract(&[busy.with_retryable(true)]);
        assert_eq!(said.data().unwrap()["retryable"], true);
        let own = McpError::rate_limited("slow").with_data_field("retryable", false).with_reason("r");
        assert_eq!(
            own.with_contract(&[busy.with_retryable(true)]).data().unwrap()["retryable"],
            false,
            "the error's own wins"
        );
    }

    #[test]
    fn cause_is_the_source_chain() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "disk says no");
        let err = McpError::internal_error("failed").with_cause(io);
        let source = err.source().expect("cause kept");
        assert_eq!(source.to_string(), "disk says no");
        assert!(source.downcast_ref::<std::io::Error>().is_some());
        // Still cheap to clone, and the clone shares the cause.
        let clone = err.clone();
        assert!(Arc::ptr_eq(clone.cause().unwrap(), err.cause().unwrap()));
    }

    #[test]
    fn from_error_classifies_and_carries_no_data() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "secret path /etc/shadow");
        let err = McpError::from_error(io);
        assert_eq!(err.code(), JsonRpcErrorCode::Forbidden);
        assert!(err.data().is_none());
        assert!(err.source().is_some());
        let original = McpError::conflict("exists").with_reason("dup");
        assert_eq!(McpError::from_error(original.clone()), original);
    }

    /// What `?` gives in a handler returning `Result<_, McpError>`.
    fn question_mark<E>(err: E) -> McpError
    where
        McpError: From<E>,
    {
        let failing = || -> Result<(), McpError> { Err(err)? };
        failing().unwrap_err()
    }

    /// Classified: the code `from_error` gives, the message, the cause, no `data`.
    fn assert_auto_classified(err: &McpError, code: JsonRpcErrorCode, message: &str) {
        assert_eq!(err.code(), code);
        assert_eq!(err.message(), message);
        assert!(err.data().is_none(), "an auto-classified error sends no data: {:?}", err.data());
        assert!(serde_json::to_value(err).unwrap().get("data").is_none());
        assert!(err.source().is_some(), "the cause is kept");
    }

    #[test]
    fn question_mark_on_io_errors_classifies_by_kind() {
        let make = || std::io::Error::new(std::io::ErrorKind::PermissionDenied, "secret path /etc/shadow");
        let err = question_mark(make());
        assert_auto_classified(&err, JsonRpcErrorCode::Forbidden, "secret path /etc/shadow");
        assert_eq!(err, McpError::from_error(make()));
        assert!(err.source().unwrap().downcast_ref::<std::io::Error>().is_some());
        // A kind that says too little leaves it to the text.
        let refused = question_mark(std::io::Error::other("connect ECONNREFUSED 10.0.0.7:5432"));
        assert_auto_classified(&refused, JsonRpcErrorCode::ServiceUnavailable, "connect ECONNREFUSED 10.0.0.7:5432");
    }

    #[test]
    fn question_mark_on_serde_json_errors_blames_the_input() {
        let make = || serde_json::from_str::<u8>("300").unwrap_err();
        let err = question_mark(make());
        assert_auto_classified(&err, JsonRpcErrorCode::ValidationError, &make().to_string());
        assert_eq!(err, McpError::from_error(make()));
        assert!(err.source().unwrap().downcast_ref::<serde_json::Error>().is_some());
    }

    #[test]
    fn question_mark_on_boxed_errors_classifies_and_keeps_a_boxed_mcp_error() {
        let boxed: Box<dyn StdError + Send + Sync> = "record already exists".into();
        assert_auto_classified(&question_mark(boxed), JsonRpcErrorCode::Conflict, "record already exists");
        let boxed: Box<dyn StdError + Send + Sync> = Box::new(std::io::Error::from(std::io::ErrorKind::TimedOut));
        assert_eq!(question_mark(boxed).code(), JsonRpcErrorCode::Timeout);
        // An error built on purpose keeps everything it was built with.
        let built = McpError::not_found("No object 7.").with_reason("not_in_collection").with_data_field("id", 7);
        let boxed: Box<dyn StdError + Send + Sync> = Box::new(built.clone());
        let back = question_mark(boxed);
        assert_eq!(back, built);
        assert_eq!(back.reason(), Some("not_in_collection"));
    }

    #[cfg(feature = "anyhow")]
    #[test]
    fn question_mark_on_anyhow_errors_sees_the_original_error_and_its_context() {
        use anyhow::Context as _;

        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "profile.json");
        let plain = question_mark(anyhow::Error::from(io()));
        assert_auto_classified(&plain, JsonRpcErrorCode::NotFound, "profile.json");
        assert!(plain.source().unwrap().downcast_ref::<std::io::Error>().is_some(), "the original error is the cause");

        // The message is the outermost context; the code comes from the typed error under it.
        let with_context = question_mark(Err::<(), _>(io()).context("loading the visitor profile").unwrap_err());
        assert_auto_classified(&with_context, JsonRpcErrorCode::NotFound, "loading the visitor profile");

        let message = question_mark(anyhow::anyhow!("upstream rate limit exceeded"));
        assert_auto_classified(&message, JsonRpcErrorCode::RateLimited, "upstream rate limit exceeded");

        let built = McpError::rate_limited("Slow down.").with_reason("upstream_busy").with_recovery_hint("Wait.");
        let back = question_mark(anyhow::Error::from(built.clone()));
        assert_eq!(back, built);
        assert_eq!(back.recovery_hint(), Some("Wait."));
    }

    #[test]
    fn a_protocol_error_stays_one_through_the_builders_and_a_box_but_not_on_the_wire() {
        let err = McpError::service_unavailable("The job runner is gone.").into_protocol_error();
        let built = err.clone().with_data_field("runner", "batch-2").with_reason("runner_gone").with_message("Gone.");
        assert!(built.is_protocol_error());
        let boxed: Box<dyn StdError + Send + Sync> = Box::new(built.clone());
        assert!(question_mark(boxed).is_protocol_error(), "`?` on a boxed protocol error keeps the mark");
        // The mark says which answer the error becomes, not what it says.
        assert_eq!(serde_json::to_value(&err).unwrap(), json!({"code": -32000, "message": "The job runner is gone."}));
        assert!(
            !serde_json::from_value::<McpError>(json!({"code": -32000, "message": "x"})).unwrap().is_protocol_error()
        );
    }

    #[test]
    fn non_object_data_is_wrapped() {
        let err = McpError::conflict("x").with_data(json!([1, 2]));
        assert_eq!(serde_json::to_value(&err).unwrap()["data"], json!({"value": [1, 2]}));
        assert!(McpError::conflict("x").with_data(Value::Null).data().is_none());
    }

    #[test]
    fn wire_form_omits_absent_data() {
        assert_eq!(
            serde_json::to_value(McpError::timeout("slow")).unwrap(),
            json!({"code": -32004, "message": "slow"})
        );
    }

    fn assert_send_sync_clone<T: Send + Sync + Clone + 'static>() {}

    #[test]
    fn mcp_error_is_send_sync_clone() {
        assert_send_sync_clone::<McpError>();
    }
}
