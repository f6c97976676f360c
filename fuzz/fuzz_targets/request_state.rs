//! The `requestState` a client sends back on a stateless round.
#![no_main]

libfuzzer_sys::fuzz_target!(|parts: (&str, &[u8])| {
    let (state, arguments) = parts;
    mcp_contract_runtime::server::fuzzing::request_state(state, arguments);
});
