//! Contract fuzzing: call a tool with inputs generated from its advertised
//! input schema, and report every way its answers break what it promises.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use proptest::strategy::{Just, Strategy, ValueTree};
use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
use rmcp::model::CallToolResult;
use serde_json::Value;

use super::client::{Client, text_of, tool_error};
use super::strategy;
use crate::call::BoxFuture;
use crate::define::{DynPrompt, DynResource, DynTool, PrimitiveKind, Prompt, Resource, Tool, ToolDefinition};
use crate::error::ErrorContract;
use crate::error::{JsonRpcErrorCode, McpError};
use mcp_contract_uri_template::{UriTemplate, Value as UriValue};

/// How many cases a [`check_contract`] run makes, from which seed, and how.
///
/// A tool that only succeeds on inputs no generator guesses (a name that
/// must exist, an id a delete must find) gets known-good inputs
/// ([`Cases::with_examples`], and the `examples` of its input schema) and a
/// set-up run before each case ([`Cases::setup`]) that creates what they name.
///
/// ```
/// use mcp_contract::testing::Cases;
/// use std::time::Duration;
/// let cases = Cases::new(500).seed(42).invalid_share(0.25).time_bound(Duration::from_secs(2));
/// assert_eq!(cases.count(), 500);
/// let cases = Cases::new(200)
///     .with_examples([serde_json::json!({"title": "groceries"})])
///     .setup(|client| Box::pin(async move {
///         client.call_tool("create_note", serde_json::json!({"title": "groceries"})).await.map(drop)
///     }));
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct Cases {
    count: u32,
    seed: u64,
    invalid_share: f64,
    time_bound: Duration,
    max_shrink_steps: u32,
    examples: Vec<Value>,
    setup: Option<Setup>,
}

/// What [`Cases::setup`] runs before each case.
type SetupFn = dyn for<'a> Fn(&'a Client) -> BoxFuture<'a, Result<(), McpError>> + Send + Sync;

#[derive(Clone)]
struct Setup(Arc<SetupFn>);

impl fmt::Debug for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Setup(..)")
    }
}

impl Cases {
    /// `count` cases, seed 0, a fifth of them invalid, 5 s per call, at most
    /// 256 shrinking steps per finding, no example and no set-up.
    pub fn new(count: u32) -> Self {
        Self {
            count,
            seed: 0,
            invalid_share: 0.2,
            time_bound: Duration::from_secs(5),
            max_shrink_steps: 256,
            examples: Vec::new(),
            setup: None,
        }
    }

    /// Known-good arguments, besides the `examples` of the tool's input
    /// schema (`#[schemars(example = ..)]` on the input type): each is
    /// called as the run's first cases, and a third of the valid cases after
    /// are drawn from them, so a tool whose inputs must name something that
    /// exists still gets successes. They count among the run's cases.
    pub fn with_examples(mut self, examples: impl IntoIterator<Item = Value>) -> Self {
        self.examples.extend(examples);
        self
    }

    /// Run `setup` with the client before each case (and each shrinking
    /// call): create the record a delete will find, reset what a case
    /// changed. A set-up that fails stops the run with its error.
    pub fn setup<F>(mut self, setup: F) -> Self
    where
        F: for<'a> Fn(&'a Client) -> BoxFuture<'a, Result<(), McpError>> + Send + Sync + 'static,
    {
        self.setup = Some(Setup(Arc::new(setup)));
        self
    }

    /// The seed: the same seed, tool and server give the same inputs.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The share of inputs that break the input schema in one place (a required
    /// field missing, a wrong type, a number past its bound), from 0 to 1.
    pub fn invalid_share(mut self, share: f64) -> Self {
        self.invalid_share = share.clamp(0.0, 1.0);
        self
    }

    /// How long one call may take; a call past it is a finding, and is cancelled.
    pub fn time_bound(mut self, bound: Duration) -> Self {
        self.time_bound = bound;
        self
    }

    /// How many calls shrinking one finding's input may make.
    pub fn max_shrink_steps(mut self, steps: u32) -> Self {
        self.max_shrink_steps = steps;
        self
    }

    /// How many cases a run makes.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Cases from the environment's `MCP_CONTRACT_CASES` and `MCP_CONTRACT_SEED`
    /// when set (a long run in CI, a seed replayed), else these.
    pub fn or_from_env(mut self) -> Self {
        let read = |name: &str| std::env::var(name).ok().and_then(|value| value.trim().parse::<u64>().ok());
        if let Some(count) = read("MCP_CONTRACT_CASES") {
            self.count = u32::try_from(count).unwrap_or(u32::MAX);
        }
        if let Some(seed) = read("MCP_CONTRACT_SEED") {
            self.seed = seed;
        }
        self
    }
}

/// What broke the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum FindingKind {
    /// An error whose code the contract does not declare, and that is neither
    /// argument decoding (InvalidParams), a baseline code, nor a scope refusal
    /// of a tool that declares scopes: the run-time `error-contract-conformance`.
    UndeclaredCode,
    /// An error whose `data.reason` is not one of the contract's (nor one the
    /// framework sets, like `client_timeout`).
    UndeclaredReason,
    /// The handler panicked.
    Panic,
    /// The call took longer than [`Cases::time_bound`].
    TimeBound,
    /// The structured content of a success does not validate against the
    /// advertised output schema.
    OutputSchema,
    /// The `format` text leaves out a field of the output it rendered.
    FormatParity,
}

impl FindingKind {
    /// A short name, as the summary prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UndeclaredCode => "undeclared error code",
            Self::UndeclaredReason => "undeclared reason",
            Self::Panic => "panic",
            Self::TimeBound => "past the time bound",
            Self::OutputSchema => "output schema mismatch",
            Self::FormatParity => "format parity",
        }
    }
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One way the tool broke its contract, with the smallest input found that shows it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Finding {
    /// What broke.
    pub kind: FindingKind,
    /// What the call answered, in words.
    pub detail: String,
    /// The arguments, shrunk.
    pub input: Value,
    /// The arguments as first generated.
    pub original_input: Value,
    /// How many calls shrinking made.
    pub shrink_steps: u32,
}

/// The outcome of [`check_contract`]: the findings, one per distinct problem.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ContractReport {
    /// The tool, resource or prompt checked.
    pub tool: String,
    /// The cases run.
    pub cases: u32,
    /// The seed they came from.
    pub seed: u64,
    /// How many calls answered with success, with a tool error (invalid inputs
    /// among them), and past the bound; shrinking's calls are not counted.
    pub succeeded: u32,
    /// See [`succeeded`](Self::succeeded).
    pub failed: u32,
    /// Every distinct problem found, in the order found.
    pub findings: Vec<Finding>,
}

impl ContractReport {
    /// Whether no case broke the contract.
    pub fn passed(&self) -> bool {
        self.findings.is_empty()
    }

    /// Panic with the summary unless the run passed.
    ///
    /// # Panics
    ///
    /// When a case broke the contract: the message lists every finding with
    /// its shrunk input, and the seed to replay.
    #[track_caller]
    pub fn assert_passed(&self) {
        assert!(self.passed(), "{self}");
    }
}

impl fmt::Display for ContractReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "contract check of `{}`: {} cases (seed {}; {} succeeded, {} failed), ",
            self.tool, self.cases, self.seed, self.succeeded, self.failed
        )?;
        if self.findings.is_empty() {
            return f.write_str("no finding");
        }
        writeln!(f, "{} finding{}:", self.findings.len(), if self.findings.len() == 1 { "" } else { "s" })?;
        for (number, finding) in self.findings.iter().enumerate() {
            writeln!(f, "  {}. {}: {}", number + 1, finding.kind, finding.detail)?;
            writeln!(f, "     smallest input: {}", capped(&finding.input.to_string()))?;
            if finding.input != finding.original_input {
                writeln!(
                    f,
                    "     (shrunk in {} calls from {})",
                    finding.shrink_steps,
                    capped(&finding.original_input.to_string())
                )?;
            }
        }
        write!(f, "replay with Cases::new({}).seed({})", self.cases, self.seed)
    }
}

fn capped(text: &str) -> String {
    const MAX: usize = 300;
    if text.chars().count() <= MAX {
        text.to_owned()
    } else {
        format!("{}…", text.chars().take(MAX).collect::<String>())
    }
}

/// A problem of one answer, with what tells it from another of its kind.
#[derive(Clone, Debug)]
struct Problem {
    kind: FindingKind,
    key: String,
    detail: String,
}

/// What the checker knows of what it calls: a tool's definition and what
/// `tools/list` advertises, a resource template, or a prompt.
struct Checked {
    target: Target,
    /// The name the call and the report give it.
    name: &'static str,
    /// Its error contract.
    errors: &'static [ErrorContract],
    /// The schema its inputs are drawn from: a tool's input schema, a
    /// resource's params, a prompt's arguments.
    input_schema: Value,
}

/// What a run calls.
enum Target {
    Tool {
        definition: &'static ToolDefinition,
        /// Whether the tool renders its output with a `format` function.
        has_format: bool,
        output: Option<jsonschema::Validator>,
    },
    /// `resources/read` of the URI the template expands to.
    Resource(UriTemplate),
    /// `prompts/get`, the arguments as strings (as MCP sends them).
    Prompt,
}

impl Checked {
    /// Its kind, as the server names it in its answers.
    fn kind(&self) -> PrimitiveKind {
        match self.target {
            Target::Tool { .. } => PrimitiveKind::Tool,
            Target::Resource(_) => PrimitiveKind::Resource,
            Target::Prompt => PrimitiveKind::Prompt,
        }
    }

    /// The scopes a tool declares: a refusal for them is no finding.
    fn auth_scopes(&self) -> &'static [&'static str] {
        match self.target {
            Target::Tool { definition, .. } => definition.auth_scopes,
            _ => &[],
        }
    }
}

/// Call `tool` on the server `client` is connected to with `cases` inputs
/// generated from the input schema it advertises, and report each way its
/// answers break its contract (see [`FindingKind`]), each with its shrunk input.
///
/// The calls go through the client, so the caller, capabilities and state
/// are those of the client and its server. It samples: a pass is evidence, not
/// a proof.
///
/// # Errors
///
/// When `tools/list` fails or does not list the tool, or its advertised
/// output schema is not a valid JSON Schema.
pub async fn check_contract<T: Tool>(client: &Client, tool: T, cases: Cases) -> Result<ContractReport, McpError> {
    check_tool(client, &tool, &cases).await
}

/// [`check_contract`] for every tool the server `client` is connected to
/// lists, then [`check_resource_contract`] for every resource and
/// [`check_prompt_contract`] for every prompt it lists, with the same `cases`
/// (examples and a set-up are meant for one of them: give those to the check
/// of one): one report per tool, resource and prompt, each kind in the order
/// it was registered.
///
/// ```
/// use mcp_contract::prelude::*;
/// use mcp_contract::testing::{Cases, Client, check_server_contract};
///
/// /// Say hello.
/// #[mcp_tool]
/// fn hello() -> Result<String, McpError> {
///     Ok("hello".to_owned())
/// }
///
/// /// Greet the visitor.
/// #[mcp_prompt]
/// fn welcome() -> Result<Vec<PromptMessage>, McpError> {
///     Ok(vec![PromptMessage::user("Welcome!")])
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let client = Client::connect(Server::new("greeter", "1.0.0").tool(Hello).prompt(Welcome)).await.unwrap();
/// let reports = check_server_contract(&client, Cases::new(20)).await.unwrap();
/// assert_eq!(reports.iter().map(|report| report.tool.as_str()).collect::<Vec<_>>(), ["hello", "welcome"]);
/// assert!(reports.iter().all(|report| report.passed()), "{reports:?}");
/// # });
/// ```
///
/// # Errors
///
/// As [`check_contract`] and the others, for the first one that cannot be checked.
pub async fn check_server_contract(client: &Client, cases: Cases) -> Result<Vec<ContractReport>, McpError> {
    // What is disabled at run time is not listed, and not called.
    let listed: BTreeSet<String> = client.list_tools().await?.into_iter().map(|tool| tool.name.into_owned()).collect();
    let mut reports = Vec::new();
    for tool in client.tools().iter().filter(|tool| listed.contains(tool.definition().name)) {
        reports.push(check_tool(client, tool.as_ref(), &cases).await?);
    }
    let resources = client.list_resources().await?.into_iter().map(|resource| resource.name);
    let templates = client.list_resource_templates().await?.into_iter().map(|template| template.name);
    let listed: BTreeSet<String> = resources.chain(templates).collect();
    for resource in client.resources().iter().filter(|resource| listed.contains(resource.definition().name)) {
        reports.push(check_resource(client, resource.as_ref(), &cases).await?);
    }
    let listed: BTreeSet<String> = client.list_prompts().await?.into_iter().map(|prompt| prompt.name).collect();
    for prompt in client.prompts().iter().filter(|prompt| listed.contains(prompt.definition().name)) {
        reports.push(check_prompt(client, prompt.as_ref(), &cases).await?);
    }
    Ok(reports)
}

async fn check_tool<T: DynTool + ?Sized>(client: &Client, tool: &T, cases: &Cases) -> Result<ContractReport, McpError> {
    let definition = tool.definition();
    let listed = client.list_tools().await?;
    let Some(listed) = listed.into_iter().find(|listed| listed.name == definition.name) else {
        return Err(McpError::not_found(format!("tools/list does not list `{}`", definition.name)));
    };
    let input_schema = Value::Object((*listed.input_schema).clone());
    let output = match &listed.output_schema {
        Some(schema) => Some(jsonschema::draft202012::new(&Value::Object((**schema).clone())).map_err(|err| {
            McpError::validation_error(format!(
                "the advertised output schema of `{}` is no valid schema: {err}",
                definition.name
            ))
        })?),
        None => None,
    };
    let target = Target::Tool { definition, has_format: tool.format_function().is_some(), output };
    let checked = Checked { target, name: definition.name, errors: definition.errors, input_schema };
    run(client, &checked, cases).await
}

/// [`check_contract`] for a resource: `resources/read` of URIs its template
/// expands to, with values drawn from its params' schema (a fifth of them
/// invalid by default, which exercises the params' decoding), each answer
/// judged against its contract: an error code or reason it does not declare
/// (InvalidParams and baseline codes aside), a panic, a read past the time
/// bound. A resource without variables is read as it is, `cases` times.
///
/// ```
/// use mcp_contract::prelude::*;
/// use mcp_contract::testing::{Cases, Client, check_resource_contract};
///
/// #[derive(Deserialize, JsonSchema)]
/// pub struct ObjectParams {
///     /// Object ID, e.g. 7.
///     pub object_id: u32,
/// }
///
/// /// One object's record.
/// #[mcp_resource(uri = "museum://objects/{object_id}", name = "object_record", mime_type = "text/plain",
///     errors(not_in_collection(code = NotFound, when = "No object has this ID", recovery = "Search first.")))]
/// async fn object_record(params: ObjectParams, ctx: Ctx) -> Result<String, McpError> {
///     match params.object_id {
///         7 => Ok("Vase".to_owned()),
///         _ => Err(ctx.fail(not_in_collection, "No such object.")),
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let client = Client::connect(Server::new("museum", "1.0.0").resource(ObjectRecord)).await.unwrap();
/// let cases = Cases::new(50).with_examples([serde_json::json!({"object_id": 7})]);
/// let report = check_resource_contract(&client, ObjectRecord, cases).await.unwrap();
/// report.assert_passed();
/// assert!(report.succeeded > 0, "{report}");
/// # });
/// ```
///
/// # Errors
///
/// When the resource's URI is no valid template (which `Server::build`
/// refuses already).
pub async fn check_resource_contract<R: Resource>(
    client: &Client,
    resource: R,
    cases: Cases,
) -> Result<ContractReport, McpError> {
    check_resource(client, &resource, &cases).await
}

async fn check_resource<R: DynResource + ?Sized>(
    client: &Client,
    resource: &R,
    cases: &Cases,
) -> Result<ContractReport, McpError> {
    let definition = resource.definition();
    let template = UriTemplate::parse(definition.uri).map_err(|err| {
        McpError::validation_error(format!("the URI of `{}` is no valid template: {err}", definition.name))
    })?;
    let input_schema = Value::Object((*resource.params_schema()).clone());
    let checked =
        Checked { target: Target::Resource(template), name: definition.name, errors: definition.errors, input_schema };
    run(client, &checked, cases).await
}

/// [`check_contract`] for a prompt: `prompts/get` with arguments drawn from
/// its arguments' schema, sent as strings as MCP sends them, judged as
/// [`check_resource_contract`] judges a read.
///
/// # Errors
///
/// None today; a `Result` as the other checks.
pub async fn check_prompt_contract<P: Prompt>(
    client: &Client,
    prompt: P,
    cases: Cases,
) -> Result<ContractReport, McpError> {
    check_prompt(client, &prompt, &cases).await
}

async fn check_prompt<P: DynPrompt + ?Sized>(
    client: &Client,
    prompt: &P,
    cases: &Cases,
) -> Result<ContractReport, McpError> {
    let definition = prompt.definition();
    let input_schema = Value::Object((*prompt.arguments_schema()).clone());
    let checked = Checked { target: Target::Prompt, name: definition.name, errors: definition.errors, input_schema };
    run(client, &checked, cases).await
}

/// The known-good arguments of a run: the input schema's `examples` that are
/// objects, then the ones [`Cases::with_examples`] gave.
fn examples(input_schema: &Value, cases: &Cases) -> Vec<Value> {
    let declared = input_schema.get("examples").and_then(Value::as_array).into_iter().flatten();
    declared.chain(&cases.examples).filter(|example| example.is_object()).cloned().collect()
}

/// [`check_contract`], asserting the run passed: one line in a test.
///
/// # Panics
///
/// When the tool cannot be checked or a case broke its contract, with the summary.
#[track_caller]
pub fn assert_contract<T: Tool>(client: &Client, tool: T, cases: Cases) -> impl Future<Output = ()> + '_ {
    let caller = std::panic::Location::caller();
    async move {
        match check_contract(client, tool, cases).await {
            Ok(report) => assert!(report.passed(), "{report}\n(asserted at {caller})"),
            Err(err) => panic!("the contract check could not run: {err} (at {caller})"),
        }
    }
}

async fn run(client: &Client, checked: &Checked, cases: &Cases) -> Result<ContractReport, McpError> {
    let examples = examples(&checked.input_schema, cases);
    let generated = strategy::valid(&checked.input_schema, &checked.input_schema, 0);
    let valid = if examples.is_empty() {
        generated
    } else {
        let known = proptest::sample::select(examples.clone()).boxed();
        proptest::strategy::Union::new_weighted(vec![(1, known), (2, generated)]).boxed()
    };
    let invalid = strategy::invalid(&checked.input_schema, &checked.input_schema);
    // Weights out of 1000, so a share of 0.2 is 200 invalid for 800 valid.
    // The share is clamped to 0..=1, so the weight is 0..=1000.
    let invalid_weight = (cases.invalid_share * 1000.0).round() as u32;
    let inputs =
        proptest::strategy::Union::new_weighted(vec![(1000 - invalid_weight, valid), (invalid_weight, invalid)])
            .boxed();
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&cases.seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        proptest::test_runner::Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
    );
    let mut report = ContractReport {
        tool: checked.name.to_owned(),
        cases: cases.count,
        seed: cases.seed,
        succeeded: 0,
        failed: 0,
        findings: Vec::new(),
    };
    let mut seen: BTreeSet<(FindingKind, String)> = BTreeSet::new();
    for case in 0..cases.count {
        // The examples first, as they are; then generated inputs.
        let tree = match examples.get(case as usize) {
            Some(example) => Just(example.clone()).boxed().new_tree(&mut runner),
            None => inputs.new_tree(&mut runner),
        };
        let Ok(mut tree) = tree else { break };
        let input = tree.current();
        set_up(client, cases, case).await?;
        let answer = call(client, checked, &input, cases.time_bound).await;
        match &answer {
            Answer::Result(result) if result.is_error != Some(true) => report.succeeded += 1,
            Answer::Read => report.succeeded += 1,
            _ => report.failed += 1,
        }
        for problem in judge(checked, &answer) {
            if !seen.insert((problem.kind, problem.key.clone())) {
                continue;
            }
            let (shrunk, detail, steps) =
                shrink(client, checked, cases, tree.as_mut(), &problem, input.clone()).await?;
            report.findings.push(Finding {
                kind: problem.kind,
                detail: detail.unwrap_or(problem.detail),
                input: shrunk,
                original_input: input.clone(),
                shrink_steps: steps,
            });
            // The same tree cannot shrink twice; later problems of this case
            // are found again by later cases, or reported unshrunk.
            break;
        }
    }
    Ok(report)
}

/// The set-up of `cases`, before case `case` (counted from 0) or one of its shrinking calls.
async fn set_up(client: &Client, cases: &Cases, case: u32) -> Result<(), McpError> {
    let Some(Setup(setup)) = &cases.setup else { return Ok(()) };
    setup(client).await.map_err(|err| {
        McpError::new(err.code(), format!("the set-up before case {} failed: {}", case + 1, err.message()))
            .with_cause(err)
    })
}

/// Shrink `tree` to the smallest input that still shows `problem`, making at
/// most [`Cases::max_shrink_steps`] calls.
async fn shrink(
    client: &Client,
    checked: &Checked,
    cases: &Cases,
    tree: &mut dyn ValueTree<Value = Value>,
    problem: &Problem,
    failing: Value,
) -> Result<(Value, Option<String>, u32), McpError> {
    let mut smallest = failing;
    let mut detail = None;
    let mut steps = 0;
    if !tree.simplify() {
        return Ok((smallest, detail, steps));
    }
    while steps < cases.max_shrink_steps {
        steps += 1;
        let candidate = tree.current();
        set_up(client, cases, steps).await?;
        let answer = call(client, checked, &candidate, cases.time_bound).await;
        let same = judge(checked, &answer).into_iter().find(|p| p.kind == problem.kind && p.key == problem.key);
        if let Some(same) = same {
            smallest = candidate;
            detail = Some(same.detail);
            if !tree.simplify() {
                break;
            }
        } else if !tree.complicate() {
            break;
        }
    }
    Ok((smallest, detail, steps))
}

/// What one call answered.
enum Answer {
    Result(CallToolResult),
    /// A JSON-RPC error: the framework refused the request (no such tool, a
    /// capability missing on 2026-07-28), which is no failure of the tool.
    Refused,
    TimedOut(Duration),
    /// A resource read or prompt got: its contents are the handler's to check.
    Read,
    /// A resource read or prompt failed: a JSON-RPC error, its contract's to judge.
    Failed(McpError),
    /// The connection failed; the server task is gone.
    Broken(String),
}

async fn call(client: &Client, checked: &Checked, input: &Value, bound: Duration) -> Answer {
    let answered = match &checked.target {
        Target::Tool { .. } => {
            return match client.call_within(checked.name, input.clone(), bound).await {
                None => Answer::TimedOut(bound),
                Some(Ok(result)) => Answer::Result(result),
                Some(Err(err)) if err.reason() == Some("connection_failed") => Answer::Broken(err.message().to_owned()),
                Some(Err(_)) => Answer::Refused,
            };
        }
        Target::Resource(template) => {
            let uri = template.expand(&uri_variables(input));
            tokio::time::timeout(bound, client.read_resource(&uri)).await.map(|read| read.map(drop))
        }
        Target::Prompt => {
            let arguments = Value::Object(as_strings(input));
            tokio::time::timeout(bound, client.get_prompt(checked.name, arguments)).await.map(|got| got.map(drop))
        }
    };
    match answered {
        Err(_) => Answer::TimedOut(bound),
        Ok(Ok(())) => Answer::Read,
        Ok(Err(err)) if err.reason() == Some("connection_failed") => Answer::Broken(err.message().to_owned()),
        // The server's own -32002 for a URI no resource matches (an invalid
        // draw left a variable out): the framework refused the request, as
        // for a tool it has not.
        Ok(Err(err)) if err.message().starts_with("No resource matches the URI") => Answer::Refused,
        Ok(Err(err)) => Answer::Failed(err),
    }
}

/// A drawn params object as the variables of a URI template: strings as
/// they are, lists as lists, anything else as its JSON text.
fn uri_variables(input: &Value) -> Vec<(String, UriValue)> {
    let Value::Object(fields) = input else { return Vec::new() };
    fields
        .iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(name, value)| {
            let value = match value {
                Value::Array(items) => UriValue::List(items.iter().map(text).collect()),
                other => UriValue::from(text(other).as_str()),
            };
            (name.clone(), value)
        })
        .collect()
}

/// A drawn arguments object as MCP's string map (absent for `null`).
fn as_strings(input: &Value) -> serde_json::Map<String, Value> {
    let Value::Object(fields) = input else { return serde_json::Map::new() };
    fields
        .iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(name, value)| (name.clone(), Value::String(text(value))))
        .collect()
}

fn text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The reasons the framework itself gives (a client request that failed),
/// which no contract declares.
const FRAMEWORK_REASONS: &[&str] = &[
    "client_capability_missing",
    "client_timeout",
    "client_error",
    "client_answer_malformed",
    "client_unavailable",
    "client_request_cancelled",
    "elicitation_form_invalid",
    crate::define::INVALID_ARGUMENTS,
];

fn judge(checked: &Checked, answer: &Answer) -> Vec<Problem> {
    match answer {
        Answer::Refused | Answer::Read => Vec::new(),
        Answer::Failed(err) => judge_error(checked, err),
        Answer::TimedOut(bound) => vec![Problem {
            kind: FindingKind::TimeBound,
            key: String::new(),
            detail: format!("no answer within {bound:?}"),
        }],
        Answer::Broken(why) => vec![Problem {
            kind: FindingKind::Panic,
            key: "connection".to_owned(),
            detail: format!("the connection to the server broke: {why}"),
        }],
        Answer::Result(result) if result.is_error == Some(true) => judge_error(checked, &tool_error(result)),
        Answer::Result(result) => judge_success(checked, result),
    }
}

fn judge_error(checked: &Checked, err: &McpError) -> Vec<Problem> {
    let panic_answer = format!("The {} `{}` failed with an internal error.", checked.kind(), checked.name);
    // The server's answer to a handler that panicked (server/dispatch/invoke.rs): the
    // panic's message stays in the server's log.
    if err.code() == JsonRpcErrorCode::InternalError
        && err.reason().is_none()
        && err.message().starts_with(&panic_answer)
    {
        return vec![Problem {
            kind: FindingKind::Panic,
            key: String::new(),
            detail: "the handler panicked".to_owned(),
        }];
    }
    let mut problems = Vec::new();
    let reason = err.reason();
    let framework = reason.is_some_and(|reason| FRAMEWORK_REASONS.contains(&reason));
    if let Some(reason) = reason
        && !framework
        && !checked.errors.iter().any(|entry| entry.reason == reason)
    {
        problems.push(Problem {
            kind: FindingKind::UndeclaredReason,
            key: reason.to_owned(),
            detail: format!("`data.reason` is `{reason}`, which the contract does not declare ({})", describe(err)),
        });
    }
    let code = err.code();
    let declared = checked.errors.iter().any(|entry| entry.code == code);
    let scope_refusal = !checked.auth_scopes().is_empty()
        && matches!(code, JsonRpcErrorCode::Forbidden | JsonRpcErrorCode::Unauthorized);
    let decoding = code == JsonRpcErrorCode::InvalidParams;
    if !declared && !code.is_baseline() && !decoding && !scope_refusal && !framework {
        problems.push(Problem {
            kind: FindingKind::UndeclaredCode,
            key: code.as_i32().to_string(),
            detail: format!("the call failed with {code}, which the contract does not declare ({})", describe(err)),
        });
    }
    problems
}

fn describe(err: &McpError) -> String {
    match err.reason() {
        Some(reason) => format!("reason `{reason}`: {}", capped(err.message())),
        None => format!("message: {}", capped(err.message())),
    }
}

fn judge_success(checked: &Checked, result: &CallToolResult) -> Vec<Problem> {
    let mut problems = Vec::new();
    let Target::Tool { definition, has_format, output } = &checked.target else { return problems };
    let Some(structured) = &result.structured_content else { return problems };
    if let Some(validator) = output
        && let Err(error) = validator.validate(structured)
    {
        let path = error.instance_path().to_string();
        problems.push(Problem {
            kind: FindingKind::OutputSchema,
            key: path.clone(),
            detail: format!(
                "the structured content does not validate against the advertised output schema at `{}`: {}",
                if path.is_empty() { "/" } else { &path },
                capped(&error.to_string())
            ),
        });
    }
    if *has_format {
        let text = text_of(result);
        let enrichment: Vec<String> = definition
            .enrichment
            .as_ref()
            .and_then(|enrichment| {
                enrichment.schema.get("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect())
            })
            .unwrap_or_default();
        let mut missing = Vec::new();
        if let Value::Object(fields) = structured {
            for (key, value) in fields {
                if !enrichment.contains(key) {
                    missing_leaves(&format!("/{key}"), value, &text, &mut missing);
                }
            }
        }
        if let Some(first) = missing.first() {
            problems.push(Problem {
                kind: FindingKind::FormatParity,
                key: strip_indices(first),
                detail: format!(
                    "the `format` text leaves out {} of the output: {}",
                    if missing.len() == 1 { "a field".to_owned() } else { format!("{} fields", missing.len()) },
                    missing.iter().take(5).map(|path| format!("`{path}`")).collect::<Vec<_>>().join(", ")
                ),
            });
        }
    }
    problems
}

/// The paths of the leaves of `value` whose text does not occur in `text`:
/// non-empty strings and numbers. Booleans and nulls have no text of their
/// own to look for, and are the static format-parity rule's to check.
fn missing_leaves(path: &str, value: &Value, text: &str, missing: &mut Vec<String>) {
    match value {
        Value::String(s) if !s.trim().is_empty() && !text.contains(s.as_str()) && !text.contains(s.trim()) => {
            missing.push(path.to_owned());
        }
        Value::Number(n) => {
            let plain = n.to_string();
            let grouped = n.as_u64().map(group_thousands);
            if !text.contains(&plain) && !grouped.is_some_and(|g| text.contains(&g)) {
                missing.push(path.to_owned());
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                missing_leaves(&format!("{path}/{index}"), item, text, missing);
            }
        }
        Value::Object(fields) => {
            for (key, item) in fields {
                missing_leaves(&format!("{path}/{key}"), item, text, missing);
            }
        }
        _ => {}
    }
}

/// `1234567` as `1,234,567`, a way formats commonly write counts.
fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut grouped = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

/// A path with its array indices as `*`, so one field missing in every
/// element of a list is one finding.
fn strip_indices(path: &str) -> String {
    path.split('/').map(|part| if part.parse::<usize>().is_ok() { "*" } else { part }).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group_thousands(1_234_567), "1,234,567");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(1000), "1,000");
    }

    #[test]
    fn leaves_missing_from_the_text_are_found_by_path() {
        let mut missing = Vec::new();
        let output = serde_json::json!({"title": "Vase", "year": 1885, "tags": ["blue", "ming"], "on_view": true});
        missing_leaves("", &output, "Vase (1885), blue", &mut missing);
        assert_eq!(missing, ["/tags/1"]);
        assert_eq!(strip_indices("/tags/1/name"), "/tags/*/name");
    }
}
