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
pub const APP_MIME_TYPE: &str = mcp_contract_rules::check::APP_MIME_TYPE;

/// The deprecated flat key that current hosts still read beside `_meta.ui.resourceUri`.
pub const RESOURCE_URI_META_KEY: &str = "ui/resourceUri";

/// A browser capability an app asks its host's sandbox for, the iframe `allow`
/// list of `McpUiResourceMeta.permissions`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AppPermission {
    /// `camera`.
    Camera,
    /// `microphone`.
    Microphone,
    /// `geolocation`.
    Geolocation,
    /// `clipboard-write` (`clipboardWrite`).
    ClipboardWrite,
}

impl AppPermission {
    /// Its key under `_meta.ui.permissions`.
    pub const fn key(self) -> &'static str {
        match self {
            Self::Camera => "camera",
            Self::Microphone => "microphone",
            Self::Geolocation => "geolocation",
            Self::ClipboardWrite => "clipboardWrite",
        }
    }
}

/// The sandbox settings of an app resource, `_meta.ui` of `McpUiResourceMeta`.
/// Empty lists are left out, so the host's defaults apply.
/// `#[mcp_resource(ui(..))]` writes one from the attribute.
///
/// ```
/// use mcp_contract::apps::{AppPermission, AppUi};
/// const UI: AppUi = AppUi::new()
///     .with_connect_domains(&["https://api.example.org"])
///     .with_permissions(&[AppPermission::ClipboardWrite])
///     .with_prefers_border(true);
/// assert_eq!(UI.to_json()["csp"]["connectDomains"][0], "https://api.example.org");
/// assert_eq!(UI.to_json()["permissions"], serde_json::json!({"clipboardWrite": {}}));
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
    /// Browser capabilities it asks the sandbox for.
    pub permissions: &'static [AppPermission],
    /// A dedicated sandbox origin, as the host names them.
    pub domain: Option<&'static str>,
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
            permissions: &[],
            domain: None,
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

    /// Set the origins of `<base>`.
    #[must_use]
    pub const fn with_base_uri_domains(mut self, domains: &'static [&'static str]) -> Self {
        self.base_uri_domains = domains;
        self
    }

    /// Set the browser capabilities it asks the sandbox for.
    #[must_use]
    pub const fn with_permissions(mut self, permissions: &'static [AppPermission]) -> Self {
        self.permissions = permissions;
        self
    }

    /// Set a dedicated sandbox origin (host-specific).
    #[must_use]
    pub const fn with_domain(mut self, domain: &'static str) -> Self {
        self.domain = Some(domain);
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
        if !self.permissions.is_empty() {
            let permissions = self.permissions.iter().map(|permission| (permission.key().to_owned(), json!({})));
            ui.insert("permissions".to_owned(), Value::Object(permissions.collect()));
        }
        if let Some(domain) = self.domain {
            ui.insert("domain".to_owned(), Value::String(domain.to_owned()));
        }
        if let Some(prefers_border) = self.prefers_border {
            ui.insert("prefersBorder".to_owned(), Value::Bool(prefers_border));
        }
        Value::Object(ui)
    }
}
