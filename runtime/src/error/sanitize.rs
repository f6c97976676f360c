//! What of a client's input may reach a log: the values of sensitive keys
//! (passwords, tokens, keys) are replaced before [`try_catch`](super::try_catch())
//! logs an operation's input, wherever a log carries client text.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde_json::Value;

/// What replaces the value of a sensitive key in logged input and context.
pub const REDACTED: &str = "[REDACTED]";

/// The field names whose values never reach a log, after lowercasing and
/// dropping every character but ASCII letters and digits.
///
/// The reference framework's list (`password`, `token`, `secret`, `apiKey`,
/// `credential`, `jwt`, `ssn`, `cvv`, `authorization`, `cookie`, `clientSecret`,
/// `privateKey`) plus `passwd`. See [`is_sensitive_key`] for how a key matches.
pub const SENSITIVE_FIELDS: &[&str] = &[
    "password",
    "passwd",
    "token",
    "secret",
    "apikey",
    "credential",
    "jwt",
    "ssn",
    "cvv",
    "authorization",
    "cookie",
    "clientsecret",
    "privatekey",
];

/// How deep [`sanitize_for_logging`] walks before it stops copying: input is
/// arbitrary, and a log line is no reason to exhaust the stack.
const MAX_SANITIZE_DEPTH: usize = 64;

/// Whether the values of `key` are kept out of logs.
///
/// A key splits into lowercase words at every character other than an ASCII
/// letter or digit, between a lowercase letter and a capital (`apiKey`), before
/// the last capital of a run followed by a lowercase letter (`HTTPSecret`), and
/// around each run of digits (`apiKey2`). The key is sensitive when some run of
/// adjacent words, joined, is one of [`SENSITIVE_FIELDS`]: `apiKey`, `API_KEY`,
/// `x-api-key`, `accessToken`, `refresh_token`, `upstream_private_key`,
/// `Authorization` all are. A word that merely contains a name is not:
/// `max_tokens`, `tokenizer`, `passwordless` are kept, as in the reference
/// framework — a count of tokens is not a secret, and redacting it would hide
/// the very input that explains a failure.
///
/// ```
/// use mcp_contract::errors::sanitize::is_sensitive_key;
/// assert!(is_sensitive_key("X-Api-Key") && is_sensitive_key("client_secret") && is_sensitive_key("passwd"));
/// assert!(!is_sensitive_key("max_tokens") && !is_sensitive_key("objectId"));
/// ```
pub fn is_sensitive_key(key: &str) -> bool {
    let longest = SENSITIVE_FIELDS.iter().map(|name| name.len()).max().unwrap_or(0);
    let words = key_words(key);
    let mut run = String::with_capacity(longest + 16);
    for start in 0..words.len() {
        run.clear();
        for word in &words[start..] {
            if run.len() >= longest {
                break;
            }
            run.push_str(word);
            if SENSITIVE_FIELDS.contains(&run.as_str()) {
                return true;
            }
        }
    }
    false
}

/// The lowercase words of a key, split as [`is_sensitive_key`] describes.
fn key_words(key: &str) -> Vec<String> {
    let chars: Vec<char> = key.chars().collect();
    let mut words = Vec::new();
    let mut word = String::new();
    for (i, &ch) in chars.iter().enumerate() {
        if !ch.is_ascii_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let boundary = i > 0 && {
            let prev = chars[i - 1];
            let next = chars.get(i + 1).copied();
            (prev.is_ascii_lowercase() && ch.is_ascii_uppercase())
                || (prev.is_ascii_uppercase()
                    && ch.is_ascii_uppercase()
                    && next.is_some_and(|n| n.is_ascii_lowercase()))
                || (prev.is_ascii_digit() != ch.is_ascii_digit() && prev.is_ascii_alphanumeric())
        };
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.push(ch.to_ascii_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// `value` with the value of every [sensitive key](is_sensitive_key) replaced
/// by [`REDACTED`], through nested objects and arrays. Below 64 levels of
/// nesting the rest is replaced by a note rather than walked.
///
/// ```
/// use mcp_contract::errors::sanitize::sanitize_for_logging;
/// use serde_json::json;
/// let input = json!({"user": "ada", "auth": {"accessToken": "t", "scopes": ["read"]},
///                    "headers": [{"Authorization": "Bearer x"}], "max_tokens": 100});
/// assert_eq!(sanitize_for_logging(input), json!({"user": "ada", "auth": {"accessToken": "[REDACTED]",
///            "scopes": ["read"]}, "headers": [{"Authorization": "[REDACTED]"}], "max_tokens": 100}));
/// ```
pub fn sanitize_for_logging(value: Value) -> Value {
    sanitize_at(value, 0)
}

/// `text` with the secrets it shows replaced by [`REDACTED`]: the values of
/// [sensitive keys](is_sensitive_key) as a JSON document holds them (walked as
/// [`sanitize_for_logging`] walks input) or as `key=value` / `"key": value`
/// pairs of a form, a query, a header dump or a cut JSON excerpt; and the
/// credential after `Bearer` or `Basic`. What upstream services answered
/// (captured by the HTTP error helpers) goes through it.
///
/// ```
/// use mcp_contract::errors::sanitize::redact_text;
/// assert_eq!(redact_text("user=ada&password=hunter2&page=3"), "user=ada&password=[REDACTED]&page=3");
/// let json = redact_text(r#"{"error":"denied","api_key":"k-123"}"#);
/// assert!(json.contains(r#""api_key":"[REDACTED]""#) && json.contains(r#""error":"denied""#) && !json.contains("k-123"));
/// assert_eq!(redact_text("invalid header Authorization: Bearer abc.def"), "invalid header Authorization: [REDACTED]");
/// assert_eq!(redact_text("rejected Bearer abc.def for /v1"), "rejected [REDACTED] for /v1");
/// assert_eq!(redact_text("max_tokens=100"), "max_tokens=100");
/// ```
pub fn redact_text(text: &str) -> Cow<'_, str> {
    if let Ok(document @ (Value::Object(_) | Value::Array(_))) = serde_json::from_str::<Value>(text) {
        return Cow::Owned(sanitize_for_logging(document).to_string());
    }
    static PAIR: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?P<key>"?[A-Za-z0-9_.\-]+"?)(?P<sep>\s*[=:]\s*)(?P<value>"(?:[^"\\]|\\.)*"?|(?:(?i:bearer|basic)\s+)?[^\s&,;"}\]]+)"#)
            .expect("a valid pattern")
    });
    static SCHEME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=\-]+").expect("a valid pattern"));
    let pairs = PAIR.replace_all(text, |pair: &Captures<'_>| {
        let key = &pair["key"];
        if is_sensitive_key(key.trim_matches('"')) {
            let quoted = pair["value"].starts_with('"');
            let value = if quoted { format!("\"{REDACTED}\"") } else { REDACTED.to_owned() };
            format!("{key}{}{value}", &pair["sep"])
        } else {
            pair[0].to_owned()
        }
    });
    match SCHEME.replace_all(&pairs, REDACTED) {
        Cow::Borrowed(_) => pairs,
        Cow::Owned(redacted) => Cow::Owned(redacted),
    }
}

/// `text` cut to `max` characters and marked with "…", or `None` when it is
/// short enough: how a string of client text is bounded wherever an answer
/// or a log line quotes it (an error message, a refusal's issue, an enrichment
/// echoing the query), so a 10 MB argument never comes back whole.
pub(crate) fn cap_chars(text: &str, max: usize) -> Option<String> {
    let (cut, _) = text.char_indices().nth(max)?;
    Some(format!("{}…", &text[..cut]))
}

fn sanitize_at(value: Value, depth: usize) -> Value {
    if depth >= MAX_SANITIZE_DEPTH && (value.is_object() || value.is_array()) {
        return Value::String(format!("[nested deeper than {MAX_SANITIZE_DEPTH} levels]"));
    }
    match value {
        Value::Object(object) => Value::Object(
            object
                .into_iter()
                .map(|(key, value)| {
                    let value = if is_sensitive_key(&key) {
                        Value::String(REDACTED.to_owned())
                    } else {
                        sanitize_at(value, depth + 1)
                    };
                    (key, value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(|item| sanitize_at(item, depth + 1)).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn sensitive_keys_match_whole_words_in_any_spelling() {
        let sensitive = [
            "password",
            "PASSWORD",
            "userPassword",
            "passwd",
            "db_passwd",
            "secret",
            "token",
            "access_token",
            "accessToken",
            "refresh-token",
            "api_key",
            "apikey",
            "apiKey",
            "APIKey",
            "API_KEY",
            "x-api-key",
            "apiKey2",
            "authorization",
            "Proxy-Authorization",
            "cookie",
            "Set-Cookie",
            "private_key",
            "privateKey",
            "upstream_private_key",
            "client_secret",
            "clientSecret",
            "HTTPSecret",
            "jwt",
            "cvv2",
            "credential",
        ];
        for key in sensitive {
            assert!(is_sensitive_key(key), "{key} should be sensitive");
        }
        let plain = ["max_tokens", "MAX_TOKENS", "tokenizer", "passwordless", "keyboard", "objectId", "author", ""];
        for key in plain {
            assert!(!is_sensitive_key(key), "{key} should be kept");
        }
    }

    #[test]
    fn key_words_split_like_the_reference() {
        assert_eq!(key_words("HTTPSecretKey2x"), ["http", "secret", "key", "2", "x"]);
        assert_eq!(key_words("x--api__key"), ["x", "api", "key"]);
        assert_eq!(key_words("naïveToken"), ["na", "ve", "token"]);
    }

    #[test]
    fn deep_input_is_cut_not_overflowed() {
        let mut value = json!({"token": "t"});
        for _ in 0..1_000 {
            value = json!([value]);
        }
        let sanitized = sanitize_for_logging(value);
        let mut depth = 0;
        let mut cursor = &sanitized;
        while let Value::Array(items) = cursor {
            cursor = &items[0];
            depth += 1;
        }
        assert_eq!(depth, MAX_SANITIZE_DEPTH);
        assert!(cursor.as_str().unwrap().starts_with("[nested deeper"));
    }
}
