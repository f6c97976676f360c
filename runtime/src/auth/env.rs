//! The environment variables [`AuthConfig::from_env`](super::AuthConfig::from_env)
//! reads (the reference framework's names), and the limits on their values.

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
