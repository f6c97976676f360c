//! The classifier on any error name and message: total, and stable.
#![no_main]

use mcp_contract_runtime::classify_parts;

libfuzzer_sys::fuzz_target!(|parts: (&str, &str)| {
    let (name, message) = parts;
    assert_eq!(classify_parts(name, message), classify_parts(name, message));
    let err = std::io::Error::other(message.to_owned());
    let _ = mcp_contract_runtime::classify(&err);
});
