//! Compile-time lints of `#[mcp_tool]`: checks that read the parsed item and
//! report findings at the offending token.

pub(crate) mod body;
