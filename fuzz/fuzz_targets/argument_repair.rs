//! A tool's arguments, repaired and decoded against any schema: the input is
//! the arguments' JSON, a NUL byte, then the schema's JSON (the seeds and the
//! dictionary give the fuzzer JSON's shape).
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    let split = bytes.iter().position(|&byte| byte == 0).unwrap_or(bytes.len());
    let (arguments, schema) = (&bytes[..split], bytes.get(split + 1..).unwrap_or_default());
    mcp_contract_runtime::server::fuzzing::argument_repair(arguments, schema);
});
