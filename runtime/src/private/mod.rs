//! What the expansions of `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]`
//! (and the crate's benchmarks and property tests) need that is no public API:
//! the [`bounds`] that word a missing derive as its fix, [`run_blocking`] for a
//! plain handler, the typed context, the output sample's probe and the
//! classifier's tables. Reachable only as `mcp_contract_runtime::__private`
//! (generated code names `::mcp_contract::__private`), so it can change in any
//! release.
//!
//! It uses `error`, `call`, `define` and `schema`; no layer of the crate uses it.

mod blocking;
pub mod bounds;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::call::{Context, Ctx};
use crate::define::OutputSample;
use crate::error::JsonRpcErrorCode;

pub use self::blocking::run_blocking;

/// The JSON of a sample output, in `Tool::sample_output`'s signature.
pub type SampleValue = Value;

/// The typed context the expansion hands a handler that takes `ctx: Ctx`; the
/// reason type comes from the handler's signature.
pub fn typed_context<R>(context: Context) -> Ctx<R> {
    Ctx::from_context(context)
}

/// The classifier's pattern table, for the benchmark's naive classifier and the
/// property tests' oracle.
pub fn classify_patterns() -> &'static [(&'static str, JsonRpcErrorCode)] {
    crate::error::classify::pattern_table()
}

/// The classifier's type-name table, for the same readers.
pub fn classify_type_names() -> &'static [(&'static str, JsonRpcErrorCode)] {
    crate::error::classify::type_name_table()
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
