#![deny(warnings)]
//! `params_renamed`: a params struct renamed for serde compiles; the variables
//! are checked against its serde names when the server is built.
use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ImageParams {
    object_id: u32,
    #[serde(rename = "px")]
    size: Option<u32>,
}

/// One image of an object.
#[mcp_resource(uri = "museum://objects/{objectId}/image{?px}", params_renamed)]
fn object_image(params: ImageParams) -> Result<String, McpError> {
    Ok(format!("{} at {:?}", params.object_id, params.size))
}

fn main() {
    assert_eq!(Resource::definition(&ObjectImage).uri, "museum://objects/{objectId}/image{?px}");
}
