//! The issuer's signing keys (JWKS), fetched on first use, kept for a while,
//! and fetched again when a token names a key id the set does not hold (the
//! issuer rotated its keys), at most once per cooldown.

use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey};
use tokio::sync::Mutex;

use super::verify::TokenError;

/// A JWKS larger than this is not a key set.
const MAX_JWKS_BYTES: usize = 1024 * 1024;

/// How long one fetch of the key set may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

pub(super) struct JwksCache {
    uri: String,
    client: reqwest::Client,
    cooldown: Duration,
    max_age: Duration,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    keys: Vec<SigningKey>,
    fetched_at: Option<Instant>,
}

struct SigningKey {
    kid: Option<String>,
    /// The algorithm the key is published for (`alg`), when the issuer says.
    alg: Option<Algorithm>,
    family: AlgorithmFamily,
    key: DecodingKey,
}

impl SigningKey {
    fn fits(&self, kid: Option<&str>, alg: Algorithm) -> bool {
        kid.is_none_or(|kid| self.kid.as_deref() == Some(kid))
            && self.family == alg.family()
            && self.alg.is_none_or(|published| published == alg)
    }
}

impl JwksCache {
    pub(super) fn new(uri: String, cooldown: Duration, max_age: Duration) -> Result<Self, reqwest::Error> {
        let client = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .user_agent(concat!("mcp-contract/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Self { uri, client, cooldown, max_age, state: Mutex::new(State::default()) })
    }

    /// The key that verifies a token with header `kid` and `alg`.
    ///
    /// A token without `kid` is accepted only when exactly one key fits its
    /// algorithm: guessing among several would let any of them sign for all.
    pub(super) async fn key_for(&self, kid: Option<&str>, alg: Algorithm) -> Result<DecodingKey, TokenError> {
        let mut state = self.state.lock().await;
        let age = state.fetched_at.map(|at| at.elapsed());
        let stale = age.is_none_or(|age| age >= self.max_age);
        let cooled = age.is_none_or(|age| age >= self.cooldown);
        // A set that never arrived is tried again once the cooldown has passed.
        let refresh_now = stale || (state.keys.is_empty() && cooled);
        if refresh_now {
            self.refresh(&mut state).await?;
        }
        if state.keys.is_empty() {
            return Err(TokenError::KeysUnavailable);
        }
        if let Some(key) = find(&state.keys, kid, alg)? {
            return Ok(key);
        }
        // An unknown key id: the issuer may have rotated its keys since the last fetch.
        if kid.is_some() && !refresh_now && cooled {
            self.refresh(&mut state).await?;
            if let Some(key) = find(&state.keys, kid, alg)? {
                return Ok(key);
            }
        }
        Err(TokenError::UnknownKey)
    }

    /// Fetch the set again. On failure, keys fetched before stay in use (an
    /// outage of the issuer should not log everyone out), and the attempt
    /// counts for the cooldown so that a down issuer is not hammered.
    async fn refresh(&self, state: &mut State) -> Result<(), TokenError> {
        let fetched = self.fetch().await;
        state.fetched_at = Some(Instant::now());
        match fetched {
            Ok(keys) => {
                tracing::debug!(uri = %self.uri, keys = keys.len(), "fetched the issuer's signing keys");
                state.keys = keys;
                Ok(())
            }
            Err(reason) => {
                tracing::warn!(uri = %self.uri, reason, "cannot fetch the issuer's signing keys (JWKS)");
                if state.keys.is_empty() { Err(TokenError::KeysUnavailable) } else { Ok(()) }
            }
        }
    }

    async fn fetch(&self) -> Result<Vec<SigningKey>, String> {
        let mut response = self.client.get(&self.uri).send().await.map_err(|err| err.without_url().to_string())?;
        if !response.status().is_success() {
            return Err(format!("HTTP {}", response.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|err| err.without_url().to_string())? {
            if body.len() + chunk.len() > MAX_JWKS_BYTES {
                return Err(format!("the key set is larger than {MAX_JWKS_BYTES} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        let set: JwkSet = serde_json::from_slice(&body).map_err(|err| format!("not a JWKS document: {err}"))?;
        Ok(set.keys.iter().filter_map(signing_key).collect())
    }
}

/// The asymmetric signing keys of a set; symmetric (`oct`) keys never verify
/// tokens here, whatever a token's header claims.
fn signing_key(jwk: &jsonwebtoken::jwk::Jwk) -> Option<SigningKey> {
    let family = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => AlgorithmFamily::Rsa,
        AlgorithmParameters::EllipticCurve(_) => AlgorithmFamily::Ec,
        _ => return None,
    };
    if matches!(&jwk.common.public_key_use, Some(usage) if *usage != PublicKeyUse::Signature) {
        return None;
    }
    let alg = match jwk.common.key_algorithm {
        Some(published) => Some(Algorithm::try_from(published).ok()?),
        None => None,
    };
    let key = DecodingKey::from_jwk(jwk).ok()?;
    Some(SigningKey { kid: jwk.common.key_id.clone(), alg, family, key })
}

fn find(keys: &[SigningKey], kid: Option<&str>, alg: Algorithm) -> Result<Option<DecodingKey>, TokenError> {
    let mut fitting = keys.iter().filter(|key| key.fits(kid, alg));
    match (fitting.next(), fitting.next()) {
        (Some(key), None) => Ok(Some(key.key.clone())),
        (None, _) => Ok(None),
        // Two keys under one kid, or several candidates for a token without a kid.
        (Some(_), Some(_)) => Err(TokenError::UnknownKey),
    }
}
