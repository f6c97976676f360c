//! What a prompt is, as a server sees it: its [`PromptDefinition`] (name,
//! description, arguments, error contract), the [`PromptMessage`]s it gives,
//! and the [`Prompt`] trait a handler implements.
//!
//! MCP sends prompt arguments as strings; the typed [`Prompt::Arguments`] of a
//! prompt still declare `days: Option<u8>`, parsed from `"3"`. A missing
//! required argument, or one that does not parse, is the JSON-RPC error -32602
//! (InvalidParams) naming the argument.

use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::call::{BoxFuture, Context, StateType};
use crate::define::ResourceContent;
use crate::define::arguments::{self, DecodeError};
use crate::define::content::{Binary, base64};
use crate::define::mismatch::Mismatch;
use crate::define::{Completion, CompletionRequest};
use crate::error::{ErrorContract, JsonObject, McpError};

/// Everything a server publishes about a prompt in `prompts/list`.
///
/// Built once per prompt (its arguments from the arguments type, see
/// [`prompt_arguments`]) and kept for the life of the process.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptDefinition {
    /// The prompt's name, unique within a server across tools, resources and prompts.
    pub name: &'static str,
    /// A human-readable title.
    pub title: Option<&'static str>,
    /// What the prompt is for.
    pub description: Option<&'static str>,
    /// Its arguments: the required ones first, in field order, then the optional ones by name.
    pub arguments: Vec<PromptArgument>,
    /// Every declared failure mode.
    pub errors: &'static [ErrorContract],
    /// The warning rules the definition linter does not report for this
    /// prompt (`#[mcp_prompt(allow(prompt-description))]`); see
    /// [`with_allowed_rules`](Self::with_allowed_rules).
    pub allowed_rules: &'static [&'static str],
}

impl PromptDefinition {
    /// A prompt named `name` with these arguments (see [`prompt_arguments`]).
    pub fn new(name: &'static str, arguments: Vec<PromptArgument>) -> Self {
        Self { name, title: None, description: None, arguments, errors: &[], allowed_rules: &[] }
    }

    /// A human-readable title.
    #[must_use]
    pub fn with_title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    /// What the prompt is for.
    #[must_use]
    pub fn with_description(mut self, description: &'static str) -> Self {
        self.description = Some(description);
        self
    }

    /// Its declared failure modes.
    #[must_use]
    pub fn with_errors(mut self, errors: &'static [ErrorContract]) -> Self {
        self.errors = errors;
        self
    }

    /// Silence warning rules of the definition linter for this prompt alone,
    /// by id, as `#[mcp_prompt(allow(..))]` does. Error rules are reported
    /// whatever this says.
    ///
    /// ```
    /// use mcp_contract::prompts::PromptDefinition;
    /// let definition = PromptDefinition::new("plan_visit", Vec::new()).with_allowed_rules(&["describe-on-fields"]);
    /// assert_eq!(definition.allowed_rules, ["describe-on-fields"]);
    /// ```
    #[must_use]
    pub fn with_allowed_rules(mut self, rules: &'static [&'static str]) -> Self {
        self.allowed_rules = rules;
        self
    }
}

/// One argument of a prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptArgument {
    /// The argument's name.
    pub name: String,
    /// What to give, from the field's doc comment.
    pub description: Option<String>,
    /// Whether the prompt needs it (the field is not an `Option` and has no default).
    pub required: bool,
}

/// The arguments of a prompt whose arguments type is `T`: one per field, with
/// the field's doc comment as description, required unless the field is an
/// `Option` or has a default; the required ones first.
///
/// ```
/// use mcp_contract::prompts::prompt_arguments;
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct PlanVisit {
///     /// The department to visit, e.g. "Asian Art".
///     department: String,
///     /// How many days, 1 by default.
///     days: Option<u8>,
/// }
/// let arguments = prompt_arguments::<PlanVisit>();
/// assert_eq!(arguments[0].name, "department");
/// assert!(arguments[0].required);
/// assert_eq!(arguments[1].description.as_deref(), Some("How many days, 1 by default."));
/// assert!(!arguments[1].required);
/// ```
pub fn prompt_arguments<T: JsonSchema>() -> Vec<PromptArgument> {
    let schema = crate::schema::input_schema::<T>();
    let required = crate::schema::required_names(&schema);
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return Vec::new() };
    let mut arguments: Vec<PromptArgument> = properties
        .iter()
        .map(|(name, property)| PromptArgument {
            name: name.clone(),
            description: property.get("description").and_then(Value::as_str).map(str::to_owned),
            required: required.contains(&name.as_str()),
        })
        .collect();
    // Required arguments first, in the schema's `required` order (the fields'
    // order); then the optional ones, by name.
    arguments.sort_by_key(|argument| required.iter().position(|name| *name == argument.name).unwrap_or(usize::MAX));
    arguments
}

/// Who speaks a prompt message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// The content of a prompt message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PromptContent {
    /// Text.
    Text(String),
    /// An image, base64-encoded.
    Image {
        /// Base64 data.
        data: String,
        /// MIME type, e.g. `image/png`.
        mime_type: String,
    },
    /// An embedded resource (its `uri` is set).
    Resource(ResourceContent),
}

/// One message of a prompt.
///
/// ```
/// use mcp_contract::prompts::{PromptMessage, Role};
/// use mcp_contract::resources::ResourceContent;
/// let messages = vec![
///     PromptMessage::user("Plan a one-day visit of the Asian Art department."),
///     PromptMessage::resource(Role::User, "museum://departments/6", ResourceContent::text("Asian Art: 35,000 objects")),
///     PromptMessage::assistant("Start with the Astor Court."),
/// ];
/// assert_eq!(messages[2].role, Role::Assistant);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: PromptContent,
}

impl PromptMessage {
    /// A text message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        Self { role: Role::User, content: PromptContent::Text(text.into()) }
    }

    /// A text message from the assistant.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self { role: Role::Assistant, content: PromptContent::Text(text.into()) }
    }

    /// An image from its bytes, base64-encoded here.
    pub fn image(role: Role, bytes: impl Binary, mime_type: impl Into<String>) -> Self {
        Self { role, content: PromptContent::Image { data: base64(bytes.as_binary()), mime_type: mime_type.into() } }
    }

    /// An image already base64-encoded, taken as it is.
    pub fn image_base64(role: Role, data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self { role, content: PromptContent::Image { data: data.into(), mime_type: mime_type.into() } }
    }

    /// An embedded resource at `uri`.
    pub fn resource(role: Role, uri: impl Into<String>, content: ResourceContent) -> Self {
        Self { role, content: PromptContent::Resource(content.with_uri(uri)) }
    }
}

/// A prompt: what `#[mcp_prompt]` generates for a function, or a hand-written
/// implementation.
pub trait Prompt: Send + Sync + 'static {
    /// The typed arguments ([`NoArguments`](crate::define::NoArguments) for none).
    ///
    /// Its JSON Schema is what [`prompt_arguments`] lists, and what the
    /// definition linter checks the definition's arguments against (rule
    /// `prompt-arguments-align`).
    type Arguments: DeserializeOwned + JsonSchema + Send + 'static;

    /// The definition published in `prompts/list`, built once.
    fn definition(&self) -> &'static PromptDefinition;

    /// The prompt's messages for these arguments.
    fn get(
        &self,
        arguments: Self::Arguments,
        ctx: Context,
    ) -> impl Future<Output = Result<Vec<PromptMessage>, McpError>> + Send;

    /// Suggest values for an argument (`completion/complete`). None by default.
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

    /// Whether `#[mcp_prompt]` checked this definition's name, description and
    /// contract at compile time. The definition linter checks them again on
    /// prompts for which this is `false` (the default); the rules that read the
    /// arguments type run on every prompt.
    fn checked_at_compile_time(&self) -> bool {
        false
    }
}

/// The object-safe face of a [`Prompt`], for servers that hold many.
pub trait DynPrompt: Send + Sync + 'static {
    /// The definition.
    fn definition(&self) -> &'static PromptDefinition;

    /// Decode the arguments, then get the messages.
    fn get_json(&self, arguments: JsonObject, ctx: Context) -> BoxFuture<'_, Result<Vec<PromptMessage>, McpError>>;

    /// Suggest values for an argument.
    fn complete_dyn(&self, request: CompletionRequest, ctx: Context) -> BoxFuture<'_, Result<Completion, McpError>>;

    /// The shared state types the handler takes; see [`Prompt::required_state`].
    fn required_state(&self) -> &'static [StateType];

    /// The JSON Schema of [`Prompt::Arguments`], as a tool's input schema is
    /// built ([`input_schema`](crate::schema::input_schema)).
    fn arguments_schema(&self) -> Arc<JsonObject>;

    /// See [`Prompt::checked_at_compile_time`].
    fn checked_at_compile_time(&self) -> bool {
        false
    }
}

impl<T: Prompt> DynPrompt for T {
    fn definition(&self) -> &'static PromptDefinition {
        Prompt::definition(self)
    }

    fn get_json(&self, arguments: JsonObject, ctx: Context) -> BoxFuture<'_, Result<Vec<PromptMessage>, McpError>> {
        Box::pin(async move {
            let arguments = arguments::decode_prompt_arguments::<T::Arguments>(arguments)
                .map_err(|err| invalid_argument(Prompt::definition(self), &self.arguments_schema(), err))?;
            self.get(arguments, ctx).await
        })
    }

    fn complete_dyn(&self, request: CompletionRequest, ctx: Context) -> BoxFuture<'_, Result<Completion, McpError>> {
        Box::pin(self.complete(request, ctx))
    }

    fn required_state(&self) -> &'static [StateType] {
        Prompt::required_state(self)
    }

    fn arguments_schema(&self) -> Arc<JsonObject> {
        crate::schema::input_schema::<T::Arguments>()
    }

    fn checked_at_compile_time(&self) -> bool {
        Prompt::checked_at_compile_time(self)
    }
}

/// A missing or bad argument: InvalidParams naming it, in the message and in
/// `data.argument`, with what it must be in the terms of the arguments' schema.
fn invalid_argument(definition: &PromptDefinition, schema: &JsonObject, err: DecodeError) -> McpError {
    let prompt = definition.name;
    err.invalid_params(schema, "argument", |argument, mismatch| match (argument, mismatch) {
        (Some(argument), Mismatch::Missing { expected }) => {
            format!("The prompt `{prompt}` needs the argument `{argument}` ({expected}).")
        }
        (Some(argument), Mismatch::Unknown { allowed }) => format!(
            "The prompt `{prompt}` has no argument `{argument}`; its arguments are {}.",
            allowed.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ")
        ),
        (Some(argument), Mismatch::Invalid { detail }) => {
            format!("The argument `{argument}` of the prompt `{prompt}` is invalid: {detail}.")
        }
        (None, Mismatch::Invalid { detail }) => {
            format!("The arguments of the prompt `{prompt}` are invalid: {detail}.")
        }
        (None, _) => format!("The arguments of the prompt `{prompt}` are invalid."),
    })
}
