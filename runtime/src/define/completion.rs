//! Argument completion (`completion/complete`): suggestions for a resource
//! template variable or a prompt argument while the user types it.

use std::collections::BTreeMap;

/// What a completer is asked: which variable or argument, what the user has
/// typed so far, and the values already chosen for the others.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompletionRequest {
    /// The template variable or prompt argument being completed.
    pub argument: String,
    /// What the user has typed so far.
    pub value: String,
    /// Values the user already gave the other variables or arguments.
    pub resolved: BTreeMap<String, String>,
}

impl CompletionRequest {
    /// A request to complete `argument` from `value`.
    pub fn new(argument: impl Into<String>, value: impl Into<String>) -> Self {
        Self { argument: argument.into(), value: value.into(), resolved: BTreeMap::new() }
    }
}

/// Suggested values, at most [`Completion::MAX_VALUES`] of them (MCP's limit).
///
/// ```
/// use mcp_contract::completion::Completion;
/// let departments = ["Arms and Armor", "Asian Art", "Egyptian Art"];
/// let completion = Completion::matching(departments, "as");
/// assert_eq!(completion.values, ["Asian Art"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Completion {
    /// The suggestions, best first.
    pub values: Vec<String>,
    /// How many suggestions there are in all, when known.
    pub total: Option<u32>,
    /// Whether there are more suggestions than `values` holds.
    pub has_more: bool,
}

impl Completion {
    /// The most values one answer may carry.
    pub const MAX_VALUES: usize = 100;

    /// No suggestion: what a variable or argument without a completer gets.
    pub fn none() -> Self {
        Self::default()
    }

    /// These suggestions; past [`Self::MAX_VALUES`], the rest are counted in
    /// `total` and flagged with `has_more`.
    pub fn new(values: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let mut values: Vec<String> = values.into_iter().map(Into::into).collect();
        let total = u32::try_from(values.len()).unwrap_or(u32::MAX);
        let has_more = values.len() > Self::MAX_VALUES;
        values.truncate(Self::MAX_VALUES);
        Self { values, total: Some(total), has_more }
    }

    /// The candidates that start with `typed`, ignoring case.
    pub fn matching(candidates: impl IntoIterator<Item = impl AsRef<str>>, typed: &str) -> Self {
        let typed = typed.to_lowercase();
        Self::new(
            candidates
                .into_iter()
                .filter(|candidate| candidate.as_ref().to_lowercase().starts_with(&typed))
                .map(|candidate| candidate.as_ref().to_owned()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_capped_at_the_protocol_limit() {
        let completion = Completion::new((0..150).map(|n| n.to_string()));
        assert_eq!(completion.values.len(), 100);
        assert_eq!((completion.total, completion.has_more), (Some(150), true));
        let few = Completion::matching(["Arms", "Asian", "arts"], "AR");
        assert_eq!((few.values, few.total, few.has_more), (vec!["Arms".to_owned(), "arts".to_owned()], Some(2), false));
    }
}
