// The runtime's error codes and factories, as the macro knows them.
//
// A proc-macro crate cannot depend on the runtime it generates code for, so
// the tables are repeated here. `tests/macro_tables.rs` of the facade crate
// `include!`s this file and compares every table with the runtime's own
// (`JsonRpcErrorCode::ALL`, `name`, `as_i32`, `factory_name`,
// `http_status_to_error_code`), so a drift fails `cargo test`. The file is
// self-contained for that reason: no `use crate::..`.

/// One `JsonRpcErrorCode` variant.
pub(crate) struct Code {
    /// The variant name, as written in `code = ..`.
    pub(crate) name: &'static str,
    /// The number on the wire.
    pub(crate) number: i32,
    /// The `McpError` factory that builds it, where there is one.
    pub(crate) factory: Option<&'static str>,
}

/// Every code, in the runtime's declaration order.
pub(crate) const CODES: [Code; 18] = [
    Code { name: "ParseError", number: -32700, factory: None },
    Code { name: "InvalidRequest", number: -32600, factory: Some("invalid_request") },
    Code { name: "MethodNotFound", number: -32601, factory: None },
    Code { name: "InvalidParams", number: -32602, factory: Some("invalid_params") },
    Code { name: "InternalError", number: -32603, factory: Some("internal_error") },
    Code { name: "ServiceUnavailable", number: -32000, factory: Some("service_unavailable") },
    Code { name: "NotFound", number: -32001, factory: Some("not_found") },
    Code { name: "Conflict", number: -32002, factory: Some("conflict") },
    Code { name: "RateLimited", number: -32003, factory: Some("rate_limited") },
    Code { name: "Timeout", number: -32004, factory: Some("timeout") },
    Code { name: "Forbidden", number: -32005, factory: Some("forbidden") },
    Code { name: "Unauthorized", number: -32006, factory: Some("unauthorized") },
    Code { name: "ValidationError", number: -32007, factory: Some("validation_error") },
    Code { name: "ConfigurationError", number: -32008, factory: Some("configuration_error") },
    Code { name: "InitializationFailed", number: -32009, factory: None },
    Code { name: "DatabaseError", number: -32010, factory: Some("database_error") },
    Code { name: "SerializationError", number: -32070, factory: Some("serialization_error") },
    Code { name: "UnknownError", number: -32099, factory: None },
];

/// The variant names of [`CODES`], in order.
pub(crate) const CODE_NAMES: &[&str] = &{
    let mut names = [""; CODES.len()];
    let mut index = 0;
    while index < CODES.len() {
        names[index] = CODES[index].name;
        index += 1;
    }
    names
};

/// Codes any tool may produce without declaring them: they bubble up from
/// services, utilities and the classifier, so the contract lists only the
/// tool's intentional failures. The reference framework's list; the runtime
/// has no table of its own to compare it with.
pub(crate) const BASELINE: [&str; 5] =
    ["InternalError", "ServiceUnavailable", "Timeout", "ValidationError", "SerializationError"];

/// The code a number names: a JSON-RPC number (`-32001`), or an HTTP status
/// (`404`) mapped as the runtime's `http_status_to_error_code` maps it.
pub(crate) fn code_for_number(number: i64) -> Option<&'static str> {
    if let Some(code) = CODES.iter().find(|code| i64::from(code.number) == number) {
        return Some(code.name);
    }
    let status = u16::try_from(number).ok()?;
    Some(match status {
        0..=399 | 1000.. => return None,
        400 => "InvalidParams",
        401 => "Unauthorized",
        402 | 403 => "Forbidden",
        404 => "NotFound",
        408 | 425 => "Timeout",
        409 | 423 | 424 => "Conflict",
        422 => "ValidationError",
        429 => "RateLimited",
        500 | 501 => "InternalError",
        504 => "Timeout",
        500.. => "ServiceUnavailable",
        _ => "InvalidRequest",
    })
}

/// The factory that builds `code`, if any.
pub(crate) fn factory_of(code: &str) -> Option<&'static str> {
    CODES.iter().find(|known| known.name == code).and_then(|known| known.factory)
}
