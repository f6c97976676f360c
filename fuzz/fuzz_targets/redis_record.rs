//! What one replica reads of the records another wrote in Redis (a session's
//! `initialize`, an SSE event, a task, a running call, a `Last-Event-ID`):
//! any text, or a record as a replica writes it cut short or with a byte
//! changed, reads as an error or as itself, never a panic.
#![no_main]

use mcp_contract_runtime::server::fuzzing::{self, RedisRecord};

#[derive(Debug, arbitrary::Arbitrary)]
enum Input {
    /// Any text, read as a record of each kind.
    Text { text: String, runs: i64 },
    /// A record as written, cut at `at` and with the byte at `flip.0` xored by `flip.1`.
    Written { which: u8, at: u16, flip: Option<(u16, u8)>, stopped: bool },
}

const KINDS: [RedisRecord; 5] =
    [RedisRecord::Session, RedisRecord::Event, RedisRecord::Task, RedisRecord::Call, RedisRecord::EventId];

libfuzzer_sys::fuzz_target!(|input: Input| {
    match input {
        Input::Text { text, runs } => {
            for kind in KINDS {
                fuzzing::redis_record(kind, &text, runs);
            }
        }
        Input::Written { which, at, flip, stopped } => {
            let written = fuzzing::redis_records_written();
            let (kind, record) = &written[usize::from(which) % written.len()];
            let mut bytes = record.as_bytes().to_vec();
            bytes.truncate(usize::from(at));
            if let Some((at, mask)) = flip
                && let Some(byte) = bytes.get_mut(usize::from(at))
            {
                *byte ^= mask;
            }
            // Redis hands the replica a string: what is not UTF-8 fails before the read.
            let Ok(text) = String::from_utf8(bytes) else { return };
            fuzzing::redis_record(*kind, &text, i64::from(!stopped));
        }
    }
});
