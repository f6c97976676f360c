//! What `#[mcp_tool]`'s expansion and the benchmarks need that is no public
//! API. Reachable only as `mcp_contract_runtime::__private` (and, for generated
//! code, `mcp_contract::__private`), so it can change in any release.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::{Context, Ctx};
pub use crate::contract::OutputSample;
use crate::errors::JsonRpcErrorCode;

/// The JSON of a sample output, in `Tool::sample_output`'s signature.
pub type SampleValue = Value;

/// The reason type of a tool that declares no error contract. It has no values,
/// and it is not a [`Reason`](crate::Reason), so such a tool's context has no `fail`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoContract {}

/// Never implemented: the bound that makes `fail` on a contract-less tool,
/// resource or prompt a compile error with a message, rather than a puzzle
/// about trait bounds.
#[diagnostic::on_unimplemented(
    message = "this handler declares no error contract, so `ctx.fail` has no reasons to fail with",
    label = "no `errors(..)` in this handler's attribute",
    note = "declare the failure modes in its `#[mcp_tool(..)]`, `#[mcp_resource(..)]` or `#[mcp_prompt(..)]`: `errors(reason_name(code = NotFound, when = \"..\", recovery = \"..\"))`",
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

/// Autoref specialization for `#[mcp_tool]`: `(&SampleProbe::<T>::new()).decode(v)`
/// decodes when `T: DeserializeOwned` and says [`OutputSample::NotDeserializable`]
/// otherwise, so an output type need not be `Deserialize`.
pub struct SampleProbe<T>(std::marker::PhantomData<fn() -> T>);

impl<T> SampleProbe<T> {
    /// A probe for `T`.
    #[must_use]
    pub const fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

impl<T> Default for SampleProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The arm of [`SampleProbe`] for `Deserialize` types.
pub trait DecodeSample<T> {
    /// Decode the sample.
    fn decode(&self, sample: Value) -> OutputSample<T>;
}

impl<T: DeserializeOwned> DecodeSample<T> for SampleProbe<T> {
    fn decode(&self, sample: Value) -> OutputSample<T> {
        OutputSample::decode(sample)
    }
}

/// The arm of [`SampleProbe`] for other types.
pub trait DecodeSampleFallback<T> {
    /// Say that no sample can be decoded.
    fn decode(&self, sample: Value) -> OutputSample<T>;
}

impl<T> DecodeSampleFallback<T> for &SampleProbe<T> {
    fn decode(&self, _sample: Value) -> OutputSample<T> {
        OutputSample::NotDeserializable
    }
}
