//! Other text classifiers, kept only as the benchmark's baselines and the tests'
//! oracles. The naive one compiles every pattern as its own `Regex` and tries them
//! in turn, on the message and then on the name, exactly as the reference
//! framework does.

use std::path::PathBuf;

use mcp_contract_runtime::__private::{classify_patterns, classify_type_names};
use mcp_contract_runtime::JsonRpcErrorCode;
use regex::{Regex, RegexSet};

pub(crate) struct NaiveClassifier {
    patterns: Vec<(Regex, JsonRpcErrorCode)>,
}

impl NaiveClassifier {
    pub(crate) fn new() -> Self {
        let patterns = classify_patterns()
            .iter()
            .map(|&(pattern, code)| (Regex::new(pattern).expect("the runtime's patterns compile"), code))
            .collect();
        Self { patterns }
    }

    pub(crate) fn classify_parts(&self, name: &str, message: &str) -> JsonRpcErrorCode {
        if let Some(&(_, code)) = classify_type_names().iter().find(|(type_name, _)| *type_name == name) {
            return code;
        }
        for (pattern, code) in &self.patterns {
            if pattern.is_match(message) || pattern.is_match(name) {
                return *code;
            }
        }
        if name == "AbortError" { JsonRpcErrorCode::Timeout } else { JsonRpcErrorCode::InternalError }
    }
}

/// The design the runtime measured itself against: all patterns in one
/// `RegexSet`, whose overlapping search reports every pattern that matches, and
/// the lowest index of the message's and the name's matches wins.
pub(crate) struct RegexSetClassifier {
    set: RegexSet,
}

impl RegexSetClassifier {
    pub(crate) fn new() -> Self {
        let set = RegexSet::new(classify_patterns().iter().map(|&(pattern, _)| pattern))
            .expect("the runtime's patterns compile");
        Self { set }
    }

    pub(crate) fn classify_parts(&self, name: &str, message: &str) -> JsonRpcErrorCode {
        if let Some(&(_, code)) = classify_type_names().iter().find(|(type_name, _)| *type_name == name) {
            return code;
        }
        let first = |text: &str| self.set.matches(text).iter().next();
        match (first(message), first(name)) {
            (Some(a), Some(b)) => classify_patterns()[a.min(b)].1,
            (Some(index), None) | (None, Some(index)) => classify_patterns()[index].1,
            (None, None) if name == "AbortError" => JsonRpcErrorCode::Timeout,
            (None, None) => JsonRpcErrorCode::InternalError,
        }
    }
}

/// `(name, message)` of every case of `runtime/tests/data/classifier-cases.json`.
pub(crate) fn conformance_corpus() -> Vec<(String, String)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("runtime/tests/data/classifier-cases.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).expect("classifier-cases.json is a JSON array");
    cases
        .iter()
        .map(|case| {
            let field =
                |key: &str| case[key].as_str().unwrap_or_else(|| panic!("case without {key}: {case}")).to_owned();
            (field("name"), field("message"))
        })
        .collect()
}
