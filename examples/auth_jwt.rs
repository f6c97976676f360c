//! Bearer tokens on Streamable HTTP: HS256 JWTs signed with a shared secret,
//! and a tool that needs the scope `loans:write`. A request without a valid
//! token gets 401; a caller without the scope gets a `Forbidden` tool error
//! naming the missing scope; the handler reads its caller from `ctx.auth()`.
//! (Over stdio nothing is checked: the process that launched the server is
//! the boundary.)
//!
//! ```text
//! export MCP_AUTH_SECRET_KEY="$(openssl rand -hex 32)"
//! cargo run --example auth_jwt -- --http 127.0.0.1:8080
//! cargo run --example auth_jwt -- token loans:write     # a token for your client, valid an hour
//! ```

use std::process::ExitCode;

use mcp_contract::auth::{AuthConfig, env};
use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
pub struct LoanInput {
    /// Object ID in the collection, e.g. 100019.
    pub object_id: u32,
    /// The borrowing institution, e.g. "Rijksmuseum".
    pub borrower: String,
}

/// Lend an object to another institution.
#[mcp_tool(auth("loans:write"), annotations(idempotent, open_world = false))]
async fn lend_object(input: LoanInput, ctx: Ctx) -> Result<String, McpError> {
    let caller = ctx.auth().and_then(|caller| caller.subject.as_deref()).unwrap_or("anonymous");
    Ok(format!("Object {} lent to {} by {caller}.", input.object_id, input.borrower))
}

/// Tell which caller the server sees and the scopes it holds.
#[mcp_tool(annotations(read_only, open_world = false))]
async fn whoami(ctx: Ctx) -> Result<String, McpError> {
    Ok(match ctx.auth() {
        Some(caller) => {
            let scopes: Vec<&str> = caller.scopes.iter().map(String::as_str).collect();
            format!("{} with {}", caller.subject.as_deref().unwrap_or("?"), scopes.join(" "))
        }
        None => "nobody".to_owned(),
    })
}

fn server(secret: &str) -> Server {
    mcp_contract::server_from_crate!().tool(LendObject).tool(Whoami).auth(AuthConfig::jwt(secret))
}

/// A token for `subject` with `scopes` (space-separated), valid an hour.
fn mint(secret: &str, subject: &str, scopes: &str) -> String {
    let now = jsonwebtoken::get_current_timestamp();
    let claims = serde_json::json!({"sub": subject, "scope": scopes, "iat": now, "exp": now + 3600});
    let key = jsonwebtoken::EncodingKey::from_secret(secret.as_bytes()).expect("an HMAC key");
    jsonwebtoken::encode(&jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256), &claims, &key).expect("a token")
}

#[tokio::main]
#[allow(clippy::print_stdout, reason = "the token subcommand prints the token")]
async fn main() -> ExitCode {
    let Ok(secret) = std::env::var(env::SECRET_KEY) else {
        eprintln!("set {} to a secret of at least 32 bytes: `export {0}=\"$(openssl rand -hex 32)\"`", env::SECRET_KEY);
        return ExitCode::from(2);
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|arg| arg == "token") {
        println!("{}", mint(&secret, "ada", &args[1..].join(" ")));
        return ExitCode::SUCCESS;
    }
    server(&secret).run_cli().await
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::loopback;

    const SECRET: &str = "an example secret of 32 bytes or more";

    fn lend() -> serde_json::Value {
        json!({"name": "lend_object", "arguments": {"object_id": 100019, "borrower": "Rijksmuseum"}})
    }

    #[tokio::test]
    async fn a_token_with_the_scope_lends_and_one_without_is_refused() {
        let served = loopback::serve(server(SECRET)).await;

        let anonymous = served.stateless("tools/call", lend(), json!({}), None).await;
        assert_eq!(anonymous.status, 401);
        assert!(
            anonymous.header("www-authenticate").starts_with("Bearer resource_metadata="),
            "{:?}",
            anonymous.headers
        );
        let forged = served
            .stateless(
                "tools/call",
                lend(),
                json!({}),
                Some(&mint("another secret, 32 bytes or more", "ada", "loans:write")),
            )
            .await;
        assert_eq!(forged.status, 401);

        let granted = mint(SECRET, "ada", "loans:write");
        let lent = served.stateless("tools/call", lend(), json!({}), Some(&granted)).await;
        assert_eq!(
            lent.message["result"]["content"][0]["text"], "Object 100019 lent to Rijksmuseum by ada.",
            "{}",
            lent.message
        );

        let reader = mint(SECRET, "bob", "loans:read");
        let refused = served.stateless("tools/call", lend(), json!({}), Some(&reader)).await;
        let result = &refused.message["result"];
        assert_eq!(result["isError"], true, "{}", refused.message);
        let error = &result["structuredContent"]["error"];
        assert_eq!(error["code"], JsonRpcErrorCode::Forbidden.as_i32());
        assert_eq!(error["data"]["missingScopes"], json!(["loans:write"]));
        let whoami =
            served.stateless("tools/call", json!({"name": "whoami", "arguments": {}}), json!({}), Some(&reader)).await;
        assert_eq!(whoami.message["result"]["content"][0]["text"], "bob with loans:read", "{}", whoami.message);
    }

    #[tokio::test]
    async fn the_protected_resource_metadata_names_the_scopes() {
        let served = loopback::serve(server(SECRET)).await;
        let metadata: serde_json::Value =
            serde_json::from_str(&served.get("/.well-known/oauth-protected-resource").await.text().await.unwrap())
                .unwrap();
        assert_eq!(metadata["scopes_supported"], json!(["loans:write"]));
    }
}
