//! Shared state is used from every call at once: its type must be `Send + Sync`.
//! The error points at the type in the handler's signature.
use mcp_contract::prelude::*;
use std::rc::Rc;

pub struct Cache {
    pub entries: Rc<Vec<String>>,
}

/// Count the cached entries.
#[mcp_tool]
fn cached(cache: State<Cache>) -> Result<String, McpError> {
    Ok(cache.entries.len().to_string())
}

fn main() {}
