//! What a bearer token costs a request: `TokenVerifier::verify` for an HS256
//! token (mode `jwt`) and for RS256 and ES256 tokens checked against a JWKS
//! already fetched from a loopback issuer (mode `oauth`, the steady state).
//!
//! `cargo bench --bench auth`; the guide's Performance chapter (guide/src/performance.md) quotes it.

use criterion::{Criterion, criterion_group, criterion_main};
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_contract::auth::{AuthConfig, TokenVerifier};
use serde_json::{Value, json};
use tokio::runtime::Runtime;

const SECRET: &str = "bench-secret-0123456789abcdef-0123456789";
const RSA: &[u8] = include_bytes!("../runtime/tests/data/auth/rsa-a.pem");
const EC: &[u8] = include_bytes!("../runtime/tests/data/auth/ec-p256.pem");

fn key(alg: Algorithm) -> EncodingKey {
    match alg {
        Algorithm::HS256 => EncodingKey::from_secret(SECRET.as_bytes()),
        Algorithm::ES256 => EncodingKey::from_ec_pem(EC),
        _ => EncodingKey::from_rsa_pem(RSA),
    }
    .expect("the bench key parses")
}

fn token(alg: Algorithm, claims: &Value) -> String {
    let mut header = Header::new(alg);
    header.kid = Some(format!("{alg:?}"));
    jsonwebtoken::encode(&header, claims, &key(alg)).expect("the token encodes")
}

/// A loopback issuer serving the RS256 and ES256 keys; its URL.
fn issuer(rt: &Runtime) -> String {
    let keys: Vec<Value> = [Algorithm::RS256, Algorithm::ES256]
        .into_iter()
        .map(|alg| {
            let mut jwk = Jwk::from_encoding_key(&key(alg), alg).expect("a public JWK");
            jwk.common.key_id = Some(format!("{alg:?}"));
            serde_json::to_value(jwk).expect("a JWK serializes")
        })
        .collect();
    let set = json!({ "keys": keys }).to_string();
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
        let url = format!("http://{}", listener.local_addr().expect("an address"));
        let router =
            axum::Router::new().route("/.well-known/jwks.json", axum::routing::get(move || async move { set }));
        tokio::spawn(async move { axum::serve(listener, router).await });
        url
    })
}

fn verify(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("a runtime");
    let url = issuer(&rt);
    let exp = jsonwebtoken::get_current_timestamp() + 3600;
    let claims = json!({"iss": url, "aud": "bench", "sub": "user-7", "cid": "bench", "exp": exp,
        "scope": "objects:read images:read", "tid": "north"});

    let jwt = TokenVerifier::new(&AuthConfig::jwt(SECRET)).expect("a valid config").expect("mode jwt");
    let oauth = TokenVerifier::new(&AuthConfig::oauth(&url, "bench")).expect("a valid config").expect("mode oauth");
    let mut group = c.benchmark_group("verify");
    for (name, verifier, alg) in
        [("hs256", &jwt, Algorithm::HS256), ("rs256", &oauth, Algorithm::RS256), ("es256", &oauth, Algorithm::ES256)]
    {
        let token = token(alg, &claims);
        // Also fetches the key set once, before timing.
        rt.block_on(verifier.verify(&token)).expect("the bench token verifies");
        group.bench_function(name, |b| b.iter(|| rt.block_on(verifier.verify(&token)).expect("verifies")));
    }
    group.finish();
}

criterion_group!(benches, verify);
criterion_main!(benches);
