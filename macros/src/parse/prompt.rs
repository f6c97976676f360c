//! Parse: the keys of `#[mcp_prompt(..)]`, typed; `errors(..)` is read by
//! `contract` when the contract is taken.

use darling::FromMeta;
use syn::{Ident, LitStr, Meta, Path};

use super::attr::{Keys, keys};

keys! {
    /// The keys of `#[mcp_prompt]`; `allow(..)` is taken out before.
    struct PromptArgs {
        name: Option<LitStr>,
        title: Option<LitStr>,
        description: Option<LitStr>,
        complete: Option<Path>,
        errors: Option<Meta>,
        /// `prompt_type = Name`: the generated prompt type (default: the PascalCase function name).
        prompt_type: Option<Ident>,
        /// `reason_type = Name`: the generated reason enum (default: the prompt type + `Reason`).
        reason_type: Option<Ident>,
        /// `crate = path`: where `mcp-contract` is, for crates that re-export it.
        #[key = "crate"]
        krate: Option<Path>,
    }
}
