//! What a resource is, as a server sees it: its [`ResourceDefinition`] (a URI or
//! an RFC 6570 URI template, name, MIME type, error contract), the
//! [`ReadResourceResult`] reading it gives, and the [`Resource`] trait a handler
//! implements.
//!
//! A definition whose `uri` has no expression is a static resource, listed in
//! `resources/list`; one with expressions is a template, listed in
//! `resources/templates/list`. A `resources/read` of a URI that fits a template
//! hands the template's variables, percent-decoded, to the handler as its typed
//! [`Resource::Params`].

use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::app::AppUi;
use super::content::{Binary, base64};
use crate::call::{BoxFuture, Context, StateType};
use crate::define::arguments::{self, DecodeError};
use crate::define::cap_quoted;
use crate::define::mismatch::Mismatch;
use crate::define::{Completion, CompletionRequest};
use crate::error::{ErrorContract, JsonObject, McpError};
use mcp_contract_uri_template::Captures;

/// Everything a server publishes about a resource or resource template.
///
/// Plain `'static` data built by `const` functions, so a definition can be a `static`:
///
/// ```
/// use mcp_contract::resources::ResourceDefinition;
/// static ABOUT: ResourceDefinition = ResourceDefinition::new("museum://about", "about")
///     .with_description("Opening hours and address.")
///     .with_mime_type("text/markdown");
/// assert_eq!(ABOUT.title, None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceDefinition {
    /// A URI (a static resource) or an RFC 6570 URI template such as
    /// `museum://objects/{object_id}`; unique within a server.
    pub uri: &'static str,
    /// A name for people and models, unique within a server across tools,
    /// resources and prompts; not a URI (see `resource-name-not-uri`).
    pub name: &'static str,
    /// A human-readable title.
    pub title: Option<&'static str>,
    /// What the resource holds, for the model.
    pub description: Option<&'static str>,
    /// The MIME type of its contents, given to contents that name none.
    pub mime_type: Option<&'static str>,
    /// Every declared failure mode.
    pub errors: &'static [ErrorContract],
    /// The sandbox settings of an MCP App's HTML, published under `_meta.ui`.
    pub ui: Option<AppUi>,
    /// The warning rules the definition linter does not report for this
    /// resource (`#[mcp_resource(allow(resource-description))]`); see
    /// [`with_allowed_rules`](Self::with_allowed_rules).
    pub allowed_rules: &'static [&'static str],
}

impl ResourceDefinition {
    /// A resource at `uri` (a URI or an RFC 6570 template) named `name`.
    pub const fn new(uri: &'static str, name: &'static str) -> Self {
        Self { uri, name, title: None, description: None, mime_type: None, errors: &[], ui: None, allowed_rules: &[] }
    }

    /// A human-readable title.
    #[must_use]
    pub const fn with_title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    /// What the resource holds, for the model.
    #[must_use]
    pub const fn with_description(mut self, description: &'static str) -> Self {
        self.description = Some(description);
        self
    }

    /// The MIME type of its contents.
    #[must_use]
    pub const fn with_mime_type(mut self, mime_type: &'static str) -> Self {
        self.mime_type = Some(mime_type);
        self
    }

    /// Its declared failure modes.
    #[must_use]
    pub const fn with_errors(mut self, errors: &'static [ErrorContract]) -> Self {
        self.errors = errors;
        self
    }

    /// Publish the sandbox settings of an MCP App's HTML under `_meta.ui`, in
    /// `resources/list` and in every content `resources/read` returns.
    #[must_use]
    pub const fn with_ui(mut self, ui: AppUi) -> Self {
        self.ui = Some(ui);
        self
    }

    /// Silence warning rules of the definition linter for this resource
    /// alone, by id, as `#[mcp_resource(allow(..))]` does. Error rules are
    /// reported whatever this says.
    ///
    /// ```
    /// use mcp_contract::resources::ResourceDefinition;
    /// static ABOUT: ResourceDefinition = ResourceDefinition::new("museum://about", "about")
    ///     .with_allowed_rules(&["resource-mime-type-format"]);
    /// assert_eq!(ABOUT.allowed_rules, ["resource-mime-type-format"]);
    /// ```
    #[must_use]
    pub const fn with_allowed_rules(mut self, rules: &'static [&'static str]) -> Self {
        self.allowed_rules = rules;
        self
    }
}

/// What one [`ResourceContent`] holds: MCP's `text` (a `TextResourceContents`)
/// or `blob`, binary data in base64 (a `BlobResourceContents`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextOrBlob {
    /// Text.
    Text(String),
    /// Binary data, base64-encoded.
    Blob(String),
}

/// One item of a [`ReadResourceResult`], what MCP's `contents` array holds: a
/// `TextResourceContents` or a `BlobResourceContents`, by its [`TextOrBlob`].
///
/// Its URI defaults to the URI read, and its MIME type to the definition's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceContent {
    /// The URI of this content; `None` for the URI read.
    pub uri: Option<String>,
    /// Its MIME type; `None` for the definition's.
    pub mime_type: Option<String>,
    /// The text or data.
    pub body: TextOrBlob,
}

impl ResourceContent {
    /// A text content.
    pub fn text(text: impl Into<String>) -> Self {
        Self { uri: None, mime_type: None, body: TextOrBlob::Text(text.into()) }
    }

    /// A binary content from its bytes, base64-encoded here.
    pub fn blob(bytes: impl Binary) -> Self {
        Self { uri: None, mime_type: None, body: TextOrBlob::Blob(base64(bytes.as_binary())) }
    }

    /// A binary content already base64-encoded, taken as it is.
    pub fn blob_base64(data: impl Into<String>) -> Self {
        Self { uri: None, mime_type: None, body: TextOrBlob::Blob(data.into()) }
    }

    /// `value` as JSON text, MIME type `application/json`.
    ///
    /// # Errors
    ///
    /// A [`SerializationError`](crate::error::JsonRpcErrorCode::SerializationError) when
    /// `value` does not serialize.
    pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<Self, McpError> {
        let text = serde_json::to_string(value).map_err(|err| {
            McpError::serialization_error("The resource's contents could not be serialized.").with_cause(err)
        })?;
        Ok(Self::text(text).with_mime_type("application/json"))
    }

    /// Give this content a URI of its own (for one of several contents).
    #[must_use]
    pub fn with_uri(mut self, uri: impl Into<String>) -> Self {
        self.uri = Some(uri.into());
        self
    }

    /// Give this content a MIME type of its own.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// What reading a resource gives, as MCP's `ReadResourceResult`: its
/// `contents`, one [`ResourceContent`] or several. A resource's handler
/// returns it (or a `String`, which converts into one text content).
///
/// ```
/// use mcp_contract::resources::{ReadResourceResult, ResourceContent};
/// let one = ReadResourceResult::text("Open daily, 10:00 to 17:00.");
/// let two = ReadResourceResult::from(vec![
///     ResourceContent::text("{\"title\":\"Vase\"}").with_mime_type("application/json"),
///     ResourceContent::blob([0x89, b'P', b'N', b'G']).with_uri("museum://objects/1/image").with_mime_type("image/png"),
/// ]);
/// assert_eq!(two.contents().len(), 2);
/// # let _ = one;
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadResourceResult(Vec<ResourceContent>);

impl ReadResourceResult {
    /// One text content.
    pub fn text(text: impl Into<String>) -> Self {
        Self(vec![ResourceContent::text(text)])
    }

    /// One binary content, from its bytes (see [`ResourceContent::blob`]).
    pub fn blob(bytes: impl Binary) -> Self {
        Self(vec![ResourceContent::blob(bytes)])
    }

    /// One JSON content; see [`ResourceContent::json`].
    ///
    /// # Errors
    ///
    /// A [`SerializationError`](crate::error::JsonRpcErrorCode::SerializationError) when
    /// `value` does not serialize.
    pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<Self, McpError> {
        Ok(Self(vec![ResourceContent::json(value)?]))
    }

    /// Add a content.
    #[must_use]
    pub fn and(mut self, content: ResourceContent) -> Self {
        self.0.push(content);
        self
    }

    /// The contents.
    pub fn contents(&self) -> &[ResourceContent] {
        &self.0
    }

    /// The contents, owned.
    pub fn into_contents(self) -> Vec<ResourceContent> {
        self.0
    }
}

impl From<ResourceContent> for ReadResourceResult {
    fn from(content: ResourceContent) -> Self {
        Self(vec![content])
    }
}

impl From<Vec<ResourceContent>> for ReadResourceResult {
    fn from(contents: Vec<ResourceContent>) -> Self {
        Self(contents)
    }
}

impl From<String> for ReadResourceResult {
    fn from(text: String) -> Self {
        Self::text(text)
    }
}

impl From<&str> for ReadResourceResult {
    fn from(text: &str) -> Self {
        Self::text(text)
    }
}

/// A resource or resource template: what `#[mcp_resource]` generates for a
/// handler function, or a hand-written implementation.
///
/// Errors go to the client in the JSON-RPC error envelope (code, message,
/// `data.reason`, the opted-in recovery hint): MCP has no error result for reads.
pub trait Resource: Send + Sync + 'static {
    /// The template's variables as a typed struct, decoded from the URI read
    /// (numbers and booleans parsed from their text). A static resource takes
    /// [`NoArguments`](crate::define::NoArguments).
    ///
    /// Its JSON Schema is how the definition linter sees the names serde
    /// decodes (`#[serde(rename)]` included), to check them against the
    /// template's variables (rule `template-params-align`).
    type Params: DeserializeOwned + JsonSchema + Send + 'static;

    /// The definition published in `resources/list` or `resources/templates/list`.
    fn definition(&self) -> &'static ResourceDefinition;

    /// Read the resource at `uri`, whose variables are `params`.
    fn read(
        &self,
        uri: &str,
        params: Self::Params,
        ctx: Context,
    ) -> impl Future<Output = Result<ReadResourceResult, McpError>> + Send;

    /// Suggest values for a template variable (`completion/complete`). None by default.
    fn complete(
        &self,
        request: CompletionRequest,
        ctx: Context,
    ) -> impl Future<Output = Result<Completion, McpError>> + Send {
        let _ = (request, ctx);
        std::future::ready(Ok(Completion::none()))
    }

    /// The shared state types the handler takes (its `State<T>` parameters).
    /// [`Server::build`](crate::server::Server::build) refuses a server that
    /// registered none of one of them.
    fn required_state(&self) -> &'static [StateType] {
        &[]
    }

    /// Whether `#[mcp_resource]` checked this definition's name, description,
    /// URI template and contract at compile time. The definition linter checks
    /// them again on resources for which this is `false` (the default); the
    /// rules that read the params type (`template-params-align`) and the MIME
    /// type run on every resource.
    fn checked_at_compile_time(&self) -> bool {
        false
    }
}

/// The object-safe face of a [`Resource`], for servers that hold many.
pub trait DynResource: Send + Sync + 'static {
    /// The definition.
    fn definition(&self) -> &'static ResourceDefinition;

    /// Decode the variables the URI gave the template, then read.
    fn read_captures<'a>(
        &'a self,
        uri: &'a str,
        variables: Captures,
        ctx: Context,
    ) -> BoxFuture<'a, Result<ReadResourceResult, McpError>>;

    /// Suggest values for a template variable.
    fn complete_dyn(&self, request: CompletionRequest, ctx: Context) -> BoxFuture<'_, Result<Completion, McpError>>;

    /// The shared state types the handler takes; see [`Resource::required_state`].
    fn required_state(&self) -> &'static [StateType];

    /// The JSON Schema of [`Resource::Params`], as a tool's input schema is
    /// built ([`input_schema`](crate::schema::input_schema)): the names and
    /// required fields the URI's variables must fill.
    fn params_schema(&self) -> Arc<JsonObject>;

    /// See [`Resource::checked_at_compile_time`].
    fn checked_at_compile_time(&self) -> bool {
        false
    }
}

impl<T: Resource> DynResource for T {
    fn definition(&self) -> &'static ResourceDefinition {
        Resource::definition(self)
    }

    fn read_captures<'a>(
        &'a self,
        uri: &'a str,
        variables: Captures,
        ctx: Context,
    ) -> BoxFuture<'a, Result<ReadResourceResult, McpError>> {
        Box::pin(async move {
            let params = arguments::decode_captures::<T::Params>(variables)
                .map_err(|err| invalid_variable(Resource::definition(self), &self.params_schema(), uri, err))?;
            self.read(uri, params, ctx).await
        })
    }

    fn complete_dyn(&self, request: CompletionRequest, ctx: Context) -> BoxFuture<'_, Result<Completion, McpError>> {
        Box::pin(self.complete(request, ctx))
    }

    fn required_state(&self) -> &'static [StateType] {
        Resource::required_state(self)
    }

    fn params_schema(&self) -> Arc<JsonObject> {
        crate::schema::input_schema::<T::Params>()
    }

    fn checked_at_compile_time(&self) -> bool {
        Resource::checked_at_compile_time(self)
    }
}

/// A URI that fits the template but whose variables do not decode: InvalidParams
/// naming the variable (in `data.variable`), with the URI in `data`, and what
/// the variable must be in the terms of the params' schema.
///
/// The URI is the client's text too: it is quoted capped, so a 4 MB URI makes
/// a short error.
fn invalid_variable(definition: &ResourceDefinition, schema: &JsonObject, uri: &str, err: DecodeError) -> McpError {
    let template = definition.uri;
    let uri = cap_quoted(uri);
    let error = err.invalid_params(schema, "variable", |variable, mismatch| match (variable, mismatch) {
        (Some(variable), Mismatch::Missing { expected }) => format!(
            "The URI `{uri}` gives no value for the variable `{variable}` of the resource template `{template}`; \
             it must be {expected}."
        ),
        (Some(variable), Mismatch::Unknown { .. }) => format!(
            "The URI `{uri}` fits the resource template `{template}`, but the resource takes no variable `{variable}`."
        ),
        (Some(variable), Mismatch::Invalid { detail }) => format!(
            "The URI `{uri}` fits the resource template `{template}`, but its variable `{variable}` is invalid: {detail}."
        ),
        (None, Mismatch::Invalid { detail }) => {
            format!("The URI `{uri}` fits the resource template `{template}`, but its variables are invalid: {detail}.")
        }
        (None, _) => format!("The URI `{uri}` fits the resource template `{template}`, but its variables are invalid."),
    });
    error.with_data_field("uri", uri.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_test_vectors() {
        let vectors = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, expected) in vectors {
            assert_eq!(base64(input.as_bytes()), expected, "{input}");
        }
        assert_eq!(base64(&[0xFF, 0xFE, 0xFD]), "//79");
    }

    #[test]
    fn json_contents_carry_their_mime_type() {
        let content = ResourceContent::json(&serde_json::json!({"title": "Vase"})).unwrap();
        assert_eq!(content.body, TextOrBlob::Text("{\"title\":\"Vase\"}".to_owned()));
        assert_eq!(content.mime_type.as_deref(), Some("application/json"));
    }
}
