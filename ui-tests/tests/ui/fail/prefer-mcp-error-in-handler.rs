#![deny(deprecated)]
use mcp_contract::prelude::*;

#[derive(Debug)]
pub struct Oops(String);

impl From<String> for Oops {
    fn from(text: String) -> Self {
        Oops(text)
    }
}

impl From<Oops> for McpError {
    fn from(oops: Oops) -> Self {
        McpError::internal_error(oops.0)
    }
}

/// Look an object up.
#[mcp_tool]
fn lookup() -> Result<String, Oops> {
    Err(String::from("no such object").into())
}

/// Look another object up.
#[mcp_tool]
fn lookup_other() -> Result<String, Oops> {
    Err("no such object".to_owned().into())
}

fn main() {}
