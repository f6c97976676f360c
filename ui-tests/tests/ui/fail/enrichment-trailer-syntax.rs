use mcp_contract::prelude::*;

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CountEnrichment {
    /// How many objects there are.
    pub total_count: Option<u64>,
}

/// Count the collection's objects.
#[mcp_tool(
    enrichment = CountEnrichment,
    trailer(
        totalCount(lable = "Objects"),
        shown(label = ""),
        cap(render = "render_cap"),
        page,
        notice(),
        totalCount(label = "Again"),
    )
)]
fn count_objects() -> Result<String, McpError> {
    Ok("120".into())
}

/// The renderer's signature is no `fn(&Value) -> String`.
#[mcp_tool(enrichment = CountEnrichment, trailer(totalCount(render = wrong_renderer)))]
fn count_again() -> Result<String, McpError> {
    Ok("120".into())
}

fn wrong_renderer(total: u64) -> String {
    total.to_string()
}

fn main() {}
