//! The "everything server" of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`), written on this crate's public API.
//!
//! The suite's scenarios call tools, resources and prompts by the names of its
//! own TypeScript everything-server (`examples/servers/typescript/everything-server.ts`
//! in the suite's repository); this server offers them under the same names,
//! with the same answers, as far as a handler can today. What the API cannot
//! express yet is marked `// needs: ..` where it would go, and is left out
//! rather than faked, so the suite reports it.
//!
//! ```text
//! cargo run --example conformance -- --http 127.0.0.1:3001    # then point the suite at http://127.0.0.1:3001/mcp
//! bash .ci/conformance                                        # the pinned suite against this server
//! ```

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use mcp_contract::prelude::*;
use mcp_contract::server::{Changes, PrimitiveKind};
use mcp_contract::tools::NoArguments;
use mcp_contract::{
    JsonObject,
    content::EmbeddedResource,
    prompts::Role,
    tools::{ToolDefinition, ToolOutput},
};
use serde_json::{Value, json};

/// The suite's 1x1 red PNG pixel, base64 (its everything-server's `TEST_IMAGE_BASE64`).
const TEST_IMAGE_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// The suite's minimal WAV file, base64 (`TEST_AUDIO_BASE64`).
const TEST_AUDIO_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

// ---------------------------------------------------------------- tools with a fixed content

/// A tool without arguments whose result is fixed content blocks and no
/// structured content: `#[mcp_tool]` gives a handler either a `String` (one
/// text block) or a structured output, so these are written by hand on the
/// public `Tool` trait.
// needs: a `#[mcp_tool]` handler returning `Vec<Content>` (content only, no structuredContent).
struct FixedContent {
    definition: &'static LazyLock<ToolDefinition>,
    content: fn() -> Vec<Content>,
}

impl Tool for FixedContent {
    type Input = NoArguments;
    type Output = Vec<Content>;

    fn definition(&self) -> &'static ToolDefinition {
        self.definition
    }

    async fn call(&self, _input: NoArguments, _ctx: Context) -> Result<Vec<Content>, McpError> {
        Ok((self.content)())
    }

    fn render(&self, output: Vec<Content>) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::new(output))
    }
}

/// `{"type": "object", "properties": {}}`: the input schema of a tool without arguments.
fn no_arguments_schema() -> Arc<JsonObject> {
    match json!({"type": "object", "properties": {}}) {
        Value::Object(schema) => Arc::new(schema),
        _ => unreachable!("a JSON object literal"),
    }
}

static IMAGE_CONTENT: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("test_image_content", no_arguments_schema()).with_description("Tests image content response")
});
static AUDIO_CONTENT: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("test_audio_content", no_arguments_schema()).with_description("Tests audio content response")
});
static EMBEDDED_RESOURCE: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("test_embedded_resource", no_arguments_schema())
        .with_description("Tests embedded resource content response")
});
static MULTIPLE_CONTENT_TYPES: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("test_multiple_content_types", no_arguments_schema())
        .with_description("Tests response with multiple content types (text, image, resource)")
});

fn image_content() -> FixedContent {
    FixedContent { definition: &IMAGE_CONTENT, content: || vec![Content::image_base64(TEST_IMAGE_BASE64, "image/png")] }
}

fn audio_content() -> FixedContent {
    FixedContent { definition: &AUDIO_CONTENT, content: || vec![Content::audio_base64(TEST_AUDIO_BASE64, "audio/wav")] }
}

fn embedded_resource() -> FixedContent {
    FixedContent {
        definition: &EMBEDDED_RESOURCE,
        content: || {
            vec![Content::resource(
                EmbeddedResource::text("test://embedded-resource", "This is an embedded resource content.")
                    .with_mime_type("text/plain"),
            )]
        },
    }
}

fn multiple_content_types() -> FixedContent {
    FixedContent {
        definition: &MULTIPLE_CONTENT_TYPES,
        content: || {
            vec![
                Content::text("Multiple content types test:"),
                Content::image_base64(TEST_IMAGE_BASE64, "image/png"),
                Content::resource(
                    EmbeddedResource::text(
                        "test://mixed-content-resource",
                        json!({"test": "data", "value": 123}).to_string(),
                    )
                    .with_mime_type("application/json"),
                ),
            ]
        },
    }
}

// ---------------------------------------------------------------- tools through #[mcp_tool]

/// Tests simple text content response
#[mcp_tool]
fn test_simple_text() -> Result<String, McpError> {
    Ok("This is a simple text response for testing.".to_owned())
}

/// Tests error response handling
#[mcp_tool(errors(intentional(code = InternalError, when = "Always: this tool exists to fail",
    recovery = "Nothing to recover: the failure is the test.")))]
fn test_error_handling(ctx: Ctx) -> Result<String, McpError> {
    Err(ctx.fail(intentional, "This tool intentionally returns an error for testing"))
}

/// Tests tool that emits log messages during execution
#[mcp_tool]
async fn test_tool_with_logging(ctx: Ctx) -> Result<String, McpError> {
    ctx.log(LogLevel::Info, "Tool execution started").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool processing data").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool execution completed").await;
    Ok("Tool with logging executed successfully".to_owned())
}

/// Tests tool that reports progress notifications
#[mcp_tool]
async fn test_tool_with_progress(ctx: Ctx) -> Result<String, McpError> {
    for step in [0.0, 50.0, 100.0] {
        if step > 0.0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.progress(step, Some(100.0), Some(format!("Completed step {step} of 100"))).await;
    }
    // needs: the request's progress token on the context; the TypeScript server answers with it.
    Ok("Progress reported: 0, 50 and 100 of 100".to_owned())
}

/// Tests SSE polling: closes its stream mid-call, so the client resumes it
#[mcp_tool]
async fn test_reconnection(ctx: Ctx) -> Result<String, McpError> {
    // SEP-1699: the answer waits in the event store for the client's GET with `Last-Event-ID`.
    ctx.close_sse_stream().await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    Ok("Reconnection test completed successfully. If you received this, the client properly reconnected after \
        stream closure."
        .to_owned())
}

#[derive(Deserialize, JsonSchema)]
struct SamplingInput {
    /// The prompt to send to the client's model.
    prompt: String,
}

/// Ask the client's model (`sampling/createMessage`) and answer with its text.
#[mcp_tool(requires(sampling))]
async fn test_sampling(input: SamplingInput, ctx: Ctx) -> Result<String, McpError> {
    let answer = ctx.sample(Sampling::new(100).user(input.prompt)).await?;
    Ok(format!("LLM response: {}", answer.text))
}

#[derive(Deserialize, JsonSchema)]
struct ElicitationInput {
    /// The message to show the user.
    message: String,
}

/// What `test_elicitation` asks the user for.
#[derive(Deserialize, Serialize, JsonSchema, ElicitForm)]
struct UserResponse {
    /// User's response
    response: String,
}

/// The text of an elicitation's outcome, as the suite's server writes it.
fn outcome<T: Serialize>(prefix: &str, answer: Result<Elicitation<T>, ClientRequestError>) -> Result<String, McpError> {
    Ok(match answer {
        Ok(Elicitation::Accepted(content)) => {
            format!("{prefix}: action=accept, content={}", serde_json::to_string(&content).unwrap_or_default())
        }
        Ok(Elicitation::Declined) => format!("{prefix}: action=decline, content={{}}"),
        Ok(Elicitation::Cancelled) => format!("{prefix}: action=cancel, content={{}}"),
        // An answer that does not fit the form is the client's to fix: said in
        // the text, as the suite's own server does with any elicitation error.
        Err(err @ ClientRequestError::Malformed { .. }) => format!("{prefix}: the answer does not fit: {err}"),
        Err(err) => return Err(err.into()),
    })
}

/// Ask the user for a response (`elicitation/create`).
#[mcp_tool(requires(elicitation))]
async fn test_elicitation(input: ElicitationInput, ctx: Ctx) -> Result<String, McpError> {
    outcome("User response", ctx.elicit::<UserResponse>(input.message).await)
}

#[derive(Deserialize, Serialize, JsonSchema, FormField)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

fn default_name() -> String {
    "John Doe".to_owned()
}
fn default_age() -> i64 {
    30
}
fn default_score() -> f64 {
    95.5
}
fn default_status() -> Status {
    Status::Active
}
fn default_verified() -> bool {
    true
}

/// A form whose every field has a default (SEP-1034).
#[derive(Deserialize, Serialize, JsonSchema, ElicitForm)]
struct WithDefaults {
    /// User name
    #[serde(default = "default_name")]
    name: String,
    /// User age
    #[serde(default = "default_age")]
    age: i64,
    /// User score
    #[serde(default = "default_score")]
    score: f64,
    /// User status
    #[serde(default = "default_status")]
    status: Status,
    /// Verification status
    #[serde(default = "default_verified")]
    verified: bool,
}

/// Ask for a form with defaults on every kind of field (SEP-1034).
#[mcp_tool(requires(elicitation))]
async fn test_elicitation_sep1034_defaults(ctx: Ctx) -> Result<String, McpError> {
    let answer = ctx.elicit::<WithDefaults>("Please review and update the form fields with defaults").await;
    outcome("Elicitation completed", answer)
}

#[derive(Deserialize, Serialize, JsonSchema, FormField)]
#[serde(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

#[derive(Deserialize, Serialize, JsonSchema, FormField)]
enum Titled {
    /// First Option
    #[serde(rename = "value1")]
    First,
    /// Second Option
    #[serde(rename = "value2")]
    Second,
    /// Third Option
    #[serde(rename = "value3")]
    Third,
}

#[derive(Deserialize, Serialize, JsonSchema, FormField)]
#[schemars(extend("enumNames" = ["Option One", "Option Two", "Option Three"]))]
enum Legacy {
    #[serde(rename = "opt1")]
    One,
    #[serde(rename = "opt2")]
    Two,
    #[serde(rename = "opt3")]
    Three,
}

#[derive(Deserialize, Serialize, JsonSchema, FormField)]
enum TitledChoice {
    /// First Choice
    #[serde(rename = "value1")]
    First,
    /// Second Choice
    #[serde(rename = "value2")]
    Second,
    /// Third Choice
    #[serde(rename = "value3")]
    Third,
}

/// The five enum forms of SEP-1330, none required.
#[derive(Deserialize, Serialize, JsonSchema, ElicitForm)]
#[serde(rename_all = "camelCase")]
struct EnumForms {
    untitled_single: Option<Untitled>,
    titled_single: Option<Titled>,
    legacy_enum: Option<Legacy>,
    #[schemars(length(min = 1, max = 3))]
    untitled_multi: Option<Vec<Untitled>>,
    #[schemars(length(min = 1, max = 3))]
    titled_multi: Option<Vec<TitledChoice>>,
}

/// Ask for a form with every enum form of SEP-1330.
#[mcp_tool(requires(elicitation))]
async fn test_elicitation_sep1330_enums(ctx: Ctx) -> Result<String, McpError> {
    let answer = ctx.elicit::<EnumForms>("Please select options from the enum fields").await;
    outcome("Elicitation completed", answer)
}

/// Logs one line at info: on 2026-07-28 only when the request's
/// `_meta["io.modelcontextprotocol/logLevel"]` lets it through (SEP-2575), as
/// `ctx.log` does for any handler.
#[mcp_tool]
async fn test_logging_tool(ctx: Ctx) -> Result<String, McpError> {
    ctx.log(LogLevel::Info, "Diagnostic trace logging activated").await;
    Ok("Logging evaluated".to_owned())
}

/// Reports progress, then asks the user for a response: on 2026-07-28 the
/// server sends no request on the call's stream (SEP-2575); the ask ends the
/// call with an input-required result instead (SEP-2322).
#[mcp_tool(requires(elicitation))]
async fn test_streaming_elicitation(ctx: Ctx) -> Result<String, McpError> {
    ctx.progress(50.0, Some(100.0), None).await;
    ctx.elicit::<UserResponse>("Streaming elicitation").await?;
    Ok("Streaming complete".to_owned())
}

/// Needs the client's `sampling` capability, and does nothing with it: on
/// 2026-07-28 a client without it gets -32021 naming it (SEP-2575).
#[mcp_tool(requires(sampling))]
fn test_missing_capability() -> Result<String, McpError> {
    Ok("Success".to_owned())
}

/// The input schema of `json_schema_2020_12_tool` as the suite checks it in
/// `tools/list` (SEP-1613, SEP-2106): `$schema`, `$defs` with an `$anchor`, a
/// `$ref`, `allOf`/`anyOf`, `if`/`then`/`else` and `additionalProperties`, untouched.
/// The definition linter warns about it when the server starts (fields without
/// a description, `anyOf` branches without a `type`): the schema is the suite's.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

/// Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)
#[mcp_tool(input_schema = json_schema_2020_12)]
fn json_schema_2020_12_tool(input: JsonObject) -> Result<String, McpError> {
    Ok(format!("JSON Schema 2020-12 tool called with: {}", Value::Object(input)))
}

// ---------------------------------------------------------------- input-required results (SEP-2322)
//
// Plain handlers: on a session each ask is a request to the client; on a
// stateless 2026-07-28 request it ends the round with an input-required
// result, and the retried request finds its answer in `inputResponses` under
// the key named here (the suite's own server's keys).

#[derive(Deserialize, Serialize, JsonSchema, ElicitForm)]
struct UserName {
    name: String,
}

/// Asks the user's name (`user_name`) and greets them.
#[mcp_tool]
async fn test_input_required_result_elicitation(ctx: Ctx) -> Result<String, McpError> {
    let answer = ctx.input("user_name").elicit::<UserName>("What is your name?").await?;
    let name = answer.accepted().map_or_else(|| "unknown".to_owned(), |user| user.name);
    Ok(format!("Hello, {name}!"))
}

/// Asks the client's model (`sample_request`) and answers with its text.
#[mcp_tool]
async fn test_input_required_result_sampling(ctx: Ctx) -> Result<String, McpError> {
    let request = Sampling::new(100).user("What is the capital of France?");
    let answer = ctx.input("sample_request").sample(request).await?;
    Ok(format!("Sampling result: {}", answer.text))
}

/// Asks the client for its roots (`roots_request`) and counts them.
#[mcp_tool]
async fn test_input_required_result_list_roots(ctx: Ctx) -> Result<String, McpError> {
    let roots = ctx.input("roots_request").list_roots().await?;
    Ok(format!("Found {} root(s)", roots.len()))
}

#[derive(Deserialize, Serialize, JsonSchema, ElicitForm)]
struct Confirmation {
    ok: bool,
}

/// Asks for a confirmation (`confirm`); the answer comes back with the
/// server's signed `requestState`, which the server verifies first.
#[mcp_tool]
async fn test_input_required_result_request_state(ctx: Ctx) -> Result<String, McpError> {
    let answer = ctx.input("confirm").elicit::<Confirmation>("Please confirm").await?;
    Ok(match answer.accepted() {
        Some(Confirmation { ok: true }) => "state-ok: requestState validated".to_owned(),
        _ => "state-ok: requestState validated; not confirmed".to_owned(),
    })
}

/// Asks three things at once (`tokio::join!`), so one input-required result
/// carries three input requests: a name, a greeting from the model, the roots.
#[mcp_tool]
async fn test_input_required_result_multiple_inputs(ctx: Ctx) -> Result<String, McpError> {
    let (name, greeting, roots) = tokio::join!(
        ctx.input("user_name").elicit::<UserName>("What is your name?"),
        ctx.input("greeting").sample(Sampling::new(50).user("Generate a greeting")),
        ctx.input("client_roots").list_roots(),
    );
    let name = name?.accepted().map_or_else(|| "unknown".to_owned(), |user| user.name);
    Ok(format!("Name: {name}; Greeting: {}; Roots: {}", greeting?.text, roots?.len()))
}

#[derive(Deserialize, Serialize, JsonSchema, ElicitForm)]
struct FavoriteColor {
    color: String,
}

/// Asks one thing after the other: two rounds of input, the second asked
/// only once the first is answered.
#[mcp_tool]
async fn test_input_required_result_multi_round(ctx: Ctx) -> Result<String, McpError> {
    let name = ctx.input("step1").elicit::<UserName>("Step 1: What is your name?").await?;
    let name = name.accepted().map_or_else(|| "someone".to_owned(), |user| user.name);
    let color = ctx.input("step2").elicit::<FavoriteColor>("Step 2: What is your favorite color?").await?;
    let color = color.accepted().map_or_else(|| "no color".to_owned(), |favorite| favorite.color);
    Ok(format!("Multi-round complete for {name} who likes {color}"))
}

/// Asks for a confirmation; a retry whose `requestState` was changed is
/// refused by the server (-32602) before this handler runs again.
#[mcp_tool]
async fn test_input_required_result_tampered_state(ctx: Ctx) -> Result<String, McpError> {
    let answer = ctx.input("confirm").elicit::<Confirmation>("Please confirm").await?;
    Ok(match answer.accepted() {
        Some(Confirmation { ok: true }) => "integrity-ok: state verified".to_owned(),
        _ => "integrity-ok: state verified; not confirmed".to_owned(),
    })
}

#[derive(Deserialize, Serialize, JsonSchema, ElicitForm)]
struct ElicitedValue {
    value: String,
}

/// Asks only for what the client declared it can answer: an elicitation
/// when it has `elicitation`, a sampling run when it has `sampling`.
#[mcp_tool]
async fn test_input_required_result_capabilities(ctx: Ctx) -> Result<String, McpError> {
    let capabilities = ctx.client_capabilities();
    let (elicit, sample) =
        (capabilities.elicitation_form(), capabilities.has(mcp_contract::context::Capability::Sampling));
    if !elicit && !sample {
        return Ok("No supported capabilities declared".to_owned());
    }
    let (elicited, sampled) = tokio::join!(
        async {
            if !elicit {
                return None;
            }
            Some(ctx.input("elicit_input").elicit::<ElicitedValue>("Elicitation input").await)
        },
        async {
            if !sample {
                return None;
            }
            Some(ctx.input("sample_input").sample(Sampling::new(50).user("Sample request")).await)
        },
    );
    let mut received = Vec::new();
    if let Some(answer) = elicited {
        answer?;
        received.push("elicit_input");
    }
    if let Some(answer) = sampled {
        answer?;
        received.push("sample_input");
    }
    Ok(format!("capabilities-ok: received {}", received.join(", ")))
}

#[derive(Deserialize, Serialize, JsonSchema, ElicitForm)]
struct PromptContext {
    context: String,
}

/// A prompt that asks the user for its context (`user_context`) first.
#[mcp_prompt(title = "Input Required Result Prompt")]
async fn test_input_required_result_prompt(ctx: Ctx) -> Result<Vec<PromptMessage>, McpError> {
    let answer = ctx.input("user_context").elicit::<PromptContext>("What context should the prompt use?").await?;
    let context = answer.accepted().map_or_else(|| "none".to_owned(), |given| given.context);
    Ok(vec![PromptMessage::user(format!("Prompt with context: {context}"))])
}

// ---------------------------------------------------------------- resources

/// A static text resource for testing
#[mcp_resource(
    uri = "test://static-text",
    name = "static-text",
    title = "Static Text Resource",
    mime_type = "text/plain"
)]
fn static_text() -> Result<String, McpError> {
    Ok("This is the content of the static text resource.".to_owned())
}

/// A static binary resource (image) for testing
#[mcp_resource(
    uri = "test://static-binary",
    name = "static-binary",
    title = "Static Binary Resource",
    mime_type = "image/png"
)]
fn static_binary() -> Result<ReadResourceResult, McpError> {
    // The suite's pixel as it is, already base64.
    Ok(ReadResourceResult::from(ResourceContent::blob_base64(TEST_IMAGE_BASE64)))
}

#[derive(Deserialize, JsonSchema)]
struct TemplateParams {
    /// The ID substituted into the template.
    id: String,
}

/// A resource template with parameter substitution
#[mcp_resource(
    uri = "test://template/{id}/data",
    name = "template",
    title = "Resource Template",
    mime_type = "application/json"
)]
fn template(params: TemplateParams) -> Result<ReadResourceResult, McpError> {
    let data = format!("Data for ID: {}", params.id);
    ReadResourceResult::json(&json!({"id": params.id, "templateTest": true, "data": data}))
}

/// How many times the watched resource changed.
#[derive(Default)]
struct Revision(AtomicU64);

/// How often the watched resource changes.
const WATCH_INTERVAL: Duration = Duration::from_secs(3);

/// A resource that auto-updates every 3 seconds
#[mcp_resource(
    uri = "test://watched-resource",
    name = "watched-resource",
    title = "Watched Resource",
    mime_type = "text/plain"
)]
fn watched_resource(revision: State<Revision>) -> Result<String, McpError> {
    Ok(format!("Watched resource content (revision {})", revision.0.load(Ordering::Relaxed)))
}

/// Change the watched resource every [`WATCH_INTERVAL`] and announce it to the
/// sessions subscribed to it (scenarios resources-subscribe, resources-unsubscribe).
async fn keep_watched_resource_changing(revision: Arc<Revision>, changes: Changes) {
    let mut ticks = tokio::time::interval(WATCH_INTERVAL);
    ticks.tick().await;
    loop {
        ticks.tick().await;
        revision.0.fetch_add(1, Ordering::Relaxed);
        changes.resource_updated("test://watched-resource").await;
    }
}

/// Triggers a tools/list_changed notification (server-stateless, on `subscriptions/listen`)
#[mcp_tool]
async fn test_trigger_tool_change(changes: State<Changes>) -> Result<String, McpError> {
    changes.list_changed(PrimitiveKind::Tool).await;
    Ok("Mutation triggered".to_owned())
}

/// Triggers a prompts/list_changed notification (server-stateless, on `subscriptions/listen`)
#[mcp_tool]
async fn test_trigger_prompt_change(changes: State<Changes>) -> Result<String, McpError> {
    changes.list_changed(PrimitiveKind::Prompt).await;
    Ok("Mutation triggered".to_owned())
}

// ---------------------------------------------------------------- a header mirrored from an argument (SEP-2243)

#[derive(Deserialize, JsonSchema)]
struct CustomHeaderInput {
    /// The region to answer for; the client mirrors it in the `Mcp-Param-Region` header.
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
}

/// Answers for a region the client also sends as the Mcp-Param-Region header (SEP-2243 x-mcp-header)
#[mcp_tool]
fn test_custom_header(input: CustomHeaderInput) -> Result<String, McpError> {
    Ok(format!("Region: {}", input.region))
}

// ---------------------------------------------------------------- tasks (SEP-2663)

#[derive(Deserialize, JsonSchema)]
struct GreetInput {
    /// Who to greet.
    name: String,
}

/// Greets someone by name (a tool that never runs as a task)
#[mcp_tool]
fn greet(input: GreetInput) -> Result<String, McpError> {
    Ok(format!("Hello, {}!", input.name))
}

#[derive(Deserialize, JsonSchema)]
struct SlowComputeInput {
    /// How long to compute, in seconds (at most 300).
    seconds: f64,
    /// A label to echo in the result.
    label: Option<String>,
}

/// Computes for a number of seconds; runs as a task when the client supports tasks
#[mcp_tool(task(optional), errors(bad_duration(code = InvalidParams, when = "The duration is negative, not a number or above 300 s",
    recovery = "Call slow_compute again with seconds between 0 and 300.")))]
async fn slow_compute(input: SlowComputeInput, ctx: Ctx) -> Result<String, McpError> {
    if !(0.0..=300.0).contains(&input.seconds) {
        return Err(ctx.fail(bad_duration, format!("Cannot compute for {} seconds.", input.seconds)));
    }
    tokio::time::sleep(Duration::from_secs_f64(input.seconds)).await;
    let label = input.label.as_deref().unwrap_or("slow_compute");
    Ok(format!("{label}: computed for {} s", input.seconds))
}

/// Fails after a second with a tool error; always runs as a task
#[mcp_tool(task(required), errors(job_failed(code = InternalError, when = "Always: this job exists to fail",
    recovery = "Nothing to recover: the failure is the test.")))]
async fn failing_job(ctx: Ctx) -> Result<String, McpError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ctx.fail(job_failed, "The job failed, as it always does."))
}

#[derive(Deserialize, JsonSchema)]
struct ConfirmDeleteInput {
    /// The file to delete.
    filename: String,
}

#[derive(Deserialize, Serialize, JsonSchema, ElicitForm)]
struct DeleteConfirmation {
    /// Delete the file.
    confirm: bool,
}

/// Deletes a file once the user confirms; as a task, it waits in
/// `input_required` until tasks/update brings the answer
#[mcp_tool(task(optional), requires(elicitation))]
async fn confirm_delete(input: ConfirmDeleteInput, ctx: Ctx) -> Result<String, McpError> {
    let answer = ctx.elicit::<DeleteConfirmation>(format!("Delete {}?", input.filename)).await?;
    Ok(match answer.accepted() {
        Some(DeleteConfirmation { confirm: true }) => format!("Deleted {}", input.filename),
        _ => format!("Kept {}", input.filename),
    })
}

#[derive(Deserialize, Serialize, JsonSchema, ElicitForm)]
struct NamedConfirmation {
    /// A name for the answer.
    name: Option<String>,
    /// Go ahead.
    confirm: Option<bool>,
}

/// Asks two questions at once; as a task, both wait in `input_required`
/// until each is answered
#[mcp_tool(task(optional), requires(elicitation))]
async fn multi_input(ctx: Ctx) -> Result<String, McpError> {
    let (first, second) = tokio::join!(
        ctx.elicit::<NamedConfirmation>("First question"),
        ctx.elicit::<NamedConfirmation>("Second question"),
    );
    let name = |answer: Elicitation<NamedConfirmation>| answer.accepted().and_then(|given| given.name);
    let (first, second) = (name(first?), name(second?));
    Ok(format!("Answers: {}, {}", first.as_deref().unwrap_or("none"), second.as_deref().unwrap_or("none")))
}

/// Fails with a protocol error after a moment; as a task, it ends `failed`
/// with that error, where a tool error ends the task `completed`
#[mcp_tool(task(optional))]
async fn protocol_error_job() -> Result<String, McpError> {
    tokio::time::sleep(Duration::from_millis(200)).await;
    Err(McpError::internal_error("The job runner is gone: the job cannot run.").into_protocol_error())
}

/// Asks the user's name (`user_name`) on the request, then greets them as a
/// task: the request that brings the answer is answered with the task
#[mcp_tool(task(required, input_first), requires(elicitation))]
async fn test_tool_with_task(ctx: Ctx) -> Result<String, McpError> {
    let answer = ctx.input("user_name").elicit::<UserName>("What is your name?").await?;
    let name = answer.accepted().map_or_else(|| "unknown".to_owned(), |user| user.name);
    tokio::time::sleep(Duration::from_millis(200)).await;
    Ok(format!("Hello, {name}, from a task!"))
}

// ---------------------------------------------------------------- prompts

/// A simple prompt without arguments
#[mcp_prompt(title = "Simple Test Prompt")]
fn test_simple_prompt() -> Result<Vec<PromptMessage>, McpError> {
    Ok(vec![PromptMessage::user("This is a simple prompt for testing.")])
}

#[derive(Deserialize, JsonSchema)]
struct PromptWithArgumentsArgs {
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
}

/// A prompt with required arguments
#[mcp_prompt(title = "Prompt With Arguments", complete = complete_nothing)]
fn test_prompt_with_arguments(args: PromptWithArgumentsArgs) -> Result<Vec<PromptMessage>, McpError> {
    Ok(vec![PromptMessage::user(format!("Prompt with arguments: arg1='{}', arg2='{}'", args.arg1, args.arg2))])
}

/// `completion/complete` for `test_prompt_with_arguments`: no suggestions, as
/// the suite's own server answers (`values: []`); the scenario checks the shape.
async fn complete_nothing(_request: CompletionRequest, _ctx: Context) -> Result<Completion, McpError> {
    Ok(Completion::none())
}

#[derive(Deserialize, JsonSchema)]
struct EmbeddedResourceArgs {
    /// URI of the resource to embed
    #[serde(rename = "resourceUri")]
    resource_uri: String,
}

/// A prompt that includes an embedded resource
#[mcp_prompt(title = "Prompt With Embedded Resource")]
fn test_prompt_with_embedded_resource(args: EmbeddedResourceArgs) -> Result<Vec<PromptMessage>, McpError> {
    let content = ResourceContent::text("Embedded resource content for testing.").with_mime_type("text/plain");
    Ok(vec![
        PromptMessage::resource(Role::User, args.resource_uri, content),
        PromptMessage::user("Please process the embedded resource above."),
    ])
}

/// A prompt that includes image content
#[mcp_prompt(title = "Prompt With Image")]
fn test_prompt_with_image() -> Result<Vec<PromptMessage>, McpError> {
    Ok(vec![
        PromptMessage::image_base64(Role::User, TEST_IMAGE_BASE64, "image/png"),
        PromptMessage::user("Please analyze the image above."),
    ])
}

// ---------------------------------------------------------------- the server

fn server(changes: &Changes, revision: &Arc<Revision>) -> Server {
    Server::new("mcp-contract-conformance", env!("CARGO_PKG_VERSION"))
        .tool(TestSimpleText)
        .tool(image_content())
        .tool(audio_content())
        .tool(embedded_resource())
        .tool(multiple_content_types())
        .tool(TestToolWithLogging)
        .tool(TestToolWithProgress)
        .tool(TestReconnection)
        .tool(TestErrorHandling)
        .tool(JsonSchema202012Tool)
        .tool(TestSampling)
        .tool(TestElicitation)
        .tool(TestElicitationSep1034Defaults)
        .tool(TestElicitationSep1330Enums)
        .tool(TestMissingCapability)
        .tool(TestLoggingTool)
        .tool(TestStreamingElicitation)
        .tool(TestTriggerToolChange)
        .tool(Greet)
        .tool(TestCustomHeader)
        .tool(SlowCompute)
        .tool(FailingJob)
        .tool(ProtocolErrorJob)
        .tool(TestToolWithTask)
        .tool(TestTriggerPromptChange)
        .tool(ConfirmDelete)
        .tool(MultiInput)
        .tool(TestInputRequiredResultElicitation)
        .tool(TestInputRequiredResultSampling)
        .tool(TestInputRequiredResultListRoots)
        .tool(TestInputRequiredResultRequestState)
        .tool(TestInputRequiredResultMultipleInputs)
        .tool(TestInputRequiredResultMultiRound)
        .tool(TestInputRequiredResultTamperedState)
        .tool(TestInputRequiredResultCapabilities)
        .resource(StaticText)
        .resource(StaticBinary)
        .resource(Template)
        .resource(WatchedResource)
        .prompt(TestSimplePrompt)
        .prompt(TestPromptWithArguments)
        .prompt(TestPromptWithEmbeddedResource)
        .prompt(TestPromptWithImage)
        .prompt(TestInputRequiredResultPrompt)
        // The Skills extension (SEP-2640): the suite's sep-2640-skills-* scenarios read these.
        .skills_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/conformance-skills"))
        .changes(changes.clone())
        .shared_state(Arc::clone(revision))
}

#[tokio::main]
async fn main() -> ExitCode {
    mcp_contract::logging::init();
    // `--http ADDR [--stateless]`: Streamable HTTP at /mcp; no argument: stdio; `lint`.
    let changes = Changes::new();
    let revision = Arc::new(Revision::default());
    tokio::spawn(keep_watched_resource_changing(Arc::clone(&revision), changes.clone()));
    server(&changes, &revision).run_cli().await
}
