//! Expand: generate the handler's rewrites and the types the runtime serves.

pub(crate) mod contract;
pub(crate) mod prompt;
pub(crate) mod question_mark;
pub(crate) mod reason_names;
pub(crate) mod resource;
pub(crate) mod resource_or_prompt;
pub(crate) mod tool;
