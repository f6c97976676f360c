//! What a person sees of a deployed server: the content of the HTML landing
//! page the Streamable HTTP transport serves at `GET /`.
//!
//! The page itself is rendered from the server's own definitions; [`Landing`]
//! adds what no definition says (a tagline, a logo, links, the repository) and
//! overrides what the page derives (the connect snippets). The definition
//! linter checks it against the `landing-*` rules, and
//! [`Server::build`](crate::server::Server::build) fails on their errors.

use std::fmt;

/// The accent colour the page uses when none is set.
pub const DEFAULT_ACCENT: &str = "#6366f1";

/// The content of the landing page: all of it optional.
///
/// ```
/// use mcp_contract::server::{ConnectTab, Landing};
/// let landing = Landing::new()
///     .tagline("Search a museum's collection and fetch its objects")
///     .repo_root("https://github.com/acme/museum")
///     .link("https://museum.example.org/docs", "Docs")
///     .env_example("MUSEUM_API_KEY", "your-api-key")
///     .connect_snippet(ConnectTab::Claude, "claude mcp add museum https://museum.example.org/mcp")
///     .accent("#0f766e");
/// assert_eq!(landing.accent_or_default(), "#0f766e");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
pub struct Landing {
    pub(crate) enabled: bool,
    pub(crate) tagline: Option<String>,
    pub(crate) logo: Option<String>,
    pub(crate) links: Vec<LandingLink>,
    pub(crate) repo_root: Option<String>,
    pub(crate) env_example: Vec<(String, String)>,
    pub(crate) connect_snippets: Vec<(ConnectTab, String)>,
    pub(crate) accent: Option<String>,
    pub(crate) require_auth: Option<bool>,
}

impl Default for Landing {
    fn default() -> Self {
        Self::new()
    }
}

impl Landing {
    /// The page as the definitions alone make it.
    pub fn new() -> Self {
        Self {
            enabled: true,
            tagline: None,
            logo: None,
            links: Vec::new(),
            repo_root: None,
            env_example: Vec::new(),
            connect_snippets: Vec::new(),
            accent: None,
            require_auth: None,
        }
    }

    /// No page: `GET /` and `/robots.txt` are not served (404). The server
    /// card and the status document stay, they are for machines.
    pub fn disabled() -> Self {
        Self { enabled: false, ..Self::new() }
    }

    /// One line under the name, at most 120 characters (rule
    /// `landing-tagline-length`); the server's description otherwise.
    pub fn tagline(mut self, tagline: impl Into<String>) -> Self {
        self.tagline = Some(tagline.into());
        self
    }

    /// The logo: an `https://` URL, a same-origin path (`/logo.svg`), or a
    /// `data:image/…` URI of at most 24 KiB decoded (rule `landing-logo-size`).
    pub fn logo(mut self, logo: impl Into<String>) -> Self {
        self.logo = Some(logo.into());
        self
    }

    /// A footer link; at most 6 are shown (rule `landing-links-count`). Only
    /// `https:`, `http:`, `mailto:` and same-origin links are rendered (rule
    /// `landing-link-href`).
    pub fn link(mut self, href: impl Into<String>, label: impl Into<String>) -> Self {
        self.links.push(LandingLink { href: href.into(), label: label.into() });
        self
    }

    /// The GitHub repository, `https://github.com/{owner}/{repo}` (rule
    /// `landing-repo-root-shape`): the version badge links to its release
    /// `v{version}`, the footer to its issues and source.
    pub fn repo_root(mut self, url: impl Into<String>) -> Self {
        self.repo_root = Some(url.into());
        self
    }

    /// A placeholder environment variable the STDIO snippet shows under `env`,
    /// in the order given; at most 12 (rule `landing-env-example-count`), keys
    /// in `SCREAMING_SNAKE_CASE` (rule `landing-env-example-key`).
    pub fn env_example(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env_example.push((key.into(), value.into()));
        self
    }

    /// Show `snippet` verbatim in the tab `tab` instead of the derived one; an
    /// empty snippet falls back to the derived one (rule `landing-connect-snippets-empty`).
    pub fn connect_snippet(mut self, tab: ConnectTab, snippet: impl Into<String>) -> Self {
        self.connect_snippets.retain(|(known, _)| *known != tab);
        self.connect_snippets.push((tab, snippet.into()));
        self
    }

    /// The accent colour: a hex literal, a named colour or a functional form
    /// such as `rgb(99 102 241)`; nothing that could end the CSS declaration
    /// (rule `landing-theme-accent-format`). [`DEFAULT_ACCENT`] otherwise.
    pub fn accent(mut self, accent: impl Into<String>) -> Self {
        self.accent = Some(accent.into());
        self
    }

    /// Whether only authenticated callers see the tools, resources and prompts
    /// (the others get a reduced page). By default: when the transport
    /// requires a bearer token.
    pub fn require_auth(mut self, require: bool) -> Self {
        self.require_auth = Some(require);
        self
    }

    /// Whether the page is served.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// The accent the page uses: the one set when it is a safe CSS colour,
    /// [`DEFAULT_ACCENT`] otherwise.
    pub fn accent_or_default(&self) -> &str {
        match &self.accent {
            Some(accent) if is_safe_css_color(accent) => accent.trim(),
            _ => DEFAULT_ACCENT,
        }
    }
}

/// A footer link of the landing page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LandingLink {
    /// Where it points.
    pub href: String,
    /// What it says.
    pub label: String,
}

/// A tab of the landing page's connect card, in the order the page shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ConnectTab {
    /// `claude mcp add`.
    Claude,
    /// `codex mcp add`.
    Codex,
    /// Cursor's `mcp.json`.
    Cursor,
    /// `gemini mcp add`.
    Gemini,
    /// A client that only launches commands: `mcp-remote` bridging to the endpoint.
    Stdio,
    /// A client's Streamable HTTP config.
    Http,
    /// The `initialize` request with curl.
    Curl,
}

impl ConnectTab {
    /// Every tab, in page order.
    pub const ALL: [Self; 7] =
        [Self::Claude, Self::Codex, Self::Cursor, Self::Gemini, Self::Stdio, Self::Http, Self::Curl];

    /// The tab id: `claude`, `codex`, `cursor`, `gemini`, `stdio`, `http`, `curl`.
    pub const fn id(self) -> &'static str {
        match self {
            Self::Claude => "claude",
            Self::Codex => "codex",
            Self::Cursor => "cursor",
            Self::Gemini => "gemini",
            Self::Stdio => "stdio",
            Self::Http => "http",
            Self::Curl => "curl",
        }
    }

    /// The tab's label on the page.
    pub const fn label(self) -> &'static str {
        match self {
            Self::Claude => "Claude",
            Self::Codex => "Codex",
            Self::Cursor => "Cursor",
            Self::Gemini => "Gemini",
            Self::Stdio => "STDIO",
            Self::Http => "Streamable HTTP",
            Self::Curl => "curl",
        }
    }
}

impl fmt::Display for ConnectTab {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The longest accent accepted.
pub(crate) const MAX_ACCENT_LENGTH: usize = 128;

/// Whether `value` can be put inside a CSS declaration as a colour without
/// ending it, opening a block or a comment, or closing the `<style>` element:
/// the reference's test, kept as is so configurations carry over.
pub(crate) fn is_safe_css_color(value: &str) -> bool {
    let value = value.trim();
    !value.is_empty()
        && value.chars().count() <= MAX_ACCENT_LENGTH
        && !value.contains([';', '{', '}', '\\', '<', '>'])
        && !value.contains("/*")
        && !value.contains("*/")
        && value.starts_with(|c: char| c == '#' || c.is_ascii_alphabetic())
}

/// Whether a link or logo URL may be put in an `href` or `src`: `https:`,
/// `http:`, `mailto:`, or a same-origin path or fragment. Everything else
/// (`javascript:`, `data:`, `vbscript:`, `file:`, a protocol-relative `//host`)
/// is refused, whatever its case or the control characters in it, which
/// browsers strip before they read a scheme.
pub(crate) fn is_safe_link(href: &str) -> bool {
    let cleaned: String = href.chars().filter(|c| !c.is_control() && !c.is_whitespace()).collect();
    let lower = cleaned.to_ascii_lowercase();
    if lower.starts_with("https://") || lower.starts_with("http://") || lower.starts_with("mailto:") {
        return true;
    }
    if lower.starts_with("//") || lower.starts_with("/\\") {
        return false;
    }
    // No scheme at all: a path, a query or a fragment of this origin.
    (lower.starts_with('/') || lower.starts_with('#') || lower.starts_with('?') || lower.starts_with("./"))
        && !lower.contains(':')
}

/// Whether a logo may be put in an `<img src>`: a safe link, or a `data:` URI
/// of a raster image or SVG (an SVG in `<img>` runs no script).
pub(crate) fn is_safe_logo(logo: &str) -> bool {
    let lower = logo.trim().to_ascii_lowercase();
    if lower.starts_with("data:") {
        return ["image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml", "image/x-icon"]
            .iter()
            .any(|mime| lower[5..].starts_with(mime));
    }
    !lower.starts_with("mailto:") && is_safe_link(logo)
}

/// The decoded size of a `data:` URI's payload, as the reference estimates it:
/// `floor(len * 3 / 4) - padding` for base64, the payload's length otherwise,
/// the whole URI's length when it has no comma.
pub(crate) fn data_uri_bytes(uri: &str) -> usize {
    let Some(comma) = uri.find(',') else {
        return uri.len();
    };
    let payload = &uri[comma + 1..];
    if uri[..comma].to_ascii_lowercase().contains(";base64") {
        let padding = if payload.ends_with("==") { 2 } else { usize::from(payload.ends_with('=')) };
        (payload.len() * 3 / 4).saturating_sub(padding)
    } else {
        payload.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accents_as_the_reference_accepts_them() {
        for good in ["#6366f1", "#6366f1cc", "indigo", "rgb(99 102 241)", "hsl(180 50% 50% / 0.5)", " teal "] {
            assert!(is_safe_css_color(good), "{good}");
        }
        for bad in ["", "   ", "123", "red;}body{display:none", "red</style>", "red/*", "a\\62", &"a".repeat(129)] {
            assert!(!is_safe_css_color(bad), "{bad}");
        }
    }

    #[test]
    fn links_with_a_script_scheme_are_refused() {
        for good in ["https://example.org", "HTTP://example.org/x", "mailto:a@example.org", "/docs", "#tools"] {
            assert!(is_safe_link(good), "{good}");
        }
        for bad in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            " java\tscript:alert(1)",
            "java\u{0}script:alert(1)",
            "data:text/html,<script>",
            "vbscript:x",
            "//evil.example",
            "/\\evil.example",
            "file:///etc/passwd",
            "",
        ] {
            assert!(!is_safe_link(bad), "{bad:?}");
        }
        assert!(is_safe_logo("data:image/png;base64,AAAA"));
        assert!(!is_safe_logo("data:text/html;base64,AAAA"));
        assert!(!is_safe_logo("javascript:alert(1)"));
    }

    #[test]
    fn data_uri_sizes_as_the_reference_estimates_them() {
        assert_eq!(data_uri_bytes("data:image/png;base64,AAAA"), 3);
        assert_eq!(data_uri_bytes("data:image/png;base64,AAA="), 2);
        assert_eq!(data_uri_bytes("data:image/png;base64,AA=="), 1);
        assert_eq!(data_uri_bytes("data:image/svg+xml,%3Csvg%3E"), 9);
        assert_eq!(data_uri_bytes("data:nocomma"), 12);
    }
}
