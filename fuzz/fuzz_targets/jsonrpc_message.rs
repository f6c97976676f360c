//! A stdio line or an HTTP body, as the server reads it before rmcp does.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| mcp_contract_runtime::server::fuzzing::jsonrpc_message(bytes));
