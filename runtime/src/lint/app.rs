//! The MCP Apps rules: a tool's app URI (`meta-ui-resource-uri-required`,
//! `meta-ui-resource-uri-scheme`, checked again here for hand-written tools) and
//! its pairing with a resource the server serves (`app-tool-resource-pairing`),
//! and a hand-written app resource's settings (`meta-ui-resource-mime-type`,
//! `meta-ui-csp-domain`), which `#[mcp_resource(ui(..))]` checks at compile time.

use super::{DefinitionKind, Diagnostic};
use crate::define::{DynResource, DynTool};
use mcp_contract_rules::{APP_TOOL_RESOURCE_PAIRING, META_UI_CSP_DOMAIN, META_UI_RESOURCE_MIME_TYPE, check};
use mcp_contract_uri_template::UriTemplate;

pub(super) fn check(tools: &[&dyn DynTool], resources: &[&dyn DynResource], out: &mut Vec<Diagnostic>) {
    for resource in resources.iter().filter(|resource| !resource.checked_at_compile_time()) {
        check_app_resource(resource.definition(), out);
    }
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
            if rule.severity == mcp_contract_rules::Severity::Error {
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

/// An app resource's MIME type and CSP domains, as `ui(..)` checks them.
fn check_app_resource(definition: &crate::define::ResourceDefinition, out: &mut Vec<Diagnostic>) {
    let Some(ui) = &definition.ui else { return };
    let report = |rule, path: &str, text: String| {
        Diagnostic::new(rule, DefinitionKind::Resource, definition.name, Some(path.to_owned()), text)
    };
    if definition.mime_type != Some(check::APP_MIME_TYPE) {
        let written = definition.mime_type.map_or_else(|| "none".to_owned(), |mime| format!("`{mime}`"));
        out.push(report(
            META_UI_RESOURCE_MIME_TYPE,
            "/mimeType",
            format!(
                "the resource carries MCP App settings (`with_ui`) but its MIME type is {written}: hosts render an app only as `{}`; set `with_mime_type(APP_MIME_TYPE)`",
                check::APP_MIME_TYPE
            ),
        ));
    }
    for (key, domains) in [
        ("connectDomains", ui.connect_domains),
        ("resourceDomains", ui.resource_domains),
        ("frameDomains", ui.frame_domains),
        ("baseUriDomains", ui.base_uri_domains),
    ] {
        for (index, domain) in domains.iter().enumerate() {
            if let Err(why) = check::app_csp_domain(domain) {
                out.push(report(
                    META_UI_CSP_DOMAIN,
                    &format!("/_meta/ui/csp/{key}/{index}"),
                    format!("`{}` is no origin for the app's Content-Security-Policy: {why}", domain.escape_debug()),
                ));
            }
        }
    }
}
