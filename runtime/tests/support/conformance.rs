//! The conformance case files: the copy kept in `runtime/tests/data/`, and the
//! same-named file of `MCP_CONTRACT_CONFORMANCE_DIR` when that variable is set.

use std::path::PathBuf;

use serde::de::DeserializeOwned;

/// Every case file named `file_name`, each with its parsed cases.
pub(crate) fn case_files<T: DeserializeOwned>(file_name: &str) -> Vec<(PathBuf, Vec<T>)> {
    let mut paths = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(file_name)];
    if let Some(dir) = std::env::var_os("MCP_CONTRACT_CONFORMANCE_DIR").filter(|dir| !dir.is_empty()) {
        paths.push(PathBuf::from(dir).join(file_name));
    }
    paths
        .into_iter()
        .map(|path| {
            let text =
                std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
            let cases = serde_json::from_str(&text)
                .unwrap_or_else(|err| panic!("{} does not hold the expected cases: {err}", path.display()));
            (path, cases)
        })
        .collect()
}
