//! `try_catch`: run an operation, and when it fails, log the failure once with
//! its context and sanitized input, and hand back an [`McpError`].
//!
//! The error is never swallowed: the caller always gets it back, as it was when
//! it already was an `McpError`, else wrapped with a chosen or classified code
//! and the original kept as its cause.
//!
//! ```
//! use mcp_contract::{JsonRpcErrorCode, errors::{TryCatch, try_catch}};
//! use serde_json::json;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let options = TryCatch::new("fetch_object")
//!     .context("objectId", 42)
//!     .input(&json!({"objectId": 42, "apiKey": "s3cret"}))
//!     .error_code(JsonRpcErrorCode::ServiceUnavailable);
//! let result: Result<(), _> = try_catch(options, async { Err("connection reset") }).await;
//! let err = result.unwrap_err();
//! assert_eq!(err.code(), JsonRpcErrorCode::ServiceUnavailable);
//! assert_eq!(err.message(), "connection reset");
//! # });
//! ```

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::sanitize::sanitize_for_logging;
use super::{JsonObject, JsonRpcErrorCode, McpError};

/// How many errors of a `source()` chain the log lists.
const MAX_CAUSES: usize = 32;

type ErrorMapper = Box<dyn FnOnce(McpError) -> McpError + Send>;

/// The options of one [`try_catch`]: what the operation is, what to log with its
/// failure, and how to shape the error.
///
/// ```
/// use mcp_contract::{JsonRpcErrorCode, errors::TryCatch};
/// let options = TryCatch::new("sync_catalogue")
///     .context("collection", "paintings")
///     .input(&serde_json::json!({"since": "2024-01-01", "token": "t0k3n"}))
///     .error_code(JsonRpcErrorCode::DatabaseError)
///     .critical(true)
///     .error_mapper(|err| err.with_recovery_hint("Try again in a minute."));
/// assert_eq!(options.operation(), "sync_catalogue");
/// assert_eq!(options.sanitized_input().unwrap()["token"], "[REDACTED]");
/// ```
pub struct TryCatch {
    operation: Cow<'static, str>,
    context: JsonObject,
    error_code: Option<JsonRpcErrorCode>,
    input: Option<Value>,
    critical: bool,
    error_mapper: Option<ErrorMapper>,
}

impl TryCatch {
    /// Options for the operation named `operation` (`"fetch_object"`), as it
    /// will appear in the log.
    pub fn new(operation: impl Into<Cow<'static, str>>) -> Self {
        Self {
            operation: operation.into(),
            context: JsonObject::new(),
            error_code: None,
            input: None,
            critical: false,
            error_mapper: None,
        }
    }

    /// Add one key of structured context to the log; sensitive keys are redacted
    /// like the input's.
    pub fn context(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.context.insert(key.into(), value.into());
        self
    }

    /// The code an error gets when it is not already an [`McpError`]; without
    /// it, the error is [classified](crate::error::classify()).
    pub fn error_code(mut self, code: JsonRpcErrorCode) -> Self {
        self.error_code = Some(code);
        self
    }

    /// The operation's input, logged with a failure after
    /// [sanitizing](sanitize_for_logging). It is serialized and sanitized now, so
    /// the options hold no borrow and no secret. Input that does not serialize is
    /// logged as a note saying so.
    pub fn input<T: Serialize + ?Sized>(mut self, input: &T) -> Self {
        let value = serde_json::to_value(input)
            .unwrap_or_else(|err| Value::String(format!("[input could not be serialized: {err}]")));
        self.input = Some(sanitize_for_logging(value));
        self
    }

    /// Mark the operation critical: the log says so, for alerting to pick up.
    pub fn critical(mut self, critical: bool) -> Self {
        self.critical = critical;
        self
    }

    /// Reshape the error before it is logged and returned: add a recovery hint,
    /// change the message or the code.
    pub fn error_mapper(mut self, mapper: impl FnOnce(McpError) -> McpError + Send + 'static) -> Self {
        self.error_mapper = Some(Box::new(mapper));
        self
    }

    /// The operation's name.
    pub fn operation(&self) -> &str {
        &self.operation
    }

    /// The input as it will be logged.
    pub fn sanitized_input(&self) -> Option<&Value> {
        self.input.as_ref()
    }

    /// Turn a failure into the [`McpError`] to return, and log it: what
    /// [`try_catch`] does with an `Err`, for code that has the error in hand.
    ///
    /// - an `McpError` keeps its code, message and data;
    /// - any other error gets [`error_code`](Self::error_code) if one was chosen,
    ///   else its [classified](crate::error::classify()) code, its own message, no
    ///   `data`, and is kept as the cause;
    /// - the [`error_mapper`](Self::error_mapper), if any, runs last.
    ///
    /// Then one `tracing` event at error level records `operation`, `code`,
    /// `code_name`, the message (`"Error in <operation>: <message>"`), `causes`
    /// (the messages of the `source()` chain, as a JSON array), `context` and
    /// `input` (sanitized JSON) and `critical`.
    pub fn handle_error(self, err: impl Into<Box<dyn StdError + Send + Sync + 'static>>) -> McpError {
        let err: Box<dyn StdError + Send + Sync + 'static> = err.into();
        let err = match (err.downcast::<McpError>(), self.error_code) {
            (Ok(mcp), _) => *mcp,
            (Err(other), Some(code)) => {
                let message = other.to_string();
                // The code is chosen, the message still the foreign error's own.
                McpError::new(code, message).with_cause_arc(Arc::from(other)).with_foreign_message()
            }
            (Err(other), None) => McpError::from_boxed(other),
        };
        let err = match self.error_mapper {
            Some(mapper) => mapper(err),
            None => err,
        };
        let causes = Value::Array(
            std::iter::successors(err.source(), |&cause| cause.source())
                .take(MAX_CAUSES)
                .map(|cause| Value::String(cause.to_string()))
                .collect(),
        );
        let context = sanitize_for_logging(Value::Object(self.context));
        tracing::error!(
            operation = %self.operation,
            code = err.code().as_i32(),
            code_name = err.code().name(),
            causes = %causes,
            context = %context,
            input = self.input.as_ref().map(tracing::field::display),
            critical = self.critical,
            "Error in {}: {}",
            self.operation,
            err.message(),
        );
        err
    }
}

impl fmt::Debug for TryCatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryCatch")
            .field("operation", &self.operation)
            .field("context", &self.context)
            .field("error_code", &self.error_code)
            .field("input", &self.input)
            .field("critical", &self.critical)
            .field("error_mapper", &self.error_mapper.as_ref().map(|_| "FnOnce(McpError) -> McpError"))
            .finish()
    }
}

/// Await `operation`; on `Err`, log the failure once and return it as an
/// [`McpError`] (see [`TryCatch::handle_error`]). `Ok` passes through untouched
/// and logs nothing.
///
/// The error type can be an `McpError` (its code is kept), any
/// `std::error::Error + Send + Sync`, a boxed one, or a plain `&str` / `String`.
///
/// ```
/// use mcp_contract::{JsonRpcErrorCode, McpError, errors::{TryCatch, try_catch}};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let kept = try_catch(TryCatch::new("lookup"), async { Err::<(), _>(McpError::not_found("No object 7.")) }).await;
/// assert_eq!(kept.unwrap_err().code(), JsonRpcErrorCode::NotFound);
///
/// let fine = try_catch(TryCatch::new("lookup"), async { Ok::<_, McpError>(7) }).await;
/// assert_eq!(fine.unwrap(), 7);
/// # });
/// ```
pub async fn try_catch<T, E, Fut>(options: TryCatch, operation: Fut) -> Result<T, McpError>
where
    Fut: Future<Output = Result<T, E>>,
    E: Into<Box<dyn StdError + Send + Sync + 'static>>,
{
    operation.await.map_err(|err| options.handle_error(err))
}

/// [`try_catch`] for a synchronous operation.
///
/// ```
/// use mcp_contract::{JsonRpcErrorCode, errors::{TryCatch, try_catch_sync}};
/// let options = TryCatch::new("parse_limit").input(&"12x").error_code(JsonRpcErrorCode::InvalidParams);
/// let parsed = try_catch_sync(options, || "12x".parse::<u32>());
/// let err = parsed.unwrap_err();
/// assert_eq!(err.code(), JsonRpcErrorCode::InvalidParams);
/// assert_eq!(err.message(), "invalid digit found in string");
/// ```
pub fn try_catch_sync<T, E>(options: TryCatch, operation: impl FnOnce() -> Result<T, E>) -> Result<T, McpError>
where
    E: Into<Box<dyn StdError + Send + Sync + 'static>>,
{
    operation().map_err(|err| options.handle_error(err))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Mutex;
    use tracing::field::{Field, Visit};
    use tracing_subscriber::layer::{Context as LayerContext, SubscriberExt};

    /// One captured event: its level and its fields as JSON values.
    #[derive(Debug, Clone)]
    struct Captured {
        level: tracing::Level,
        fields: JsonObject,
    }

    /// A layer that keeps every event, so a test can count them and read fields.
    #[derive(Clone, Default)]
    struct Capture(Arc<Mutex<Vec<Captured>>>);

    struct Fields<'a>(&'a mut JsonObject);

    impl Visit for Fields<'_> {
        fn record_i64(&mut self, field: &Field, value: i64) {
            self.0.insert(field.name().to_owned(), json!(value));
        }
        fn record_bool(&mut self, field: &Field, value: bool) {
            self.0.insert(field.name().to_owned(), json!(value));
        }
        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.insert(field.name().to_owned(), json!(value));
        }
        fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
            self.0.insert(field.name().to_owned(), json!(format!("{value:?}")));
        }
    }

    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Capture {
        fn on_event(&self, event: &tracing::Event<'_>, _ctx: LayerContext<'_, S>) {
            let mut fields = JsonObject::new();
            event.record(&mut Fields(&mut fields));
            self.0.lock().unwrap().push(Captured { level: *event.metadata().level(), fields });
        }
    }

    impl Capture {
        fn events(&self) -> Vec<Captured> {
            self.0.lock().unwrap().clone()
        }
    }

    /// Run `body` with a capturing subscriber as this thread's default.
    fn capturing<R>(body: impl FnOnce() -> R) -> (R, Vec<Captured>) {
        let capture = Capture::default();
        let subscriber = tracing_subscriber::registry().with(capture.clone());
        let result = tracing::subscriber::with_default(subscriber, body);
        (result, capture.events())
    }

    fn json_field(event: &Captured, name: &str) -> Value {
        let text = event.fields[name].as_str().unwrap_or_else(|| panic!("field {name} is not text"));
        serde_json::from_str(text).unwrap_or_else(|err| panic!("field {name} is not JSON ({err}): {text}"))
    }

    #[derive(Serialize)]
    struct LoginInput {
        user: String,
        password: String,
        #[serde(rename = "apiKey")]
        api_key: String,
        nested: Vec<serde_json::Value>,
        max_tokens: u32,
    }

    #[test]
    fn logs_one_error_event_with_sanitized_input() {
        let input = LoginInput {
            user: "ada".into(),
            password: "hunter2".into(),
            api_key: "sk-123".into(),
            nested: vec![json!({"refresh_token": "r-456", "page": 2}), json!({"Client-Secret": {"raw": "c-789"}})],
            max_tokens: 512,
        };
        let options = TryCatch::new("login")
            .input(&input)
            .context("requestId", "req-1")
            .context("session_cookie", "abc")
            .critical(true);
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "access denied to vault");
        let (result, events) = capturing(|| try_catch_sync(options, || Err::<(), _>(io)));

        let err = result.unwrap_err();
        // Whatever the classifier makes of it (the classifier has its own tests).
        let expected = crate::error::classify(&std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "access denied to vault",
        ));
        assert_eq!(err.code(), expected);
        assert_eq!(events.len(), 1, "exactly one event: {events:?}");
        let event = &events[0];
        assert_eq!(event.level, tracing::Level::ERROR);
        assert_eq!(event.fields["operation"], "login");
        assert_eq!(event.fields["code"], expected.as_i32());
        assert_eq!(event.fields["code_name"], expected.name());
        assert_eq!(event.fields["critical"], true);
        assert_eq!(event.fields["message"], "Error in login: access denied to vault");
        assert_eq!(json_field(event, "causes"), json!(["access denied to vault"]));
        assert_eq!(json_field(event, "context"), json!({"requestId": "req-1", "session_cookie": "[REDACTED]"}));
        assert_eq!(
            json_field(event, "input"),
            json!({
                "user": "ada",
                "password": "[REDACTED]",
                "apiKey": "[REDACTED]",
                "nested": [{"refresh_token": "[REDACTED]", "page": 2}, {"Client-Secret": "[REDACTED]"}],
                "max_tokens": 512,
            })
        );
        let logged = format!("{events:?}");
        for secret in ["hunter2", "sk-123", "r-456", "c-789", "abc\""] {
            assert!(!logged.contains(secret), "{secret} leaked into {logged}");
        }
    }

    #[test]
    fn success_logs_nothing() {
        let (result, events) = capturing(|| try_catch_sync(TryCatch::new("ok"), || Ok::<_, McpError>(3)));
        assert_eq!(result.unwrap(), 3);
        assert!(events.is_empty());
    }

    #[test]
    fn mcp_error_passes_through_with_its_code_and_data() {
        let original = McpError::not_found("No object 7.").with_reason("not_in_collection");
        let options = TryCatch::new("get").error_code(JsonRpcErrorCode::ServiceUnavailable);
        let (result, events) = capturing(|| try_catch_sync(options, || Err::<(), _>(original.clone())));
        assert_eq!(result.unwrap_err(), original);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].fields["code_name"], "NotFound");
        assert!(events[0].fields.get("input").is_none(), "no input given, none logged");
    }

    #[test]
    fn chosen_code_wraps_and_keeps_the_cause() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let options = TryCatch::new("write").error_code(JsonRpcErrorCode::DatabaseError);
        let (result, _) = capturing(|| try_catch_sync(options, || Err::<(), _>(io)));
        let err = result.unwrap_err();
        assert_eq!(err.code(), JsonRpcErrorCode::DatabaseError);
        assert_eq!(err.message(), "denied");
        assert!(err.data().is_none());
        assert!(err.source().unwrap().downcast_ref::<std::io::Error>().is_some());
    }

    #[test]
    fn classified_error_carries_no_data_but_its_cause() {
        let (result, events) = capturing(|| try_catch_sync(TryCatch::new("parse"), || "x".parse::<u8>()));
        let err = result.unwrap_err();
        assert!(err.data().is_none());
        assert!(err.source().unwrap().downcast_ref::<std::num::ParseIntError>().is_some());
        assert_eq!(events[0].fields["code"], err.code().as_i32());
    }

    #[test]
    fn mapper_shapes_what_is_returned_and_logged() {
        let options = TryCatch::new("fetch").error_code(JsonRpcErrorCode::ServiceUnavailable).error_mapper(|err| {
            let message = format!("The catalogue is unreachable: {}", err.message());
            err.with_message(message).with_recovery_hint("Try again in a minute.")
        });
        let (result, events) = capturing(|| try_catch_sync(options, || Err::<(), _>("connection reset")));
        let err = result.unwrap_err();
        assert_eq!(err.message(), "The catalogue is unreachable: connection reset");
        assert_eq!(err.recovery_hint(), Some("Try again in a minute."));
        assert_eq!(events[0].fields["message"], "Error in fetch: The catalogue is unreachable: connection reset");
    }

    #[derive(Debug)]
    struct Outer(std::io::Error);
    impl fmt::Display for Outer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("loading the index failed")
        }
    }
    impl StdError for Outer {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn logs_the_whole_cause_chain() {
        let err = Outer(std::io::Error::other("disk full"));
        let options = TryCatch::new("index").error_code(JsonRpcErrorCode::InternalError);
        let (_, events) = capturing(|| try_catch_sync(options, || Err::<(), _>(err)));
        assert_eq!(json_field(&events[0], "causes"), json!(["loading the index failed", "disk full"]));
    }

    #[tokio::test]
    async fn async_form_logs_once_and_returns_the_error() {
        let capture = Capture::default();
        let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
        let options = TryCatch::new("remote_call").input(&json!({"query": "cats", "auth": {"bearer_token": "b-1"}}));
        let result: Result<u8, McpError> = try_catch(options, async {
            tokio::task::yield_now().await;
            Err(McpError::timeout("The collection API took longer than 10 seconds."))
        })
        .await;
        assert_eq!(result.unwrap_err().code(), JsonRpcErrorCode::Timeout);
        let events = capture.events();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].fields["operation"], "remote_call");
        assert_eq!(events[0].fields["code"], -32004);
        assert_eq!(json_field(&events[0], "input"), json!({"query": "cats", "auth": {"bearer_token": "[REDACTED]"}}));
    }

    #[test]
    fn unserializable_input_is_noted() {
        struct Bad;
        impl Serialize for Bad {
            fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                Err(serde::ser::Error::custom("not today"))
            }
        }
        let options = TryCatch::new("x").input(&Bad);
        assert_eq!(options.sanitized_input().unwrap(), "[input could not be serialized: not today]");
    }
}
