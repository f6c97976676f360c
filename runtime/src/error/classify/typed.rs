//! The typed layer: the `source()` chain, and the errors whose type decides their code.

use std::error::Error as StdError;
use std::io::ErrorKind;

use crate::error::{JsonRpcErrorCode, McpError};

/// Guards the chain walk against a `source()` that returns its own error.
const MAX_CHAIN_DEPTH: usize = 64;

/// The chain of `err`, outermost first.
pub(super) fn chain<'a>(err: &'a (dyn StdError + 'static)) -> impl Iterator<Item = &'a (dyn StdError + 'static)> {
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
pub(super) fn typed_code(err: &(dyn StdError + 'static)) -> Option<JsonRpcErrorCode> {
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
    use crate::error::classify::{classify, classify_parts};
    use JsonRpcErrorCode::*;
    use std::fmt;
    use std::io;

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
