//! The smallest server: one tool and the usual command line.
//!
//! ```text
//! cargo run --example hello                            # stdio, for a client that launches it
//! cargo run --example hello -- --http 127.0.0.1:8080   # Streamable HTTP at /mcp
//! cargo run --example hello -- lint                    # the definition linter
//! ```

use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
pub struct HelloInput {
    /// Who to greet, e.g. "Ada".
    pub name: String,
}

/// Greet someone by name.
#[mcp_tool(annotations(read_only, open_world = false))]
fn hello(input: HelloInput) -> Result<String, McpError> {
    Ok(format!("Hello, {}!", input.name))
}

fn server() -> Server {
    mcp_contract::server_from_crate!().tool(Hello)
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    server().run_cli().await
}

#[cfg(test)]
mod tests {
    use mcp_contract::testing::Client;
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn says_hello() {
        let client = Client::connect(server()).await.expect("the server builds and passes the linter");
        assert_eq!(client.call(Hello, json!({"name": "Ada"})).await.unwrap(), "Hello, Ada!");
        let tools = client.list_tools().await.unwrap();
        assert_eq!(tools.iter().map(|tool| tool.name.as_ref()).collect::<Vec<_>>(), ["hello"]);
        let err = client.call(Hello, json!({})).await.unwrap_err();
        assert_eq!(err.code(), JsonRpcErrorCode::InvalidParams, "{err}");
    }
}
