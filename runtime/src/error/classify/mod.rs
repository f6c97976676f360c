//! Classification: which [`JsonRpcErrorCode`] an arbitrary error deserves.
//!
//! Two layers, first hit wins:
//!
//! 1. **Typed**, over the whole `source()` chain, outermost first: an
//!    [`McpError`](crate::error::McpError) keeps its code; `std::io::Error` by
//!    [`ErrorKind`](std::io::ErrorKind); `serde_json::Error` by category; number
//!    and UTF-8 parse errors; tokio's `Elapsed` and `JoinError`.
//! 2. **Text**, the reference framework's classifier ([`classify_parts`]) applied
//!    to each message of the chain, outermost first.
//!
//! Users read all of it on [`classify()`], re-exported by `error` (this module
//! is the crate's own, so `error::classify` names the function alone).

// The text layer's tables are in `patterns`, the one pass over a text that
// finds them in `matcher`, the chain walk and the typed layer in `typed`.
mod matcher;
mod patterns;
mod typed;

use std::error::Error as StdError;

use self::matcher::{MATCHER, hinted_patterns};
use self::patterns::{HINTS, PATTERNS, TYPE_NAMES};
use self::typed::{chain, typed_code};
use crate::error::JsonRpcErrorCode;

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
/// | [`McpError`](crate::error::McpError) | its own code |
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
/// The reference (`@cyanheads/mcp-ts-core`) only has the text layer and only
/// looks at the outermost error, which is why its users saw a refused
/// connection wrapped in "fetch failed" reported as an internal error. The text
/// layer here agrees with the reference case for case; everything beyond it
/// lives in the typed layer.
///
/// ```
/// use mcp_contract::{JsonRpcErrorCode, McpError, errors::classify};
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
/// use mcp_contract::{JsonRpcErrorCode, errors::classify_parts};
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
/// order: the 20 provider patterns, then the 10 common ones. The benchmark's
/// naive classifier reads it through `__private`.
pub(crate) fn pattern_table() -> &'static [(&'static str, JsonRpcErrorCode)] {
    &PATTERNS
}

/// The reference's type-name table, for the same readers.
pub(crate) fn type_name_table() -> &'static [(&'static str, JsonRpcErrorCode)] {
    &TYPE_NAMES
}

/// The name the text layer gives a Rust error (see [`classify`]).
const RUST_ERROR_NAME: &str = "Error";

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

#[cfg(test)]
mod tests {
    use super::*;
    use JsonRpcErrorCode::*;

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
}
