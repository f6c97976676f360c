//! Parse: the keys of `#[mcp_resource(..)]`, typed. What they hold is read
//! where it is judged, so the diagnostics come in the order of the attribute's
//! checks: `uri` by `valid::resource` with the URI template parser, `errors(..)`
//! by `contract` when the contract is taken, `ui(..)` by `app_ui` last.

use darling::FromMeta;
use darling::util::Flag;
use syn::{Ident, LitStr, Meta, Path};

use super::attr::{Keys, keys};

keys! {
    /// The keys of `#[mcp_resource]`; `allow(..)` is taken out before.
    struct ResourceArgs {
        uri: Option<LitStr>,
        name: Option<LitStr>,
        title: Option<LitStr>,
        description: Option<LitStr>,
        mime_type: Option<LitStr>,
        /// `ui` or `ui(..)`: the resource serves an MCP App's HTML, with these sandbox settings.
        ui: Option<Meta>,
        complete: Option<Path>,
        errors: Option<Meta>,
        /// `resource_type = Name`: the generated resource type (default: the PascalCase function name).
        resource_type: Option<Ident>,
        /// `reason_type = Name`: the generated reason enum (default: the resource type + `Reason`).
        reason_type: Option<Ident>,
        /// `crate = path`: where `mcp-contract` is, for crates that re-export it.
        #[key = "crate"]
        krate: Option<Path>,
        /// `params_renamed`: the params struct renames its fields for serde, so
        /// `template-params-align` is left to `Server::build`, which sees the names.
        params_renamed: Flag,
    }
}
