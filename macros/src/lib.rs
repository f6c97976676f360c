//! The `#[mcp_tool]` attribute of mcp-contract.

use proc_macro::TokenStream;

/// Declare an MCP tool with a typed error contract. See the mcp-contract README.
#[proc_macro_attribute]
pub fn mcp_tool(_args: TokenStream, item: TokenStream) -> TokenStream {
    item
}
