//! `?` in a handler: any `std::error::Error + Send + Sync + 'static` converts,
//! classified as `McpError::from_error` does, while `McpError`, the reasons and
//! every `From` conversion keep their exact codes.

use std::fmt;

use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
pub struct Step {
    /// Which failure to raise: `io`, `driver`, `parse`, `json`, `reason`, `explicit`, or none.
    pub fail: String,
}

/// A database driver's error: no `From` into `McpError`, only `std::error::Error`.
#[derive(Debug)]
struct DriverError(&'static str);

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for DriverError {}

fn driver() -> Result<u32, DriverError> {
    Err(DriverError("connection refused by database at 10.0.0.7:5432"))
}

/// Runs one step and fails as asked.
#[mcp_tool(errors(locked(code = Conflict, when = "The row is locked",
    recovery = "Wait until the other edit finishes, then try again.")))]
async fn run_step(input: Step, ctx: Ctx) -> Result<String, McpError> {
    match input.fail.as_str() {
        "io" => {
            std::fs::read_to_string("/nonexistent/mcp-contract/question-mark")?;
        }
        "driver" => {
            driver()?;
        }
        "parse" => {
            "ten".parse::<u32>()?;
        }
        "json" => {
            serde_json::from_str::<u32>("{")?;
        }
        "reason" => Err(ctx.fail(locked, "Row 7 is locked."))?,
        "explicit" => Err(McpError::service_unavailable("The database is restarting."))?,
        _ => {}
    }
    // A `?` of a closure keeps the closure's own return type.
    let first = || -> Option<char> {
        let first = input.fail.chars().next()?;
        Some(first.to_ascii_uppercase())
    };
    Ok(format!("done {:?}", first()))
}

/// The same in a plain `fn`, which runs on the blocking pool.
#[mcp_tool]
fn blocking_step(input: Step) -> Result<String, McpError> {
    if input.fail == "driver" {
        driver()?;
    }
    Ok("done".into())
}

/// A handler whose error type is a driver's: converted as `?` converts.
#[mcp_tool]
async fn driver_step(_input: Step) -> Result<String, DriverError> {
    driver().map(|n| n.to_string())
}

fn context(tool: &impl Tool) -> Context {
    let definition = tool.definition();
    Context::new(definition.name, definition.errors)
}

fn step(fail: &str) -> Step {
    Step { fail: fail.to_owned() }
}

#[tokio::test]
async fn question_mark_classifies_any_std_error_as_from_error_does() {
    let io = run_step(step("io"), RunStep::test_ctx()).await.unwrap_err();
    let expected =
        McpError::from_error(std::fs::read_to_string("/nonexistent/mcp-contract/question-mark").unwrap_err());
    assert_eq!((io.code(), io.message()), (expected.code(), expected.message()));
    assert_eq!(io.code(), JsonRpcErrorCode::NotFound);

    let driver_err = run_step(step("driver"), RunStep::test_ctx()).await.unwrap_err();
    let expected = McpError::from_error(DriverError("connection refused by database at 10.0.0.7:5432"));
    assert_eq!(driver_err.code(), expected.code());
    assert_ne!(driver_err.code(), JsonRpcErrorCode::UnknownError, "the driver's message is classified");
    assert!(std::error::Error::source(&driver_err).is_some(), "the cause is kept for the log");

    let parse = run_step(step("parse"), RunStep::test_ctx()).await.unwrap_err();
    assert_eq!(parse.code(), McpError::from_error("ten".parse::<u32>().unwrap_err()).code());

    let blocking = BlockingStep.call(step("driver"), context(&BlockingStep)).await.unwrap_err();
    assert_eq!(blocking.code(), driver_err.code());
    assert_eq!(BlockingStep.call(step(""), context(&BlockingStep)).await.unwrap(), "done");
}

#[tokio::test]
async fn question_mark_keeps_mcp_errors_reasons_and_from_conversions_exactly() {
    let reason = run_step(step("reason"), RunStep::test_ctx()).await.unwrap_err();
    assert_eq!((reason.code(), reason.reason()), (JsonRpcErrorCode::Conflict, Some("locked")));
    assert_eq!(reason.message(), "Row 7 is locked.");

    let explicit = run_step(step("explicit"), RunStep::test_ctx()).await.unwrap_err();
    assert_eq!(explicit, McpError::service_unavailable("The database is restarting."));

    // `From<serde_json::Error>` wins over the classifier.
    let json = run_step(step("json"), RunStep::test_ctx()).await.unwrap_err();
    let via_from = McpError::from(serde_json::from_str::<u32>("{").unwrap_err());
    assert_eq!((json.code(), json.message()), (via_from.code(), via_from.message()));

    assert_eq!(run_step(step("x"), RunStep::test_ctx()).await.unwrap(), "done Some('X')");
}

#[tokio::test]
async fn a_handler_error_type_that_is_a_std_error_converts_at_the_call() {
    let err = DriverStep.call(step(""), context(&DriverStep)).await.unwrap_err();
    assert_eq!(err.code(), McpError::from_error(DriverError("connection refused by database at 10.0.0.7:5432")).code());
}
