//! Failures a client can plan for: a tool declares the ways it fails (its
//! contract, published in `tools/list`), raises them with `ctx.fail`, and
//! files an upstream's failure under a declared reason with `ctx.fail_from`.
//! The client gets a tool error result with the code, `data.reason`, the
//! recovery hint and, from the upstream, `data.retryAfter`.
//!
//! ```text
//! cargo run --example errors        # then call appraise with object_id 1, 7 or 429
//! ```

use mcp_contract::errors::{HttpErrorOptions, http_error_from_response};
use mcp_contract::http::Response;
use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
pub struct AppraiseInput {
    /// Object ID in the collection, from 1 to 999.
    pub object_id: u32,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Appraisal {
    /// The insured value, in euros.
    pub value_eur: u64,
}

/// Appraise one object of the collection through the appraisal service.
#[mcp_tool(
    annotations(read_only),
    errors(
        not_in_collection(code = NotFound, when = "No object has this ID",
            recovery = "Check the object ID; the collection's IDs are 1 to 999."),
        appraisal_busy(code = RateLimited, retryable, when = "The appraisal service throttles us",
            recovery = "Wait for retryAfter seconds, then call appraise again."),
    ),
)]
async fn appraise(input: AppraiseInput, ctx: Ctx) -> Result<Appraisal, McpError> {
    if !(1..=999).contains(&input.object_id) {
        return Err(ctx.fail(not_in_collection, format!("No object {} in the collection.", input.object_id)));
    }
    let response = appraisal_service(input.object_id);
    if !response.status().is_success() {
        // The upstream's status, message and Retry-After, under our declared reason.
        let upstream = http_error_from_response(&response, &HttpErrorOptions::new().service("Appraisal service"));
        return Err(ctx.fail_from(appraisal_busy, upstream));
    }
    Ok(Appraisal { value_eur: response.body().parse().map_err(McpError::from_error)? })
}

/// The appraisal service, offline: it throttles object 429.
fn appraisal_service(object_id: u32) -> Response<String> {
    let response = Response::builder();
    let response = match object_id {
        429 => response.status(429).header("retry-after", "30").body(String::new()),
        id => response.status(200).body((u64::from(id) * 1_000).to_string()),
    };
    response.expect("a valid response")
}

fn server() -> Server {
    mcp_contract::server_from_crate!().tool(Appraise)
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    server().run_cli().await
}

#[cfg(test)]
mod tests {
    use mcp_contract::testing::{Cases, Client, assert_contract};
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn each_failure_reaches_the_client_as_declared() {
        let client = Client::connect(server()).await.unwrap();
        assert_eq!(client.call(Appraise, json!({"object_id": 7})).await.unwrap().value_eur, 7_000);

        let err = client.call(Appraise, json!({"object_id": 1000})).await.unwrap_err();
        assert_eq!((err.code(), err.reason()), (JsonRpcErrorCode::NotFound, Some("not_in_collection")));
        assert_eq!(err.message(), "No object 1000 in the collection.");

        // What the client receives: a tool error result, on both surfaces.
        let result = client.call_tool_raw("appraise", json!({"object_id": 429})).await.unwrap();
        assert_eq!(result.is_error, Some(true));
        let error = &result.structured_content.as_ref().expect("structured content")["error"];
        assert_eq!(error["code"], JsonRpcErrorCode::RateLimited.as_i32());
        assert_eq!(error["message"], "Appraisal service returned HTTP 429 Too Many Requests.");
        let data = &error["data"];
        assert_eq!((data["reason"].as_str(), data["retryAfter"].as_u64()), (Some("appraisal_busy"), Some(30)));
        assert_eq!(data["retryable"], true);
        assert!(data["recovery"]["hint"].as_str().unwrap().contains("retryAfter"));
        let text = result.content[0].as_text().unwrap().text.as_str();
        assert!(text.starts_with("Error: Appraisal service returned HTTP 429"), "{text}");
    }

    #[tokio::test]
    async fn the_contract_is_published_and_kept() {
        let client = Client::connect(server()).await.unwrap();
        let tools = client.list_tools().await.unwrap();
        let meta = tools[0].meta.as_ref().expect("the tool's _meta");
        let reasons: Vec<_> = meta[mcp_contract::server::ERRORS_META_KEY]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| entry["reason"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(reasons, ["not_in_collection", "appraisal_busy"]);
        // Generated calls, the declared throttle among them: only declared failures.
        assert_contract(&client, Appraise, Cases::new(100).seed(7).with_examples([json!({"object_id": 429})])).await;
    }
}
