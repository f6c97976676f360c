//! [`TokenVerifier`]: a bearer token in, the caller's [`AuthInfo`] out.

use std::fmt;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;

use super::config::AuthConfig;
use super::env::AuthMode;
use super::error::{AuthConfigError, TokenError};
use super::jwks::JwksCache;
use crate::call::AuthInfo;
use crate::error::JsonObject;

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
/// use mcp_contract::auth::{AuthConfig, TokenError, TokenVerifier};
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
                // jsonwebtoken checks `aud` and `iss` only when present unless
                // they are required: a configured one must be in the token.
                let required: Vec<&str> = std::iter::once("exp")
                    .chain(config.issuer().map(|_| "iss"))
                    .chain(config.audience().map(|_| "aud"))
                    .collect();
                validation.set_required_spec_claims(&required);
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
