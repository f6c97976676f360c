//! Properties of the text classifier on arbitrary input: it never panics, it is
//! deterministic, and it only answers codes its tables can give.

use mcp_contract_runtime::__private::{classify_patterns, classify_type_names};
use mcp_contract_runtime::{JsonRpcErrorCode, classify_parts};
use proptest::collection::vec;
use proptest::prelude::*;

/// Any Unicode scalar values, `max_chars` at most.
fn unicode(max_chars: usize) -> impl Strategy<Value = String> {
    vec(any::<char>(), 0..=max_chars).prop_map(String::from_iter)
}

/// Text made of the words the patterns look for, separators JavaScript and Unicode
/// disagree on, and noise, so that matches (and near misses) are frequent.
fn keyword_soup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("not".to_owned()),
        Just("found".to_owned()),
        Just("logged".to_owned()),
        Just("in".to_owned()),
        Just("invalid".to_owned()),
        Just("token".to_owned()),
        Just("status code 5".to_owned()),
        Just("missing".to_owned()),
        Just("field".to_owned()),
        Just("ECONNREFUSED".to_owned()),
        Just("Abort".to_owned()),
        Just("DN".to_owned()),
        "[ _\\-\t\n\r\u{85}\u{a0}\u{2028}\u{feff}\u{17f}\u{212a}0-9]".prop_map(|s: String| s),
        unicode(3),
    ];
    vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

fn table_codes() -> Vec<JsonRpcErrorCode> {
    let mut codes: Vec<JsonRpcErrorCode> =
        classify_patterns().iter().chain(classify_type_names()).map(|&(_, code)| code).collect();
    codes.extend([JsonRpcErrorCode::Timeout, JsonRpcErrorCode::InternalError]);
    codes
}

proptest! {
    #[test]
    fn short_unicode_is_classified_deterministically(name in unicode(64), message in unicode(512)) {
        let code = classify_parts(&name, &message);
        prop_assert_eq!(code, classify_parts(&name, &message));
        prop_assert!(table_codes().contains(&code));
    }

    #[test]
    fn keyword_soup_is_classified_deterministically(name in keyword_soup(), message in keyword_soup()) {
        let code = classify_parts(&name, &message);
        prop_assert_eq!(code, classify_parts(&name, &message));
        prop_assert!(table_codes().contains(&code));
    }
}

proptest! {
    // Few cases: each scans up to 64 KiB twice, unoptimized.
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn long_unicode_is_classified_deterministically(name in unicode(16 * 1024), message in unicode(16 * 1024)) {
        // 16 Ki scalar values of up to 4 bytes: up to 64 KiB each.
        let code = classify_parts(&name, &message);
        prop_assert_eq!(code, classify_parts(&name, &message));
    }

    #[test]
    fn long_ascii_is_classified_deterministically(
        name in "[ -~\n]{0,65536}",
        message in "[ -~\n]{0,65536}",
    ) {
        let code = classify_parts(&name, &message);
        prop_assert_eq!(code, classify_parts(&name, &message));
    }
}
