//! The code `#[mcp_tool]` generates compiles clean under strict lints in a user's
//! crate; `cargo clippy --all-targets -- -D warnings` (CI) checks the pedantic set.
#![deny(warnings, clippy::pedantic, missing_docs, unused, unused_qualifications, unreachable_pub, unused_results)]

use mcp_contract::prelude::*;

/// The input.
#[derive(Deserialize, JsonSchema)]
pub struct Input {
    /// An id.
    pub id: u32,
}

/// The output.
#[derive(Serialize, JsonSchema)]
pub struct Output {
    /// A title.
    pub title: String,
}

/// Renders an output.
#[must_use]
pub fn render(output: &Output) -> String {
    output.title.clone()
}

/// Fetch one object by its ID.
///
/// # Errors
/// `not_in_collection` when the ID is 0.
#[mcp_tool(
    annotations(read_only),
    input_aliases(id = ["object_id", "objectId"]),
    repair_arguments = true,
    format = render,
    auth("objects:read"),
    errors(not_in_collection(code = NotFound, when = "No object has this ID",
        recovery = "Search with search_objects first to find valid object IDs.", retryable = false)),
)]
pub fn get_object(Input { id }: Input, ctx: &Ctx) -> Result<Output, McpError> {
    if id == 0 {
        return Err(ctx.fail(not_in_collection, "No object 0.").with_recovery());
    }
    Ok(Output { title: format!("object {id}") })
}

/// Say hello.
///
/// # Errors
/// Never.
#[mcp_tool]
pub fn hello() -> Result<String, McpError> {
    Ok("hello".to_owned())
}

/// Tools in a private module: what is generated for them must not be `pub`
/// beyond what the module reaches (`unreachable_pub`).
mod private {
    use mcp_contract::prelude::*;

    /// The reason names used as the author's own names: `timeout` the reason
    /// and `tokio::time::timeout` the function live side by side.
    #[mcp_tool(
        tool_type = SlowLookup,
        reason_type = SlowLookupFailure,
        errors(timeout(code = Timeout, when = "The lookup took too long",
            recovery = "Ask for fewer objects in one call.")),
    )]
    pub(crate) async fn slow(ctx: Ctx) -> Result<String, McpError> {
        let timeout = std::time::Duration::from_millis(1);
        match tokio::time::timeout(timeout, std::future::pending::<()>()).await {
            Ok(()) => Ok("done".to_owned()),
            Err(elapsed) => Err(ctx.fail(timeout, "The lookup took too long.").with_cause(elapsed)),
        }
    }

    /// The facade reached through a re-export, as serde's `crate = ..`.
    #[mcp_tool(crate = crate::reexport::mcp)]
    fn through_reexport(input: super::Input) -> Result<String, McpError> {
        if input.id == 0 {
            return Err(McpError::invalid_params("The id 0 names no object."));
        }
        Ok(input.id.to_string())
    }

    pub(crate) fn names() -> [&'static str; 2] {
        [SlowLookup.definition().name, ThroughReexport.definition().name]
    }
}

mod reexport {
    pub(crate) use mcp_contract as mcp;
}

#[test]
fn renamed_and_reexported_tools() {
    assert_eq!(private::names(), ["slow", "through_reexport"]);
}

#[test]
fn generated_items_exist() {
    assert_eq!(GetObject.definition().name, "get_object");
    assert_eq!(GetObject.definition().auth_scopes, ["objects:read"]);
    assert_eq!(Hello.definition().auth_scopes, &[] as &[&str]);
    assert_eq!(GetObjectReason::ALL.len(), 1);
}

/// A room of the museum, a single-select of a form.
#[derive(Deserialize, Serialize, JsonSchema, FormField)]
pub enum Room {
    /// The Egyptian wing.
    Egyptian,
    /// The Greek wing.
    Greek,
}

/// A visitor's e-mail address, a field of what it wraps.
#[derive(Deserialize, JsonSchema, FormField)]
pub struct Email(pub String);

/// A booking, asked for in a form; through a re-export too.
#[derive(Deserialize, JsonSchema, ElicitForm)]
pub struct Booking {
    /// Who the visit is for.
    pub email: Email,
    /// The room, the Greek wing unless the user picks another.
    #[serde(default = "greek")]
    pub room: Room,
    /// What else the visit holds.
    pub extras: Vec<Room>,
}

fn greek() -> Room {
    Room::Greek
}

/// A form whose derives name the crate through a re-export.
#[derive(Deserialize, JsonSchema, mcp_contract::context::ElicitForm)]
#[elicit(crate = reexport::mcp)]
pub struct Confirm {
    /// Whether to go on.
    pub confirm: bool,
}

#[test]
fn the_form_derives_expand_clean_and_their_forms_build() {
    let form = mcp_contract::context::form_schema::<Booking>().unwrap();
    assert_eq!(form["properties"]["room"]["default"], "Greek");
    assert!(mcp_contract::context::form_schema::<Confirm>().is_ok());
}
