//! Classification: which [`JsonRpcErrorCode`] an arbitrary error deserves.
//!
//! Two layers, first hit wins:
//!
//! 1. **Typed**, over the whole `source()` chain, outermost first: an [`McpError`]
//!    keeps its code; `std::io::Error` by [`ErrorKind`]; `serde_json::Error` by
//!    category; number and UTF-8 parse errors; tokio's `Elapsed` and `JoinError`.
//! 2. **Text**, the reference framework's classifier ([`classify_parts`]) applied
//!    to each message of the chain, outermost first.
//!
//! The reference (`@cyanheads/mcp-ts-core`) only has the text layer and only looks
//! at the outermost error, which is why its users saw a refused connection wrapped
//! in "fetch failed" reported as an internal error. The text layer here agrees with
//! the reference case for case; everything beyond it lives in the typed layer.

use std::cell::RefCell;
use std::error::Error as StdError;
use std::io::ErrorKind;
use std::sync::LazyLock;

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind, Span, StartKind, packed};
use regex::Regex;

use crate::errors::{JsonRpcErrorCode, McpError};

/// Classify any error: the first typed error of the `source()` chain decides,
/// otherwise the first message of the chain the reference's text classifier
/// recognises, otherwise [`InternalError`](JsonRpcErrorCode::InternalError).
///
/// The chain is walked outermost first, and an `std::io::Error` that wraps another
/// error (`io::Error::other(inner)`) is stepped into, because its own `source()`
/// skips the wrapped error.
///
/// | typed error in the chain | code |
/// |---|---|
/// | [`McpError`] | its own code |
/// | `io::Error`: `NotFound` / `PermissionDenied` / `TimedOut` / `AlreadyExists` | `NotFound` / `Forbidden` / `Timeout` / `Conflict` |
/// | `io::Error`: `ConnectionRefused`, `ConnectionReset`, `ConnectionAborted`, `NotConnected`, `BrokenPipe`, `HostUnreachable`, `NetworkUnreachable`, `NetworkDown` | `ServiceUnavailable` |
/// | `io::Error`: `InvalidInput`, `InvalidData` | `ValidationError` |
/// | `serde_json::Error` (syntax, end of input, data) | `ValidationError` |
/// | `ParseIntError`, `ParseFloatError`, `ParseBoolError`, `ParseCharError`, `AddrParseError`, `Utf8Error`, `FromUtf8Error`, `FromUtf16Error` | `ValidationError` |
/// | `tokio::time::error::Elapsed` | `Timeout` |
/// | `tokio::task::JoinError`: panic / cancelled | `InternalError` / `ServiceUnavailable` |
///
/// Any other `io::ErrorKind` (and a `serde_json` I/O error of such a kind) is no
/// typed hit: the walk goes on to its cause, then to the text layer.
///
/// The text layer calls [`classify_parts`] with the name `"Error"` for every
/// element: a `dyn Error` has no runtime type name in Rust, and the reference's
/// type-name table (`SyntaxError`, `RangeError`, ...) names JavaScript classes
/// that the typed layer stands in for.
///
/// ```
/// use mcp_contract_runtime::{classify, JsonRpcErrorCode, McpError};
/// use std::io;
///
/// let refused = io::Error::new(io::ErrorKind::ConnectionRefused, "os error 111");
/// assert_eq!(classify(&refused), JsonRpcErrorCode::ServiceUnavailable);
///
/// // An McpError deep in the chain keeps its code.
/// let wrapped = io::Error::other(McpError::rate_limited("Slow down."));
/// assert_eq!(classify(&wrapped), JsonRpcErrorCode::RateLimited);
///
/// // Untyped errors fall back to the text classifier.
/// let text = io::Error::other("record already exists");
/// assert_eq!(classify(&text), JsonRpcErrorCode::Conflict);
/// ```
pub fn classify(err: &(dyn StdError + 'static)) -> JsonRpcErrorCode {
    if let Some(code) = chain(err).find_map(typed_code) {
        return code;
    }
    chain(err).find_map(|err| text_code(RUST_ERROR_NAME, &err.to_string())).unwrap_or(JsonRpcErrorCode::InternalError)
}

/// The reference framework's text classifier: the code it gives an error whose
/// type name (`error.name` in JavaScript) is `name` and whose message is `message`.
///
/// In order, first hit wins:
///
/// 1. the type-name table: `SyntaxError`, `RangeError`, `URIError`, `ZodError` ->
///    `ValidationError`; `ReferenceError`, `EvalError`, `AggregateError` ->
///    `InternalError` (`TypeError` is deliberately absent: it is usually a bug);
/// 2. 20 provider patterns (AWS, HTTP status codes, databases, Supabase, LLM
///    providers, network errors), then 10 common patterns; each is tried on the
///    message and then on the name, case-insensitively, before the next one;
/// 3. the name `AbortError` -> `Timeout`;
/// 4. `InternalError`.
///
/// The patterns keep the reference's JavaScript semantics (ASCII-only case
/// folding, JavaScript's `\s` and `.`, ASCII `\d`). All of them are looked for in
/// one pass over each text, without allocating.
///
/// ```
/// use mcp_contract_runtime::{classify_parts, JsonRpcErrorCode};
///
/// assert_eq!(classify_parts("Error", "Request failed with status code 404"), JsonRpcErrorCode::NotFound);
/// // A pattern earlier in the list wins even when it matches only the name.
/// assert_eq!(classify_parts("ThrottlingException", "not found"), JsonRpcErrorCode::RateLimited);
/// assert_eq!(classify_parts("SyntaxError", "Unexpected token"), JsonRpcErrorCode::ValidationError);
/// assert_eq!(classify_parts("Error", "something odd"), JsonRpcErrorCode::InternalError);
/// ```
pub fn classify_parts(name: &str, message: &str) -> JsonRpcErrorCode {
    text_code(name, message).unwrap_or(JsonRpcErrorCode::InternalError)
}

/// The reference's pattern table, translated to `regex` syntax, in its priority
/// order: the 20 provider patterns, then the 10 common ones. Exposed for the
/// benchmark's naive classifier only; not a public API.
#[doc(hidden)]
pub fn __patterns() -> &'static [(&'static str, JsonRpcErrorCode)] {
    &PATTERNS
}

/// The reference's type-name table. Exposed for the benchmark's naive
/// classifier only; not a public API.
#[doc(hidden)]
pub fn __type_names() -> &'static [(&'static str, JsonRpcErrorCode)] {
    &TYPE_NAMES
}

/// The name the text layer gives a Rust error (see [`classify`]).
const RUST_ERROR_NAME: &str = "Error";

/// Guards the chain walk against a `source()` that returns its own error.
const MAX_CHAIN_DEPTH: usize = 64;

/// The text layer; `None` is the reference's `InternalError` fallback, kept apart
/// so that [`classify`] can go on to the next message of the chain.
fn text_code(name: &str, message: &str) -> Option<JsonRpcErrorCode> {
    // A JavaScript property lookup: exact and case-sensitive.
    if let Some(&(_, code)) = TYPE_NAMES.iter().find(|(type_name, _)| *type_name == name) {
        return Some(code);
    }
    let matcher = &*MATCHER;
    let in_message = matcher.scan(message);
    let in_name = matcher.scan(name);
    // The reference tries each pattern on the message and then on the name before
    // moving on, so the winner is the lowest pattern index matched in either text.
    let exact = in_message.exact | in_name.exact;
    let mut candidates = exact | hinted_patterns(in_message.hints | in_name.hints);
    while candidates != 0 {
        let index = candidates.trailing_zeros() as usize;
        let bit = 1 << index;
        candidates &= !bit;
        if exact & bit != 0
            || HINTS.iter().enumerate().any(|(hint, &(pattern, _, _))| {
                usize::from(pattern) == index
                    && ((in_message.hints & 1 << hint != 0 && matcher.verify(hint, message))
                        || (in_name.hints & 1 << hint != 0 && matcher.verify(hint, name)))
            })
        {
            return Some(PATTERNS[index].1);
        }
    }
    // Unreachable in practice, since `abort` already matches the name
    // "AbortError", but the reference has it and it costs one comparison.
    (name == "AbortError").then_some(JsonRpcErrorCode::Timeout)
}

/// The patterns as literals, found in one pass over a text.
///
/// Every pattern of [`PATTERNS`] is an alternation. Most alternatives are plain
/// words (`not found`, `ECONNREFUSED`); these are *exact* literals: finding one
/// (ASCII case-insensitively, as JavaScript's `i` does for ASCII letters) is
/// finding the pattern. The HTTP statuses (patterns 3 to 8, `status code 401` to
/// `status code 5\d\d`) share one literal, `status code `, and the three digits
/// after it decide which pattern, if any, was found. The few alternatives that are
/// not words (`not.*logged.*in`, `missing\s+field`, ...) contribute a word that
/// every match of theirs contains (`logged`, `missing`); finding it makes the
/// pattern a candidate that the regex of that alternative alone then verifies,
/// and only when no pattern before it was found.
///
/// The pass takes one of two forms, chosen by the text's length, that decide the
/// same way (unit tests hold them to it):
///
/// - a short text (nearly every error message) walks an Aho-Corasick DFA byte by
///   byte, driven here rather than through `AhoCorasick`'s overlapping iterator,
///   whose per-call set-up costs more than the walk of a 30-byte message;
/// - a long text is lowercased a chunk at a time into a per-thread buffer and
///   searched with a SIMD literal searcher (Teddy), which skips through text that
///   holds no literal many bytes at a time where the DFA steps one byte at a time.
///   Teddy has no ASCII case-insensitive mode, hence the lowercasing, and holds 64
///   literals at most, which the shared `status code ` literal makes room for.
///
/// A `RegexSet` of the same patterns, whose overlapping search reports every
/// matching pattern too, is the benchmark's other baseline (benches/classify.rs,
/// figures in the README).
struct Matcher {
    /// The literals of [`Matcher::literals`], ASCII case-insensitively,
    /// overlapping matches included, for short texts.
    dfa: DFA,
    /// The DFA's unanchored start state.
    start: StateID,
    /// The same literals, for long texts lowercased.
    packed: packed::Searcher,
    /// What finding each literal means, by its index in both.
    hits: Vec<Literal>,
    /// The three digits after `status code ` that make patterns 3 to 7, and
    /// their index; any other `5\d\d` is pattern 8.
    status_codes: Vec<([u8; 3], u8)>,
    /// The regex of each of [`HINTS`].
    verifiers: Vec<Regex>,
}

/// What finding a literal means.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Hit {
    /// The pattern of this index matches.
    Exact(u8),
    /// The alternative of [`HINTS`] of this index may match.
    Hint(u8),
}

impl Hit {
    /// The order of preference among literals that start at the same place: by
    /// pattern, exact first.
    fn preference(self) -> (u8, bool) {
        match self {
            Hit::Exact(pattern) => (pattern, false),
            Hit::Hint(hint) => (HINTS[usize::from(hint)].0, true),
        }
    }
}

/// A literal of the searchers: a word, or the start of patterns 3 to 8.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Literal {
    Word(Hit),
    /// `status code `: the digits after it decide the pattern, if any.
    StatusCode,
}

/// Bit `i` of `exact` set: pattern `i` was found; of `hints`: the word of
/// `HINTS[i]` was.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
struct Found {
    exact: u32,
    hints: u32,
}

impl Found {
    fn add(&mut self, hit: Hit) {
        match hit {
            Hit::Exact(pattern) => self.exact |= 1 << pattern,
            Hit::Hint(hint) => self.hints |= 1 << hint,
        }
    }
}

/// The patterns that the hints in `hints` (bits as in [`Found::hints`]) are of.
fn hinted_patterns(hints: u32) -> u32 {
    HINTS
        .iter()
        .enumerate()
        .filter(|&(hint, _)| hints & 1 << hint != 0)
        .fold(0, |patterns, (_, &(pattern, _, _))| patterns | 1 << pattern)
}

/// The exact literals of each pattern of [`PATTERNS`], by index. The alternatives
/// of pattern 8 (`status code 5\d\d`) are generated; the other alternatives of
/// patterns 20, 21 and 23 are in [`HINTS`].
const LITERALS: [(u8, &[&str]); 29] = [
    (0, &["ThrottlingException", "TooManyRequestsException"]),
    (1, &["AccessDenied", "UnauthorizedOperation"]),
    (2, &["ResourceNotFoundException"]),
    (3, &["status code 401"]),
    (4, &["status code 403"]),
    (5, &["status code 404"]),
    (6, &["status code 409"]),
    (7, &["status code 429"]),
    (9, &["ECONNREFUSED", "connection refused"]),
    (10, &["ETIMEDOUT", "connection timeout"]),
    (11, &["unique constraint", "duplicate key"]),
    (12, &["foreign key constraint"]),
    (13, &["JWT expired"]),
    (14, &["row level security"]),
    (15, &["insufficient_quota", "quota exceeded"]),
    (16, &["model_not_found"]),
    (17, &["context_length_exceeded"]),
    (18, &["ENOTFOUND", "DNS"]),
    (19, &["ECONNRESET", "connection reset"]),
    (20, &["unauthorized", "unauthenticated"]),
    (21, &["permission", "forbidden"]),
    (22, &["not found", "no such", "doesn't exist", "couldn't find"]),
    (23, &["invalid", "validation", "malformed", "bad request", "wrong format"]),
    (24, &["conflict", "already exists", "duplicate", "unique constraint"]),
    (25, &["rate limit", "too many requests", "throttled"]),
    (26, &["timeout", "timed out", "deadline exceeded"]),
    // abort(ed)? is found exactly when `abort` is; cancell?ed has two spellings.
    (27, &["abort", "canceled", "cancelled"]),
    (28, &["service unavailable", "bad gateway", "gateway timeout", "upstream error"]),
    // zod|zoderror|schema validation: `zoderror` contains `zod`.
    (29, &["zod", "schema validation"]),
];

/// Pattern 8, `status code 5\d\d`, with JavaScript's ASCII `\d`.
const SERVER_ERROR_STATUS: u8 = 8;

/// Texts from this length on take the SIMD searcher. Below it, lowercasing and
/// Teddy's set-up cost more than the DFA walk: in a throwaway measurement (not
/// kept in benches/) the two broke even between 128 and 256 bytes of English
/// text, on which Teddy meets many candidate positions.
const LONG_TEXT: usize = 256;

/// The stack buffer a long text is lowercased into, a chunk at a time.
const CHUNK: usize = 4096;

/// Consecutive chunks share this many bytes, so that every literal (and
/// `status code ` with its three digits) lies whole in at least one chunk.
const CHUNK_OVERLAP: usize = 32;

/// Patterns 3 to 8 all begin with it.
const STATUS_CODE: &str = "status code ";

impl Matcher {
    fn new() -> Self {
        let (literals, hits): (Vec<String>, Vec<Literal>) = Self::literals().into_iter().unzip();
        let verifiers = HINTS
            .iter()
            .map(|(_, _, regex)| {
                Regex::new(regex).expect("the classifier's patterns are constant and covered by tests")
            })
            .collect();
        let dfa = DFA::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .start_kind(StartKind::Unanchored)
            // Without a prefilter the start state is no special state, so the walk
            // below stops only at match states (and the dead state, never entered in
            // an unanchored search).
            .prefilter(false)
            .build(&literals)
            .expect("the classifier's literals are constant and covered by tests");
        let start = dfa.start_state(Anchored::No).expect("the DFA is built for unanchored searches");
        let packed = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostFirst)
            .builder()
            .extend(&literals)
            .build()
            .expect("the classifier's literals are few enough for a packed searcher");
        let status_codes = LITERALS
            .iter()
            .flat_map(|&(index, words)| words.iter().map(move |word| (index, word)))
            .filter_map(|(index, word)| {
                let digits = word.strip_prefix(STATUS_CODE)?.as_bytes().try_into().ok()?;
                Some((digits, index))
            })
            .collect();
        Self { dfa, start, packed, hits, status_codes, verifiers }
    }

    /// The literals: lowercased, most preferred first (by pattern index, exact
    /// before hint), each once, with `status code ` for patterns 3 to 8.
    ///
    /// The long-text searcher reports, at each position, the most preferred literal that
    /// starts there, and [`Matcher::scan_long`] resumes one byte after its start,
    /// so a literal is only missed when a preferred one starts at the same place:
    /// one it is a prefix of, or that is a prefix of it. That loses nothing as long
    /// as the preferred literal of such a pair is exact, which a unit test checks.
    fn literals() -> Vec<(String, Literal)> {
        let mut entries: Vec<(Hit, String)> = LITERALS
            .iter()
            .flat_map(|&(pattern, words)| {
                words.iter().map(move |word| (Hit::Exact(pattern), word.to_ascii_lowercase()))
            })
            .filter(|(_, word)| !word.starts_with(STATUS_CODE))
            .chain((0..).zip(HINTS).map(|(hint, (_, word, _))| (Hit::Hint(hint), word.to_owned())))
            .collect();
        entries.push((Hit::Exact(3), STATUS_CODE.to_owned()));
        // Stable: among a pattern's literals, the table's order.
        entries.sort_by_key(|&(hit, _)| hit.preference());
        let mut literals: Vec<(String, Literal)> = Vec::with_capacity(entries.len());
        for (hit, word) in entries {
            if literals.iter().any(|(seen, _)| *seen == word) {
                continue;
            }
            let literal = if word == STATUS_CODE { Literal::StatusCode } else { Literal::Word(hit) };
            literals.push((word, literal));
        }
        literals
    }

    fn scan(&self, text: &str) -> Found {
        if text.len() < LONG_TEXT { self.scan_short(text.as_bytes()) } else { self.scan_long(text.as_bytes()) }
    }

    /// Every literal in `text`, overlapping ones included, by walking the DFA.
    fn scan_short(&self, text: &[u8]) -> Found {
        let mut found = Found::default();
        let mut state = self.start;
        for (at, &byte) in text.iter().enumerate() {
            state = self.dfa.next_state(Anchored::No, state, byte);
            if self.dfa.is_special(state) {
                self.record_matches(&mut found, state, &text[at + 1..]);
            }
        }
        found
    }

    /// Records the literals that end in the match state `state`, followed by
    /// `rest`. Out of line and cold: inlined, it made the walk a third slower.
    #[cold]
    #[inline(never)]
    fn record_matches(&self, found: &mut Found, state: StateID, rest: &[u8]) {
        if self.dfa.is_match(state) {
            for i in 0..self.dfa.match_len(state) {
                let literal = self.hits[self.dfa.match_pattern(state, i).as_usize()];
                self.record(found, literal, rest);
            }
        }
    }

    /// Records that `literal` was found, followed by `rest`.
    fn record(&self, found: &mut Found, literal: Literal, rest: &[u8]) {
        match literal {
            Literal::Word(hit) => found.add(hit),
            Literal::StatusCode => {
                if let Some(index) = self.status_code(rest) {
                    found.exact |= 1 << index;
                }
            }
        }
    }

    /// What [`Matcher::scan_short`] finds, by searching lowercased chunks of
    /// `text` with the SIMD searcher.
    fn scan_long(&self, text: &[u8]) -> Found {
        // A buffer per thread rather than on the stack: zeroing 4 KiB on every call
        // cost as much as searching a few KiB.
        LOWERCASED.with_borrow_mut(|buffer| self.scan_long_with(text, buffer))
    }

    fn scan_long_with(&self, text: &[u8], buffer: &mut [u8; CHUNK]) -> Found {
        let mut found = Found::default();
        let mut chunk_start = 0;
        loop {
            let chunk_end = (chunk_start + CHUNK).min(text.len());
            let chunk = &mut buffer[..chunk_end - chunk_start];
            // One branch-free expression per byte, which the compiler vectorizes;
            // `copy_from_slice` and `make_ascii_lowercase` took nearly twice as long.
            for (lower, &byte) in chunk.iter_mut().zip(&text[chunk_start..chunk_end]) {
                *lower = byte | (u8::from(byte.wrapping_sub(b'A') < 26) << 5);
            }
            let chunk = &*chunk;
            let mut at = 0;
            while let Some(literal) = self.packed.find_in(chunk, Span::from(at..chunk.len())) {
                // Resume right after its start: literals may overlap.
                at = literal.start() + 1;
                // Digits after `status code ` cut off by the chunk's end are whole in
                // the next chunk.
                self.record(&mut found, self.hits[literal.pattern().as_usize()], &chunk[literal.end()..]);
            }
            if chunk_end == text.len() {
                return found;
            }
            chunk_start = chunk_end - CHUNK_OVERLAP;
        }
    }

    /// The pattern of `status code ` followed by `rest`, if any.
    fn status_code(&self, rest: &[u8]) -> Option<u8> {
        let digits: [u8; 3] = rest.get(..3)?.try_into().ok()?;
        if let Some(&(_, index)) = self.status_codes.iter().find(|(code, _)| *code == digits) {
            return Some(index);
        }
        (digits[0] == b'5' && digits[1].is_ascii_digit() && digits[2].is_ascii_digit()).then_some(SERVER_ERROR_STATUS)
    }

    /// Whether the alternative `HINTS[hint]` matches `text`.
    fn verify(&self, hint: usize, text: &str) -> bool {
        self.verifiers[hint].is_match(text)
    }
}

static MATCHER: LazyLock<Matcher> = LazyLock::new(Matcher::new);

thread_local! {
    /// Where [`Matcher::scan_long`] lowercases a chunk of text. No allocation:
    /// the array lives in the thread's static storage.
    static LOWERCASED: RefCell<[u8; CHUNK]> = const { RefCell::new([0; CHUNK]) };
}

const TYPE_NAMES: [(&str, JsonRpcErrorCode); 7] = [
    ("SyntaxError", JsonRpcErrorCode::ValidationError),
    ("ReferenceError", JsonRpcErrorCode::InternalError),
    ("RangeError", JsonRpcErrorCode::ValidationError),
    ("URIError", JsonRpcErrorCode::ValidationError),
    ("EvalError", JsonRpcErrorCode::InternalError),
    ("AggregateError", JsonRpcErrorCode::InternalError),
    ("ZodError", JsonRpcErrorCode::ValidationError),
];

// How the JavaScript regexes (flag `i`, no `u`) are translated:
// - `(?i-u)` on every pattern: JavaScript's `i` without `u` never folds a non-ASCII
//   character onto an ASCII one, and every pattern letter is ASCII, so its case
//   folding is exactly ASCII's. Unicode folding would let the Kelvin sign match `k`
//   and the long s `ſ` match `s`.
// - `\s` is JavaScript's set (spaces, line terminators and U+FEFF; not U+0085),
//   which differs from Unicode's White_Space.
// - `.` is any character but JavaScript's line terminators (\n, \r, U+2028, U+2029).
// - `\d` is ASCII.
// The classes need `(?u:..)` because they hold non-ASCII characters.
macro_rules! js_space {
    () => {
        r"(?u:[\t\n\x0B\x0C\r\x20\u{A0}\u{1680}\u{2000}-\u{200A}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}\u{FEFF}])"
    };
}
macro_rules! js_dot {
    () => {
        r"(?u:[^\n\r\u{2028}\u{2029}])"
    };
}
macro_rules! js_space_underscore_dash {
    () => {
        concat!("(?:", js_space!(), r"|[_\-])")
    };
}
macro_rules! js {
    ($($part:expr),+ $(,)?) => {
        concat!("(?i-u)", $($part),+)
    };
}

/// Index 0..20: provider patterns; 20..30: common patterns. The JavaScript source
/// of each is in the comment above it.
const PATTERNS: [(&str, JsonRpcErrorCode); 30] = {
    use JsonRpcErrorCode::*;
    [
        // AWS. /ThrottlingException|TooManyRequestsException/i
        (js!("ThrottlingException|TooManyRequestsException"), RateLimited),
        // /AccessDenied|UnauthorizedOperation/i
        (js!("AccessDenied|UnauthorizedOperation"), Forbidden),
        // /ResourceNotFoundException/i
        (js!("ResourceNotFoundException"), NotFound),
        // HTTP statuses. /status code 401/i and so on; /status code 5\d\d/i
        (js!("status code 401"), Unauthorized),
        (js!("status code 403"), Forbidden),
        (js!("status code 404"), NotFound),
        (js!("status code 409"), Conflict),
        (js!("status code 429"), RateLimited),
        (js!("status code 5[0-9][0-9]"), ServiceUnavailable),
        // Databases. /ECONNREFUSED|connection refused/i
        (js!("ECONNREFUSED|connection refused"), ServiceUnavailable),
        // /ETIMEDOUT|connection timeout/i
        (js!("ETIMEDOUT|connection timeout"), Timeout),
        // /unique constraint|duplicate key/i
        (js!("unique constraint|duplicate key"), Conflict),
        // /foreign key constraint/i
        (js!("foreign key constraint"), ValidationError),
        // Supabase. /JWT expired/i
        (js!("JWT expired"), Unauthorized),
        // /row level security/i
        (js!("row level security"), Forbidden),
        // LLM providers. /insufficient_quota|quota exceeded/i
        (js!("insufficient_quota|quota exceeded"), RateLimited),
        // /model_not_found/i
        (js!("model_not_found"), NotFound),
        // /context_length_exceeded/i
        (js!("context_length_exceeded"), ValidationError),
        // Network. /ENOTFOUND|DNS/i
        (js!("ENOTFOUND|DNS"), ServiceUnavailable),
        // /ECONNRESET|connection reset/i
        (js!("ECONNRESET|connection reset"), ServiceUnavailable),
        // Common patterns.
        // /unauthorized|unauthenticated|not\s+authorized|not.*logged.*in|invalid[\s_-]+token|expired[\s_-]+token/i
        (
            js!(
                "unauthorized|unauthenticated|not",
                js_space!(),
                "+authorized|not",
                js_dot!(),
                "*logged",
                js_dot!(),
                "*in|invalid",
                js_space_underscore_dash!(),
                "+token|expired",
                js_space_underscore_dash!(),
                "+token",
            ),
            Unauthorized,
        ),
        // /permission|forbidden|access.*denied|not.*allowed/i
        (js!("permission|forbidden|access", js_dot!(), "*denied|not", js_dot!(), "*allowed"), Forbidden),
        // /not found|no such|doesn't exist|couldn't find/i
        (js!("not found|no such|doesn't exist|couldn't find"), NotFound),
        // /invalid|validation|malformed|bad request|wrong format|missing\s+(?:required|param|field|input|value|arg)/i
        (
            js!(
                "invalid|validation|malformed|bad request|wrong format|missing",
                js_space!(),
                "+(?:required|param|field|input|value|arg)",
            ),
            ValidationError,
        ),
        // /conflict|already exists|duplicate|unique constraint/i
        (js!("conflict|already exists|duplicate|unique constraint"), Conflict),
        // /rate limit|too many requests|throttled/i
        (js!("rate limit|too many requests|throttled"), RateLimited),
        // /timeout|timed out|deadline exceeded/i
        (js!("timeout|timed out|deadline exceeded"), Timeout),
        // /abort(ed)?|cancell?ed/i
        (js!("abort(?:ed)?|cancell?ed"), Timeout),
        // /service unavailable|bad gateway|gateway timeout|upstream error/i
        (js!("service unavailable|bad gateway|gateway timeout|upstream error"), ServiceUnavailable),
        // /zod|zoderror|schema validation/i
        (js!("zod|zoderror|schema validation"), ValidationError),
    ]
};

/// The alternatives of [`PATTERNS`] that are no plain words, as `(pattern, hint,
/// regex)`: every match of `regex` contains `hint`, and `regex` is the
/// alternative as it stands in the pattern, so that verifying a found hint runs a
/// regex smaller and faster than the whole pattern.
const HINTS: [(u8, &str, &str); 6] = [
    (20, "authorized", js!("not", js_space!(), "+authorized")),
    (20, "logged", js!("not", js_dot!(), "*logged", js_dot!(), "*in")),
    (20, "token", js!("invalid", js_space_underscore_dash!(), "+token|expired", js_space_underscore_dash!(), "+token")),
    (21, "denied", js!("access", js_dot!(), "*denied")),
    (21, "allowed", js!("not", js_dot!(), "*allowed")),
    (23, "missing", js!("missing", js_space!(), "+(?:required|param|field|input|value|arg)")),
];

/// The chain of `err`, outermost first.
fn chain<'a>(err: &'a (dyn StdError + 'static)) -> impl Iterator<Item = &'a (dyn StdError + 'static)> {
    std::iter::successors(Some(err), |err| next_in_chain(*err)).take(MAX_CHAIN_DEPTH)
}

fn next_in_chain<'a>(err: &'a (dyn StdError + 'static)) -> Option<&'a (dyn StdError + 'static)> {
    // `io::Error::source()` returns the source of the error it wraps, not that
    // error itself: step into it so that an McpError or a typed error wrapped by
    // `io::Error::other(..)` is seen. Its own source comes next as usual.
    if let Some(inner) = err.downcast_ref::<std::io::Error>().and_then(std::io::Error::get_ref) {
        return Some(inner);
    }
    err.source()
}

/// The code of one error of the chain by its type, if its type decides.
fn typed_code(err: &(dyn StdError + 'static)) -> Option<JsonRpcErrorCode> {
    use JsonRpcErrorCode::*;
    if let Some(mcp) = err.downcast_ref::<McpError>() {
        return Some(mcp.code());
    }
    if let Some(io) = err.downcast_ref::<std::io::Error>() {
        return io_kind_code(io.kind());
    }
    if let Some(json) = err.downcast_ref::<serde_json::Error>() {
        return match json.classify() {
            // serde_json's `source()` skips its I/O error, as io::Error does; its kind
            // is all it exposes.
            serde_json::error::Category::Io => json.io_error_kind().and_then(io_kind_code),
            // The caller's fault rather than SerializationError: what a tool decodes
            // is nearly always input (its arguments, a document it was handed), and
            // the reference gives JSON.parse's SyntaxError ValidationError too. A
            // server failing to encode its own values should say so with
            // `McpError::serialization_error`.
            serde_json::error::Category::Syntax
            | serde_json::error::Category::Eof
            | serde_json::error::Category::Data => Some(ValidationError),
        };
    }
    if err.is::<std::num::ParseIntError>()
        || err.is::<std::num::ParseFloatError>()
        || err.is::<std::str::ParseBoolError>()
        || err.is::<std::char::ParseCharError>()
        || err.is::<std::net::AddrParseError>()
        || err.is::<std::str::Utf8Error>()
        || err.is::<std::string::FromUtf8Error>()
        || err.is::<std::string::FromUtf16Error>()
    {
        return Some(ValidationError);
    }
    if err.is::<tokio::time::error::Elapsed>() {
        return Some(Timeout);
    }
    if let Some(join) = err.downcast_ref::<tokio::task::JoinError>() {
        // A panic is a bug, whatever its message says ("not found" in a panic
        // message is no NotFound). A task is cancelled when it is aborted: by the
        // runtime shutting down (ServiceUnavailable: retry later, elsewhere) or by
        // the server giving up on the call, when the client no longer reads the
        // answer. The text layer would have said Timeout ("task was cancelled"),
        // which blames a slow upstream that may not exist.
        return Some(if join.is_panic() { InternalError } else { ServiceUnavailable });
    }
    None
}

fn io_kind_code(kind: ErrorKind) -> Option<JsonRpcErrorCode> {
    use JsonRpcErrorCode::*;
    Some(match kind {
        ErrorKind::NotFound => NotFound,
        ErrorKind::PermissionDenied => Forbidden,
        ErrorKind::TimedOut => Timeout,
        ErrorKind::ConnectionRefused
        | ErrorKind::ConnectionReset
        | ErrorKind::ConnectionAborted
        | ErrorKind::NotConnected
        | ErrorKind::BrokenPipe
        | ErrorKind::HostUnreachable
        | ErrorKind::NetworkUnreachable
        | ErrorKind::NetworkDown => ServiceUnavailable,
        ErrorKind::AlreadyExists => Conflict,
        ErrorKind::InvalidInput | ErrorKind::InvalidData => ValidationError,
        // Other, Unsupported, UnexpectedEof, WouldBlock, ...: the kind says too
        // little; the cause or the message may say more.
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use JsonRpcErrorCode::*;
    use std::fmt;
    use std::io;

    #[test]
    fn every_pattern_compiles_on_its_own() {
        for (pattern, _) in PATTERNS {
            regex::Regex::new(pattern).unwrap_or_else(|err| panic!("{pattern}: {err}"));
        }
    }

    #[test]
    fn every_exact_literal_is_a_match_of_its_pattern() {
        let matcher = Matcher::new();
        assert_eq!(matcher.hits.len(), matcher.dfa.patterns_len());
        let mut seen = [false; 30];
        for (index, words) in LITERALS {
            seen[usize::from(index)] = true;
            let regex = Regex::new(PATTERNS[usize::from(index)].0).unwrap();
            for word in words {
                assert!(regex.is_match(word), "{word:?} is no match of pattern {index}");
            }
        }
        for (index, hint, alternative) in HINTS {
            let (pattern, alternative) = (PATTERNS[usize::from(index)].0, Regex::new(alternative).unwrap());
            // A hint needs more around it, and alone is no match.
            assert!(!Regex::new(pattern).unwrap().is_match(hint), "{hint:?} alone matches pattern {index}");
            // The alternative is the pattern's own, word for word.
            let body = alternative.as_str().strip_prefix("(?i-u)").unwrap();
            let (parts, pattern_parts) = (top_level_alternatives(body), top_level_alternatives(pattern));
            assert!(
                pattern_parts.windows(parts.len()).any(|w| w == parts),
                "{body:?} is no alternative of pattern {index}"
            );
            // Every match contains the hint: each of its alternatives spells it out.
            for part in parts {
                assert!(part.to_ascii_lowercase().contains(hint), "{hint:?} is not in {part:?}");
            }
        }
        assert!(!seen[usize::from(SERVER_ERROR_STATUS)]);
        seen[usize::from(SERVER_ERROR_STATUS)] = true;
        assert_eq!(seen, [true; 30], "every pattern has literals");
        // `status code ` and the digits after it, in both scans.
        for status in 0..1000 {
            let expected = match status {
                401 => 1 << 3,
                403 => 1 << 4,
                404 => 1 << 5,
                409 => 1 << 6,
                429 => 1 << 7,
                500..600 => 1 << SERVER_ERROR_STATUS,
                _ => 0,
            };
            for text in [format!("Status Code {status:03}"), format!("status code {status:03}9 status code")] {
                for found in [matcher.scan_short(text.as_bytes()), matcher.scan_long(text.as_bytes())] {
                    assert_eq!(found.exact, expected, "{text}");
                }
            }
        }
        // The text ends before the third digit.
        for text in ["status code ", "status code 4", "status code 40", "status code 5", "status code 50"] {
            assert_eq!(matcher.scan_short(text.as_bytes()).exact, 0, "{text}");
            assert_eq!(matcher.scan_long(text.as_bytes()).exact, 0, "{text}");
        }
    }

    #[test]
    fn long_text_searcher_loses_no_literal_to_a_preferred_one() {
        let literals = Matcher::literals();
        assert!(literals.len() <= 64, "Teddy holds 64 literals at most, not {}", literals.len());
        let longest = literals.iter().map(|(word, _)| word.len()).max().unwrap();
        assert!(CHUNK_OVERLAP >= longest.max(STATUS_CODE.len() + 3));
        for (preferred, (first, first_hit)) in literals.iter().enumerate() {
            for (second, _) in &literals[preferred + 1..] {
                if first.starts_with(second.as_str()) || second.starts_with(first.as_str()) {
                    assert!(
                        matches!(first_hit, Literal::Word(Hit::Exact(_))),
                        "{first:?} hides {second:?} and may not match"
                    );
                }
            }
        }
    }

    /// What decides the code: the first exact pattern and the candidates before it.
    /// The long scan may miss a literal of a later pattern hidden by a preferred
    /// one, which changes nothing else.
    fn decisive(found: Found) -> Found {
        let first_exact = found.exact & found.exact.wrapping_neg();
        Found { exact: first_exact, hints: found.hints & hinted_before(first_exact) }
    }

    /// The hints of patterns before the pattern of `first_exact` (a single bit, or
    /// none: every hint).
    fn hinted_before(first_exact: u32) -> u32 {
        (0..HINTS.len())
            .filter(|&hint| hinted_patterns(1 << hint) & first_exact.wrapping_sub(1) != 0)
            .fold(0, |h, i| h | 1 << i)
    }

    /// `scan_long` and `scan_short` over `text` decide the same way.
    fn assert_scans_agree(matcher: &Matcher, text: &str) {
        let (short, long) = (matcher.scan_short(text.as_bytes()), matcher.scan_long(text.as_bytes()));
        assert_eq!(decisive(short), decisive(long), "{} bytes: {:?}", text.len(), text.get(..200).unwrap_or(text));
    }

    #[test]
    fn long_and_short_scans_agree_at_chunk_boundaries() {
        let matcher = Matcher::new();
        let mut words: Vec<String> =
            LITERALS.iter().flat_map(|(_, words)| words.iter()).map(|w| (*w).to_owned()).collect();
        words.extend(HINTS.map(|(_, hint, _)| hint.to_owned()));
        words.extend((500..600).map(|status| format!("{STATUS_CODE}{status}")));
        // Overlapping literals of different patterns, and near misses.
        words.extend(
            ["gateway timeout", "duplicate key", "ZodError", "Unauthorized", "status code 4291", "status code 5x1"]
                .map(str::to_owned),
        );
        let boundary = CHUNK - CHUNK_OVERLAP;
        for word in &words {
            // Alternate the case of the letters: the long scan lowercases, the short one folds.
            let word: String = word
                .chars()
                .enumerate()
                .map(|(i, c)| if i % 2 == 0 { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() })
                .collect();
            for offset in [0, 1, boundary - word.len(), boundary - 3, boundary, CHUNK - word.len(), CHUNK - 2, CHUNK] {
                for tail in [0, 1, 3, 500] {
                    let text = format!("{}{word}{}", "a".repeat(offset), "b".repeat(tail));
                    assert_scans_agree(&matcher, &text);
                }
            }
        }
    }

    mod long_and_short_scans {
        use super::*;
        use proptest::prelude::*;

        /// Literals in mixed case, their fragments, and long runs of filler, so that
        /// texts reach several chunks and literals straddle chunk boundaries.
        fn long_keyword_text() -> impl Strategy<Value = String> {
            let words: Vec<&str> = LITERALS
                .iter()
                .flat_map(|(_, words)| words.iter().copied())
                .chain(HINTS.map(|(_, hint, _)| hint))
                .collect();
            let piece = prop_oneof![
                proptest::sample::select(words).prop_map(str::to_ascii_uppercase),
                proptest::sample::select(LITERALS.map(|(_, words)| words[0]).to_vec()).prop_map(str::to_owned),
                "[a-zA-Z0-9 _'-]{0,6}",
                "[a ]{0,3000}",
                "\\PC{0,4}",
            ];
            proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            #[test]
            fn agree_on_long_keyword_text(text in long_keyword_text()) {
                assert_scans_agree(&MATCHER, &text);
            }
        }
    }

    /// The alternatives of a regex's outermost alternation, its leading flags dropped.
    fn top_level_alternatives(regex: &str) -> Vec<&str> {
        let regex = regex.strip_prefix("(?i-u)").unwrap_or(regex);
        let (mut parts, mut depth, mut start, mut escaped) = (Vec::new(), 0, 0, false);
        for (at, c) in regex.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                '|' if depth == 0 => {
                    parts.push(&regex[start..at]);
                    start = at + 1;
                }
                _ => {}
            }
        }
        parts.push(&regex[start..]);
        parts
    }

    #[test]
    fn type_name_table_comes_first_and_is_exact() {
        assert_eq!(classify_parts("SyntaxError", "not found"), ValidationError);
        assert_eq!(classify_parts("RangeError", "Maximum call stack size exceeded"), ValidationError);
        assert_eq!(classify_parts("URIError", "status code 503"), ValidationError);
        assert_eq!(classify_parts("ZodError", "unauthorized"), ValidationError);
        assert_eq!(classify_parts("ReferenceError", "x is not defined, not found"), InternalError);
        assert_eq!(classify_parts("EvalError", "invalid token"), InternalError);
        assert_eq!(classify_parts("AggregateError", "rate limit"), InternalError);
        // TypeError is absent: the message decides.
        assert_eq!(classify_parts("TypeError", "not found"), NotFound);
        assert_eq!(classify_parts("TypeError", "Cannot read properties of undefined"), InternalError);
        // A JavaScript property lookup is case-sensitive.
        assert_eq!(classify_parts("syntaxerror", "something"), InternalError);
        assert_eq!(classify_parts("SyntaxError ", "something"), InternalError);
    }

    #[test]
    fn provider_patterns_win_over_common_ones() {
        assert_eq!(classify_parts("Error", "duplicate key: foreign key constraint"), Conflict);
        assert_eq!(classify_parts("Error", "model_not_found but unauthorized"), NotFound);
        assert_eq!(classify_parts("Error", "status code 503 service unavailable: timed out"), ServiceUnavailable);
        assert_eq!(classify_parts("Error", "connect ETIMEDOUT: invalid token"), Timeout);
        assert_eq!(classify_parts("Error", "context_length_exceeded, too many requests"), ValidationError);
    }

    #[test]
    fn earlier_pattern_wins_across_message_and_name() {
        // The name matches pattern 0, the message a common pattern.
        assert_eq!(classify_parts("ThrottlingException", "not found"), RateLimited);
        // The message matches pattern 22 (not found), the name pattern 26 (timeout).
        assert_eq!(classify_parts("TimeoutError", "not found"), NotFound);
        assert_eq!(classify_parts("TimeoutError", "something went wrong"), Timeout);
        // Within the common patterns the reference's order holds.
        assert_eq!(classify_parts("Error", "invalid request: not allowed"), Forbidden);
        assert_eq!(classify_parts("Error", "bad gateway: invalid response"), ValidationError);
    }

    #[test]
    fn abort_error_name_and_fallback() {
        assert_eq!(classify_parts("AbortError", ""), Timeout);
        assert_eq!(classify_parts("Error", ""), InternalError);
        assert_eq!(classify_parts("", ""), InternalError);
        assert_eq!(classify_parts("NotFoundError", "something went wrong"), InternalError);
    }

    #[test]
    fn case_folding_is_ascii_only_as_in_javascript() {
        assert_eq!(classify_parts("Error", "rEsOuRcE NoT fOuNd"), NotFound);
        // LATIN SMALL LETTER LONG S folds to `s` in Unicode, not in JavaScript's `i`.
        assert_eq!(classify_parts("Error", "DN\u{17F} failure"), InternalError);
        assert_eq!(classify_parts("Error", "DNs failure"), ServiceUnavailable);
        // KELVIN SIGN folds to `k` in Unicode.
        assert_eq!(classify_parts("Error", "foreign KEY constraint"), ValidationError);
        assert_eq!(classify_parts("Error", "foreign \u{212A}ey constraint"), InternalError);
    }

    #[test]
    fn whitespace_is_javascripts() {
        // U+FEFF is `\s` in JavaScript, not in Unicode's White_Space.
        assert_eq!(classify_parts("Error", "missing\u{FEFF}field"), ValidationError);
        // U+0085 is White_Space in Unicode, not `\s` in JavaScript.
        assert_eq!(classify_parts("Error", "missing\u{85}field"), InternalError);
        assert_eq!(classify_parts("Error", "not\u{3000}\u{A0}authorized"), Unauthorized);
        assert_eq!(classify_parts("Error", "expired_-\ttoken"), Unauthorized);
    }

    #[test]
    fn dot_stops_at_javascripts_line_terminators_only() {
        for terminator in ['\n', '\r', '\u{2028}', '\u{2029}'] {
            assert_eq!(classify_parts("Error", &format!("not logged{terminator}in")), InternalError, "{terminator:?}");
        }
        assert_eq!(classify_parts("Error", "not logged\u{85}in"), Unauthorized);
        assert_eq!(classify_parts("Error", "not 🦀 logged 🦀 in"), Unauthorized);
        assert_eq!(classify_parts("Error", "access to x\n denied"), InternalError);
    }

    #[test]
    fn digits_are_ascii() {
        assert_eq!(classify_parts("Error", "status code 599"), ServiceUnavailable);
        // ARABIC-INDIC DIGITS are `\d` in Unicode, not in JavaScript.
        assert_eq!(classify_parts("Error", "status code 5\u{661}\u{662}"), InternalError);
    }

    /// A custom error with an optional cause, like most applications' own errors.
    #[derive(Debug)]
    struct Wrapper {
        message: &'static str,
        cause: Option<Box<dyn StdError + Send + Sync + 'static>>,
    }

    impl Wrapper {
        fn new(message: &'static str, cause: impl StdError + Send + Sync + 'static) -> Self {
            Self { message, cause: Some(Box::new(cause)) }
        }
    }

    impl fmt::Display for Wrapper {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.message)
        }
    }

    impl StdError for Wrapper {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            self.cause.as_deref().map(|cause| cause as &(dyn StdError + 'static))
        }
    }

    #[test]
    fn io_error_kinds() {
        let cases = [
            (io::ErrorKind::NotFound, Some(NotFound)),
            (io::ErrorKind::PermissionDenied, Some(Forbidden)),
            (io::ErrorKind::TimedOut, Some(Timeout)),
            (io::ErrorKind::ConnectionRefused, Some(ServiceUnavailable)),
            (io::ErrorKind::ConnectionReset, Some(ServiceUnavailable)),
            (io::ErrorKind::ConnectionAborted, Some(ServiceUnavailable)),
            (io::ErrorKind::NotConnected, Some(ServiceUnavailable)),
            (io::ErrorKind::BrokenPipe, Some(ServiceUnavailable)),
            (io::ErrorKind::AlreadyExists, Some(Conflict)),
            (io::ErrorKind::InvalidInput, Some(ValidationError)),
            (io::ErrorKind::InvalidData, Some(ValidationError)),
            (io::ErrorKind::Other, None),
            (io::ErrorKind::UnexpectedEof, None),
            (io::ErrorKind::Unsupported, None),
        ];
        for (kind, expected) in cases {
            assert_eq!(io_kind_code(kind), expected, "{kind:?}");
            // The message says something else on purpose: the kind wins.
            let err = io::Error::new(kind, "rate limit exceeded");
            assert_eq!(classify(&err), expected.unwrap_or(RateLimited), "{kind:?}");
        }
        assert_eq!(classify(&io::Error::from(io::ErrorKind::Other)), InternalError);
    }

    #[test]
    fn io_error_wrapped_in_a_custom_error() {
        let err = Wrapper::new("could not load the profile", io::Error::from(io::ErrorKind::PermissionDenied));
        assert_eq!(classify(&err), Forbidden);
        let deeper = Wrapper::new(
            "tool failed",
            Wrapper::new("fetch failed", io::Error::from(io::ErrorKind::ConnectionRefused)),
        );
        assert_eq!(classify(&deeper), ServiceUnavailable);
    }

    #[test]
    fn mcp_error_deep_in_the_chain_keeps_its_code() {
        let err = Wrapper::new(
            "outer: invalid token",
            Wrapper::new(
                "middle",
                McpError::database_error("The write failed.").with_cause(io::Error::from(io::ErrorKind::NotFound)),
            ),
        );
        // Typed before text, outermost typed error first.
        assert_eq!(classify(&err), DatabaseError);
        // io::Error::other hides the wrapped error from source(); it is still found.
        let hidden = io::Error::other(Wrapper::new("context", McpError::not_found("No such page.")));
        assert_eq!(classify(&hidden), NotFound);
        // An io::Error whose kind decides is outermost and wins over what it wraps.
        let timed_out = io::Error::new(io::ErrorKind::TimedOut, McpError::conflict("Exists."));
        assert_eq!(classify(&timed_out), Timeout);
    }

    #[test]
    fn serde_json_errors_are_the_callers() {
        let syntax = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        assert_eq!(classify(&syntax), ValidationError);
        let data = serde_json::from_str::<u8>("300").unwrap_err();
        assert_eq!(classify(&data), ValidationError);
        let wrapped = Wrapper::new("could not read the arguments", serde_json::from_str::<bool>("tru").unwrap_err());
        assert_eq!(classify(&wrapped), ValidationError);
        // An I/O failure under serde_json is classified by its kind.
        let io = serde_json::from_reader::<_, serde_json::Value>(FailingReader(io::ErrorKind::TimedOut)).unwrap_err();
        assert_eq!(classify(&io), Timeout);
        let other = serde_json::from_reader::<_, serde_json::Value>(FailingReader(io::ErrorKind::Other)).unwrap_err();
        assert_eq!(classify(&other), InternalError);
    }

    struct FailingReader(io::ErrorKind);

    impl io::Read for FailingReader {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::from(self.0))
        }
    }

    #[test]
    fn parse_errors_are_validation_errors() {
        assert_eq!(classify(&"x".parse::<i32>().unwrap_err()), ValidationError);
        assert_eq!(classify(&"x".parse::<f64>().unwrap_err()), ValidationError);
        assert_eq!(classify(&"x".parse::<bool>().unwrap_err()), ValidationError);
        assert_eq!(classify(&"xy".parse::<char>().unwrap_err()), ValidationError);
        assert_eq!(classify(&"x".parse::<std::net::IpAddr>().unwrap_err()), ValidationError);
        let bytes = vec![0xff, 0xfe];
        assert_eq!(classify(&std::str::from_utf8(&bytes).unwrap_err()), ValidationError);
        assert_eq!(classify(&String::from_utf8(bytes).unwrap_err()), ValidationError);
        assert_eq!(classify(&String::from_utf16(&[0xd800]).unwrap_err()), ValidationError);
        let wrapped = Wrapper::new("page must be a number", "ten".parse::<u32>().unwrap_err());
        assert_eq!(classify(&wrapped), ValidationError);
    }

    #[tokio::test]
    async fn elapsed_is_a_timeout() {
        let elapsed = tokio::time::timeout(std::time::Duration::ZERO, std::future::pending::<()>()).await.unwrap_err();
        assert_eq!(classify(&elapsed), Timeout);
        assert_eq!(classify(&Wrapper::new("upstream call", elapsed)), Timeout);
    }

    #[tokio::test]
    async fn join_errors_are_never_timeouts() {
        let task = tokio::spawn(std::future::pending::<()>());
        task.abort();
        let cancelled = task.await.unwrap_err();
        assert!(cancelled.is_cancelled());
        assert_eq!(classify_parts("Error", &cancelled.to_string()), Timeout, "what the text layer alone says");
        assert_eq!(classify(&cancelled), ServiceUnavailable);

        let panicked = tokio::spawn(async { panic!("user not found") }).await.unwrap_err();
        assert!(panicked.is_panic());
        assert_eq!(classify(&panicked), InternalError);
    }

    #[test]
    fn text_layer_walks_the_chain_outermost_first() {
        // The reference's "fetch failed" with a refused connection as its cause.
        let fetch = Wrapper::new("fetch failed", io::Error::other("connect ECONNREFUSED 127.0.0.1:443"));
        assert_eq!(classify(&fetch), ServiceUnavailable);
        // The outer message decides when it is recognised.
        let outer = Wrapper::new("user not found", io::Error::other("connection refused"));
        assert_eq!(classify(&outer), NotFound);
        let nothing = Wrapper::new("fetch failed", io::Error::other("oops"));
        assert_eq!(classify(&nothing), InternalError);
    }

    #[test]
    fn a_source_that_loops_ends() {
        #[derive(Debug)]
        struct Loop;
        impl fmt::Display for Loop {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("loop")
            }
        }
        impl StdError for Loop {
            fn source(&self) -> Option<&(dyn StdError + 'static)> {
                Some(&Loop)
            }
        }
        assert_eq!(classify(&Loop), InternalError);
    }
}
