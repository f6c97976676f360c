//! Compile-time diagnostics of `#[mcp_tool]`, snapshotted with trybuild.
//!
//! Refresh the `.stderr` snapshots with `TRYBUILD=overwrite cargo test -p mcp-contract-ui-tests`
//! (in a commit of their own), on the pinned toolchain of `rust-toolchain.toml`.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
