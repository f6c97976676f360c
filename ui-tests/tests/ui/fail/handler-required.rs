use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool]
struct Lookup;

fn main() {}
