//! `http_status_to_error_code` against the reference framework's recorded answer
//! for every status 100..=599 under its table since 0.12.4
//! (`tests/data/http-status-cases-0.12.4.json`, and `MCP_CONTRACT_CONFORMANCE_DIR`'s).

#[path = "support/conformance.rs"]
mod conformance;

use std::collections::BTreeMap;

use mcp_contract_runtime::JsonRpcErrorCode;
use mcp_contract_runtime::http_status_to_error_code;
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    status: u16,
    #[serde(default)]
    code: Option<i32>,
}

fn show(code: Option<i32>) -> String {
    match code {
        None => "no code".to_owned(),
        Some(number) => match JsonRpcErrorCode::from_i32(number) {
            Some(code) => code.to_string(),
            None => format!("unknown code {number}"),
        },
    }
}

#[test]
fn every_status_agrees_with_the_reference() {
    for (_, cases) in conformance::case_files::<Case>("http-status-cases-0.12.4.json") {
        assert_agreement(&cases);
    }
}

fn assert_agreement(cases: &[Case]) {
    // The file must cover the whole range once, or agreeing with it proves little.
    let by_status: BTreeMap<u16, Option<i32>> = cases.iter().map(|case| (case.status, case.code)).collect();
    assert_eq!(by_status.len(), cases.len(), "a status appears twice");
    assert_eq!(by_status.keys().copied().collect::<Vec<_>>(), (100..=599).collect::<Vec<_>>());

    let disagreements: Vec<String> = by_status
        .iter()
        .filter_map(|(&status, &expected)| {
            let got = http_status_to_error_code(status).map(JsonRpcErrorCode::as_i32);
            (got != expected).then(|| format!("HTTP {status}: reference {}, ours {}", show(expected), show(got)))
        })
        .collect();
    assert!(
        disagreements.is_empty(),
        "{} of {} statuses disagree with the reference:\n{}",
        disagreements.len(),
        by_status.len(),
        disagreements.join("\n")
    );
    // No code below 400, as the reference; and since 0.12.4 no status says that this server failed.
    assert!(by_status.range(..400).all(|(_, code)| code.is_none()));
    assert!(by_status.values().all(|code| *code != Some(JsonRpcErrorCode::InternalError.as_i32())));
}
