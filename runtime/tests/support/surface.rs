//! The resources, resource templates and prompt the hardening and fuzz
//! servers serve beside their tools, with what a client may ask of them.

use std::sync::LazyLock;

use mcp_contract_runtime::define::NoArguments;
use mcp_contract_runtime::define::{Completion, CompletionRequest};
use mcp_contract_runtime::define::{Prompt, PromptDefinition, PromptMessage, Role, prompt_arguments};
use mcp_contract_runtime::define::{ReadResourceResult, Resource, ResourceContent, ResourceDefinition};
use mcp_contract_runtime::{Context, Ctx, ErrorContract, JsonRpcErrorCode, McpError, Reason};
use serde::Deserialize;

pub const ABOUT_URI: &str = "museum://about";
pub const OBJECT_TEMPLATE: &str = "museum://objects/{object_id}/{view}";
pub const LOAN_TEMPLATE: &str = "museum://loans/{loan_id}";
pub const SEARCH_TEMPLATE: &str = "museum://search{?q,page,tags*}";
pub const PROMPT: &str = "plan_visit";
pub const DEPARTMENTS: [&str; 4] = ["Arms and Armor", "Asian Art", "Egyptian Art", "Musical Instruments"];
/// The views an object has: any other is the resource's declared `no_such_view`.
pub const VIEWS: [&str; 2] = ["summary", "full"];

/// A static resource.
pub struct About;
static ABOUT: ResourceDefinition =
    ResourceDefinition::new(ABOUT_URI, "about").with_description("Opening hours.").with_mime_type("text/plain");

impl Resource for About {
    type Params = NoArguments;
    fn definition(&self) -> &'static ResourceDefinition {
        &ABOUT
    }
    async fn read(&self, _uri: &str, _params: NoArguments, _ctx: Context) -> Result<ReadResourceResult, McpError> {
        Ok(ReadResourceResult::text("Open daily."))
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct ObjectParams {
    /// The object's ID.
    object_id: u32,
    /// Which view of the object.
    view: String,
}

/// A template with a typed `u32` and a string, and a completer for the ID.
pub struct ObjectRecord;
static OBJECT: ResourceDefinition = ResourceDefinition::new(OBJECT_TEMPLATE, "object_record")
    .with_description("One object, by ID.")
    .with_mime_type("application/json");

impl Resource for ObjectRecord {
    type Params = ObjectParams;
    fn definition(&self) -> &'static ResourceDefinition {
        &OBJECT
    }
    async fn read(&self, _uri: &str, params: ObjectParams, _ctx: Context) -> Result<ReadResourceResult, McpError> {
        // The view is the client's text, returned as data: never in an error.
        ReadResourceResult::json(&serde_json::json!({"id": params.object_id, "view": params.view}))
    }
    async fn complete(&self, request: CompletionRequest, _ctx: Context) -> Result<Completion, McpError> {
        Ok(Completion::matching((0..150).map(|id| id.to_string()), &request.value))
    }
}

#[derive(Clone, Copy, Debug)]
pub enum LoanReason {
    NotOnLoan,
}

const LOAN_ERRORS: &[ErrorContract] = &[ErrorContract::new(
    "not_on_loan",
    JsonRpcErrorCode::NotFound,
    "No loan has this ID",
    "List the loans first to find valid loan IDs.",
)];

impl Reason for LoanReason {
    const CONTRACT: &'static [ErrorContract] = LOAN_ERRORS;
    const ALL: &'static [Self] = &[Self::NotOnLoan];
    fn index(self) -> usize {
        self as usize
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct LoanParams {
    /// The loan's ID.
    loan_id: u64,
}

/// A template with a declared error contract: even IDs read, odd ones fail
/// through the contract, 13 times out (auto-classified), 666 panics.
pub struct Loan;
static LOAN: ResourceDefinition = ResourceDefinition::new(LOAN_TEMPLATE, "loan")
    .with_description("One loan, by ID.")
    .with_mime_type("text/plain")
    .with_errors(LOAN_ERRORS);

/// What reading a loan gives, by its ID: `Ok(())`, or the JSON-RPC code.
pub fn loan_outcome(loan_id: u64) -> Result<(), i32> {
    match loan_id {
        13 => Err(-32004),
        666 => Err(-32603),
        id if id % 2 == 1 => Err(-32001),
        _ => Ok(()),
    }
}

impl Resource for Loan {
    type Params = LoanParams;
    fn definition(&self) -> &'static ResourceDefinition {
        &LOAN
    }
    async fn read(&self, _uri: &str, params: LoanParams, ctx: Context) -> Result<ReadResourceResult, McpError> {
        let ctx: Ctx<LoanReason> = mcp_contract_runtime::__private::typed_context(ctx);
        match params.loan_id {
            13 => Err(McpError::from_error(std::io::Error::new(std::io::ErrorKind::TimedOut, "upstream timed out"))),
            666 => panic!("secret at /home/server/src/loans.rs: mcp_contract_runtime::Hidden"),
            id if id % 2 == 1 => Err(ctx.fail(LoanReason::NotOnLoan, format!("No loan {id}.")).with_recovery()),
            id => Ok(ReadResourceResult::text(format!("Loan {id}"))),
        }
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct SearchParams {
    /// What to look for.
    q: Option<String>,
    /// Which page, from 1.
    page: Option<u32>,
    /// Tags every result has.
    tags: Option<Vec<String>>,
}

/// A template of optional query variables, one exploded into a list.
pub struct Search;
static SEARCH: ResourceDefinition = ResourceDefinition::new(SEARCH_TEMPLATE, "search")
    .with_description("Search results.")
    .with_mime_type("application/json");

impl Resource for Search {
    type Params = SearchParams;
    fn definition(&self) -> &'static ResourceDefinition {
        &SEARCH
    }
    async fn read(&self, _uri: &str, params: SearchParams, _ctx: Context) -> Result<ReadResourceResult, McpError> {
        ReadResourceResult::json(&serde_json::json!({"q": params.q, "page": params.page, "tags": params.tags}))
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanVisitArgs {
    /// The department to visit, e.g. "Asian Art".
    department: String,
    /// How many days, 1 to 7.
    days: Option<u8>,
    /// Whether to keep to step-free routes.
    step_free: Option<bool>,
}

/// A prompt with a required and two optional arguments, messages of every
/// kind, a completer for the department, and a declared failure past seven days.
pub struct PlanVisit;
static PLAN_VISIT: LazyLock<PromptDefinition> = LazyLock::new(|| {
    PromptDefinition::new(PROMPT, prompt_arguments::<PlanVisitArgs>())
        .with_title("Plan a visit")
        .with_description("Plan a visit around one department.")
});

impl Prompt for PlanVisit {
    type Arguments = PlanVisitArgs;
    fn definition(&self) -> &'static PromptDefinition {
        &PLAN_VISIT
    }
    async fn get(&self, args: PlanVisitArgs, _ctx: Context) -> Result<Vec<PromptMessage>, McpError> {
        let days = args.days.unwrap_or(1);
        if days > 7 {
            return Err(McpError::validation_error(format!("A visit of {days} days is too long."))
                .with_reason("too_long")
                .with_recovery_hint("Plan at most seven days."));
        }
        let route = if args.step_free == Some(true) { " on step-free routes" } else { "" };
        Ok(vec![
            PromptMessage::user(format!("Plan a {days}-day visit of the {} department{route}.", args.department)),
            PromptMessage::resource(Role::User, ABOUT_URI, ResourceContent::text("Open daily.")),
            PromptMessage::image(Role::User, [1, 2, 3], "image/png"),
            PromptMessage::assistant("Start with the highlights."),
        ])
    }
    async fn complete(&self, request: CompletionRequest, _ctx: Context) -> Result<Completion, McpError> {
        Ok(Completion::matching(DEPARTMENTS, &request.value))
    }
}
