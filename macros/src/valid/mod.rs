//! Validate: judge the typed models against the lint rules.

pub(crate) mod body;
pub(crate) mod contract;
pub(crate) mod elicit;
pub(crate) mod tool;
