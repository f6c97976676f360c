//! Definitions: what a server serves. [`Tool`], [`Resource`] and [`Prompt`],
//! the traits the attribute macros implement, with their definitions (what the
//! `*/list` methods publish), [`Content`] blocks, completion, and the decoding
//! of a call's arguments into a handler's types.

mod app;
pub(crate) mod arguments;
mod completion;
mod content;
mod enrichment;
mod issues;
mod kind;
mod landing;
mod mismatch;
mod prompt;
// Argument repair runs where calls are served (the feature `rmcp`); without
// it only `InputAlias`, which definitions name, is used.
#[cfg_attr(not(feature = "rmcp"), allow(dead_code))]
pub(crate) mod repair;
mod resource;
mod skills;
mod tool;

pub use self::app::{APP_MIME_TYPE, AppPermission, AppUi, RESOURCE_URI_META_KEY, UI_EXTENSION};
pub use self::arguments::INVALID_ARGUMENTS;
pub use self::completion::{Completion, CompletionRequest};
pub use self::content::{Binary, Content, EmbeddedResource, IntoContents, ResourceLink};
pub use self::enrichment::{EnrichmentDefinition, TrailerField, extend_output_schema};
pub use self::kind::PrimitiveKind;
pub use self::landing::{ConnectTab, DEFAULT_ACCENT, Landing, LandingLink};
pub(crate) use self::landing::{data_uri_bytes, is_safe_css_color, is_safe_link, is_safe_logo};
pub(crate) use self::mismatch::cap_quoted;
pub use self::prompt::{
    DynPrompt, Prompt, PromptArgument, PromptContent, PromptDefinition, PromptMessage, Role, prompt_arguments,
};
pub use self::repair::InputAlias;
#[cfg(feature = "rmcp")]
pub(crate) use self::repair::{Repair, aliases_beside_fields, repair, with_rewrites};
pub use self::resource::{DynResource, ReadResourceResult, Resource, ResourceContent, ResourceDefinition, TextOrBlob};
pub use self::skills::EmbeddedSkills;
pub use self::tool::{
    DynTool, FormatSample, NoArguments, OutputSample, TaskSupport, Tool, ToolAnnotations, ToolDefinition, ToolOutput,
};
// A handler's state types, as `required_state` lists them.
pub use crate::call::StateType;
