//! What a tool is, as a server sees it: its [`ToolDefinition`] (name, schemas,
//! annotations, scopes and the [`ErrorContract`] of each failure mode) and the
//! [`Tool`] trait that `#[mcp_tool]` implements.

use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::arguments::decode_arguments;
use super::content::Content;
use super::enrichment::EnrichmentDefinition;
use super::repair::InputAlias;
use crate::call::{BoxFuture, Capability, Context, StateType};
use crate::error::{ErrorContract, JsonObject, McpError};

/// The arguments of a tool whose handler takes no input: an empty object.
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArguments {}

/// MCP tool annotations: hints for clients, never guarantees.
///
/// ```
/// use mcp_contract::tools::ToolAnnotations;
///
/// const ANNOTATIONS: ToolAnnotations = ToolAnnotations::new().with_read_only_hint(true).with_open_world_hint(false);
/// assert_eq!(ANNOTATIONS.destructive_hint, None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// A human-readable title for the tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'static str>,
    /// The tool does not modify its environment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling the tool again with the same arguments has no further effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches an open world (the internet) rather than a closed domain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// No annotation set.
    pub const fn new() -> Self {
        Self { title: None, read_only_hint: None, destructive_hint: None, idempotent_hint: None, open_world_hint: None }
    }

    /// Set the human-readable title.
    #[must_use]
    pub const fn with_title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    /// Say whether the tool leaves its environment unchanged.
    #[must_use]
    pub const fn with_read_only_hint(mut self, read_only: bool) -> Self {
        self.read_only_hint = Some(read_only);
        self
    }

    /// Say whether the tool may perform destructive updates.
    #[must_use]
    pub const fn with_destructive_hint(mut self, destructive: bool) -> Self {
        self.destructive_hint = Some(destructive);
        self
    }

    /// Say whether calling the tool again with the same arguments has no further effect.
    #[must_use]
    pub const fn with_idempotent_hint(mut self, idempotent: bool) -> Self {
        self.idempotent_hint = Some(idempotent);
        self
    }

    /// Say whether the tool reaches an open world (the internet) rather than a closed domain.
    #[must_use]
    pub const fn with_open_world_hint(mut self, open_world: bool) -> Self {
        self.open_world_hint = Some(open_world);
        self
    }

    /// Whether no annotation is set (and none needs to be sent).
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// Everything a server publishes about a tool in `tools/list`.
///
/// Built once per tool (schemas included) and kept for the life of the process.
///
/// ```
/// use mcp_contract::schema::input_schema;
/// use mcp_contract::tools::{ToolAnnotations, ToolDefinition};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Input {
///     /// Words to look for.
///     query: String,
/// }
///
/// let definition = ToolDefinition::new("search_objects", input_schema::<Input>())
///     .with_description("Search the collection by keyword.")
///     .with_annotations(ToolAnnotations::new().with_read_only_hint(true));
/// assert_eq!(definition.output_schema, None);
/// assert!(definition.errors.is_empty());
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ToolDefinition {
    /// The tool's name, unique within a server: `^[A-Za-z0-9._-]{1,128}$`.
    pub name: &'static str,
    /// A human-readable title.
    pub title: Option<&'static str>,
    /// What the tool does, for the model; from the handler's doc comment by default.
    pub description: Option<&'static str>,
    /// The JSON Schema of the arguments (always an object schema).
    pub input_schema: Arc<JsonObject>,
    /// The JSON Schema of the structured result, for tools that return one.
    pub output_schema: Option<Arc<JsonObject>>,
    /// Hints for clients.
    pub annotations: ToolAnnotations,
    /// OAuth scopes the caller needs.
    pub auth_scopes: &'static [&'static str],
    /// Every declared failure mode.
    pub errors: &'static [ErrorContract],
    /// The declared enrichment, merged into successful results.
    pub enrichment: Option<EnrichmentDefinition>,
    /// The `ui://` resource of the tool's MCP App, when it has one.
    pub app: Option<&'static str>,
    /// The client capabilities the tool needs (`requires(..)`): a call from a
    /// client without one of them is refused before the handler runs.
    pub requires: &'static [Capability],
    /// Whether a call may run as a task (the MCP tasks extension, SEP-2663).
    pub task_support: TaskSupport,
    /// Whether a call that runs as a task first gathers the handler's input
    /// on the request (see [`with_task_input_first`](Self::with_task_input_first)).
    pub task_input_first: bool,
    /// Other names of input fields an agent may send them under (never
    /// advertised); see [`InputAlias`].
    pub input_aliases: &'static [InputAlias],
    /// Whether the server repairs arguments an agent got slightly wrong before
    /// decoding them (`true` unless `#[mcp_tool(repair_arguments = false)]`);
    /// see [`with_argument_repair`](Self::with_argument_repair).
    pub repair_arguments: bool,
    /// The warning rules the definition linter does not report for this tool
    /// (`#[mcp_tool(allow(describe-on-fields))]`); see
    /// [`with_allowed_rules`](Self::with_allowed_rules).
    pub allowed_rules: &'static [&'static str],
}

/// Whether a tool's calls run as tasks (the MCP tasks extension, SEP-2663): the
/// client polls `tasks/get` for the result instead of waiting on the call.
///
/// ```
/// use mcp_contract::tools::{NoArguments, TaskSupport, ToolDefinition};
/// use mcp_contract::schema::input_schema;
/// let definition = ToolDefinition::new("export_collection", input_schema::<NoArguments>())
///     .with_task_support(TaskSupport::Optional);
/// assert_eq!(definition.task_support, TaskSupport::Optional);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TaskSupport {
    /// Every call is answered when it completes (the default).
    #[default]
    Forbidden,
    /// A call from a client that declares the tasks extension runs as a task;
    /// any other call is answered when it completes.
    Optional,
    /// Every call runs as a task; a client that does not declare the tasks
    /// extension is refused (-32021, the capability named in `data`).
    Required,
}

impl ToolDefinition {
    /// A tool without title, description, output schema, annotations, scopes or
    /// error contract; the `with_*` methods add them.
    pub fn new(name: &'static str, input_schema: Arc<JsonObject>) -> Self {
        Self {
            name,
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: ToolAnnotations::new(),
            auth_scopes: &[],
            errors: &[],
            task_support: TaskSupport::Forbidden,
            task_input_first: false,
            input_aliases: &[],
            repair_arguments: true,
            allowed_rules: &[],
            enrichment: None,
            app: None,
            requires: &[],
        }
    }

    /// Set the human-readable title.
    #[must_use]
    pub fn with_title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    /// Set what the tool does, for the model.
    #[must_use]
    pub fn with_description(mut self, description: &'static str) -> Self {
        self.description = Some(description);
        self
    }

    /// Set the JSON Schema of the structured result.
    #[must_use]
    pub fn with_output_schema(mut self, output_schema: Arc<JsonObject>) -> Self {
        self.output_schema = Some(output_schema);
        self
    }

    /// Set the hints for clients.
    #[must_use]
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// Set the OAuth scopes the caller needs.
    #[must_use]
    pub fn with_auth_scopes(mut self, auth_scopes: &'static [&'static str]) -> Self {
        self.auth_scopes = auth_scopes;
        self
    }

    /// Set the declared failure modes.
    #[must_use]
    pub fn with_errors(mut self, errors: &'static [ErrorContract]) -> Self {
        self.errors = errors;
        self
    }

    /// Whether calls run as tasks; see [`TaskSupport`].
    #[must_use]
    pub fn with_task_support(mut self, task_support: TaskSupport) -> Self {
        self.task_support = task_support;
        self
    }

    /// A call that runs as a task first gathers the handler's input on the
    /// request (SEP-2322 input-required results), and becomes a task once the
    /// client answers: `#[mcp_tool(task(required, input_first))]`.
    ///
    /// On a stateless (2026-07-28) request that carries no answers yet, the
    /// handler runs in the request's round: its unanswered asks end the
    /// request with an `input_required` result, as for a tool that is no
    /// task; a handler that finishes without asking makes a task finished at
    /// once. The retry that carries answers (`inputResponses`, the signed
    /// `requestState`) is answered with the task, whose handler runs again
    /// from its start with those answers; what it asks beyond them waits in
    /// the task (`input_required`, answered with `tasks/update`). On a session
    /// there are no rounds: the call is a task from the start.
    ///
    /// ```
    /// use mcp_contract::tools::{NoArguments, TaskSupport, ToolDefinition};
    /// use mcp_contract::schema::input_schema;
    /// let definition = ToolDefinition::new("export_for", input_schema::<NoArguments>())
    ///     .with_task_support(TaskSupport::Required)
    ///     .with_task_input_first();
    /// assert!(definition.task_input_first);
    /// ```
    #[must_use]
    pub fn with_task_input_first(mut self) -> Self {
        self.task_input_first = true;
        self
    }

    /// Pair the tool with the MCP App at `resource_uri` (a `ui://` resource the
    /// server serves), published as `_meta.ui.resourceUri`.
    #[must_use]
    pub fn with_app(mut self, resource_uri: &'static str) -> Self {
        self.app = Some(resource_uri);
        self
    }

    /// Declare the enrichment the handler fills through `ctx.enrich()`.
    #[must_use]
    pub fn with_enrichment(mut self, enrichment: EnrichmentDefinition) -> Self {
        self.enrichment = Some(enrichment);
        self
    }

    /// Declare other names of input fields, which an agent's arguments are
    /// repaired from: `#[mcp_tool(input_aliases(query = ["q", "search"]))]`.
    ///
    /// ```
    /// use mcp_contract::schema::input_schema;
    /// use mcp_contract::tools::{InputAlias, ToolDefinition};
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Input {
    ///     /// Words to look for.
    ///     query: String,
    /// }
    /// const ALIASES: &[InputAlias] = &[InputAlias::new("query", &["q", "search"])];
    /// let definition = ToolDefinition::new("search_objects", input_schema::<Input>()).with_input_aliases(ALIASES);
    /// assert_eq!(definition.input_aliases[0].field, "query");
    /// ```
    #[must_use]
    pub fn with_input_aliases(mut self, input_aliases: &'static [InputAlias]) -> Self {
        self.input_aliases = input_aliases;
        self
    }

    /// Whether the server repairs this tool's arguments before decoding them
    /// (`"15"` for 15, a lone value for a list, a key in the wrong case, ..):
    /// on by default; off, a call whose arguments do not fit the input schema
    /// as sent is refused. A server turns it off for every tool with
    /// `Server::repair_arguments(false)`.
    ///
    /// ```
    /// use mcp_contract::tools::{NoArguments, ToolDefinition};
    /// use mcp_contract::schema::input_schema;
    /// let definition = ToolDefinition::new("delete_object", input_schema::<NoArguments>()).with_argument_repair(false);
    /// assert!(!definition.repair_arguments);
    /// ```
    #[must_use]
    pub fn with_argument_repair(mut self, repair: bool) -> Self {
        self.repair_arguments = repair;
        self
    }

    /// Silence warning rules of the definition linter for this tool alone, by
    /// id, as `#[mcp_tool(allow(..))]` does: the linter reports none of their
    /// findings on this tool. Error rules are reported whatever this says.
    ///
    /// ```
    /// use mcp_contract::tools::{NoArguments, ToolDefinition};
    /// use mcp_contract::schema::input_schema;
    /// let definition = ToolDefinition::new("ping", input_schema::<NoArguments>())
    ///     .with_description("Answer pong.")
    ///     .with_allowed_rules(&["describe-on-fields"]);
    /// assert_eq!(definition.allowed_rules, ["describe-on-fields"]);
    /// ```
    #[must_use]
    pub fn with_allowed_rules(mut self, rules: &'static [&'static str]) -> Self {
        self.allowed_rules = rules;
        self
    }

    /// Set the client capabilities the tool needs.
    #[must_use]
    pub fn with_requires(mut self, requires: &'static [Capability]) -> Self {
        self.requires = requires;
        self
    }
}

/// A successful tool result, before the transport sees it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ToolOutput {
    /// What the model reads.
    pub content: Vec<Content>,
    /// The structured result, matching the tool's output schema.
    pub structured: Option<Value>,
}

impl ToolOutput {
    /// A result of these content blocks and no structured content.
    pub fn new(content: Vec<Content>) -> Self {
        Self { content, structured: None }
    }

    /// A result with text only and no structured content.
    pub fn text(text: impl Into<String>) -> Self {
        Self { content: vec![Content::text(text)], structured: None }
    }

    /// A structured result: `output` serialized, with `content` for the model
    /// (the JSON text itself when `content` is `None`).
    pub fn structured<T: Serialize>(output: &T, content: Option<Vec<Content>>) -> Result<Self, McpError> {
        let value = serde_json::to_value(output).map_err(|err| {
            McpError::serialization_error("The tool's result could not be serialized.").with_cause(err)
        })?;
        let content = match content {
            Some(content) => content,
            // Written straight into the text's bytes: `Value::to_string` goes through `fmt`.
            None => vec![Content::text(serde_json::to_string(&value).map_err(|err| {
                McpError::serialization_error("The tool's result could not be serialized.").with_cause(err)
            })?)],
        };
        Ok(Self { content, structured: Some(value) })
    }
}

/// A tool: what `#[mcp_tool]` generates for a handler function.
///
/// Implement it by hand only for tools a macro cannot describe; the macro also
/// checks the contract, the names and the handler body at compile time.
pub trait Tool: Send + Sync + 'static {
    /// The decoded arguments ([`NoArguments`] for a handler without input).
    type Input: DeserializeOwned + Send + 'static;
    /// What the handler returns on success.
    type Output: Send + 'static;

    /// The definition published in `tools/list`, built once.
    fn definition(&self) -> &'static ToolDefinition;

    /// Run the handler.
    fn call(&self, input: Self::Input, ctx: Context) -> impl Future<Output = Result<Self::Output, McpError>> + Send;

    /// Turn the handler's output into the result's content and structured content.
    fn render(&self, output: Self::Output) -> Result<ToolOutput, McpError>;

    /// The shared state types the handler takes (its `State<T>` parameters).
    /// [`Server::build`](crate::server::Server::build) refuses a server that
    /// registered none of one of them.
    fn required_state(&self) -> &'static [StateType] {
        &[]
    }

    /// Decode a sample of the structured result into [`Tool::Output`], so the
    /// definition linter can [`render`](Tool::render) it and check that the text
    /// shows every field (rule `format-parity`).
    ///
    /// `#[mcp_tool]` implements it for tools with a `format` function. The
    /// default opts out ([`OutputSample::NotChecked`]); a hand-written tool with
    /// a `Deserialize` output opts in with `OutputSample::decode(sample)`.
    fn sample_output(&self, sample: Value) -> OutputSample<Self::Output> {
        let _ = sample;
        OutputSample::NotChecked
    }

    /// The path of the function that renders the text (`format = ..` of
    /// `#[mcp_tool]`), such as `my_server::render_object`: tools that share one
    /// are reported once per missing field by the format-parity check, naming
    /// it. `None` (the default) reports each tool on its own.
    fn format_function(&self) -> Option<&'static str> {
        None
    }

    /// Whether `#[mcp_tool]` checked this definition's name, description,
    /// annotations, scopes and contract at compile time. The definition linter
    /// checks them again on tools for which this is `false` (the default).
    fn checked_at_compile_time(&self) -> bool {
        false
    }
}

/// What [`Tool::sample_output`] made of a sample of the structured result.
#[derive(Debug)]
#[non_exhaustive]
pub enum OutputSample<T> {
    /// The tool does not take part in the format-parity check.
    NotChecked,
    /// The output type is not `Deserialize`, so no sample can be built.
    NotDeserializable,
    /// The output type refused the sample: why, with the path at fault.
    Rejected(String),
    /// The sample, decoded.
    Decoded(T),
}

impl<T: DeserializeOwned> OutputSample<T> {
    /// Decode `sample` into `T`, naming the path at fault when it does not fit.
    ///
    /// ```
    /// use mcp_contract::tools::OutputSample;
    /// let sample = OutputSample::<Vec<u8>>::decode(serde_json::json!([1, 2]));
    /// assert!(matches!(sample, OutputSample::Decoded(bytes) if bytes == [1, 2]));
    /// assert!(matches!(OutputSample::<u8>::decode(serde_json::json!("x")), OutputSample::Rejected(_)));
    /// ```
    pub fn decode(sample: Value) -> Self {
        let mut track = serde_path_to_error::Track::new();
        let deserializer = serde_path_to_error::Deserializer::new(sample, &mut track);
        match T::deserialize(deserializer) {
            Ok(output) => Self::Decoded(output),
            Err(err) => Self::Rejected(format!("at `{}`: {err}", track.path())),
        }
    }
}

/// What [`DynTool::format_sample`] made of a sample of the structured result.
#[derive(Debug)]
#[non_exhaustive]
pub enum FormatSample {
    /// The tool does not take part in the format-parity check.
    NotChecked,
    /// The output type is not `Deserialize`, so no sample can be built.
    NotDeserializable,
    /// The output type refused the sample: why, with the path at fault.
    Rejected(String),
    /// What [`Tool::render`] made of the decoded sample.
    Rendered(Result<ToolOutput, McpError>),
}

/// The object-safe face of a [`Tool`], for servers that hold many tools.
pub trait DynTool: Send + Sync + 'static {
    /// The definition published in `tools/list`.
    fn definition(&self) -> &'static ToolDefinition;

    /// Decode the arguments, run the handler and render its output.
    fn call_json(&self, arguments: JsonObject, ctx: Context) -> BoxFuture<'_, Result<ToolOutput, McpError>>;

    /// Whether `arguments` (repaired as the call would repair them) decode
    /// into the tool's input: what a call that becomes a task is checked
    /// against before the task is created, so that arguments the handler
    /// could never take are refused at once. The default checks nothing:
    /// the call's own decoding refuses them, inside the task.
    ///
    /// # Errors
    ///
    /// The `invalid_arguments` refusal the call would answer.
    fn check_arguments(&self, arguments: JsonObject) -> Result<(), McpError> {
        let _ = arguments;
        Ok(())
    }

    /// Decode a sample of the structured result and render it, for the
    /// format-parity check; see [`Tool::sample_output`].
    fn format_sample(&self, sample: Value) -> FormatSample {
        let _ = sample;
        FormatSample::NotChecked
    }

    /// See [`Tool::checked_at_compile_time`].
    fn checked_at_compile_time(&self) -> bool {
        false
    }

    /// See [`Tool::format_function`].
    fn format_function(&self) -> Option<&'static str> {
        None
    }

    /// The shared state types the handler takes; see [`Tool::required_state`].
    fn required_state(&self) -> &'static [StateType];
}

impl<T: Tool> DynTool for T {
    fn definition(&self) -> &'static ToolDefinition {
        Tool::definition(self)
    }

    fn call_json(&self, arguments: JsonObject, ctx: Context) -> BoxFuture<'_, Result<ToolOutput, McpError>> {
        Box::pin(async move {
            let input = decode_arguments::<T::Input>(arguments, &Tool::definition(self).input_schema)?;
            let enrichment = ctx.enrich().clone();
            let output = self.render(self.call(input, ctx).await?)?;
            Ok(match &Tool::definition(self).enrichment {
                Some(declared) => declared.apply(output, &enrichment.snapshot()),
                None => output,
            })
        })
    }

    fn check_arguments(&self, arguments: JsonObject) -> Result<(), McpError> {
        decode_arguments::<T::Input>(arguments, &Tool::definition(self).input_schema).map(drop)
    }

    fn required_state(&self) -> &'static [StateType] {
        Tool::required_state(self)
    }

    fn format_sample(&self, sample: Value) -> FormatSample {
        match self.sample_output(sample) {
            OutputSample::NotChecked => FormatSample::NotChecked,
            OutputSample::NotDeserializable => FormatSample::NotDeserializable,
            OutputSample::Rejected(why) => FormatSample::Rejected(why),
            OutputSample::Decoded(output) => FormatSample::Rendered(self.render(output)),
        }
    }

    fn checked_at_compile_time(&self) -> bool {
        Tool::checked_at_compile_time(self)
    }

    fn format_function(&self) -> Option<&'static str> {
        Tool::format_function(self)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::NoArguments;
    use crate::schema::input_schema;

    #[test]
    fn no_arguments_is_an_empty_object_that_refuses_any_property() {
        assert_eq!(
            Value::Object((*input_schema::<NoArguments>()).clone()),
            json!({
                "description": "The arguments of a tool whose handler takes no input: an empty object.",
                "type": "object",
                "properties": {},
                "additionalProperties": false
            })
        );
    }
}
