//! Bearer-token auth, end to end on loopback: tokens minted here with
//! jsonwebtoken, the issuer's JWKS served by a test server, the MCP endpoint
//! called over Streamable HTTP (stateless, JSON answers) with reqwest.
//!
//! Every log line of this binary is captured; `nothing_secret_reaches_the_log`
//! checks that no token, secret or `Authorization` header is in it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};
use std::time::Duration;

use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_contract_runtime::auth::{AuthConfig, AuthConfigError, TokenError, TokenVerifier, check_scopes};
use mcp_contract_runtime::define::{ToolDefinition, ToolOutput};
use mcp_contract_runtime::server::{HttpOptions, Server, ServerError};
use mcp_contract_runtime::{Context, McpError, Tool};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

const SECRET: &str = "test-secret-0123456789abcdef-0123456789";
const OTHER_SECRET: &str = "another-secret-0123456789abcdef-012345";
const ISSUER_PATH: &str = "/issuer";
const AUDIENCE: &str = "museum-api";

const RSA_A: &[u8] = include_bytes!("data/auth/rsa-a.pem");
const RSA_A_PUBLIC: &[u8] = include_bytes!("data/auth/rsa-a.pub.pem");
const RSA_B: &[u8] = include_bytes!("data/auth/rsa-b.pem");
const EC_P256: &[u8] = include_bytes!("data/auth/ec-p256.pem");

// ------------------------------------------------------------------ log capture

/// Every formatted event of this test binary, at every level and target.
static LOG: Mutex<String> = Mutex::new(String::new());

struct Capture;

struct Fields<'a>(&'a mut String);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        use std::fmt::Write as _;
        let _ = write!(self.0, " {}={:?}", field.name(), value);
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: tracing_subscriber::layer::Context<'_, S>) {
        let mut line = format!("{} {}", event.metadata().level(), event.metadata().target());
        event.record(&mut Fields(&mut line));
        let mut log = LOG.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        log.push_str(&line);
        log.push('\n');
    }

    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        _id: &tracing::span::Id,
        _ctx: tracing_subscriber::layer::Context<'_, S>,
    ) {
        let mut line = format!("span {}", attrs.metadata().name());
        attrs.record(&mut Fields(&mut line));
        let mut log = LOG.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        log.push_str(&line);
        log.push('\n');
    }
}

fn capture_logs() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        use tracing_subscriber::layer::SubscriberExt as _;
        let subscriber = tracing_subscriber::registry().with(Capture);
        tracing::subscriber::set_global_default(subscriber).expect("no other subscriber in this binary");
    });
}

/// Every token and secret a test of this binary used, for the leak check.
static SENSITIVE: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn remember(token: String) -> String {
    SENSITIVE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(token.clone());
    token
}

// ------------------------------------------------------------------ tokens

fn now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

fn hs256(secret: &str, claims: &Value) -> String {
    let key = EncodingKey::from_secret(secret.as_bytes()).expect("a non-empty secret");
    remember(jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &key).expect("the token encodes"))
}

fn signed(alg: Algorithm, pem: &[u8], kid: Option<&str>, claims: &Value) -> String {
    let key = match alg {
        Algorithm::ES256 => EncodingKey::from_ec_pem(pem),
        _ => EncodingKey::from_rsa_pem(pem),
    }
    .expect("the test key parses");
    let mut header = Header::new(alg);
    header.kid = kid.map(str::to_owned);
    remember(jsonwebtoken::encode(&header, claims, &key).expect("the token encodes"))
}

/// Unpadded base64url (RFC 4648 §5), as JWTs use.
fn b64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &byte)| n | u32::from(byte) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// A token whose header and signature are written by hand, as an attacker would.
fn forged(header: &Value, claims: &Value, signature: &[u8]) -> String {
    remember(format!(
        "{}.{}.{}",
        b64(header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes()),
        b64(signature)
    ))
}

fn jwk(alg: Algorithm, pem: &[u8], kid: &str) -> Value {
    let key = match alg {
        Algorithm::ES256 => EncodingKey::from_ec_pem(pem),
        _ => EncodingKey::from_rsa_pem(pem),
    }
    .expect("the test key parses");
    let mut jwk = Jwk::from_encoding_key(&key, alg).expect("a public JWK");
    jwk.common.key_id = Some(kid.to_owned());
    serde_json::to_value(jwk).expect("a JWK serializes")
}

// ------------------------------------------------------------------ the issuer

/// A loopback authorization server that serves its JWKS and counts fetches.
struct Issuer {
    url: String,
    keys: Arc<Mutex<Vec<Value>>>,
    fetches: Arc<AtomicUsize>,
    _stop: tokio::task::JoinHandle<()>,
}

impl Issuer {
    async fn start(keys: Vec<Value>) -> Self {
        let keys = Arc::new(Mutex::new(keys));
        let fetches = Arc::new(AtomicUsize::new(0));
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
        let url = format!("http://{}{ISSUER_PATH}", listener.local_addr().expect("an address"));
        let route = {
            let (keys, fetches) = (Arc::clone(&keys), Arc::clone(&fetches));
            axum::routing::get(move || {
                fetches.fetch_add(1, Ordering::SeqCst);
                let set = json!({"keys": *keys.lock().unwrap()});
                async move { set.to_string() }
            })
        };
        let router = axum::Router::new().route(&format!("{ISSUER_PATH}/.well-known/jwks.json"), route);
        let stop = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self { url, keys, fetches, _stop: stop }
    }

    fn config(&self) -> AuthConfig {
        AuthConfig::oauth(&self.url, AUDIENCE)
    }

    fn claims(&self, extra: Value) -> Value {
        let mut claims = json!({"iss": self.url, "aud": AUDIENCE, "sub": "user-7", "exp": now() + 600});
        merge(&mut claims, extra);
        claims
    }

    fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }
}

fn merge(target: &mut Value, extra: Value) {
    if let (Value::Object(target), Value::Object(extra)) = (target, extra) {
        target.extend(extra);
    }
}

fn jwt_claims(extra: Value) -> Value {
    let mut claims = json!({"sub": "user-7", "cid": "desk-app", "exp": now() + 600});
    merge(&mut claims, extra);
    claims
}

async fn jwt_verifier() -> TokenVerifier {
    TokenVerifier::new(&AuthConfig::jwt(SECRET)).unwrap().unwrap()
}

async fn oauth_verifier(issuer: &Issuer) -> TokenVerifier {
    TokenVerifier::new(&issuer.config()).unwrap().unwrap()
}

// ------------------------------------------------------------------ verification

#[tokio::test]
async fn jwt_mode_accepts_a_valid_token_and_reads_the_caller() {
    capture_logs();
    let token = hs256(SECRET, &jwt_claims(json!({"tid": "north", "scope": "notes:read"})));
    let caller = jwt_verifier().await.verify(&token).await.unwrap();
    assert_eq!(caller.client_id.as_deref(), Some("desk-app"));
    assert_eq!(caller.subject.as_deref(), Some("user-7"));
    assert_eq!(caller.tenant.as_deref(), Some("north"));
    assert!(caller.has_scope("notes:read"));
}

#[tokio::test]
async fn jwt_mode_refuses_bad_tokens() {
    capture_logs();
    let verifier = jwt_verifier().await;
    let refuse = |token: String| {
        let verifier = &verifier;
        async move { verifier.verify(&token).await.unwrap_err() }
    };
    assert_eq!(refuse(hs256(SECRET, &jwt_claims(json!({"exp": now() - 3600})))).await, TokenError::Expired);
    assert_eq!(refuse(hs256(SECRET, &jwt_claims(json!({"nbf": now() + 3600})))).await, TokenError::NotYetValid);
    assert_eq!(refuse(hs256(OTHER_SECRET, &jwt_claims(json!({})))).await, TokenError::BadSignature);
    let none = forged(&json!({"alg": "none", "typ": "JWT"}), &jwt_claims(json!({})), b"");
    assert_eq!(refuse(none).await, TokenError::Malformed, "`alg: none` is not even an algorithm here");
    let rs256 = signed(Algorithm::RS256, RSA_A, None, &jwt_claims(json!({})));
    assert_eq!(refuse(rs256).await, TokenError::DisallowedAlgorithm);
    assert_eq!(refuse("not-a-token".to_owned()).await, TokenError::Malformed);
    let without_exp = hs256(SECRET, &json!({"sub": "user-7"}));
    assert_eq!(refuse(without_exp).await, TokenError::MissingClaim);
    let bad_tenant = hs256(SECRET, &jwt_claims(json!({"tid": "../../etc"})));
    assert!(matches!(refuse(bad_tenant).await, TokenError::Claims(_)));
}

/// Regression: jsonwebtoken checks `aud` and `iss` only when a token carries
/// them, so a configured audience or issuer let a token without either pass.
#[tokio::test]
async fn jwt_mode_requires_the_audience_and_issuer_it_is_configured_with() {
    capture_logs();
    let vars = [
        ("MCP_AUTH_MODE", "jwt"),
        ("MCP_AUTH_SECRET_KEY", SECRET),
        ("OAUTH_AUDIENCE", "notes-api"),
        ("OAUTH_ISSUER_URL", "https://auth.example.org/"),
    ];
    let lookup = |name: &str| vars.iter().find(|(key, _)| *key == name).map(|(_, value)| (*value).to_owned());
    let verifier = TokenVerifier::new(&AuthConfig::from_lookup(lookup).unwrap()).unwrap().unwrap();
    let both = json!({"aud": "notes-api", "iss": "https://auth.example.org/"});
    assert!(verifier.verify(&hs256(SECRET, &jwt_claims(both))).await.is_ok(), "a token with both claims passes");
    for (what, claims) in [
        ("neither claim", json!({})),
        ("no aud", json!({"iss": "https://auth.example.org/"})),
        ("no iss", json!({"aud": "notes-api"})),
    ] {
        let refused = verifier.verify(&hs256(SECRET, &jwt_claims(claims))).await.unwrap_err();
        assert_eq!(refused, TokenError::MissingClaim, "{what}");
    }
    let other = json!({"aud": "another-api", "iss": "https://auth.example.org/"});
    assert_eq!(verifier.verify(&hs256(SECRET, &jwt_claims(other))).await.unwrap_err(), TokenError::WrongAudience);
    // Without a configured audience or issuer, neither is asked for.
    assert!(jwt_verifier().await.verify(&hs256(SECRET, &jwt_claims(json!({})))).await.is_ok());
}

#[tokio::test]
async fn oauth_mode_accepts_rs256_and_es256_tokens_from_the_jwks() {
    capture_logs();
    let issuer =
        Issuer::start(vec![jwk(Algorithm::RS256, RSA_A, "rsa-a"), jwk(Algorithm::ES256, EC_P256, "ec-1")]).await;
    let verifier = oauth_verifier(&issuer).await;
    let claims = issuer.claims(json!({"client_id": "desk-app", "scp": ["notes:read"]}));
    let rsa = verifier.verify(&signed(Algorithm::RS256, RSA_A, Some("rsa-a"), &claims)).await.unwrap();
    assert_eq!(rsa.client_id.as_deref(), Some("desk-app"));
    assert!(rsa.has_scope("notes:read"));
    let ec = verifier.verify(&signed(Algorithm::ES256, EC_P256, Some("ec-1"), &claims)).await.unwrap();
    assert_eq!(ec.subject.as_deref(), Some("user-7"));
    assert_eq!(issuer.fetches(), 1, "the key set is fetched once, then kept");
}

#[tokio::test]
async fn oauth_mode_refuses_bad_tokens() {
    capture_logs();
    let issuer = Issuer::start(vec![jwk(Algorithm::RS256, RSA_A, "rsa-a")]).await;
    let verifier = oauth_verifier(&issuer).await;
    let refuse = |claims: Value| {
        let verifier = &verifier;
        async move { verifier.verify(&signed(Algorithm::RS256, RSA_A, Some("rsa-a"), &claims)).await.unwrap_err() }
    };
    assert_eq!(refuse(issuer.claims(json!({"exp": now() - 3600}))).await, TokenError::Expired);
    assert_eq!(refuse(issuer.claims(json!({"nbf": now() + 3600}))).await, TokenError::NotYetValid);
    assert_eq!(refuse(issuer.claims(json!({"iss": "https://evil.example"}))).await, TokenError::WrongIssuer);
    assert_eq!(refuse(issuer.claims(json!({"aud": "another-api"}))).await, TokenError::WrongAudience);
    let mut no_aud = issuer.claims(json!({}));
    no_aud.as_object_mut().unwrap().remove("aud");
    assert_eq!(refuse(no_aud).await, TokenError::MissingClaim);

    // Signed by another key under the trusted key's id.
    let wrong_key = signed(Algorithm::RS256, RSA_B, Some("rsa-a"), &issuer.claims(json!({})));
    assert_eq!(verifier.verify(&wrong_key).await.unwrap_err(), TokenError::BadSignature);
    let none = forged(&json!({"alg": "none", "kid": "rsa-a"}), &issuer.claims(json!({})), b"");
    assert_eq!(verifier.verify(&none).await.unwrap_err(), TokenError::Malformed);
}

#[tokio::test]
async fn an_hs256_token_never_reaches_the_rs256_verifier() {
    capture_logs();
    let issuer = Issuer::start(vec![jwk(Algorithm::RS256, RSA_A, "rsa-a")]).await;
    let verifier = oauth_verifier(&issuer).await;
    // The classic confusion: HMAC keyed with the RSA public key, which anyone can read.
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("rsa-a".to_owned());
    let public_as_secret = EncodingKey::from_secret(RSA_A_PUBLIC).unwrap();
    let confused = remember(jsonwebtoken::encode(&header, &issuer.claims(json!({})), &public_as_secret).unwrap());
    assert_eq!(verifier.verify(&confused).await.unwrap_err(), TokenError::DisallowedAlgorithm);
    // And a token signed with the server's own `jwt` secret.
    let with_secret = hs256(SECRET, &issuer.claims(json!({})));
    assert_eq!(verifier.verify(&with_secret).await.unwrap_err(), TokenError::DisallowedAlgorithm);
}

#[tokio::test]
async fn an_unknown_kid_refetches_the_jwks_once_per_cooldown() {
    capture_logs();
    let issuer = Issuer::start(vec![jwk(Algorithm::RS256, RSA_A, "rsa-a")]).await;
    let config = issuer.config().jwks_cooldown(Duration::ZERO);
    let verifier = TokenVerifier::new(&config).unwrap().unwrap();
    let claims = issuer.claims(json!({}));
    verifier.verify(&signed(Algorithm::RS256, RSA_A, Some("rsa-a"), &claims)).await.unwrap();
    assert_eq!(issuer.fetches(), 1);
    // The issuer rotates to key b: a token with the new kid makes the server look again.
    issuer.keys.lock().unwrap().push(jwk(Algorithm::RS256, RSA_B, "rsa-b"));
    verifier.verify(&signed(Algorithm::RS256, RSA_B, Some("rsa-b"), &claims)).await.unwrap();
    assert_eq!(issuer.fetches(), 2);
    let unknown = signed(Algorithm::RS256, RSA_B, Some("rsa-z"), &claims);
    assert_eq!(verifier.verify(&unknown).await.unwrap_err(), TokenError::UnknownKey);
    assert_eq!(issuer.fetches(), 3);

    // With the default cooldown, forged key ids cannot make the server hammer the issuer.
    let verifier = oauth_verifier(&issuer).await;
    verifier.verify(&signed(Algorithm::RS256, RSA_A, Some("rsa-a"), &claims)).await.unwrap();
    for kid in ["x1", "x2", "x3"] {
        let token = signed(Algorithm::RS256, RSA_B, Some(kid), &claims);
        assert_eq!(verifier.verify(&token).await.unwrap_err(), TokenError::UnknownKey);
    }
    assert_eq!(issuer.fetches(), 4, "one fetch for the new verifier, none for the forged kids");
}

#[tokio::test]
async fn unreachable_keys_are_their_own_error() {
    capture_logs();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let verifier = TokenVerifier::new(&AuthConfig::oauth(&url, AUDIENCE)).unwrap().unwrap();
    let token =
        signed(Algorithm::RS256, RSA_A, Some("rsa-a"), &json!({"iss": url, "aud": AUDIENCE, "exp": now() + 60}));
    assert_eq!(verifier.verify(&token).await.unwrap_err(), TokenError::KeysUnavailable);
    assert_eq!(verifier.verify(&token).await.unwrap_err(), TokenError::KeysUnavailable, "within the cooldown too");
    // Over HTTP that is the server's trouble, not the caller's: 503, not a 401 that asks for a new token.
    let served = serve(AuthConfig::oauth(&url, AUDIENCE)).await;
    let response = served.post(Some(&token), ping()).await;
    assert_eq!(response.status(), 503);
    assert!(response.headers().get("www-authenticate").is_none());
}

/// The JWKS comes over TLS on ring, checked against the machine's roots: an
/// issuer whose certificate nobody vouches for serves no keys.
#[tokio::test]
async fn keys_from_an_issuer_with_an_untrusted_certificate_are_refused() {
    use tokio_rustls::rustls::pki_types::pem::PemObject as _;
    use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

    capture_logs();
    let certificate = CertificateDer::from_pem_slice(include_bytes!("data/auth/tls-self-signed.pem")).unwrap();
    let key = PrivateKeyDer::from_pem_slice(include_bytes!("data/auth/tls-self-signed.key.pem")).unwrap();
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let tls = tokio_rustls::rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![certificate], key)
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("https://{}", listener.local_addr().unwrap());
    let handshake = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        tokio_rustls::TlsAcceptor::from(Arc::new(tls)).accept(stream).await.map(drop)
    });

    let verifier = TokenVerifier::new(&AuthConfig::oauth(&url, AUDIENCE)).unwrap().unwrap();
    let token =
        signed(Algorithm::RS256, RSA_A, Some("rsa-a"), &json!({"iss": url, "aud": AUDIENCE, "exp": now() + 60}));
    assert_eq!(verifier.verify(&token).await.unwrap_err(), TokenError::KeysUnavailable);
    // The client said hello in TLS, then hung up on the certificate with an alert.
    let refused = handshake.await.unwrap().expect_err("the client refuses the handshake");
    assert!(refused.to_string().contains("received fatal alert"), "{refused}");
    let log = LOG.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    assert!(log.contains("invalid peer certificate"), "the reason reached the log:\n{log}");
}

#[tokio::test]
async fn a_key_set_that_arrives_late_is_fetched_again() {
    capture_logs();
    let issuer = Issuer::start(Vec::new()).await;
    let verifier = TokenVerifier::new(&issuer.config().jwks_cooldown(Duration::ZERO)).unwrap().unwrap();
    let token = signed(Algorithm::RS256, RSA_A, Some("rsa-a"), &issuer.claims(json!({})));
    assert_eq!(verifier.verify(&token).await.unwrap_err(), TokenError::KeysUnavailable);
    issuer.keys.lock().unwrap().push(jwk(Algorithm::RS256, RSA_A, "rsa-a"));
    verifier.verify(&token).await.unwrap();
    assert_eq!(issuer.fetches(), 2);
}

#[tokio::test]
async fn the_resource_indicator_is_checked_when_configured() {
    capture_logs();
    let issuer = Issuer::start(vec![jwk(Algorithm::RS256, RSA_A, "rsa-a")]).await;
    let resource = "https://museum.example.org/mcp";
    let verifier = TokenVerifier::new(&issuer.config().resource_identifier(resource)).unwrap().unwrap();
    let for_another = signed(Algorithm::RS256, RSA_A, Some("rsa-a"), &issuer.claims(json!({})));
    assert_eq!(verifier.verify(&for_another).await.unwrap_err(), TokenError::WrongResource);
    let for_us = issuer.claims(json!({"aud": [AUDIENCE, resource]}));
    verifier.verify(&signed(Algorithm::RS256, RSA_A, Some("rsa-a"), &for_us)).await.unwrap();
    let by_claim = issuer.claims(json!({"resource": resource}));
    verifier.verify(&signed(Algorithm::RS256, RSA_A, Some("rsa-a"), &by_claim)).await.unwrap();
}

// ------------------------------------------------------------------ the server

fn definition(name: &'static str, description: &'static str, scopes: &'static [&'static str]) -> ToolDefinition {
    ToolDefinition::new(name, mcp_contract_runtime::schema::input_schema::<FolderInput>())
        .with_description(description)
        .with_auth_scopes(scopes)
}

#[derive(Deserialize, schemars::JsonSchema)]
struct FolderInput {
    /// A folder name.
    folder: Option<String>,
}

static WHOAMI: LazyLock<ToolDefinition> = LazyLock::new(|| definition("whoami", "Who is calling.", &[]));
static WRITE_NOTE: LazyLock<ToolDefinition> =
    LazyLock::new(|| definition("write_note", "Write a note.", &["notes:write", "notes:read"]));
static OPEN_FOLDER: LazyLock<ToolDefinition> =
    LazyLock::new(|| definition("open_folder", "Open a folder; needs folder:<name>.", &[]));

/// Tells who called, from the context.
struct Whoami;

impl Tool for Whoami {
    type Input = FolderInput;
    type Output = String;

    fn definition(&self) -> &'static ToolDefinition {
        &WHOAMI
    }

    async fn call(&self, _input: FolderInput, ctx: Context) -> Result<String, McpError> {
        Ok(match ctx.auth() {
            None => "anonymous".to_owned(),
            Some(caller) => format!(
                "client={} subject={} tenant={} scopes={}",
                caller.client_id.as_deref().unwrap_or("-"),
                caller.subject.as_deref().unwrap_or("-"),
                caller.tenant.as_deref().unwrap_or("-"),
                caller.scopes.iter().cloned().collect::<Vec<_>>().join(",")
            ),
        })
    }

    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// Declares two scopes; records that its handler ran.
struct WriteNote(Arc<AtomicBool>);

impl Tool for WriteNote {
    type Input = FolderInput;
    type Output = String;

    fn definition(&self) -> &'static ToolDefinition {
        &WRITE_NOTE
    }

    async fn call(&self, _input: FolderInput, _ctx: Context) -> Result<String, McpError> {
        self.0.store(true, Ordering::SeqCst);
        Ok("written".to_owned())
    }

    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// A scope computed from the input, checked with `check_scopes`.
struct OpenFolder;

impl Tool for OpenFolder {
    type Input = FolderInput;
    type Output = String;

    fn definition(&self) -> &'static ToolDefinition {
        &OPEN_FOLDER
    }

    async fn call(&self, input: FolderInput, ctx: Context) -> Result<String, McpError> {
        let folder = input.folder.unwrap_or_default();
        check_scopes(&ctx, [format!("folder:{folder}")])?;
        Ok(format!("opened {folder}"))
    }

    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// The test server on a loopback port; stops when dropped.
struct Served {
    base: String,
    stop: CancellationToken,
    http: reqwest::Client,
    note_written: Arc<AtomicBool>,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn serve(config: AuthConfig) -> Served {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let base = format!("http://{}", listener.local_addr().unwrap());
    let stop = CancellationToken::new();
    let note_written = Arc::new(AtomicBool::new(false));
    let options = HttpOptions::default()
        .stateless(true)
        .json_response(true)
        .shutdown_token(stop.clone())
        .without_signal_handling();
    let server = Server::new("notes", "1.0.0")
        .title("Notes")
        .tool(Whoami)
        .tool(WriteNote(Arc::clone(&note_written)))
        .tool(OpenFolder)
        .auth(config)
        .build()
        .expect("the server builds");
    tokio::spawn(server.serve_http_on(listener, options));
    Served { base, stop, http: reqwest::Client::new(), note_written }
}

impl Served {
    async fn post(&self, token: Option<&str>, body: Value) -> reqwest::Response {
        let mut request = self
            .http
            .post(format!("{}/mcp", self.base))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-06-18")
            .body(body.to_string());
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        request.send().await.expect("the server answers")
    }

    /// `tools/call`, answered with 200: the JSON-RPC result.
    async fn call(&self, token: &str, tool: &str, arguments: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
        let response = self.post(Some(token), body).await;
        assert_eq!(response.status(), 200, "tools/call {tool} is answered");
        let answer: Value = serde_json::from_slice(&response.bytes().await.unwrap()).expect("a JSON-RPC answer");
        answer["result"].clone()
    }

    async fn get(&self, path: &str) -> reqwest::Response {
        self.http.get(format!("{}{path}", self.base)).send().await.expect("the server answers")
    }
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

fn ping() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})
}

#[tokio::test]
async fn a_request_without_a_token_gets_401_with_the_metadata_url() {
    capture_logs();
    let served = serve(AuthConfig::jwt(SECRET)).await;
    let response = served.post(None, ping()).await;
    assert_eq!(response.status(), 401);
    let challenge = response.headers()["www-authenticate"].to_str().unwrap().to_owned();
    let port = served.base.rsplit(':').next().unwrap();
    assert_eq!(
        challenge,
        format!("Bearer resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\"")
    );

    let response = served.post(Some("garbage"), ping()).await;
    assert_eq!(response.status(), 401);
    let challenge = response.headers()["www-authenticate"].to_str().unwrap().to_owned();
    assert!(challenge.starts_with("Bearer error=\"invalid_token\", error_description=\""), "{challenge}");
    assert!(
        challenge.ends_with(&format!("resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"", served.base))
    );
    let body: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
    assert_eq!(body["error"], "invalid_token");

    let expired = hs256(SECRET, &jwt_claims(json!({"exp": now() - 3600})));
    let response = served.post(Some(&expired), ping()).await;
    assert_eq!(response.status(), 401);
    assert!(response.headers()["www-authenticate"].to_str().unwrap().contains("the token has expired"));

    let valid = hs256(SECRET, &jwt_claims(json!({})));
    assert_eq!(served.post(Some(&valid), ping()).await.status(), 200);
}

/// Regression: the body of a request without a valid token was read, parsed
/// and answered (-32700 for a malformed one) before the 401, and a slow body
/// held the connection before it.
#[tokio::test]
async fn the_bearer_token_is_checked_before_the_body_is_read() {
    capture_logs();
    let served = serve(AuthConfig::jwt(SECRET)).await;
    let response = served
        .http
        .post(format!("{}/mcp", served.base))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body("{\"jsonrpc\":\"2.0\",\"id\":")
        .send()
        .await
        .expect("the server answers");
    assert_eq!(response.status(), 401, "a malformed body without a token is refused for the token");

    // A head announcing a body that never comes is refused at once, not after the body.
    let addr = served.base.strip_prefix("http://").unwrap().to_owned();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
                accept: application/json, text/event-stream\r\ncontent-length: 1000\r\n\r\n";
    tokio::io::AsyncWriteExt::write_all(&mut stream, head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let _ =
        tokio::time::timeout(Duration::from_secs(5), tokio::io::AsyncReadExt::read_to_end(&mut stream, &mut answer))
            .await
            .expect("answered before the body arrives, and closed");
    let answer = String::from_utf8_lossy(&answer).to_ascii_lowercase();
    assert!(answer.starts_with("http/1.1 401"), "{answer}");
    // The body stays unread: a client must not reuse the connection.
    assert!(answer.contains("connection: close"), "{answer}");
}

/// A server with sessions and JWT auth, and a way to post to it.
struct SessionServer {
    base: String,
    http: reqwest::Client,
    _stop: tokio_util::sync::DropGuard,
}

impl SessionServer {
    async fn start(options: HttpOptions) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let stop = CancellationToken::new();
        let options = options.shutdown_token(stop.clone()).without_signal_handling();
        let server = Server::new("notes", "1.0.0").tool(Whoami).auth(AuthConfig::jwt(SECRET)).build().unwrap();
        tokio::spawn(server.serve_http_on(listener, options));
        Self { base, http: reqwest::Client::new(), _stop: stop.drop_guard() }
    }

    async fn post(&self, token: Option<&str>, session: Option<&str>, body: &Value) -> reqwest::Response {
        let mut request = self
            .http
            .post(format!("{}/mcp", self.base))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-06-18")
            .body(body.to_string());
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send().await.expect("the server answers")
    }

    fn initialize() -> Value {
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    }

    /// A session opened with `token`.
    async fn open(&self, token: &str) -> String {
        let opened = self.post(Some(token), None, &Self::initialize()).await;
        assert_eq!(opened.status(), 200);
        let session = opened.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(self.post(Some(token), Some(&session), &initialized).await.status(), 202);
        session
    }
}

/// Regression: at the session cap, an `initialize` without a token closed the
/// session idle the longest before auth refused it with 401.
#[tokio::test]
async fn a_refused_initialize_evicts_no_session() {
    capture_logs();
    let server = SessionServer::start(HttpOptions::default().max_sessions(1)).await;
    let token = hs256(SECRET, &jwt_claims(json!({})));
    let session = server.open(&token).await;
    assert_eq!(server.post(None, None, &SessionServer::initialize()).await.status(), 401);
    let still = server.post(Some(&token), Some(&session), &ping()).await;
    assert_eq!(still.status(), 200, "the live session survives a refused initialize");
}

#[tokio::test]
async fn each_call_is_a_span_naming_the_tool_and_its_caller_with_one_line_when_it_ends() {
    capture_logs();
    let served = serve(AuthConfig::jwt(SECRET)).await;
    let token = hs256(SECRET, &jwt_claims(json!({"sub": "observer-42"})));
    served.call(&token, "whoami", json!({})).await;
    let log = LOG.lock().unwrap().clone();
    let span = log.lines().find(|line| line.starts_with("span mcp_call") && line.contains(r#"caller="observer-42""#));
    assert!(
        span.is_some_and(|span| span.contains(r#"kind=tool name="whoami" request_id="#)),
        "the call's span names the tool, the request and the caller:\n{log}"
    );
    let finished = log.lines().find(|line| line.contains("message=call finished")).expect("one line when it ends");
    assert!(finished.starts_with("INFO") && finished.contains("outcome=\"ok\"") && finished.contains("duration_ms="));
}

#[tokio::test]
async fn health_checks_need_no_token() {
    capture_logs();
    let served = serve(AuthConfig::jwt(SECRET)).await;
    assert_eq!(served.get("/healthz").await.status(), 200);
    assert_eq!(served.get("/readyz").await.status(), 200);
    assert_eq!(served.post(None, ping()).await.status(), 401, "the MCP endpoint still needs one");
}

/// Regression: another user's valid token could use a session it did not
/// open; the MCP transport spec binds a session id to its user.
#[tokio::test]
async fn a_session_serves_only_the_caller_who_opened_it() {
    capture_logs();
    let server = SessionServer::start(HttpOptions::default()).await;
    let owner = hs256(SECRET, &jwt_claims(json!({})));
    let session = server.open(&owner).await;
    let other = hs256(SECRET, &jwt_claims(json!({"sub": "user-8"})));
    let refused = server.post(Some(&other), Some(&session), &ping()).await;
    assert_eq!(refused.status(), 404, "to another caller the session does not exist");
    let body: Value = serde_json::from_slice(&refused.bytes().await.unwrap()).unwrap();
    assert_eq!(body["error"]["code"], -32600, "{body}");
    let renewed = hs256(SECRET, &jwt_claims(json!({"exp": now() + 1200})));
    assert_eq!(server.post(Some(&renewed), Some(&session), &ping()).await.status(), 200, "a new token of the owner");
}

#[tokio::test]
async fn the_protected_resource_metadata_is_published_and_open() {
    capture_logs();
    let issuer = Issuer::start(vec![jwk(Algorithm::RS256, RSA_A, "rsa-a")]).await;
    let served = serve(issuer.config().resource_identifier("https://notes.example.org/mcp")).await;
    for path in ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"] {
        let response = served.get(path).await;
        assert_eq!(response.status(), 200, "{path} needs no token");
        assert_eq!(response.headers()["content-type"], "application/json");
        let document: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
        assert_eq!(
            document,
            json!({
                "resource": "https://notes.example.org/mcp",
                "authorization_servers": [issuer.url],
                "scopes_supported": ["notes:read", "notes:write"],
                "bearer_methods_supported": ["header"],
                "resource_name": "Notes",
            })
        );
    }
    // The challenge points at the configured resource's metadata.
    let response = served.post(None, ping()).await;
    assert_eq!(
        response.headers()["www-authenticate"],
        "Bearer resource_metadata=\"https://notes.example.org/.well-known/oauth-protected-resource/mcp\""
    );
}

#[tokio::test]
async fn declared_scopes_are_enforced_before_the_handler_runs() {
    capture_logs();
    let served = serve(AuthConfig::jwt(SECRET)).await;
    let token = hs256(SECRET, &jwt_claims(json!({"scp": ["notes:read", "calendar:secret-scope"]})));
    let result = served.call(&token, "write_note", json!({})).await;
    assert_eq!(result["isError"], true, "{result}");
    let error = &result["structuredContent"]["error"];
    assert_eq!(error["code"], -32005);
    assert_eq!(error["data"]["missingScopes"], json!(["notes:write"]));
    let request_id = error["data"]["requestId"].as_str().expect("every error carries its request id");
    assert!(text(&result).ends_with(&format!("(request {request_id})")), "{result}");
    assert!(text(&result).starts_with("Error: ") && text(&result).contains("`notes:write`"), "{result}");
    assert!(!result.to_string().contains("calendar:secret-scope"), "granted scopes are not echoed");
    assert!(!served.note_written.load(Ordering::SeqCst), "the refused handler never ran");

    // A tool without scopes, with the same token: the caller reaches the handler.
    let result = served.call(&token, "whoami", json!({})).await;
    assert_eq!(text(&result), "client=desk-app subject=user-7 tenant=- scopes=calendar:secret-scope,notes:read");
}

#[tokio::test]
async fn scopes_from_each_claim_grant_the_tool() {
    capture_logs();
    let served = serve(AuthConfig::jwt(SECRET)).await;
    for grant in [
        json!({"scp": ["notes:read", "notes:write"]}),
        json!({"scope": "notes:read notes:write"}),
        json!({"mcp_tool_scopes": "notes:read notes:write"}),
        json!({"mcp_tool_scopes": ["notes:read", "notes:write"]}),
        json!({"scp": ["notes:read"], "scope": "other", "mcp_tool_scopes": ["notes:write"]}),
    ] {
        let token = hs256(SECRET, &jwt_claims(grant.clone()));
        let result = served.call(&token, "write_note", json!({})).await;
        assert_eq!(text(&result), "written", "{grant}: {result}");
    }
}

#[tokio::test]
async fn run_time_scopes_are_checked_with_check_scopes() {
    capture_logs();
    let served = serve(AuthConfig::jwt(SECRET)).await;
    let token = hs256(SECRET, &jwt_claims(json!({"scope": "folder:inbox", "tid": "north"})));
    assert_eq!(text(&served.call(&token, "open_folder", json!({"folder": "inbox"})).await), "opened inbox");
    let refused = served.call(&token, "open_folder", json!({"folder": "archive"})).await;
    assert_eq!(refused["structuredContent"]["error"]["code"], -32005);
    assert_eq!(refused["structuredContent"]["error"]["data"]["missingScopes"], json!(["folder:archive"]));
    assert!(refused["structuredContent"]["error"]["data"]["requestId"].is_string(), "{refused}");
}

#[tokio::test]
async fn the_bypass_flag_authenticates_without_checking_scopes() {
    capture_logs();
    let served = serve(AuthConfig::jwt(SECRET).disable_scope_checks(true)).await;
    let token = hs256(SECRET, &jwt_claims(json!({})));
    assert_eq!(text(&served.call(&token, "write_note", json!({})).await), "written");
    assert_eq!(served.post(None, ping()).await.status(), 401, "a token is still required");
    let log = LOG.lock().unwrap().clone();
    assert!(log.contains("MCP_AUTH_DISABLE_SCOPE_CHECKS is set"), "the bypass is warned at startup");
}

#[tokio::test]
async fn oauth_mode_serves_callers_of_the_issuer() {
    capture_logs();
    let issuer = Issuer::start(vec![jwk(Algorithm::ES256, EC_P256, "ec-1")]).await;
    let served = serve(issuer.config()).await;
    let claims = issuer.claims(json!({"cid": "agent", "scope": "notes:read notes:write", "tid": "south"}));
    let token = signed(Algorithm::ES256, EC_P256, Some("ec-1"), &claims);
    assert_eq!(text(&served.call(&token, "write_note", json!({})).await), "written");
    assert_eq!(
        text(&served.call(&token, "whoami", json!({})).await),
        "client=agent subject=user-7 tenant=south scopes=notes:read,notes:write"
    );
    let foreign = signed(Algorithm::RS256, RSA_A, Some("ec-1"), &claims);
    assert_eq!(served.post(Some(&foreign), ping()).await.status(), 401);
}

#[tokio::test]
async fn mode_none_serves_everyone_and_publishes_no_metadata() {
    capture_logs();
    let served = serve(AuthConfig::none()).await;
    let response = served
        .post(
            None,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "write_note", "arguments": {}}}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let answer: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
    assert_eq!(text(&answer["result"]), "written");
    assert_eq!(served.get("/.well-known/oauth-protected-resource").await.status(), 404);
    let log = LOG.lock().unwrap().clone();
    assert!(
        log.contains("auth mode is `none` on Streamable HTTP: the scopes these tools declare are NOT checked")
            && log.contains("tools=write_note"),
        "declared but unenforced scopes are warned at startup"
    );
}

#[tokio::test]
async fn a_mode_that_cannot_be_honoured_does_not_start() {
    capture_logs();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Server::new("notes", "1.0.0").tool(Whoami).auth(AuthConfig::jwt("short")).build().unwrap();
    let err = server.serve_http_on(listener, HttpOptions::default().without_signal_handling()).await.unwrap_err();
    assert!(matches!(err, ServerError::Auth(AuthConfigError::SecretTooShort)), "{err}");
    assert!(!err.to_string().contains("short\""), "{err}");
}

#[tokio::test]
async fn nothing_secret_reaches_the_log() {
    capture_logs();
    // Exercise the paths that log: refusals, a JWKS fetch, calls, a refused scope.
    let issuer = Issuer::start(vec![jwk(Algorithm::RS256, RSA_A, "rsa-a")]).await;
    let served = serve(issuer.config()).await;
    let good = signed(Algorithm::RS256, RSA_A, Some("rsa-a"), &issuer.claims(json!({"scope": "notes:read"})));
    let bad = signed(Algorithm::RS256, RSA_B, Some("rsa-a"), &issuer.claims(json!({})));
    served.call(&good, "write_note", json!({})).await;
    served.call(&good, "whoami", json!({})).await;
    assert_eq!(served.post(Some(&bad), ping()).await.status(), 401);
    let jwt = serve(AuthConfig::jwt(SECRET)).await;
    assert_eq!(jwt.post(Some(&hs256(OTHER_SECRET, &jwt_claims(json!({})))), ping()).await.status(), 401);
    tokio::time::sleep(Duration::from_millis(50)).await;

    let log = LOG.lock().unwrap().clone();
    assert!(log.contains("bearer token refused"), "the refusals were logged (and captured):\n{log}");
    let sensitive = SENSITIVE.lock().unwrap().clone();
    assert!(sensitive.len() >= 3);
    for token in &sensitive {
        // A token's signature part is unique to it; its header part is not.
        let signature = token.rsplit('.').next().unwrap();
        assert!(signature.is_empty() || !log.contains(signature), "a token reached the log");
        assert!(!log.contains(token.as_str()), "a token reached the log");
    }
    for secret in [SECRET, OTHER_SECRET] {
        assert!(!log.contains(secret), "a secret reached the log");
    }
    assert!(!log.to_ascii_lowercase().contains("bearer ey"), "an Authorization header reached the log");
}

#[tokio::test]
async fn transports_other_than_http_never_authenticate() {
    use rmcp::ServiceExt as _;
    use rmcp::model::CallToolRequestParams;
    capture_logs();
    // Configured for `jwt`, served over a pipe as over stdio: the host process is the boundary.
    let note_written = Arc::new(AtomicBool::new(false));
    let server = Server::new("notes", "1.0.0")
        .tool(WriteNote(Arc::clone(&note_written)))
        .tool(Whoami)
        .auth(AuthConfig::jwt(SECRET))
        .build()
        .unwrap();
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("the server starts");
        let _ = running.waiting().await;
    });
    let client = ().serve(client_io).await.expect("the client connects");
    let call =
        |name: &'static str| client.call_tool(CallToolRequestParams::new(name).with_arguments(Default::default()));
    let written = call("write_note").await.unwrap();
    assert_eq!(written.is_error, Some(false), "{written:?}");
    assert!(note_written.load(Ordering::SeqCst));
    let whoami = serde_json::to_value(call("whoami").await.unwrap()).unwrap();
    assert_eq!(text(&whoami), "anonymous");
    client.cancel().await.unwrap();
}
