use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool]
fn lookup() -> String {
    "found".into()
}

fn main() {}
