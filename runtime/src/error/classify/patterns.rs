//! The reference's tables, translated from JavaScript: type names, patterns,
//! and the literals and hints the matcher finds them by.

use crate::error::JsonRpcErrorCode;

pub(super) const TYPE_NAMES: [(&str, JsonRpcErrorCode); 7] = [
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
pub(super) const PATTERNS: [(&str, JsonRpcErrorCode); 30] = {
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
pub(super) const HINTS: [(u8, &str, &str); 6] = [
    (20, "authorized", js!("not", js_space!(), "+authorized")),
    (20, "logged", js!("not", js_dot!(), "*logged", js_dot!(), "*in")),
    (20, "token", js!("invalid", js_space_underscore_dash!(), "+token|expired", js_space_underscore_dash!(), "+token")),
    (21, "denied", js!("access", js_dot!(), "*denied")),
    (21, "allowed", js!("not", js_dot!(), "*allowed")),
    (23, "missing", js!("missing", js_space!(), "+(?:required|param|field|input|value|arg)")),
];

/// The exact literals of each pattern of [`PATTERNS`], by index. The alternatives
/// of pattern 8 (`status code 5\d\d`) are generated; the other alternatives of
/// patterns 20, 21 and 23 are in [`HINTS`].
pub(super) const LITERALS: [(u8, &[&str]); 29] = [
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
pub(super) const SERVER_ERROR_STATUS: u8 = 8;

/// Patterns 3 to 8 all begin with it.
pub(super) const STATUS_CODE: &str = "status code ";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles_on_its_own() {
        for (pattern, _) in PATTERNS {
            regex::Regex::new(pattern).unwrap_or_else(|err| panic!("{pattern}: {err}"));
        }
    }
}
