//! Classification: which [`JsonRpcErrorCode`] an arbitrary error deserves.

use std::error::Error as StdError;

use crate::errors::{JsonRpcErrorCode, McpError};

/// The code of an error: an [`McpError`] anywhere in the `source()` chain keeps
/// its code; otherwise [`JsonRpcErrorCode::InternalError`].
pub fn classify(err: &(dyn StdError + 'static)) -> JsonRpcErrorCode {
    let mut next = Some(err);
    while let Some(err) = next {
        if let Some(mcp) = err.downcast_ref::<McpError>() {
            return mcp.code();
        }
        next = err.source();
    }
    classify_parts("Error", &err.to_string())
}

/// The code the reference's text classifier gives an error of type `name` with `message`.
pub fn classify_parts(_name: &str, _message: &str) -> JsonRpcErrorCode {
    JsonRpcErrorCode::InternalError
}
