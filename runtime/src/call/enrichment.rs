//! What a handler tells the agent about a result beside the result itself:
//! the query as the server understood it, the true total, a notice on an empty
//! result, a before/after delta, a truncation disclosure. The success-path
//! counterpart of the error contract, kept out of the domain output.
//!
//! A call's [`Enrichment`] is shared by every clone of its context, so services
//! that take the context fill it too. What reaches the client is what the tool
//! declared (`#[mcp_tool(enrichment = T)]`): the fields of `T` are merged into
//! `structuredContent` and rendered as one trailer block after the `format` text.
//! On a tool without enrichment the calls are harmless and dropped.

use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;
use serde_json::{Value, json};

/// How a field was set, which decides how the trailer renders it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EnrichmentKind {
    /// Set by [`Enrichment::fields`]: rendered `**label:** value`.
    Field,
    /// [`Enrichment::notice`]: rendered as a block quote.
    Notice,
    /// [`Enrichment::total`]: rendered `**N total**`.
    Total,
    /// [`Enrichment::echo`]: rendered `Query: …`.
    Echo,
    /// [`Enrichment::delta`]: rendered `**label:** before → after`.
    Delta,
}

/// One enrichment field, in the order it was first set.
#[derive(Clone, Debug, PartialEq)]
pub struct EnrichmentField {
    /// The field's name in `structuredContent` (`totalCount`, `effectiveQuery`, ..).
    pub key: String,
    /// Its value, last write wins.
    pub value: Value,
    /// How it was set.
    pub kind: EnrichmentKind,
}

/// A truncation disclosure: the list was capped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Truncation {
    /// How many items the result shows.
    pub shown: u64,
    /// The cap that cut the list.
    pub cap: u64,
    /// The highest cap the caller may ask for, when there is one.
    pub ceiling: Option<u64>,
    /// What the agent should do; a default notice names the cap and what was shown.
    pub guidance: Option<String>,
}

/// The enrichment of one call: what `ctx.enrich()` fills.
///
/// ```
/// use mcp_contract::tools::Enrichment;
/// use mcp_contract::tools::Truncation;
///
/// let enrichment = Enrichment::default();
/// enrichment.echo("wave").total(57).truncated(Truncation { shown: 10, cap: 10, ..Truncation::default() });
/// let keys: Vec<String> = enrichment.snapshot().into_iter().map(|field| field.key).collect();
/// assert_eq!(keys, ["effectiveQuery", "totalCount", "truncated", "shown", "cap", "notice"]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Enrichment(Arc<Mutex<Vec<EnrichmentField>>>);

impl Enrichment {
    fn set(&self, key: &str, value: Value, kind: Option<EnrichmentKind>) -> &Self {
        let mut fields = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match fields.iter_mut().find(|field| field.key == key) {
            // A key keeps the kind it was first tagged with, as the reference does.
            Some(field) => {
                field.value = value;
                if let Some(kind) = kind {
                    field.kind = kind;
                }
            }
            None => {
                fields.push(EnrichmentField { key: key.to_owned(), value, kind: kind.unwrap_or(EnrichmentKind::Field) })
            }
        }
        self
    }

    /// Set the fields of `value` (a struct or map, serialized; `null` fields are
    /// skipped), typically the tool's declared enrichment type.
    pub fn fields(&self, value: impl Serialize) -> &Self {
        if let Ok(Value::Object(object)) = serde_json::to_value(value) {
            for (key, value) in object {
                if !value.is_null() {
                    self.set(&key, value, None);
                }
            }
        }
        self
    }

    /// A notice for the agent, such as why a result is empty (`notice`).
    pub fn notice(&self, text: impl Into<String>) -> &Self {
        self.set("notice", Value::String(text.into()), Some(EnrichmentKind::Notice))
    }

    /// The true total, beyond the page shown (`totalCount`).
    pub fn total(&self, total: u64) -> &Self {
        self.set("totalCount", json!(total), Some(EnrichmentKind::Total))
    }

    /// The query as the server understood it (`effectiveQuery`).
    pub fn echo(&self, query: impl Into<String>) -> &Self {
        self.set("effectiveQuery", Value::String(query.into()), Some(EnrichmentKind::Echo))
    }

    /// A before/after change of `field`, as `{before, after}`.
    pub fn delta(&self, field: &str, before: impl Serialize, after: impl Serialize) -> &Self {
        let before = serde_json::to_value(before).unwrap_or(Value::Null);
        let after = serde_json::to_value(after).unwrap_or(Value::Null);
        self.set(field, json!({"before": before, "after": after}), Some(EnrichmentKind::Delta))
    }

    /// The list was capped: `truncated`, `shown`, `cap`, `truncationCeiling`
    /// when given, and a notice (the guidance, or one naming the cap).
    pub fn truncated(&self, truncation: Truncation) -> &Self {
        self.set("truncated", Value::Bool(true), None);
        self.set("shown", json!(truncation.shown), None);
        self.set("cap", json!(truncation.cap), None);
        if let Some(ceiling) = truncation.ceiling {
            self.set("truncationCeiling", json!(ceiling), None);
        }
        let notice = truncation.guidance.unwrap_or_else(|| {
            format!(
                "Results capped at {}; showing {}. Raise the cap or narrow with filters.",
                truncation.cap, truncation.shown
            )
        });
        self.notice(notice)
    }

    /// Every field set so far, in the order each was first set.
    pub fn snapshot(&self) -> Vec<EnrichmentField> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}
