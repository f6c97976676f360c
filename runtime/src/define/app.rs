//! MCP Apps (the extension `io.modelcontextprotocol/ui`, SEP-1865): a tool
//! paired with an interactive HTML resource at a `ui://` URI, which a host
//! renders in a sandboxed frame and hands the tool's result.
//!
//! A tool names its UI with `#[mcp_tool(app = "ui://museum/object-viewer")]`
//! ([`ToolDefinition::with_app`](super::ToolDefinition::with_app)); `tools/list`
//! publishes it as `_meta.ui.resourceUri` and the compatibility key
//! `ui/resourceUri`. The resource serves HTML of [`APP_MIME_TYPE`] and may carry
//! its sandbox settings ([`AppUi`]) under `_meta.ui` in `resources/list` and
//! every `resources/read` content. The server advertises [`UI_EXTENSION`] when a
//! tool has an app.

use serde_json::{Value, json};

use crate::error::JsonObject;

/// The extension's id in the server's `capabilities.extensions`.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML (the spec's `RESOURCE_MIME_TYPE`).
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The deprecated flat key that current hosts still read beside `_meta.ui.resourceUri`.
pub const RESOURCE_URI_META_KEY: &str = "ui/resourceUri";

/// The sandbox settings of an app resource, `_meta.ui` of `McpUiResourceMeta`.
/// Empty lists are left out, so the host's defaults apply.
///
/// ```
/// use mcp_contract::define::AppUi;
/// const UI: AppUi = AppUi::new().with_connect_domains(&["https://api.example.org"]).with_prefers_border(true);
/// assert_eq!(UI.to_json()["csp"]["connectDomains"][0], "https://api.example.org");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AppUi {
    /// Origins the app may fetch from (`connect-src`).
    pub connect_domains: &'static [&'static str],
    /// Origins of its scripts, styles, images, fonts and media.
    pub resource_domains: &'static [&'static str],
    /// Origins it may frame (`frame-src`; `'none'` by default).
    pub frame_domains: &'static [&'static str],
    /// Origins of `<base>` (`base-uri`; `'self'` by default).
    pub base_uri_domains: &'static [&'static str],
    /// Whether the host should draw a border around it.
    pub prefers_border: Option<bool>,
}

impl AppUi {
    /// No settings: the host's default CSP.
    pub const fn new() -> Self {
        Self {
            connect_domains: &[],
            resource_domains: &[],
            frame_domains: &[],
            base_uri_domains: &[],
            prefers_border: None,
        }
    }

    /// Set the origins the app may fetch from.
    #[must_use]
    pub const fn with_connect_domains(mut self, domains: &'static [&'static str]) -> Self {
        self.connect_domains = domains;
        self
    }

    /// Set the origins of its scripts, styles, images, fonts and media.
    #[must_use]
    pub const fn with_resource_domains(mut self, domains: &'static [&'static str]) -> Self {
        self.resource_domains = domains;
        self
    }

    /// Set the origins it may frame.
    #[must_use]
    pub const fn with_frame_domains(mut self, domains: &'static [&'static str]) -> Self {
        self.frame_domains = domains;
        self
    }

    /// Set whether the host should draw a border around it.
    #[must_use]
    pub const fn with_prefers_border(mut self, prefers_border: bool) -> Self {
        self.prefers_border = Some(prefers_border);
        self
    }

    /// `_meta.ui` as the extension writes it.
    pub fn to_json(&self) -> Value {
        let mut csp = JsonObject::new();
        for (key, domains) in [
            ("connectDomains", self.connect_domains),
            ("resourceDomains", self.resource_domains),
            ("frameDomains", self.frame_domains),
            ("baseUriDomains", self.base_uri_domains),
        ] {
            if !domains.is_empty() {
                csp.insert(key.to_owned(), json!(domains));
            }
        }
        let mut ui = JsonObject::new();
        if !csp.is_empty() {
            ui.insert("csp".to_owned(), Value::Object(csp));
        }
        if let Some(prefers_border) = self.prefers_border {
            ui.insert("prefersBorder".to_owned(), Value::Bool(prefers_border));
        }
        Value::Object(ui)
    }
}
