//! Parse: the attribute's tokens and the handler function into typed models
//! that keep every span.

pub(crate) mod app_ui;
pub(crate) mod attr;
pub(crate) mod contract;
pub(crate) mod handler;
pub(crate) mod tool;
pub(crate) mod trailer;
