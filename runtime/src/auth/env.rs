//! The environment variables [`AuthConfig::from_env`](super::AuthConfig::from_env)
//! reads (the reference framework's names), the modes `MCP_AUTH_MODE` names, and
//! the limits on the values.

use std::fmt;

/// The shortest HS256 secret accepted, in bytes (the reference's minimum; RFC 7518
/// asks for a key at least as long as the hash).
pub const MIN_SECRET_LEN: usize = 32;

/// `none` (default), `jwt` or `oauth`.
pub const MODE: &str = "MCP_AUTH_MODE";
/// The HS256 secret of mode `jwt`, at least 32 bytes.
pub const SECRET_KEY: &str = "MCP_AUTH_SECRET_KEY";
/// The authorization server's issuer URL (mode `oauth`), compared with the `iss` claim.
pub const ISSUER_URL: &str = "OAUTH_ISSUER_URL";
/// The audience tokens must name in `aud` (mode `oauth`).
pub const AUDIENCE: &str = "OAUTH_AUDIENCE";
/// Where the issuer's keys are; `<issuer>/.well-known/jwks.json` by default.
pub const JWKS_URI: &str = "OAUTH_JWKS_URI";
/// This server's resource identifier (RFC 8707, RFC 9728 `resource`).
pub const RESOURCE_IDENTIFIER: &str = "MCP_SERVER_RESOURCE_IDENTIFIER";
/// `true` to authenticate callers without checking tools' scopes (warned at startup).
pub const DISABLE_SCOPE_CHECKS: &str = "MCP_AUTH_DISABLE_SCOPE_CHECKS";

/// A boolean variable's value, as every boolean variable of this crate reads
/// it: `true`, `1`, `yes` or `on`; `false`, `0`, `no` or `off` (any case,
/// blanks around); `None` for anything else.
pub(crate) fn flag(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// How callers of the Streamable HTTP transport authenticate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AuthMode {
    /// No authentication (the default, and always over stdio).
    #[default]
    None,
    /// HS256 bearer tokens signed with a shared secret.
    Jwt,
    /// Access tokens of an OAuth authorization server, verified against its JWKS.
    Oauth,
}

impl AuthMode {
    /// The mode's name, as `MCP_AUTH_MODE` spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Jwt => "jwt",
            Self::Oauth => "oauth",
        }
    }
}

impl fmt::Display for AuthMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
