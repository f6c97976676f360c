//! The runtime's one-pass classifier and the benchmark's baselines (one `Regex`
//! per pattern, tried in turn; one `RegexSet`) give the same code: on the conformance
//! corpus, and on arbitrary text rich in the patterns' words.

#[path = "../benches/support/naive.rs"]
mod naive;

use std::sync::LazyLock;

use mcp_contract::errors::classify_parts;
use naive::{NaiveClassifier, RegexSetClassifier, conformance_corpus};
use proptest::collection::vec;
use proptest::prelude::*;

static NAIVE: LazyLock<NaiveClassifier> = LazyLock::new(NaiveClassifier::new);
static REGEX_SET: LazyLock<RegexSetClassifier> = LazyLock::new(RegexSetClassifier::new);

#[test]
fn naive_and_fast_agree_on_the_conformance_corpus() {
    let corpus = conformance_corpus();
    assert!(!corpus.is_empty());
    let disagreements: Vec<String> = corpus
        .iter()
        .filter_map(|(name, message)| {
            let (fast, naive) = (classify_parts(name, message), NAIVE.classify_parts(name, message));
            let set = REGEX_SET.classify_parts(name, message);
            (fast != naive || set != naive)
                .then(|| format!("  {name:?}, {message:?}: runtime {fast}, regex set {set}, naive {naive}"))
        })
        .collect();
    assert!(disagreements.is_empty(), "fast and naive disagree:\n{}", disagreements.join("\n"));
}

/// Words of several patterns, so that several match at once and priority matters.
fn keyword_soup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("not"),
        Just(" found"),
        Just("logged"),
        Just("in"),
        Just("invalid"),
        Just("token"),
        Just("expired"),
        Just("status code 4"),
        Just("status code 5"),
        Just("0"),
        Just("9"),
        Just("missing"),
        Just("field"),
        Just("access"),
        Just("denied"),
        Just("allowed"),
        Just("ECONNRESET"),
        Just("timeout"),
        Just("cancelled"),
        Just("zod"),
        Just("Exception"),
        Just("DNS"),
        Just(" "),
        Just("_"),
        Just("\n"),
        Just("\u{85}"),
        Just("\u{feff}"),
        Just("\u{212a}"),
    ];
    vec(piece, 0..16).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn naive_and_fast_agree_on_keyword_soup(name in keyword_soup(), message in keyword_soup()) {
        prop_assert_eq!(classify_parts(&name, &message), NAIVE.classify_parts(&name, &message));
        prop_assert_eq!(REGEX_SET.classify_parts(&name, &message), NAIVE.classify_parts(&name, &message));
    }

    #[test]
    fn naive_and_fast_agree_on_arbitrary_text(name in ".{0,40}", message in ".{0,200}") {
        prop_assert_eq!(classify_parts(&name, &message), NAIVE.classify_parts(&name, &message));
    }
}

proptest! {
    // Long messages take the runtime's other scan (lowercased chunks, SIMD search);
    // filler of a few KiB around the words puts them across its chunk boundaries.
    #[test]
    fn naive_and_fast_agree_on_long_messages(
        name in keyword_soup(),
        parts in vec((keyword_soup(), "[a \n]{0,3000}"), 1..6),
    ) {
        let message: String = parts.into_iter().map(|(words, filler)| words + &filler).collect();
        prop_assert_eq!(classify_parts(&name, &message), NAIVE.classify_parts(&name, &message));
    }
}
