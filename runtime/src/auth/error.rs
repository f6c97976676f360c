//! What goes wrong in authentication: a configuration the server refuses to
//! start with ([`AuthConfigError`]), and a token it refuses ([`TokenError`]).

use std::fmt;

use super::env::{self, AuthMode, MIN_SECRET_LEN};
#[cfg(feature = "auth")]
use crate::call::ClaimsError;

/// Why an [`AuthConfig`](super::AuthConfig) cannot start a server. No message holds a secret.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthConfigError {
    /// `MCP_AUTH_MODE` is not `none`, `jwt` or `oauth`.
    UnknownMode {
        /// The value given.
        value: String,
    },
    /// Mode `jwt` without `MCP_AUTH_SECRET_KEY`.
    MissingSecret,
    /// The `jwt` secret is shorter than [`MIN_SECRET_LEN`](super::MIN_SECRET_LEN) bytes.
    SecretTooShort,
    /// Mode `oauth` without `OAUTH_ISSUER_URL`.
    MissingIssuer,
    /// Mode `oauth` without `OAUTH_AUDIENCE`.
    MissingAudience,
    /// A URL setting is not an `http(s)://` URL.
    InvalidUrl {
        /// The setting's variable name.
        variable: &'static str,
    },
    /// A URL setting uses plain HTTP to a host that is not loopback.
    InsecureUrl {
        /// The setting's variable name.
        variable: &'static str,
    },
    /// A boolean variable holds something else than true/false.
    InvalidFlag {
        /// The variable's name.
        variable: &'static str,
        /// The value given.
        value: String,
    },
    /// The mode needs the `auth` feature, which this build lacks.
    FeatureDisabled {
        /// The mode asked for.
        mode: AuthMode,
    },
    /// Mode `oauth`: the HTTPS client that fetches the issuer's keys could not
    /// be set up (no usable root certificates on this machine, for one).
    KeyClient {
        /// What the TLS stack said.
        reason: String,
    },
}

impl fmt::Display for AuthConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownMode { value } => {
                write!(f, "{} is `{value}`; use `none`, `jwt` or `oauth`", env::MODE)
            }
            Self::MissingSecret => write!(
                f,
                "auth mode `jwt` needs a shared secret: set {} to at least {MIN_SECRET_LEN} bytes",
                env::SECRET_KEY
            ),
            Self::SecretTooShort => write!(
                f,
                "the `jwt` secret ({}) is shorter than {MIN_SECRET_LEN} bytes; use a longer random secret",
                env::SECRET_KEY
            ),
            Self::MissingIssuer => write!(f, "auth mode `oauth` needs the issuer: set {}", env::ISSUER_URL),
            Self::MissingAudience => {
                write!(f, "auth mode `oauth` needs the audience tokens are minted for: set {}", env::AUDIENCE)
            }
            Self::InvalidUrl { variable } => write!(f, "{variable} is not an http(s) URL"),
            Self::InsecureUrl { variable } => write!(
                f,
                "{variable} uses plain http to a host that is not loopback; keys fetched that way could be \
                 swapped in transit: use https"
            ),
            Self::InvalidFlag { variable, value } => {
                write!(f, "{variable} is `{value}`; use `true` or `false`")
            }
            Self::FeatureDisabled { mode } => write!(
                f,
                "auth mode `{mode}` needs the `auth` feature of mcp-contract, which this build lacks; enable it \
                 (it is on by default) or set {} to `none`",
                env::MODE
            ),
            Self::KeyClient { reason } => {
                write!(f, "the HTTPS client for the issuer's keys ({}) cannot start: {reason}", env::JWKS_URI)
            }
        }
    }
}

impl std::error::Error for AuthConfigError {}

#[cfg(feature = "auth")]
/// Why a bearer token was refused. The `Display` text goes into the 401's
/// `error_description`: it never quotes the token or its claims.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenError {
    /// Not a JWT, or undecodable.
    Malformed,
    /// The header's `alg` is not one this mode accepts (`none`, or a shared-secret
    /// algorithm presented to the JWKS verifier, ..).
    DisallowedAlgorithm,
    /// No key of the issuer's set fits the token's `kid` and `alg`.
    UnknownKey,
    /// The signature does not verify.
    BadSignature,
    /// `exp` is past.
    Expired,
    /// `nbf` is in the future.
    NotYetValid,
    /// `iss` is not the configured issuer.
    WrongIssuer,
    /// `aud` does not name the configured audience.
    WrongAudience,
    /// The token does not name this server's resource identifier (RFC 8707).
    WrongResource,
    /// A claim the mode requires (`exp`, `iss`, `aud`) is missing.
    MissingClaim,
    /// The claims cannot describe a caller.
    Claims(ClaimsError),
    /// The issuer's keys cannot be fetched: the server cannot verify anything.
    KeysUnavailable,
}

#[cfg(feature = "auth")]
impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Malformed => "the bearer token is not a well-formed JWT",
            Self::DisallowedAlgorithm => "the token's signing algorithm is not accepted by this server",
            Self::UnknownKey => "the token names no signing key of the issuer",
            Self::BadSignature => "the token's signature does not verify",
            Self::Expired => "the token has expired",
            Self::NotYetValid => "the token is not valid yet",
            Self::WrongIssuer => "the token was issued by another issuer",
            Self::WrongAudience => "the token was issued for another audience",
            Self::WrongResource => "the token was not issued for this resource",
            Self::MissingClaim => "the token lacks a required claim (exp, iss or aud)",
            Self::Claims(err) => return err.fmt(f),
            Self::KeysUnavailable => "the authorization server's signing keys cannot be fetched",
        })
    }
}

#[cfg(feature = "auth")]
impl std::error::Error for TokenError {}
