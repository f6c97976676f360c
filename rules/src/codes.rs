//! The JSON-RPC error codes of MCP servers, once: the number, the name a
//! contract writes (`code = NotFound`), the category and the factory of each.
//!
//! The macros read names and numbers from here at compile time, and the runtime
//! builds errors with the same enum, so the two never hold two tables.

use std::fmt;

macro_rules! codes {
    ($( $(#[doc = $doc:literal])* $name:ident = $value:literal => $category:ident, $factory:expr; )*) => {
        /// The JSON-RPC error codes of MCP servers: the five of JSON-RPC 2.0 and the
        /// server-defined range the reference framework uses.
        ///
        /// Serializes as its number.
        ///
        /// ```
        /// use mcp_contract::JsonRpcErrorCode;
        /// assert_eq!(JsonRpcErrorCode::NotFound.as_i32(), -32001);
        /// assert_eq!(JsonRpcErrorCode::from_i32(-32003), Some(JsonRpcErrorCode::RateLimited));
        /// assert_eq!(serde_json::to_string(&JsonRpcErrorCode::Timeout).unwrap(), "-32004");
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(i32)]
        pub enum JsonRpcErrorCode {
            $( $(#[doc = $doc])* $name = $value, )*
        }

        impl JsonRpcErrorCode {
            /// Every code, in declaration order.
            pub const ALL: [Self; codes!(@count $($name)*)] = [$(Self::$name),*];

            /// The variant names of [`ALL`](Self::ALL), in order: what `code = ..` accepts.
            pub const NAMES: [&'static str; codes!(@count $($name)*)] = [$(stringify!($name)),*];

            /// The code for a number, if it is one of ours.
            pub const fn from_i32(value: i32) -> Option<Self> {
                match value {
                    $( $value => Some(Self::$name), )*
                    _ => None,
                }
            }

            /// The variant's name, as written in a contract: `"NotFound"`.
            pub const fn name(self) -> &'static str {
                match self {
                    $( Self::$name => stringify!($name), )*
                }
            }

            /// The code for a variant name (`"NotFound"`), as written in a contract.
            pub fn from_name(name: &str) -> Option<Self> {
                match name {
                    $( stringify!($name) => Some(Self::$name), )*
                    _ => None,
                }
            }

            /// Who is at fault when this code is returned.
            pub const fn category(self) -> ErrorCategory {
                match self {
                    $( Self::$name => ErrorCategory::$category, )*
                }
            }

            /// The `McpError` factory function that builds this code, where one
            /// exists: `NotFound` -> `Some("not_found")`. The `prefer-error-factory`
            /// lint suggests these.
            pub const fn factory(self) -> Option<&'static str> {
                match self {
                    $( Self::$name => $factory, )*
                }
            }
        }
    };
    (@count $($name:ident)*) => { 0 $(+ codes!(@one $name))* };
    (@one $name:ident) => { 1 };
}

codes! {
    /// The request is not valid JSON. Rarely a tool's business: the transport answers it.
    ParseError = -32700 => Client, None;
    /// The request is JSON but not a valid request, or a precondition of it does not hold.
    InvalidRequest = -32600 => Client, Some("invalid_request");
    /// No such method (or, for tools, no such tool).
    MethodNotFound = -32601 => Client, None;
    /// The arguments do not decode: wrong type, missing field, malformed value.
    InvalidParams = -32602 => Client, Some("invalid_params");
    /// A bug or an unexpected state of the server; the fallback of classification.
    InternalError = -32603 => Server, Some("internal_error");
    /// An upstream service is down or unreachable; retrying later may work.
    ServiceUnavailable = -32000 => Upstream, Some("service_unavailable");
    /// The thing asked for does not exist.
    NotFound = -32001 => Client, Some("not_found");
    /// The request conflicts with the current state (already exists, version mismatch).
    Conflict = -32002 => Client, Some("conflict");
    /// Too many requests: the caller or an upstream is throttled; retry after a pause.
    RateLimited = -32003 => Upstream, Some("rate_limited");
    /// The operation or an upstream call took too long.
    Timeout = -32004 => Upstream, Some("timeout");
    /// The caller is known but not allowed to do this.
    Forbidden = -32005 => Client, Some("forbidden");
    /// The caller is not authenticated, or its credentials are invalid or expired.
    Unauthorized = -32006 => Client, Some("unauthorized");
    /// The arguments decode but break a rule of the domain (range, format, combination).
    ValidationError = -32007 => Client, Some("validation_error");
    /// The server is misconfigured: a missing key, a bad setting.
    ConfigurationError = -32008 => Server, Some("configuration_error");
    /// A component failed to start.
    InitializationFailed = -32009 => Server, None;
    /// A database operation failed.
    DatabaseError = -32010 => Server, Some("database_error");
    /// The caller abandoned the request: it cancelled it, or went away. Nobody
    /// is left to answer, so it is never retried (the reference's, since 0.12.4).
    RequestCancelled = -32011 => Client, Some("request_cancelled");
    /// A value could not be serialized or deserialized by the server.
    SerializationError = -32070 => Server, Some("serialization_error");
    /// An error of unknown origin; prefer a specific code.
    UnknownError = -32099 => Server, None;
}

impl JsonRpcErrorCode {
    /// Codes any handler may produce without declaring them: they bubble up from
    /// services, utilities and the classifier, so a contract lists only the
    /// handler's intentional failures. The reference framework's list;
    /// `error-contract-conformance` exempts them.
    /// `RequestCancelled` is one since the reference's 0.12.4: the framework
    /// answers it for any handler whose caller went away.
    pub const BASELINE: [Self; 6] = [
        Self::InternalError,
        Self::ServiceUnavailable,
        Self::Timeout,
        Self::ValidationError,
        Self::SerializationError,
        Self::RequestCancelled,
    ];

    /// The code as the number sent on the wire.
    pub const fn as_i32(self) -> i32 {
        self as i32
    }

    /// Whether trying again later may succeed: the upstream category
    /// (ServiceUnavailable, RateLimited, Timeout).
    pub const fn is_transient(self) -> bool {
        matches!(self.category(), ErrorCategory::Upstream)
    }

    /// Whether a handler may produce this code without declaring it (see [`BASELINE`](Self::BASELINE)).
    pub fn is_baseline(self) -> bool {
        Self::BASELINE.contains(&self)
    }

    /// The code a number in `code = ..` names: one of ours (`-32001`), or an
    /// HTTP status (`404`, 400 to 999) mapped by [`http_status_to_error_code`].
    pub fn from_number(number: i64) -> Option<Self> {
        if let Ok(value) = i32::try_from(number)
            && let Some(code) = Self::from_i32(value)
        {
            return Some(code);
        }
        match u16::try_from(number) {
            Ok(status @ 400..=999) => http_status_to_error_code(status),
            _ => None,
        }
    }
}

impl fmt::Display for JsonRpcErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.as_i32())
    }
}

/// Who is at fault for an error, as the reference framework groups codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCategory {
    /// A service we depend on failed: ServiceUnavailable, RateLimited, Timeout.
    Upstream,
    /// We failed: InternalError, UnknownError, DatabaseError, ConfigurationError,
    /// InitializationFailed, SerializationError.
    Server,
    /// The caller asked for something wrong: every other code.
    Client,
}

impl ErrorCategory {
    /// The lowercase name, as serialized: `"upstream"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Upstream => "upstream",
            Self::Server => "server",
            Self::Client => "client",
        }
    }
}

/// The JSON-RPC code of an HTTP error status; `None` below 400, where a status is
/// not an error.
///
/// | Status | Code |
/// |:--|:--|
/// | 400 | `InvalidParams` |
/// | 401 | `Unauthorized` |
/// | 402, 403 | `Forbidden` (payment required reads as access denied) |
/// | 404 | `NotFound` |
/// | 408, 425 | `Timeout` |
/// | 409, 423, 424 | `Conflict` |
/// | 422 | `ValidationError` |
/// | 429 | `RateLimited` |
/// | other 4xx | `InvalidRequest` |
/// | 504 | `Timeout` |
/// | other 5xx and above | `ServiceUnavailable` |
///
/// This is the table of the reference framework (`@cyanheads/mcp-ts-core`)
/// since 0.12.4, checked against its recorded answers for every status in
/// 100..=599. No status maps to `InternalError`: a remote status cannot say
/// that this server failed, so 500 and 501 are `ServiceUnavailable` like the
/// rest of 5xx (before 0.12.4 both were `InternalError`). A 501 will not
/// change on a retry: [`upstream`](https://docs.rs/mcp-contract-runtime/latest/mcp_contract_runtime/error/upstream/index.html)
/// marks its error `data.retryable: false`, which `with_retry` honours.
/// Statuses above 599 are not HTTP statuses, but `http::StatusCode` admits up to
/// 999; they follow the reference's `>= 500` branch.
///
/// ```
/// use mcp_contract::{JsonRpcErrorCode, errors::http_status_to_error_code};
/// assert_eq!(http_status_to_error_code(429), Some(JsonRpcErrorCode::RateLimited));
/// assert_eq!(http_status_to_error_code(418), Some(JsonRpcErrorCode::InvalidRequest));
/// assert_eq!(http_status_to_error_code(503), Some(JsonRpcErrorCode::ServiceUnavailable));
/// assert_eq!(http_status_to_error_code(304), None);
/// ```
pub const fn http_status_to_error_code(status: u16) -> Option<JsonRpcErrorCode> {
    use JsonRpcErrorCode::*;
    Some(match status {
        0..=399 => return None,
        400 => InvalidParams,
        401 => Unauthorized,
        402 | 403 => Forbidden,
        404 => NotFound,
        408 | 425 => Timeout,
        409 | 423 | 424 => Conflict,
        422 => ValidationError,
        429 => RateLimited,
        504 => Timeout,
        _ if status >= 500 => ServiceUnavailable,
        _ => InvalidRequest,
    })
}

#[cfg(feature = "serde")]
mod wire {
    use serde::de::{self, Deserializer};
    use serde::ser::Serializer;
    use serde::{Deserialize, Serialize};

    use super::{ErrorCategory, JsonRpcErrorCode};

    impl Serialize for JsonRpcErrorCode {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_i32(self.as_i32())
        }
    }

    impl<'de> Deserialize<'de> for JsonRpcErrorCode {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let value = i32::deserialize(deserializer)?;
            Self::from_i32(value).ok_or_else(|| {
                de::Error::invalid_value(de::Unexpected::Signed(value.into()), &"an MCP JSON-RPC error code")
            })
        }
    }

    impl Serialize for ErrorCategory {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_str(self.as_str())
        }
    }

    impl<'de> Deserialize<'de> for ErrorCategory {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let name = <&str>::deserialize(deserializer)?;
            [Self::Upstream, Self::Server, Self::Client]
                .into_iter()
                .find(|category| category.as_str() == name)
                .ok_or_else(|| de::Error::unknown_variant(name, &["upstream", "server", "client"]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_numbers_and_lookups_agree() {
        for (code, name) in JsonRpcErrorCode::ALL.into_iter().zip(JsonRpcErrorCode::NAMES) {
            assert_eq!(code.name(), name);
            assert_eq!(JsonRpcErrorCode::from_name(name), Some(code));
            assert_eq!(JsonRpcErrorCode::from_i32(code.as_i32()), Some(code));
            assert_eq!(JsonRpcErrorCode::from_number(code.as_i32().into()), Some(code));
        }
    }

    #[test]
    fn numbers_read_as_http_statuses_from_400_to_999() {
        assert_eq!(JsonRpcErrorCode::from_number(404), Some(JsonRpcErrorCode::NotFound));
        assert_eq!(JsonRpcErrorCode::from_number(999), Some(JsonRpcErrorCode::ServiceUnavailable));
        for number in [200, 399, 1000, -1, 70000, i64::MAX] {
            assert_eq!(JsonRpcErrorCode::from_number(number), None, "{number}");
        }
    }

    #[test]
    fn the_baseline_is_the_references() {
        let names = JsonRpcErrorCode::BASELINE.map(JsonRpcErrorCode::name);
        assert_eq!(
            names,
            [
                "InternalError",
                "ServiceUnavailable",
                "Timeout",
                "ValidationError",
                "SerializationError",
                "RequestCancelled"
            ]
        );
    }
}
