//! How the expansion runs a plain handler: on tokio's blocking pool.

use crate::error::McpError;

/// Run a plain (`fn`, not `async fn`) handler on tokio's blocking pool, so a
/// handler that computes for seconds holds no worker thread that reads
/// requests or runs other calls. `#[mcp_tool]` wraps every `fn` handler in it.
///
/// Outside a tokio runtime the handler runs in place. A panic in the handler
/// resumes in the caller (the server turns it into an internal error result).
/// A blocking handler cannot be aborted when the client cancels its call: a
/// long one checks [`Context::is_cancelled`](crate::call::Context::is_cancelled) now and then.
pub async fn run_blocking<T, F>(handler: F) -> Result<T, McpError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, McpError> + Send + 'static,
{
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return handler();
    };
    match runtime.spawn_blocking(handler).await {
        Ok(result) => result,
        Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
        Err(_) => {
            Err(McpError::internal_error("The tool call stopped before it finished: the server is shutting down."))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::run_blocking;
    use crate::error::McpError;

    #[tokio::test]
    async fn a_handler_runs_on_the_blocking_pool_and_gives_its_result() {
        let sum = run_blocking(|| Ok::<_, McpError>((1..=100u32).sum::<u32>())).await;
        assert_eq!(sum.unwrap(), 5050);
    }

    #[test]
    fn outside_a_runtime_the_handler_runs_in_place() {
        let mut call = std::pin::pin!(run_blocking(|| Ok::<_, McpError>(42)));
        let mut context = std::task::Context::from_waker(std::task::Waker::noop());
        let std::task::Poll::Ready(answer) = call.as_mut().poll(&mut context) else {
            panic!("the handler ran in place, so the first poll finishes")
        };
        assert_eq!(answer.unwrap(), 42);
    }
}
