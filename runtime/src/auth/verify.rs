//! [`TokenVerifier`]: a bearer token in, the caller's [`AuthInfo`] out.

use std::fmt;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;

use super::config::{AuthConfig, AuthConfigError, AuthMode};
use super::jwks::JwksCache;
use super::{AuthInfo, ClaimsError};
use crate::errors::JsonObject;

/// The algorithms of mode `oauth`: asymmetric only, so a token signed with a
/// shared secret (or with `alg: none`) never reaches a key.
const OAUTH_ALGORITHMS: [Algorithm; 8] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
];

/// Verifies bearer tokens as an [`AuthConfig`] says: signature, algorithm,
/// expiry, not-before, and in mode `oauth` issuer, audience and the optional
/// resource indicator; then reads the caller from the claims.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use mcp_contract_runtime::auth::{AuthConfig, TokenError, TokenVerifier};
/// let verifier = TokenVerifier::new(&AuthConfig::jwt("0123456789abcdef0123456789abcdef")).unwrap().unwrap();
/// assert_eq!(verifier.verify("not.a.token").await.unwrap_err(), TokenError::Malformed);
/// # });
/// ```
pub struct TokenVerifier {
    keys: Keys,
    validation: Validation,
    resource: Option<String>,
}

enum Keys {
    Secret(DecodingKey),
    // Boxed: hyper's client is held inline, and a verifier is built once.
    Jwks(Box<JwksCache>),
}

impl TokenVerifier {
    /// The verifier of `config`; `None` for mode `none`.
    ///
    /// # Errors
    ///
    /// The config's [`AuthConfig::validate`] error.
    pub fn new(config: &AuthConfig) -> Result<Option<Self>, AuthConfigError> {
        config.validate()?;
        ensure_crypto_provider();
        let leeway = config.leeway_duration().as_secs();
        let verifier = match config.mode() {
            AuthMode::None => return Ok(None),
            AuthMode::Jwt => {
                let secret = config.secret().ok_or(AuthConfigError::MissingSecret)?;
                let key = DecodingKey::from_secret(secret.expose()).map_err(|_| AuthConfigError::SecretTooShort)?;
                let mut validation = Validation::new(Algorithm::HS256);
                validation.leeway = leeway;
                validation.validate_nbf = true;
                // A shared-secret token names no audience unless the deployment asks for one.
                validation.validate_aud = config.audience().is_some();
                if let Some(audience) = config.audience() {
                    validation.set_audience(&[audience]);
                }
                if let Some(issuer) = config.issuer() {
                    validation.set_issuer(&[issuer]);
                }
                Self { keys: Keys::Secret(key), validation, resource: None }
            }
            AuthMode::Oauth => {
                let issuer = config.issuer().ok_or(AuthConfigError::MissingIssuer)?;
                let audience = config.audience().ok_or(AuthConfigError::MissingAudience)?;
                let uri = config.jwks_uri().ok_or(AuthConfigError::MissingIssuer)?;
                let jwks = JwksCache::new(uri, config.jwks_cooldown_duration(), config.jwks_max_age_duration())?;
                let mut validation = Validation::new(Algorithm::RS256);
                validation.algorithms = OAUTH_ALGORITHMS.to_vec();
                validation.leeway = leeway;
                validation.validate_nbf = true;
                validation.set_required_spec_claims(&["exp", "iss", "aud"]);
                validation.set_issuer(&[issuer]);
                validation.set_audience(&[audience]);
                Self { keys: Keys::Jwks(Box::new(jwks)), validation, resource: config.resource().map(str::to_owned) }
            }
        };
        Ok(Some(verifier))
    }

    /// Verify `token` (the bearer token, without the `Bearer ` prefix) and read its caller.
    ///
    /// # Errors
    ///
    /// A [`TokenError`] saying what is wrong, in words that hold nothing of the token.
    pub async fn verify(&self, token: &str) -> Result<AuthInfo, TokenError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| TokenError::Malformed)?;
        if !self.validation.algorithms.contains(&header.alg) {
            return Err(TokenError::DisallowedAlgorithm);
        }
        let key = match &self.keys {
            Keys::Secret(key) => key.clone(),
            Keys::Jwks(jwks) => jwks.key_for(header.kid.as_deref(), header.alg).await?,
        };
        // jsonwebtoken wants every allowed algorithm in the key's family; the
        // header's algorithm was checked against this mode's list above.
        let mut validation = self.validation.clone();
        validation.algorithms = vec![header.alg];
        let data =
            jsonwebtoken::decode::<JsonObject>(token, &key, &validation).map_err(|err| token_error(err.kind()))?;
        if let Some(resource) = &self.resource
            && !names(&data.claims, "aud", resource)
            && !names(&data.claims, "resource", resource)
        {
            return Err(TokenError::WrongResource);
        }
        AuthInfo::from_claims(&data.claims).map_err(TokenError::Claims)
    }
}

impl fmt::Debug for TokenVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode = match self.keys {
            Keys::Secret(_) => AuthMode::Jwt,
            Keys::Jwks(_) => AuthMode::Oauth,
        };
        f.debug_struct("TokenVerifier").field("mode", &mode).finish_non_exhaustive()
    }
}

/// Whether claim `name` (a string or an array of strings) holds `value`.
fn names(claims: &JsonObject, name: &str, value: &str) -> bool {
    match claims.get(name) {
        Some(Value::String(single)) => single == value,
        Some(Value::Array(items)) => items.iter().any(|item| item.as_str() == Some(value)),
        _ => false,
    }
}

fn token_error(kind: &ErrorKind) -> TokenError {
    match kind {
        ErrorKind::ExpiredSignature => TokenError::Expired,
        ErrorKind::ImmatureSignature => TokenError::NotYetValid,
        ErrorKind::InvalidSignature => TokenError::BadSignature,
        ErrorKind::InvalidIssuer => TokenError::WrongIssuer,
        ErrorKind::InvalidAudience => TokenError::WrongAudience,
        ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName | ErrorKind::UnsupportedAlgorithm => {
            TokenError::DisallowedAlgorithm
        }
        ErrorKind::MissingRequiredClaim(_) => TokenError::MissingClaim,
        // Whatever else (bad base64, bad JSON, a key of the wrong kind): the
        // details may quote the token, so they stay out.
        _ => TokenError::Malformed,
    }
}

/// jsonwebtoken picks its crypto provider from its features; when another
/// crate in the build enables a second backend, it picks none and would panic
/// on the first token. Install ours first.
fn ensure_crypto_provider() {
    if jsonwebtoken::crypto::CryptoProvider::try_get_default().is_none() {
        let _ = jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER.install_default();
    }
}

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

impl std::error::Error for TokenError {}
