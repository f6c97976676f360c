//! The items `#[mcp_tool]` generates, exercised as a user would.

use mcp_contract::prelude::*;
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
pub struct GetObjectInput {
    /// Object ID in the collection, e.g. 436535.
    pub object_id: u32,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct GetObjectOutput {
    /// Title of the object.
    pub title: String,
    /// Artist display name, when known.
    pub artist: Option<String>,
}

fn render_object(object: &GetObjectOutput) -> String {
    format!("{} by {}", object.title, object.artist.as_deref().unwrap_or("unknown artist"))
}

/// Fetch one object of the collection
/// by its ID.
#[mcp_tool(
    annotations(read_only, open_world = false),
    format = render_object,
    errors(
        not_in_collection(code = NotFound, when = "No object has this ID",
            recovery = "Search with search_objects first to find valid object IDs."),
        upstream_busy(code = RateLimited, retryable, when = "The collection API throttles us",
            recovery = "Wait thirty seconds, then call get_object again."),
    ),
)]
async fn get_object(input: GetObjectInput, ctx: Ctx) -> Result<GetObjectOutput, McpError> {
    match input.object_id {
        1 => {
            Ok(GetObjectOutput { title: "Wheat Field with Cypresses".into(), artist: Some("Vincent van Gogh".into()) })
        }
        429 => Err(ctx.fail(upstream_busy, "The collection API is throttling requests.")),
        id => Err(ctx.fail(not_in_collection, format!("No object {id} in the collection.")).with_recovery()),
    }
}

/// Say hello.
#[mcp_tool(name = "hello.world")]
fn hello() -> Result<String, McpError> {
    Ok("hello".to_owned())
}

#[test]
fn reason_enum_carries_the_contract() {
    assert_eq!(GetObjectReason::ALL, [GetObjectReason::NotInCollection, GetObjectReason::UpstreamBusy]);
    assert_eq!(GetObjectReason::NotInCollection.as_str(), "not_in_collection");
    assert_eq!(GetObjectReason::UpstreamBusy.as_str(), "upstream_busy");
    assert_eq!(GetObjectReason::UpstreamBusy.code(), JsonRpcErrorCode::RateLimited);
    assert!(GetObjectReason::UpstreamBusy.retryable());
    assert!(!GetObjectReason::NotInCollection.retryable());
    assert_eq!(GetObjectReason::NotInCollection.when(), "No object has this ID");
    assert_eq!(GetObjectReason::UpstreamBusy.recovery(), "Wait thirty seconds, then call get_object again.");
    assert_eq!(GetObjectReason::UpstreamBusy.contract(), &<GetObjectReason as Reason>::CONTRACT[1]);
    assert_eq!(GetObjectReason::ALL.iter().map(|reason| reason.index()).collect::<Vec<_>>(), [0, 1]);
}

#[test]
fn definition_is_built_once_from_the_attribute_and_doc_comment() {
    let definition = GetObject.definition();
    assert!(std::ptr::eq(definition, GetObject.definition()), "cached, not rebuilt per call");
    assert_eq!(definition.name, "get_object");
    assert_eq!(definition.description, Some("Fetch one object of the collection by its ID."));
    assert_eq!(definition.annotations.read_only_hint, Some(true));
    assert_eq!(definition.annotations.open_world_hint, Some(false));
    assert_eq!(definition.annotations.destructive_hint, None);
    assert_eq!(definition.errors.len(), 2);
    assert_eq!(definition.errors[1].reason, "upstream_busy");
    assert_eq!(
        definition.errors.iter().map(|entry| entry.retryable).collect::<Vec<_>>(),
        [false, true],
        "only the reason marked `retryable` is"
    );
    assert_eq!(definition.title, None);
    assert!(definition.auth_scopes.is_empty());
    assert!(definition.output_schema.is_some());

    let hello = Hello.definition();
    assert_eq!(hello.name, "hello.world");
    assert!(hello.output_schema.is_none(), "a String tool is text only");
    assert!(hello.errors.is_empty());
}

#[tokio::test]
async fn the_original_handler_stays_callable() {
    let ctx = GetObject::test_ctx();
    let found = get_object(GetObjectInput { object_id: 1 }, ctx.clone()).await.unwrap();
    assert_eq!(found.title, "Wheat Field with Cypresses");
    let err = get_object(GetObjectInput { object_id: 7 }, ctx).await.unwrap_err();
    assert_eq!(err.code(), JsonRpcErrorCode::NotFound);
    assert_eq!(err.reason(), Some("not_in_collection"));
    assert_eq!(err.recovery_hint(), Some("Search with search_objects first to find valid object IDs."));
    assert_eq!(hello().unwrap(), "hello");
}

#[tokio::test]
async fn the_tool_renders_structured_output_and_its_format() {
    let ctx = Context::new("get_object", GetObject.definition().errors);
    let output = GetObject.call(GetObjectInput { object_id: 1 }, ctx.clone()).await.unwrap();
    let rendered = GetObject.render(output).unwrap();
    assert_eq!(rendered.content, vec![Content::text("Wheat Field with Cypresses by Vincent van Gogh")]);
    assert_eq!(rendered.structured, Some(json!({"title": "Wheat Field with Cypresses", "artist": "Vincent van Gogh"})));

    let busy = GetObject.call(GetObjectInput { object_id: 429 }, ctx).await.unwrap_err();
    assert_eq!(
        serde_json::to_value(&busy).unwrap(),
        json!({"code": -32003, "message": "The collection API is throttling requests.", "data": {
            "reason": "upstream_busy",
            "recovery": {"hint": "Wait thirty seconds, then call get_object again."},
            "retryable": true,
        }}),
        "the declared hint and `retryable` come with `ctx.fail`"
    );
}

#[test]
fn fail_keeps_its_reason_and_cause_and_takes_an_explicit_hint_over_the_contract() {
    let ctx = GetObject::test_ctx();
    let io = std::io::Error::new(std::io::ErrorKind::NotFound, "row 7 missing");
    let err = ctx
        .fail(GetObjectReason::NotInCollection, "No object 7.")
        .with_cause(io)
        .with_data(json!({"reason": "caller says otherwise", "objectId": 7}))
        .with_recovery_hint("Try object 1 instead, it always exists.")
        .with_recovery();
    assert_eq!(err.reason(), Some("not_in_collection"));
    assert_eq!(
        serde_json::to_value(&err).unwrap()["data"],
        json!({
            "objectId": 7,
            "reason": "not_in_collection",
            "recovery": {"hint": "Try object 1 instead, it always exists."},
            "retryable": false,
        })
    );
    let cause = std::error::Error::source(&err).expect("the cause is kept");
    assert_eq!(cause.to_string(), "row 7 missing");

    // Without `.with_recovery()` the contract's hint comes all the same, and `.with_recovery()` adds no second one.
    let plain = ctx.fail(GetObjectReason::NotInCollection, "No object 7.");
    assert_eq!(plain.recovery_hint(), Some("Search with search_objects first to find valid object IDs."));
    assert_eq!(plain.clone().with_recovery(), plain);
    assert_eq!(
        serde_json::Value::Object(ctx.recovery_for(GetObjectReason::UpstreamBusy)),
        json!({"recovery": {"hint": "Wait thirty seconds, then call get_object again."}})
    );
    // The untyped context of a service looks hints up by name, and finds none for
    // reasons the calling tool does not declare.
    assert!(ctx.context().recovery_for("upstream_busy").is_some());
    assert!(ctx.context().recovery_for("quota_exceeded").is_none());
}

#[test]
fn schemas_are_portable_snapshots() {
    let definition = GetObject.definition();
    assert_eq!(
        serde_json::Value::Object((*definition.input_schema).clone()),
        json!({
            "type": "object",
            "properties": {
                "object_id": {"type": "integer", "minimum": 0, "description": "Object ID in the collection, e.g. 436535."}
            },
            "required": ["object_id"]
        })
    );
    let output = serde_json::Value::Object((*definition.output_schema.clone().unwrap()).clone());
    assert_eq!(output["properties"]["title"], json!({"type": "string", "description": "Title of the object."}));
    assert_eq!(output["properties"]["artist"]["anyOf"], json!([{"type": "string"}, {"type": "null"}]));
    assert!(mcp_contract::schema::portability_problems(&definition.input_schema).is_empty());

    // A tool without input takes an empty object.
    let hello = Hello.definition();
    assert_eq!(hello.input_schema.get("type"), Some(&json!("object")));
    assert!(hello.errors.is_empty(), "a tool without a contract publishes none");
}

/// Export the whole collection as a file, which takes minutes.
#[mcp_tool(task(required))]
async fn export_collection() -> Result<String, McpError> {
    Ok("exported".to_owned())
}

/// Count the collection's objects.
#[mcp_tool(task(optional))]
fn count_objects() -> Result<String, McpError> {
    Ok("120".to_owned())
}

/// Export one department, which the user picks before the export starts.
#[mcp_tool(task(required, input_first))]
async fn export_department() -> Result<String, McpError> {
    Ok("exported".to_owned())
}

#[test]
fn task_declares_how_calls_run_as_tasks() {
    use mcp_contract::tools::TaskSupport;
    assert_eq!(Tool::definition(&ExportCollection).task_support, TaskSupport::Required);
    assert_eq!(Tool::definition(&CountObjects).task_support, TaskSupport::Optional);
    assert_eq!(Tool::definition(&Hello).task_support, TaskSupport::Forbidden);
    assert!(!Tool::definition(&ExportCollection).task_input_first);
    let department = Tool::definition(&ExportDepartment);
    assert_eq!(department.task_support, TaskSupport::Required);
    assert!(department.task_input_first, "input_first gathers the input before the task");
}

#[derive(Deserialize, JsonSchema)]
pub struct RegionInput {
    /// The region to answer for; the client mirrors it in the `Mcp-Param-Region` header.
    #[schemars(extend("x-mcp-header" = "Region"))]
    pub region: String,
}

/// Answer for a region.
#[mcp_tool]
fn for_region(input: RegionInput) -> Result<String, McpError> {
    Ok(input.region)
}

/// SEP-2243: the `x-mcp-header` annotation of an input field reaches the
/// advertised schema, where the Streamable HTTP transport validates the header by it.
#[test]
fn an_x_mcp_header_annotation_reaches_the_input_schema() {
    let schema = &Tool::definition(&ForRegion).input_schema;
    assert_eq!(schema["properties"]["region"]["x-mcp-header"], "Region", "{schema:?}");
}
