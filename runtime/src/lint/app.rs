//! The MCP Apps rules: a tool's app URI (`meta-ui-resource-uri-required`,
//! `meta-ui-resource-uri-scheme`, checked again here for hand-written tools) and
//! its pairing with a resource the server serves (`app-tool-resource-pairing`).

use super::{DefinitionKind, Diagnostic};
use crate::define::{DynResource, DynTool};
use crate::rules::{APP_TOOL_RESOURCE_PAIRING, check};
use mcp_contract_uri_template::UriTemplate;

pub(super) fn check(tools: &[&dyn DynTool], resources: &[&dyn DynResource], out: &mut Vec<Diagnostic>) {
    for tool in tools {
        let definition = tool.definition();
        let Some(uri) = definition.app else { continue };
        let report = |rule, text: String| {
            Diagnostic::new(rule, DefinitionKind::Tool, definition.name, Some("/_meta/ui/resourceUri".into()), text)
        };
        if let Err(rule) = check::app_uri(uri) {
            if !tool.checked_at_compile_time() {
                out.push(report(rule, format!("the tool's app URI `{uri}` is empty or no `ui://` URI: serve the MCP App at a `ui://` resource and name it")));
            }
            if rule.severity == crate::rules::Severity::Error {
                continue;
            }
        }
        let served = resources.iter().any(|resource| {
            let template = resource.definition().uri;
            template == uri || UriTemplate::parse(template).is_ok_and(|template| template.match_uri(uri).is_some())
        });
        if !served {
            let registered: Vec<&str> = resources.iter().map(|resource| resource.definition().uri).collect();
            let known = if registered.is_empty() {
                "the server registers no resource".to_owned()
            } else {
                format!(
                    "it registers {}",
                    registered.iter().map(|uri| format!("`{uri}`")).collect::<Vec<_>>().join(", ")
                )
            };
            out.push(report(
                APP_TOOL_RESOURCE_PAIRING,
                format!("the tool's app `{uri}` is no resource of this server ({known}), so a host could not fetch its UI: register the `#[mcp_resource(uri = \"{uri}\", ..)]` that serves its HTML"),
            ));
        }
    }
}
