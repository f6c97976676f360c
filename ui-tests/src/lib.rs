//! trybuild cases of `#[mcp_tool]` live in `tests/ui`.
