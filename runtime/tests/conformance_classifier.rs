//! The text classifier agrees with the reference framework on every recorded case
//! of `tests/data/classifier-cases.json` (and of `MCP_CONTRACT_CONFORMANCE_DIR`'s).

#[path = "support/conformance.rs"]
mod conformance;

use mcp_contract_runtime::{JsonRpcErrorCode, classify_parts};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    name: String,
    message: String,
    code: i32,
}

#[test]
fn classify_parts_agrees_with_the_reference_on_every_case() {
    for (path, cases) in conformance::case_files::<Case>("classifier-cases.json") {
        assert!(!cases.is_empty(), "no cases in {}", path.display());
        assert_agreement(&cases);
    }
}

fn assert_agreement(cases: &[Case]) {
    // Every disagreement at once, so that one run shows the whole picture.
    let disagreements: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let expected = JsonRpcErrorCode::from_i32(case.code);
            let actual = classify_parts(&case.name, &case.message);
            (expected != Some(actual)).then(|| {
                let expected = expected.map_or_else(|| format!("unknown code {}", case.code), |code| code.to_string());
                format!("  name {:?}, message {:?}: expected {expected}, got {actual}", case.name, case.message)
            })
        })
        .collect();
    assert!(
        disagreements.is_empty(),
        "{} of {} cases disagree with the reference:\n{}",
        disagreements.len(),
        cases.len(),
        disagreements.join("\n")
    );
}
