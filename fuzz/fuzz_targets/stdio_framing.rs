//! stdio's line framing: the bytes a client writes, cut at arbitrary points
//! (as a pipe delivers them) and read through a buffer of any size, give the
//! same lines and the same messages as read whole.
#![no_main]

use mcp_contract_runtime::server::fuzzing;

#[derive(Debug, arbitrary::Arbitrary)]
struct Input {
    /// Where the reads end, as offsets into `bytes`.
    cuts: Vec<u16>,
    /// The read buffer's size, from one byte up.
    capacity: u8,
    bytes: Vec<u8>,
}

libfuzzer_sys::fuzz_target!(|input: Input| {
    let cuts: Vec<usize> = input.cuts.into_iter().map(usize::from).collect();
    fuzzing::stdio_framing(&input.bytes, &cuts, usize::from(input.capacity));
});
