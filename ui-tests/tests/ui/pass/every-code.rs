#![deny(warnings)]
//! Every `JsonRpcErrorCode` can be declared; keeps the macro's list in step with the runtime.
use mcp_contract::prelude::*;

/// Fails in every way there is.
#[mcp_tool(allow(error-contract-code-unknown-error, error-contract-reason-unused), errors(
    a(code = ParseError, when = "w", recovery = "Do this one thing next, please."),
    b(code = InvalidRequest, when = "w", recovery = "Do this one thing next, please."),
    c(code = MethodNotFound, when = "w", recovery = "Do this one thing next, please."),
    d(code = InvalidParams, when = "w", recovery = "Do this one thing next, please."),
    e(code = InternalError, when = "w", recovery = "Do this one thing next, please."),
    f(code = ServiceUnavailable, when = "w", recovery = "Do this one thing next, please."),
    g(code = NotFound, when = "w", recovery = "Do this one thing next, please."),
    h(code = Conflict, when = "w", recovery = "Do this one thing next, please."),
    i(code = RateLimited, when = "w", recovery = "Do this one thing next, please."),
    j(code = Timeout, when = "w", recovery = "Do this one thing next, please."),
    k(code = Forbidden, when = "w", recovery = "Do this one thing next, please."),
    l(code = Unauthorized, when = "w", recovery = "Do this one thing next, please."),
    m(code = ValidationError, when = "w", recovery = "Do this one thing next, please."),
    n(code = ConfigurationError, when = "w", recovery = "Do this one thing next, please."),
    o(code = InitializationFailed, when = "w", recovery = "Do this one thing next, please."),
    p(code = DatabaseError, when = "w", recovery = "Do this one thing next, please."),
    cancelled(code = RequestCancelled, when = "w", recovery = "Do this one thing next, please."),
    q(code = SerializationError, when = "w", recovery = "Do this one thing next, please."),
    r(code = JsonRpcErrorCode::UnknownError, when = "w", recovery = "Do this one thing next, please."),
))]
fn everything() -> Result<String, McpError> {
    Ok(String::new())
}

fn main() {
    assert_eq!(EverythingReason::ALL.len(), JsonRpcErrorCode::ALL.len());
    for (reason, code) in EverythingReason::ALL.iter().zip(JsonRpcErrorCode::ALL) {
        assert_eq!(reason.code(), code);
    }
}
