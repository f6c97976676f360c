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

use crate::define::{Content, ToolOutput};
use crate::error::{JsonObject, McpError};

/// The input of a tool is published as its `inputSchema`.
#[diagnostic::on_unimplemented(
    message = "the input of an MCP tool must implement `JsonSchema`: `{Self}` does not",
    label = "add `#[derive(JsonSchema)]` to this type",
    note = "the tool publishes the input's JSON Schema in `tools/list`: `#[derive(Deserialize, JsonSchema)]` on the input struct"
)]
pub trait InputSchema: JsonSchema {}

impl<T: JsonSchema> InputSchema for T {}

/// The output of a tool is sent as its structured content.
#[diagnostic::on_unimplemented(
    message = "the output of an MCP tool must implement `Serialize`: `{Self}` does not",
    label = "add `#[derive(Serialize)]` to this type",
    note = "the output is sent as the result's structured content: `#[derive(Serialize, JsonSchema)]` on the output struct, or return `String` for a text-only tool"
)]
pub trait OutputSerialize: Serialize {}

impl<T: Serialize> OutputSerialize for T {}

/// The output of a tool is published as its `outputSchema`.
#[diagnostic::on_unimplemented(
    message = "the output of an MCP tool must implement `JsonSchema`: `{Self}` does not",
    label = "add `#[derive(JsonSchema)]` to this type",
    note = "the tool publishes the output's JSON Schema in `tools/list`: `#[derive(Serialize, JsonSchema)]` on the output struct, or return `String` for a text-only tool"
)]
pub trait OutputSchema: JsonSchema {}

impl<T: JsonSchema> OutputSchema for T {}

/// A tool's enrichment type is published in its `outputSchema` and filled
/// through `ctx.enrich()`.
#[diagnostic::on_unimplemented(
    message = "the enrichment of an MCP tool must implement `Serialize` and `JsonSchema`: `{Self}` does not",
    label = "add `#[derive(Serialize, JsonSchema)]` to this type",
    note = "the tool advertises the enrichment's fields in its `outputSchema`: `#[derive(Serialize, JsonSchema)]` on a struct whose fields are `Option`s with doc comments"
)]
pub trait EnrichmentType: Serialize + JsonSchema {}

impl<T: Serialize + JsonSchema> EnrichmentType for T {}

/// The schema of a tool's enrichment type, bounded so a missing derive is reported at `T`.
pub fn enrichment_schema<T: EnrichmentType>() -> Arc<JsonObject> {
    crate::schema::output_schema::<T>()
}

/// The error of a handler becomes an [`McpError`]. The bound sits on `McpError`
/// (not on the handler's error type) so that rustc reports this trait, whose
/// self type is the same as that of the `From` it stands for.
#[diagnostic::on_unimplemented(
    message = "an MCP tool handler cannot fail with `{E}`: there is no conversion from it into `McpError`",
    label = "return `Result<_, McpError>` here",
    note = "build the error with a factory such as `McpError::internal_error(message)` or `McpError::from_error(err)`, or with `ctx.fail(reason, ..)` for a declared failure mode",
    note = "or implement `From<{E}> for McpError` for an error type of your own"
)]
pub trait FromHandlerError<E> {
    /// The conversion: `From::from`.
    fn from_handler_error(error: E) -> Self;
}

impl<E> FromHandlerError<E> for McpError
where
    McpError: From<E>,
{
    fn from_handler_error(error: E) -> Self {
        Self::from(error)
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

/// [`ToolOutput::structured`], bounded so a missing derive is reported at `T`.
///
/// # Errors
/// A serialization error when `output` cannot be written as JSON.
pub fn structured<T: OutputSerialize>(output: &T, content: Option<Vec<Content>>) -> Result<ToolOutput, McpError> {
    ToolOutput::structured(output, content)
}

/// `Into::into` of a handler's error, bounded so a missing conversion is
/// reported at the error type of the handler's signature.
pub fn handler_error<E>(error: E) -> McpError
where
    McpError: FromHandlerError<E>,
{
    McpError::from_handler_error(error)
}

/// The call of an async handler, its error converted by `convert`: generic,
/// so the conversion is compiled once here rather than as an `async` block per
/// tool. (`convert` is the macro's call of [`handler_error`], spanned at the
/// error type.)
pub async fn async_handler<F, T, E>(handler: F, convert: impl FnOnce(E) -> McpError) -> Result<T, McpError>
where
    F: Future<Output = Result<T, E>>,
{
    handler.await.map_err(convert)
}
