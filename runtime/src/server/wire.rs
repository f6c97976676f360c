//! The rmcp wire types of what this crate defines: a tool's `tools/list` entry
//! and its results, resources' and prompts' list entries and contents, and an
//! [`McpError`] in the JSON-RPC error envelope. Every conversion to rmcp's model
//! is here, so the handlers speak in the crate's own types.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{CallToolResult, CompletionInfo, ContentBlock, ErrorCode, ErrorData, MetaObject};
use serde_json::{Value, json};

use crate::define::{
    Completion, Content, PromptContent, PromptDefinition, PromptMessage, RESOURCE_URI_META_KEY, ReadResourceResult,
    ResourceContent, ResourceDefinition, Role, TextOrBlob, ToolDefinition, ToolOutput, extend_output_schema,
};
use crate::error::sanitize::cap_chars;
use crate::error::{ErrorContract, JsonObject, McpError, new_request_id, render};

/// `Mcp-Session-Id`, as a header name: a lookup by a `&str` parses the name
/// each time.
pub(crate) const SESSION_ID_HEADER: http::HeaderName = http::HeaderName::from_static("mcp-session-id");

/// `MCP-Protocol-Version`, as a header name.
pub(crate) const PROTOCOL_VERSION_HEADER: http::HeaderName = http::HeaderName::from_static("mcp-protocol-version");

/// The `_meta` key under which `tools/list` publishes a tool's error contract:
/// a list of `{reason, code, when, recovery, retryable}`.
pub const ERRORS_META_KEY: &str = "io.github.mcp-contract/errors";

pub(super) fn success_result(output: ToolOutput) -> CallToolResult {
    let mut result = CallToolResult::success(output.content.into_iter().map(content_block).collect());
    result.structured_content = output.structured;
    result
}

/// The tool-error result of `err`: the same JSON as [`render::tool_error_result`],
/// its message [`bounded`], with its `data.requestId` (see [`with_request_id`]).
pub(super) fn error_result(err: &McpError) -> CallToolResult {
    let err = with_request_id(bounded(err));
    let mut result = CallToolResult::error(vec![ContentBlock::text(render::error_text(&err))]);
    result.structured_content = Some(render::structured_error(&err));
    result
}

/// `err` with its message cut to [`MAX_ERROR_MESSAGE_CHARS`] and "…": a
/// handler that formats a 10 MB argument into its message answers (and rmcp
/// logs) a short error on either transport.
pub(super) fn bounded(err: &McpError) -> Cow<'_, McpError> {
    match cap_chars(err.message(), MAX_ERROR_MESSAGE_CHARS) {
        Some(cut) => Cow::Owned(err.clone().with_message(cut)),
        None => Cow::Borrowed(err),
    }
}

/// The most characters of an error message sent to the client (or logged
/// with a call); longer ones, which only quote input at length, are cut.
pub(crate) const MAX_ERROR_MESSAGE_CHARS: usize = 1024;

pub(super) fn content_block(content: Content) -> ContentBlock {
    use crate::define::EmbeddedResource;
    use rmcp::model::ResourceContents;
    match content {
        Content::Text { text } => ContentBlock::text(text),
        Content::Image { data, mime_type } => ContentBlock::image(data, mime_type),
        Content::Audio { data, mime_type } => ContentBlock::audio(data, mime_type),
        Content::Resource { resource: EmbeddedResource::Text { uri, mime_type, text } } => {
            ContentBlock::resource(ResourceContents::TextResourceContents { uri, mime_type, text, meta: None })
        }
        Content::Resource { resource: EmbeddedResource::Blob { uri, mime_type, blob } } => {
            ContentBlock::resource(ResourceContents::BlobResourceContents { uri, mime_type, blob, meta: None })
        }
        Content::ResourceLink(link) => {
            let mut resource = rmcp::model::Resource::new(link.uri, link.name);
            resource.title = link.title;
            resource.description = link.description;
            resource.mime_type = link.mime_type;
            ContentBlock::resource_link(resource)
        }
    }
}

/// A tool's `tools/list` entry.
pub(super) fn listed_tool(definition: &ToolDefinition) -> rmcp::model::Tool {
    let mut tool = rmcp::model::Tool::new_with_raw(
        definition.name,
        definition.description.map(Cow::Borrowed),
        Arc::clone(&definition.input_schema),
    );
    if let Some(title) = definition.title {
        tool = tool.with_title(title);
    }
    if let Some(schema) = &definition.output_schema {
        // The result carries the enrichment fields beside the domain output.
        let schema = match &definition.enrichment {
            Some(enrichment) => Cow::Owned(extend_output_schema(schema, enrichment)),
            None => Cow::Borrowed(&**schema),
        };
        // Strict clients validate error results against it too; see `schema::widen_for_error_results`.
        tool = tool.with_raw_output_schema(Arc::new(crate::schema::widen_for_error_results(&schema)));
    }
    if !definition.annotations.is_empty() {
        let a = definition.annotations;
        tool = tool.with_annotations(rmcp::model::ToolAnnotations::from_raw(
            a.title.map(str::to_owned),
            a.read_only_hint,
            a.destructive_hint,
            a.idempotent_hint,
            a.open_world_hint,
        ));
    }
    let mut meta = contract_meta(definition.errors).map(|meta| meta.0).unwrap_or_default();
    if let Some(resource_uri) = definition.app {
        // Hosts read `_meta.ui.resourceUri`, and the older ones the flat key.
        meta.insert("ui".to_owned(), json!({ "resourceUri": resource_uri }));
        meta.insert(RESOURCE_URI_META_KEY.to_owned(), Value::String(resource_uri.to_owned()));
    }
    if !meta.is_empty() {
        tool = tool.with_meta(MetaObject(meta));
    }
    tool
}

/// An [`McpError`] as a JSON-RPC error: the same `{code, message, data?}` a tool
/// error's `structuredContent.error` holds, with its `data.requestId` (see
/// [`with_request_id`]).
pub(super) fn envelope(err: &McpError) -> ErrorData {
    let err = with_request_id(bounded(err));
    ErrorData::new(ErrorCode(err.code().as_i32()), err.message().to_owned(), err.data().cloned().map(Value::Object))
}

/// `err` as answered: a call's errors carry its id already (stamped by the
/// call's `answer`, the id of its log line and span); a refusal before any
/// call (a scope, a capability) gets a fresh one here, so that no error a
/// client receives goes without.
fn with_request_id(err: Cow<'_, McpError>) -> Cow<'_, McpError> {
    if err.request_id().is_some() {
        return err;
    }
    Cow::Owned(err.into_owned().with_request_id(&new_request_id()))
}

/// A JSON-RPC error built as rmcp's [`ErrorData`] (an unknown tool, a cursor
/// this server never gave) with a fresh `data.requestId`, as every error a
/// client receives has one. `data` that is no object is kept under `data.value`.
pub(super) fn stamped(mut error: ErrorData) -> ErrorData {
    let mut data = match error.data.take() {
        Some(Value::Object(data)) => data,
        None | Some(Value::Null) => JsonObject::new(),
        Some(other) => JsonObject::from_iter([("value".to_owned(), other)]),
    };
    data.entry("requestId").or_insert_with(|| Value::String(new_request_id()));
    error.data = Some(Value::Object(data));
    error
}

pub(super) fn wire_content(
    content: ResourceContent,
    uri: &str,
    mime_type: Option<&str>,
    meta: Option<MetaObject>,
) -> rmcp::model::ResourceContents {
    let uri = content.uri.unwrap_or_else(|| uri.to_owned());
    let mime_type = content.mime_type.or_else(|| mime_type.map(str::to_owned));
    match content.body {
        TextOrBlob::Text(text) => rmcp::model::ResourceContents::TextResourceContents { uri, mime_type, text, meta },
        TextOrBlob::Blob(blob) => rmcp::model::ResourceContents::BlobResourceContents { uri, mime_type, blob, meta },
    }
}

/// The contents of a `resources/read` of `definition` at `uri`; an app's
/// sandbox settings go on every content, where hosts look for them first.
pub(super) fn wire_contents(
    contents: ReadResourceResult,
    uri: &str,
    definition: &ResourceDefinition,
) -> Vec<rmcp::model::ResourceContents> {
    let ui = definition.ui.map(|ui| MetaObject([("ui".to_owned(), ui.to_json())].into_iter().collect()));
    contents
        .into_contents()
        .into_iter()
        .map(|content| wire_content(content, uri, definition.mime_type, ui.clone()))
        .collect()
}

/// A resource's or template's `_meta`: its error contract and an app's sandbox settings.
fn resource_meta(definition: &ResourceDefinition) -> Option<MetaObject> {
    let mut meta = contract_meta(definition.errors).map(|meta| meta.0).unwrap_or_default();
    if let Some(ui) = definition.ui {
        meta.insert("ui".to_owned(), ui.to_json());
    }
    (!meta.is_empty()).then_some(MetaObject(meta))
}

pub(super) fn wire_message(message: PromptMessage) -> rmcp::model::PromptMessage {
    let role = match message.role {
        Role::User => rmcp::model::Role::User,
        Role::Assistant => rmcp::model::Role::Assistant,
    };
    let content = match message.content {
        PromptContent::Text(text) => ContentBlock::text(text),
        PromptContent::Image { data, mime_type } => ContentBlock::image(data, mime_type),
        PromptContent::Resource(content) => {
            // `PromptMessage::resource` always sets the URI.
            let uri = content.uri.clone().unwrap_or_default();
            ContentBlock::resource(wire_content(content, &uri, None, None))
        }
    };
    rmcp::model::PromptMessage::new(role, content)
}

pub(super) fn wire_completion(completion: Completion) -> CompletionInfo {
    let Completion { mut values, total, mut has_more, .. } = completion;
    if values.len() > Completion::MAX_VALUES {
        values.truncate(Completion::MAX_VALUES);
        has_more = true;
    }
    CompletionInfo::with_pagination(values, total, has_more).unwrap_or_default()
}

pub(super) fn contract_meta(errors: &'static [ErrorContract]) -> Option<MetaObject> {
    if errors.is_empty() {
        return None;
    }
    let mut meta = JsonObject::new();
    meta.insert(ERRORS_META_KEY.to_owned(), serde_json::to_value(errors).unwrap_or(Value::Array(Vec::new())));
    Some(MetaObject(meta))
}

pub(super) fn listed_resource(definition: &ResourceDefinition) -> rmcp::model::Resource {
    let mut resource = rmcp::model::Resource::new(definition.uri, definition.name);
    resource.title = definition.title.map(str::to_owned);
    resource.description = definition.description.map(str::to_owned);
    resource.mime_type = definition.mime_type.map(str::to_owned);
    resource.meta = resource_meta(definition);
    resource
}

pub(super) fn listed_template(definition: &ResourceDefinition) -> rmcp::model::ResourceTemplate {
    let mut template = rmcp::model::ResourceTemplate::new(definition.uri, definition.name);
    template.title = definition.title.map(str::to_owned);
    template.description = definition.description.map(str::to_owned);
    template.mime_type = definition.mime_type.map(str::to_owned);
    template.meta = resource_meta(definition);
    template
}

pub(super) fn listed_prompt(definition: &PromptDefinition) -> rmcp::model::Prompt {
    let arguments = definition
        .arguments
        .iter()
        .map(|argument| {
            let mut listed = rmcp::model::PromptArgument::new(argument.name.as_str()).with_required(argument.required);
            if let Some(description) = &argument.description {
                listed = listed.with_description(description.as_str());
            }
            listed
        })
        .collect::<Vec<_>>();
    let mut prompt = rmcp::model::Prompt::new(definition.name, definition.description, Some(arguments));
    prompt.title = definition.title.map(str::to_owned);
    prompt.meta = contract_meta(definition.errors);
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::define::{EmbeddedResource, ResourceLink};

    #[test]
    fn every_content_kind_reaches_rmcp_as_its_own_mcp_json() {
        let blocks = [
            Content::text("Wheat Field with Cypresses"),
            Content::image_base64("iVBORw0KGgo=", "image/png"),
            Content::audio_base64("UklGRiQAAABXQVZF", "audio/wav"),
            Content::resource(EmbeddedResource::text("museum://objects/1", "{}").with_mime_type("application/json")),
            Content::resource(EmbeddedResource::text("museum://objects/2", "A vase.")),
            Content::resource(
                EmbeddedResource::blob_base64("museum://objects/1/scan", "JVBERi0=").with_mime_type("application/pdf"),
            ),
            Content::resource_link(
                ResourceLink::new("museum://objects/1/image", "image-1")
                    .with_title("Image of object 1")
                    .with_description("The museum's photograph.")
                    .with_mime_type("image/jpeg"),
            ),
            Content::resource_link(ResourceLink::new("museum://objects/2", "object-2")),
        ];
        for content in blocks {
            let ours = serde_json::to_value(&content).unwrap();
            let sent = serde_json::to_value(content_block(content)).unwrap();
            assert_eq!(sent, ours);
        }
        let embedded = content_block(Content::resource(EmbeddedResource::blob("museum://x", [0u8])));
        assert_eq!(
            serde_json::to_value(embedded).unwrap(),
            serde_json::json!({"type": "resource", "resource": {"uri": "museum://x", "blob": "AA=="}})
        );
    }
}
