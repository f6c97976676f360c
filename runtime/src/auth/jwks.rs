//! The issuer's signing keys (JWKS), fetched on first use, kept for a while,
//! and fetched again when a token names a key id the set does not hold (the
//! issuer rotated its keys), at most once per cooldown.

use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Empty, Limited};
use hyper::body::Bytes;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey};
use tokio::sync::Mutex;

use super::error::AuthConfigError;
use super::error::TokenError;

/// A JWKS larger than this is not a key set.
const MAX_JWKS_BYTES: usize = 1024 * 1024;

/// How long one fetch of the key set may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

pub(super) struct JwksCache {
    uri: String,
    client: Client<HttpsConnector<HttpConnector>, Empty<Bytes>>,
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

/// rustls on ring, with the platform's certificate verifier (the system's roots),
/// given to the connector ready-made rather than installed as the process's
/// default crypto provider, which belongs to the application.
///
/// rustls 0.23.48 deprecates ring's provider, which has no post-quantum key
/// exchange. aws-lc-rs has one, and cost a first build of this crate 89 s
/// more (see the guide's Performance chapter); the key set a verifier fetches
/// is public, so only its integrity is at stake, which classical key exchange
/// and the certificate protect.
#[allow(deprecated)]
fn tls_config() -> Result<rustls::ClientConfig, AuthConfigError> {
    use rustls_platform_verifier::BuilderVerifierExt;
    let fail = |error: rustls::Error| AuthConfigError::KeyClient { reason: error.to_string() };
    Ok(rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(fail)?
        .with_platform_verifier()
        .map_err(fail)?
        .with_no_client_auth())
}

impl JwksCache {
    pub(super) fn new(uri: String, cooldown: Duration, max_age: Duration) -> Result<Self, AuthConfigError> {
        // `https_or_http`: plain HTTP passed the configuration's check, so it is loopback.
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls_config()?)
            .https_or_http()
            .enable_http1()
            .build();
        let client = Client::builder(TokioExecutor::new()).build(connector);
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
        let request = http::Request::get(self.uri.as_str())
            .header(http::header::USER_AGENT, concat!("mcp-contract/", env!("CARGO_PKG_VERSION")))
            .body(Empty::new())
            .map_err(|err| err.to_string())?;
        let body = tokio::time::timeout(FETCH_TIMEOUT, async {
            let response = self.client.request(request).await.map_err(|err| chain(&err))?;
            if !response.status().is_success() {
                return Err(format!("HTTP {}", response.status()));
            }
            let body = Limited::new(response.into_body(), MAX_JWKS_BYTES).collect().await.map_err(|err| {
                if err.is::<http_body_util::LengthLimitError>() {
                    format!("the key set is larger than {MAX_JWKS_BYTES} bytes")
                } else {
                    chain(&*err)
                }
            })?;
            Ok(body.to_bytes())
        })
        .await
        .map_err(|_| format!("no answer within {} s", FETCH_TIMEOUT.as_secs()))??;
        let set: JwkSet = serde_json::from_slice(&body).map_err(|err| format!("not a JWKS document: {err}"))?;
        Ok(set.keys.iter().filter_map(signing_key).collect())
    }
}

/// An error and its sources, `: `-joined: hyper's own text ("client error
/// (Connect)") says nothing of the refused certificate or connection below it.
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let causes = std::iter::successors(Some(error), |&cause| cause.source());
    causes.map(ToString::to_string).collect::<Vec<_>>().join(": ")
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
