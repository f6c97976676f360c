#![deny(warnings)]
//! Shared state: `State<T>` parameters in any position, several types, with or
//! without input and context; a sync handler; a path-qualified `State`.
use mcp_contract::prelude::*;

pub struct Pool {
    pub url: String,
}

pub struct Settings {
    pub greeting: &'static str,
}

#[derive(Deserialize, JsonSchema)]
pub struct Name {
    /// Who to greet.
    pub name: String,
}

/// State between input and context.
#[mcp_tool]
pub async fn greet(input: Name, settings: State<Settings>, ctx: Ctx) -> Result<String, McpError> {
    ctx.log(LogLevel::Debug, "greeting").await;
    Ok(format!("{} {}", settings.greeting, input.name))
}

/// Two state types, first and last, with a contract.
#[mcp_tool(errors(pool_down(code = ServiceUnavailable, retryable, when = "The pool has no connection",
    recovery = "Wait a few seconds, then call connect again.")))]
pub async fn connect(pool: State<Pool>, ctx: Ctx, settings: mcp_contract::State<Settings>) -> Result<String, McpError> {
    if pool.url.is_empty() {
        return Err(ctx.fail(pool_down, "No database URL is configured."));
    }
    Ok(format!("{} {}", settings.greeting, pool.url))
}

/// Only state, sync.
#[mcp_tool]
fn pool_url(pool: State<Pool>) -> Result<String, McpError> {
    Ok(pool.url.clone())
}

fn main() {
    let server = Server::new("state", "1.0.0")
        .state(Pool { url: "postgres://localhost/museum".into() })
        .state(Settings { greeting: "Hello" })
        .tool(Greet)
        .tool(Connect)
        .tool(PoolUrl);
    let _ = server.build().expect("every state type is registered");
    let _ = Connect::test_ctx();
}
