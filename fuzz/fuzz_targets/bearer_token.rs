//! A bearer token, as the verifier reads it before and after the signature
//! check: a token the fuzzer makes never passes for a key it does not know.
#![no_main]

use std::sync::LazyLock;

use mcp_contract_runtime::auth::{AuthConfig, TokenVerifier};

static VERIFIER: LazyLock<TokenVerifier> = LazyLock::new(|| {
    let config = AuthConfig::jwt(b"a fuzzing secret that no token of the fuzzer knows".to_vec());
    TokenVerifier::new(&config).expect("a config").expect("jwt mode")
});

static RUNTIME: LazyLock<tokio::runtime::Runtime> =
    LazyLock::new(|| tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime"));

libfuzzer_sys::fuzz_target!(|token: &str| {
    let verified = RUNTIME.block_on(VERIFIER.verify(token));
    assert!(verified.is_err(), "a forged token passed: {token:?}");
});
