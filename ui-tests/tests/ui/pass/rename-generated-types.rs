#![deny(warnings)]
//! `tool_type`, `reason_type` and `crate` keep generated names off the author's.
use mcp_contract::prelude::*;

/// The author's own type, named as the tool type would be by default.
pub struct GetObject;

/// The author's own function, named as the reason type would be by default.
#[allow(non_snake_case)]
pub fn GetObjectReason() {}

mod reexport {
    pub use mcp_contract as mcp;
}

/// Fetch one object.
#[mcp_tool(tool_type = GetObjectTool, reason_type = GetObjectFailure, crate = reexport::mcp,
    errors(missing(code = NotFound, when = "No object has this ID",
        recovery = "Search with search_objects first to find valid IDs.")))]
fn get_object(ctx: Ctx) -> Result<String, McpError> {
    Err(ctx.fail(missing, "No such object."))
}

fn main() {
    let _ = GetObject;
    GetObjectReason();
    assert_eq!(GetObjectTool.definition().name, "get_object");
    assert_eq!(GetObjectFailure::Missing.as_str(), "missing");
}
