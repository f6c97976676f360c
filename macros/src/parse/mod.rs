//! Parse: the attribute's tokens and the handler function into typed models
//! that keep every span. A value of the wrong type is an error of its rule,
//! kept so the rest is still read; what the values mean is `valid`'s.
//!
//! - `attr`: the key-list grammar the three attributes share (`keys!`, the
//!   typed values, `allow(..)`);
//! - `contract`: `errors(..)`, which the three share;
//! - `handler`: the handler's signature, one reader for the three;
//! - `tool` (with `trailer`), `resource` (with `app_ui`), `prompt`: each
//!   attribute's own keys;
//! - `form`: the item of `#[derive(ElicitForm)]` or `#[derive(FormField)]`.

pub(crate) mod app_ui;
pub(crate) mod attr;
pub(crate) mod contract;
pub(crate) mod form;
pub(crate) mod handler;
pub(crate) mod prompt;
pub(crate) mod resource;
pub(crate) mod tool;
pub(crate) mod trailer;
