//! The bounds `#[mcp_tool]` puts on a handler's types, each worded as the fix.
//!
//! rustc's default for a missing derive is "the trait bound `X: JsonSchema` is
//! not satisfied" pointing into this crate. The macro instead instantiates the
//! functions below with the type as written in the handler's signature, so the
//! error lands there, and each bound is a trait of this module whose
//! `#[diagnostic::on_unimplemented]` names the derive to add. The blanket impls
//! make every bound equivalent to the trait it stands for: rustc reports the
//! bound of this module (not the inner one) because both have the same `Self`.
//!
//! `Deserialize` of the input has no bound here: `Tool::Input` requires it, and
//! serde's own `on_unimplemented` already names the derive at the input type.

use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::call::{BoxFuture, ElicitForm, FormField};
use crate::define::{Content, ToolOutput};
use crate::error::{JsonObject, McpError};

/// The input of a tool is published as its `inputSchema`.
#[diagnostic::on_unimplemented(
    message = "the input of an MCP tool must implement `JsonSchema`: `{Self}` does not",
    label = "add `#[derive(JsonSchema)]` to this type",
    note = "the tool publishes the input's JSON Schema in `tools/list`: `#[derive(Deserialize, JsonSchema)]` on the input struct; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#schema-serializable"
)]
pub trait InputSchema: JsonSchema {}

impl<T: JsonSchema> InputSchema for T {}

/// The output of a tool is sent as its structured content.
#[diagnostic::on_unimplemented(
    message = "the output of an MCP tool must implement `Serialize`: `{Self}` does not",
    label = "add `#[derive(Serialize)]` to this type",
    note = "the output is sent as the result's structured content: `#[derive(Serialize, JsonSchema)]` on the output struct, or return `String` for a text-only tool; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#handler-type-traits"
)]
pub trait OutputSerialize: Serialize {}

impl<T: Serialize> OutputSerialize for T {}

/// The output of a tool is published as its `outputSchema`.
#[diagnostic::on_unimplemented(
    message = "the output of an MCP tool must implement `JsonSchema`: `{Self}` does not",
    label = "add `#[derive(JsonSchema)]` to this type",
    note = "the tool publishes the output's JSON Schema in `tools/list`: `#[derive(Serialize, JsonSchema)]` on the output struct, or return `String` for a text-only tool; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#schema-serializable"
)]
pub trait OutputSchema: JsonSchema {}

impl<T: JsonSchema> OutputSchema for T {}

/// A tool's enrichment type is published in its `outputSchema` and filled
/// through `ctx.enrich()`.
#[diagnostic::on_unimplemented(
    message = "the enrichment of an MCP tool must implement `Serialize` and `JsonSchema`: `{Self}` does not",
    label = "add `#[derive(Serialize, JsonSchema)]` to this type",
    note = "the tool advertises the enrichment's fields in its `outputSchema`: `#[derive(Serialize, JsonSchema)]` on a struct whose fields are `Option`s with doc comments; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#schema-serializable"
)]
pub trait EnrichmentType: Serialize + JsonSchema {}

impl<T: Serialize + JsonSchema> EnrichmentType for T {}

/// The schema of a tool's enrichment type, bounded so a missing derive is reported at `T`.
pub fn enrichment_schema<T: EnrichmentType>() -> Arc<JsonObject> {
    crate::schema::output_schema::<T>()
}

/// The error of a handler becomes an [`McpError`]. The bound sits on `McpError`
/// (not on the handler's error type), and its impl is hidden from rustc's
/// report (`do_not_recommend`), so that rustc reports this trait with its fix,
/// not the `From` it stands for with the list of this crate's own `From` impls,
/// nor a `From<{E}> for McpError` the orphan rule forbids a user to write.
#[diagnostic::on_unimplemented(
    message = "an MCP tool handler cannot fail with `{E}`: there is no conversion from it into `McpError`",
    label = "return `Result<_, McpError>` here",
    note = "build each failure as an `McpError`: a factory such as `McpError::not_found(\"..\")` or `McpError::internal_error(\"..\")`, or `ctx.fail(reason, ..)` for a failure declared in `errors(..)`; convert an error where it happens: `.map_err(|err| McpError::internal_error(err.to_string()))?`",
    note = "`?` and the return type convert any error type that implements `std::error::Error + Send + Sync + 'static` (classified as `McpError::from_error` does), and `anyhow::Error` with the feature `anyhow` of `mcp-contract`: `mcp-contract = {{ version = \"..\", features = [\"anyhow\"] }}`; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#handler-error-conversion"
)]
pub trait FromHandlerError<E> {
    /// The conversion: `From::from`.
    fn from_handler_error(error: E) -> Self;
}

#[diagnostic::do_not_recommend]
impl<E> FromHandlerError<E> for McpError
where
    McpError: From<E>,
{
    fn from_handler_error(error: E) -> Self {
        Self::from(error)
    }
}

/// `?` in a handler that returns `Result<_, McpError>`: the macro rewrites the
/// handler's own `expr?` into a match on [`question`], whose error arm picks
/// the conversion by autoref (a blanket `From<E: Error>` would overlap
/// `From<McpError> for McpError`, since `McpError` is itself an `Error`):
///
/// 1. [`ViaFrom`], when `McpError: From<E>`: `McpError` itself, the reasons'
///    errors, `anyhow::Error`, and an author's own `From` keep their exact codes;
/// 2. [`ViaStdError`], for any other `E: Error + Send + Sync + 'static`,
///    classified by [`McpError::from_error`];
/// 3. [`ViaNothing`] otherwise, whose bound reports the missing conversion with
///    its fix.
///
/// Only the success and error of a `Result` can be split this way: `?` on an
/// `Option` is reported by [`Question`]'s bound with the fix.
pub fn question<Q: Question>(value: Q) -> Result<Q::Output, Q::Error> {
    value.into_result()
}

/// What `?` applies to in an MCP handler that returns `Result<_, McpError>`.
#[diagnostic::on_unimplemented(
    message = "`?` on `{Self}` in an MCP handler: the handler returns `Result<_, McpError>`",
    label = "this is no `Result`",
    note = "for an `Option`, name the failure: `.ok_or_else(|| McpError::not_found(\"..\"))?` or `ctx.fail(reason, ..)`; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#handler-error-conversion"
)]
pub trait Question {
    /// The success.
    type Output;
    /// The error.
    type Error;
    /// The value as a `Result`.
    ///
    /// # Errors
    /// The error of the `Result`.
    fn into_result(self) -> Result<Self::Output, Self::Error>;
}

#[diagnostic::do_not_recommend]
impl<T, E> Question for Result<T, E> {
    type Output = T;
    type Error = E;
    fn into_result(self) -> Self {
        self
    }
}

/// The error type of a `?`, probed by autoref:
/// `(&&&ErrorProbe::of(&error)).mcp_conversion().convert(error)`.
pub struct ErrorProbe<E>(std::marker::PhantomData<fn() -> E>);

impl<E> ErrorProbe<E> {
    /// The probe of `error`'s type.
    #[must_use]
    pub fn of(_error: &E) -> Self {
        Self(std::marker::PhantomData)
    }
}

/// The first arm of `?`'s conversion: `McpError: From<E>`.
pub trait ViaFrom {
    /// The conversion chosen.
    fn mcp_conversion(&self) -> FromConversion {
        FromConversion
    }
}

impl<E> ViaFrom for &&ErrorProbe<E> where McpError: From<E> {}

/// The second arm: any standard error, classified.
pub trait ViaStdError {
    /// The conversion chosen.
    fn mcp_conversion(&self) -> StdErrorConversion {
        StdErrorConversion
    }
}

impl<E> ViaStdError for &ErrorProbe<E> where E: std::error::Error + Send + Sync + 'static {}

/// The last arm: no conversion, reported by [`FromHandlerError`].
pub trait ViaNothing {
    /// The conversion chosen.
    fn mcp_conversion(&self) -> NoConversion {
        NoConversion
    }
}

impl<E> ViaNothing for ErrorProbe<E> {}

/// `From::from`.
#[derive(Clone, Copy, Debug)]
pub struct FromConversion;

impl FromConversion {
    /// Convert.
    pub fn convert<E>(self, error: E) -> McpError
    where
        McpError: From<E>,
    {
        McpError::from(error)
    }
}

/// [`McpError::from_error`].
#[derive(Clone, Copy, Debug)]
pub struct StdErrorConversion;

impl StdErrorConversion {
    /// Convert.
    pub fn convert<E>(self, error: E) -> McpError
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        McpError::from_error(error)
    }
}

/// No conversion: the bound names the fix.
#[derive(Clone, Copy, Debug)]
pub struct NoConversion;

impl NoConversion {
    /// Report.
    pub fn convert<E>(self, error: E) -> McpError
    where
        McpError: FromHandlerError<E>,
    {
        McpError::from_handler_error(error)
    }
}

/// [`crate::schema::input_schema`], bounded so a missing derive is reported at `T`.
pub fn input_schema<T: InputSchema>() -> Arc<JsonObject> {
    crate::schema::input_schema::<T>()
}

/// [`crate::schema::output_schema`], bounded so a missing derive is reported at `T`.
pub fn output_schema<T: OutputSchema>() -> Arc<JsonObject> {
    crate::schema::output_schema::<T>()
}

/// A JSON Schema as a tool's author wrote it (`#[mcp_tool(input_schema = f)]`).
#[diagnostic::on_unimplemented(
    message = "a schema given to `#[mcp_tool]` is a JSON Schema value: `{Self}` is not one",
    label = "this function must return `serde_json::Value` (or a JSON object)",
    note = "`input_schema = my_schema` names `fn my_schema() -> serde_json::Value`, e.g. one returning a `json!(..)` object; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#schema-function"
)]
pub trait GivenSchema {
    /// The schema as a JSON object.
    fn into_schema(self) -> JsonObject;
}

impl GivenSchema for JsonObject {
    fn into_schema(self) -> JsonObject {
        self
    }
}

impl GivenSchema for Value {
    /// A value that is no object (`true`, a string) becomes the empty object,
    /// which has no `type: "object"`: the definition linter reports it
    /// (`schema-is-object`) rather than the server publishing what MCP refuses.
    fn into_schema(self) -> JsonObject {
        match self {
            Value::Object(schema) => schema,
            _ => JsonObject::new(),
        }
    }
}

/// A schema given as written, taken as it is: no keyword is added, moved or
/// dropped (`$schema`, `$defs`, `$anchor`, `$ref`, `allOf`, `if`/`then`/`else`
/// reach `tools/list` untouched), and the definition linter checks it as any other.
pub fn given_schema<S: GivenSchema>(schema: S) -> Arc<JsonObject> {
    Arc::new(schema.into_schema())
}

/// [`ToolOutput::structured`], bounded so a missing derive is reported at `T`.
///
/// # Errors
/// A serialization error when `output` cannot be written as JSON.
pub fn structured<T: OutputSerialize>(output: &T, content: Option<Vec<Content>>) -> Result<ToolOutput, McpError> {
    ToolOutput::structured(output, content)
}

/// An async handler's future is polled on the server's worker threads, so it
/// is `Send`: it holds nothing across an `.await` that is not. Not implied by
/// `Send` as a supertrait, and its impl hidden from rustc's report, so that
/// rustc reports this bound with the fix (at the handler's name) and the `Send`
/// of [`send_handler`] with the value held across the `.await` (at its `async`).
#[diagnostic::on_unimplemented(
    message = "the future of an MCP handler must be `Send`: it holds a value that is not `Send` across an `.await`",
    label = "this handler's future is not `Send`",
    note = "the server polls a handler on any of its worker threads: drop a `std::sync::MutexGuard` (or an `Rc`, a `RefCell` borrow) before the `.await`, by ending its block (`let n = {{ let guard = m.lock().unwrap(); guard.len() }};`), or use `tokio::sync::Mutex`, whose guard may be held across an `.await`; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#handler-future-send"
)]
pub trait HandlerFuture: Future {}

#[diagnostic::do_not_recommend]
impl<F: Future + Send> HandlerFuture for F {}

/// The future of an async handler, bounded so that one that is not `Send` is
/// reported with the fix at the handler's name.
pub fn handler_future<F: HandlerFuture>(future: F) -> F {
    future
}

/// The future of an async handler, boxed: its type no longer names the
/// handler's, so whatever holds it (the tool's `call`) is not reported a
/// second time, at the attribute, when it is not `Send`.
pub fn send_handler<'a, F: Future + Send + 'a>(future: F) -> BoxFuture<'a, F::Output> {
    Box::pin(future)
}

/// An async handler's call, boxed with its error's conversion (see
/// [`async_handler`]): the tool's `call` returns this named type rather than
/// an `impl Future` of its own, whose hidden type rustc would infer and check
/// per tool. The handler's future is boxed here, once, as [`send_handler`]
/// boxes it, so that its not being `Send` is reported at its `async`.
pub fn send_call<'a, F: Future<Output = Result<T, E>> + Send + 'a, T: 'a, E: 'a>(
    handler: F,
    convert: impl FnOnce(E) -> McpError + Send + 'a,
) -> SentCall<'a, T> {
    Box::pin(async_handler(handler, convert))
}

/// [`McpError`], as the conversion of a handler's error written `McpError`
/// names what it returns: the expansion spans that name at the handler's
/// error type, where `unused_qualifications` would flag a path to a type in
/// scope under its own name.
pub type WrittenMcpError = McpError;

/// What [`send_call`] returns, as the tool's `call` names it.
pub type SentCall<'a, T> = BoxFuture<'a, Result<T, McpError>>;

/// The call of an async handler, its error converted by `convert`: generic,
/// so the conversion is compiled once here rather than as an `async` block per
/// tool. (`convert` is the macro's conversion, as `?`'s in [`question`],
/// spanned at the error type.)
pub async fn async_handler<F, T, E>(handler: F, convert: impl FnOnce(E) -> McpError) -> Result<T, McpError>
where
    F: Future<Output = Result<T, E>>,
{
    handler.await.map_err(convert)
}

/// A field of `#[derive(ElicitForm)]`: the derive instantiates this with the
/// field's type as written, so an error lands at the field.
pub const fn form_field<T: FormField + ?Sized>() {}

/// A `#[serde(flatten)]` field of `#[derive(ElicitForm)]`: its fields join the
/// form, so it is a form itself.
pub const fn form_flattened<T: ElicitForm>() {}

/// A field whose `#[serde(default ..)]` the form shows: schemars writes a
/// default by serializing it, and leaves it out, silently, for a type without
/// `Serialize`; `#[derive(ElicitForm)]` asks this of every field with a
/// default, so the omission is a compile error instead.
#[diagnostic::on_unimplemented(
    message = "the default of this field cannot reach the elicitation form: `{Self}` does not implement `Serialize`",
    label = "this default would silently vanish from the form",
    note = "derive `Serialize` on `{Self}`: schemars writes a field's default by serializing it; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#elicitation-form-flat"
)]
pub trait FormDefault: Serialize {}

impl<T: Serialize + ?Sized> FormDefault for T {}

/// A field of `#[derive(ElicitForm)]` with a default.
pub const fn form_default<T: FormDefault + ?Sized>() {}
