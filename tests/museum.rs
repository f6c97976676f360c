//! The museum example's own tests, the `mod tests` at the end of
//! `examples/museum.rs`: its tools through `mcp_contract::testing`, and every
//! tool's contract checked. Run from here rather than with `test = true` on
//! the example, which would stop `cargo test` from building the example's
//! binary that tests/e2e.rs starts.

#[path = "../examples/museum.rs"]
#[allow(dead_code, unreachable_pub, reason = "the example's binary half is not what these tests run")]
mod museum;
