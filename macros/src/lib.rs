//! The `#[mcp_tool]` attribute of mcp-contract.

use proc_macro::TokenStream;

// Wired into the validate stage by the lead; until then only its tests use it.
#[allow(dead_code)]
mod lint;

/// Declare an MCP tool with a typed error contract. See the mcp-contract README.
#[proc_macro_attribute]
pub fn mcp_tool(_args: TokenStream, item: TokenStream) -> TokenStream {
    item
}
