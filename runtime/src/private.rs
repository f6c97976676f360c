//! What `#[mcp_tool]`'s expansion and the benchmarks need that is no public
//! API. Reachable only as `mcp_contract_runtime::__private` (and, for generated
//! code, `mcp_contract::__private`), so it can change in any release.

use crate::context::{Context, Ctx};
use crate::errors::JsonRpcErrorCode;

/// The reason type of a tool that declares no error contract. It has no values,
/// and it is not a [`Reason`](crate::Reason), so such a tool's context has no `fail`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoContract {}

/// Never implemented: the bound that makes `fail` on a contract-less tool a
/// compile error with a message, rather than a puzzle about trait bounds.
#[diagnostic::on_unimplemented(
    message = "this tool declares no error contract, so `ctx.fail` has no reasons to fail with",
    label = "no `errors(..)` in this tool's `#[mcp_tool]`",
    note = "declare the failure modes: `#[mcp_tool(errors(reason_name(code = NotFound, when = \"..\", recovery = \"..\")))]`",
    note = "or build the error with a factory such as `McpError::not_found(..)`; see https://docs.rs/mcp-contract/latest/mcp_contract/lints/index.html#error-contract-empty"
)]
pub trait ContractDeclared {}

/// The typed context the expansion hands a handler that takes `ctx: Ctx`; the
/// reason type comes from the handler's signature.
pub fn typed_context<R>(context: Context) -> Ctx<R> {
    Ctx::from_context(context)
}

/// The classifier's pattern table, for the benchmark's naive classifier and the
/// property tests' oracle.
pub fn classify_patterns() -> &'static [(&'static str, JsonRpcErrorCode)] {
    crate::classify::pattern_table()
}

/// The classifier's type-name table, for the same readers.
pub fn classify_type_names() -> &'static [(&'static str, JsonRpcErrorCode)] {
    crate::classify::type_name_table()
}
