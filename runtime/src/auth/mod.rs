//! Who is calling, and what they may do: the caller's [`AuthInfo`] on every
//! [`Context`](crate::call::Context), the scopes a tool declares with `#[mcp_tool(auth("scope"))]`
//! checked before its handler runs, and [`check_scopes`] for scopes computed
//! at run time.
//!
//! Three modes, configured with [`AuthConfig`] in code or from the environment
//! ([`AuthConfig::from_env`]):
//!
//! - `none`, the default, and always over stdio: the host process that launched
//!   the server is the boundary; declared scopes are not checked;
//! - `jwt`: HS256 bearer tokens signed with a shared secret of at least 32 bytes;
//! - `oauth`: access tokens of an OAuth authorization server (RS256/384/512,
//!   PS256/384/512, ES256/384), verified against its JWKS, with issuer,
//!   audience, expiry and not-before checked, and optionally this server's
//!   resource identifier (RFC 8707).
//!
//! Verification and the HTTP layer need the `auth` feature; what a handler
//! reads ([`AuthInfo`], [`check_scopes`]) is always there.
//!
//! A token's scopes are the union of its `scp` (array), `scope`
//! (space-separated) and `mcp_tool_scopes` (either form) claims. A call whose
//! tool declares a scope the token lacks is refused before the handler runs,
//! with `Forbidden` (-32005) and `data.missingScopes`; a call without a caller
//! where one is needed, with `Unauthorized` (-32006).

mod config;
pub mod env;
mod error;
#[cfg(feature = "auth")]
mod jwks;
#[cfg(feature = "auth")]
mod verify;

pub use self::config::{AuthConfig, Secret};
pub use self::env::{AuthMode, MIN_SECRET_LEN};
pub use self::error::AuthConfigError;
#[cfg(feature = "auth")]
pub use self::error::TokenError;
#[cfg(feature = "auth")]
pub use self::verify::TokenVerifier;
// What a handler reads of its caller lives with the context; a user reaches it here.
pub use crate::call::{AuthInfo, ClaimsError, MAX_TENANT_LEN, ScopePolicy, check_scopes, validate_tenant};
