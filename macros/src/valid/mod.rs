//! Validate: the typed models judged against the lint rules, every problem
//! reported; where a value is bad, a stand-in keeps the model whole so the
//! expansion adds no second error.
//!
//! - `contract`: the error contract and `allow(..)`, which the three share;
//! - `name_and_description`: what each is called and described as;
//! - `body` (a rule family a file): the handler's body;
//! - `form`: the shape of an item under `#[derive(ElicitForm)]` or
//!   `#[derive(FormField)]`;
//! - `tool`, `resource`: what only a tool or a resource checks (a prompt has
//!   nothing of its own).

pub(crate) mod body;
pub(crate) mod contract;
pub(crate) mod form;
pub(crate) mod name_and_description;
pub(crate) mod resource;
pub(crate) mod tool;
