//! The `landing-*` rules: the [`Landing`] config of the page at `GET /`, with
//! the reference's ids and limits. [`Landing`] is typed, so the rules about a
//! value of the wrong JSON type (a non-object `landing`, a number as the
//! tagline, ..) cannot fire here; `docs/lints.md` keeps their sections and
//! says why. What is left is checked on the values, and the renderer drops or
//! replaces what a warning says it will.

use std::sync::LazyLock;

use regex::Regex;

use super::{DefinitionKind, Diagnostic, Rule};
use crate::define::{Landing, data_uri_bytes, is_safe_css_color, is_safe_link, is_safe_logo};
use mcp_contract_rules::*;

/// The longest tagline, in characters.
pub(crate) const MAX_TAGLINE: usize = 120;
/// The largest data-URI logo, in decoded bytes.
pub(crate) const MAX_LOGO_BYTES: usize = 24 * 1024;
/// The most footer links the page shows.
pub(crate) const MAX_LINKS: usize = 6;
/// The most `env` entries the STDIO snippet shows.
pub(crate) const MAX_ENV_EXAMPLE: usize = 12;

/// `https://github.com/{owner}/{repo}`, with an optional trailing slash.
pub(crate) static GITHUB_REPO_ROOT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^https://github\.com/([^/\s]+)/([^/\s?#]+?)/?$").expect("a valid pattern"));

static ENV_KEY: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[A-Z][A-Z0-9_]*$").expect("a valid pattern"));

pub(super) fn check(landing: &Landing, out: &mut Vec<Diagnostic>) {
    let mut report = |rule: Rule, path: String, text: String| {
        out.push(Diagnostic::new(rule, DefinitionKind::Landing, "landing", Some(path), text));
    };
    if let Some(tagline) = &landing.tagline {
        let length = tagline.chars().count();
        if length > MAX_TAGLINE {
            report(
                LANDING_TAGLINE_LENGTH,
                "/tagline".into(),
                format!("the landing tagline has {length} characters; shorten it to at most {MAX_TAGLINE}"),
            );
        }
    }
    if let Some(logo) = &landing.logo {
        if !is_safe_logo(logo) {
            report(
                LANDING_LOGO_TYPE,
                "/logo".into(),
                format!(
                    "the landing logo `{}` is neither an `https:`/`http:` URL, a same-origin path nor a \
                     `data:image/…` URI; the page leaves it out",
                    excerpt(logo)
                ),
            );
        } else if logo.trim_start().to_ascii_lowercase().starts_with("data:") {
            let bytes = data_uri_bytes(logo.trim());
            if bytes > MAX_LOGO_BYTES {
                report(
                    LANDING_LOGO_SIZE,
                    "/logo".into(),
                    format!(
                        "the landing logo data URI is ~{bytes} bytes; max is {MAX_LOGO_BYTES}. Inline a smaller \
                         asset or host it separately"
                    ),
                );
            }
        }
    }
    if landing.links.len() > MAX_LINKS {
        report(
            LANDING_LINKS_COUNT,
            "/links".into(),
            format!("the landing page has {} links; max is {MAX_LINKS}. Extras will be dropped", landing.links.len()),
        );
    }
    for (index, link) in landing.links.iter().enumerate() {
        if link.href.trim().is_empty() {
            report(
                LANDING_LINK_HREF,
                format!("/links/{index}/href"),
                format!("landing link {index} has an empty `href`"),
            );
        } else if !is_safe_link(&link.href) {
            report(
                LANDING_LINK_HREF,
                format!("/links/{index}/href"),
                format!(
                    "landing link {index} points at `{}`: only `https:`, `http:`, `mailto:` and same-origin paths \
                     are rendered, never a script or data scheme",
                    excerpt(&link.href)
                ),
            );
        }
        if link.label.trim().is_empty() {
            report(
                LANDING_LINK_LABEL,
                format!("/links/{index}/label"),
                format!("landing link {index} has an empty `label`: say where it goes"),
            );
        }
    }
    if let Some(repo_root) = &landing.repo_root
        && !GITHUB_REPO_ROOT.is_match(repo_root)
    {
        report(
            LANDING_REPO_ROOT_SHAPE,
            "/repoRoot".into(),
            format!(
                "the landing `repo_root` must match https://github.com/{{owner}}/{{repo}}, got `{}`",
                excerpt(repo_root)
            ),
        );
    }
    if landing.env_example.len() > MAX_ENV_EXAMPLE {
        report(
            LANDING_ENV_EXAMPLE_COUNT,
            "/envExample".into(),
            format!(
                "the landing `env_example` has {} entries; max is {MAX_ENV_EXAMPLE}. Extras will be dropped",
                landing.env_example.len()
            ),
        );
    }
    for (key, _) in &landing.env_example {
        if !ENV_KEY.is_match(key) {
            report(
                LANDING_ENV_EXAMPLE_KEY,
                format!("/envExample/{}", pointer_token(key)),
                format!(
                    "the landing `env_example` key `{}` should be SCREAMING_SNAKE_CASE (env var convention)",
                    excerpt(key)
                ),
            );
        }
    }
    for (tab, snippet) in &landing.connect_snippets {
        if snippet.trim().is_empty() {
            report(
                LANDING_CONNECT_SNIPPETS_EMPTY,
                format!("/connectSnippets/{tab}"),
                format!("the landing connect snippet for `{tab}` is empty; falling back to the derived snippet"),
            );
        }
    }
    if let Some(accent) = &landing.accent
        && !is_safe_css_color(accent)
    {
        report(
            LANDING_THEME_ACCENT_FORMAT,
            "/theme/accent".into(),
            format!(
                "the landing accent {} is not a recognized CSS color. Use a hex literal (#6366f1), named color \
                     (indigo), or functional form (rgb(...), oklch(...), color-mix(...)); values containing \
                     ; {{ }} < > \\ or CSS comments are rejected",
                serde_json::Value::from(excerpt(accent))
            ),
        );
    }
}

/// At most 80 characters of a value quoted in a message.
fn excerpt(value: &str) -> String {
    let mut chars = value.chars();
    let head: String = chars.by_ref().take(80).collect();
    if chars.next().is_some() { format!("{head}…") } else { head }
}

/// A JSON Pointer reference token (RFC 6901).
fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::define::ConnectTab;

    fn rules(landing: &Landing) -> Vec<&'static str> {
        let mut out = Vec::new();
        check(landing, &mut out);
        out.iter().map(|d| d.rule).collect()
    }

    fn fires(rule: Rule, landing: &Landing) {
        let mut out = Vec::new();
        check(landing, &mut out);
        let found = out.iter().find(|d| d.rule == rule.id).unwrap_or_else(|| panic!("{rule} does not fire: {out:?}"));
        assert_eq!(found.severity, rule.severity);
        assert_eq!(found.kind, DefinitionKind::Landing);
        assert!(found.message.ends_with(&rule.url()), "{}", found.message);
    }

    fn silent(rule: Rule, landing: &Landing) {
        assert!(!rules(landing).contains(&rule.id), "{rule} fires on {landing:?}");
    }

    #[test]
    fn a_full_valid_config_is_clean() {
        let landing = Landing::new()
            .tagline("t".repeat(MAX_TAGLINE))
            .logo(format!("data:image/png;base64,{}", "A".repeat(MAX_LOGO_BYTES * 4 / 3)))
            .repo_root("https://github.com/acme/museum/")
            .env_example("MUSEUM_API_KEY", "your-api-key")
            .connect_snippet(ConnectTab::Curl, "curl …")
            .accent("rgb(99 102 241)");
        let landing = (0..MAX_LINKS).fold(landing, |l, i| l.link(format!("https://e.org/{i}"), "Docs"));
        assert_eq!(rules(&landing), Vec::<&str>::new());
    }

    #[test]
    fn landing_tagline_length() {
        fires(LANDING_TAGLINE_LENGTH, &Landing::new().tagline("é".repeat(MAX_TAGLINE + 1)));
        silent(LANDING_TAGLINE_LENGTH, &Landing::new().tagline("é".repeat(MAX_TAGLINE)));
    }

    #[test]
    fn landing_logo_type() {
        fires(LANDING_LOGO_TYPE, &Landing::new().logo("javascript:alert(1)"));
        fires(LANDING_LOGO_TYPE, &Landing::new().logo("data:text/html;base64,PHNjcmlwdD4="));
        silent(LANDING_LOGO_TYPE, &Landing::new().logo("https://museum.example.org/logo.svg"));
        silent(LANDING_LOGO_TYPE, &Landing::new().logo("/logo.svg"));
    }

    #[test]
    fn landing_logo_size() {
        let base64 = |bytes: usize| format!("data:image/png;base64,{}", "A".repeat(bytes.div_ceil(3) * 4));
        fires(LANDING_LOGO_SIZE, &Landing::new().logo(base64(MAX_LOGO_BYTES + 3)));
        silent(LANDING_LOGO_SIZE, &Landing::new().logo(base64(MAX_LOGO_BYTES)));
        // A URL-encoded payload counts its characters; a URL is never measured.
        fires(
            LANDING_LOGO_SIZE,
            &Landing::new().logo(format!("data:image/svg+xml,{}", "a".repeat(MAX_LOGO_BYTES + 1))),
        );
        silent(LANDING_LOGO_SIZE, &Landing::new().logo(format!("https://e.org/{}", "a".repeat(MAX_LOGO_BYTES + 1))));
    }

    #[test]
    fn landing_links_count() {
        let links = |n: usize| (0..n).fold(Landing::new(), |l, i| l.link(format!("/p{i}"), "Page"));
        fires(LANDING_LINKS_COUNT, &links(MAX_LINKS + 1));
        silent(LANDING_LINKS_COUNT, &links(MAX_LINKS));
    }

    #[test]
    fn landing_link_href() {
        fires(LANDING_LINK_HREF, &Landing::new().link("", "Docs"));
        fires(LANDING_LINK_HREF, &Landing::new().link("javascript:alert(document.cookie)", "Docs"));
        fires(LANDING_LINK_HREF, &Landing::new().link("//evil.example", "Docs"));
        silent(LANDING_LINK_HREF, &Landing::new().link("https://museum.example.org/docs", "Docs"));
    }

    #[test]
    fn landing_link_label() {
        fires(LANDING_LINK_LABEL, &Landing::new().link("/docs", "  "));
        silent(LANDING_LINK_LABEL, &Landing::new().link("/docs", "Docs"));
    }

    #[test]
    fn landing_repo_root_shape() {
        for bad in ["https://gitlab.com/acme/museum", "https://github.com/acme", "http://github.com/acme/museum"] {
            fires(LANDING_REPO_ROOT_SHAPE, &Landing::new().repo_root(bad));
        }
        silent(LANDING_REPO_ROOT_SHAPE, &Landing::new().repo_root("https://github.com/acme/museum"));
    }

    #[test]
    fn landing_env_example_count() {
        let env = |n: usize| (0..n).fold(Landing::new(), |l, i| l.env_example(format!("KEY_{i}"), "x"));
        fires(LANDING_ENV_EXAMPLE_COUNT, &env(MAX_ENV_EXAMPLE + 1));
        silent(LANDING_ENV_EXAMPLE_COUNT, &env(MAX_ENV_EXAMPLE));
    }

    #[test]
    fn landing_env_example_key() {
        for bad in ["museum_key", "", "1KEY", "KEY-NAME"] {
            fires(LANDING_ENV_EXAMPLE_KEY, &Landing::new().env_example(bad, "x"));
        }
        silent(LANDING_ENV_EXAMPLE_KEY, &Landing::new().env_example("MUSEUM_API_KEY_2", "x"));
    }

    #[test]
    fn landing_connect_snippets_empty() {
        fires(LANDING_CONNECT_SNIPPETS_EMPTY, &Landing::new().connect_snippet(ConnectTab::Codex, " \n"));
        silent(LANDING_CONNECT_SNIPPETS_EMPTY, &Landing::new().connect_snippet(ConnectTab::Codex, "codex mcp add m"));
    }

    #[test]
    fn landing_theme_accent_format() {
        for bad in ["red;}body{display:none}", "123", "  ", "red/**/", "</style><script>"] {
            fires(LANDING_THEME_ACCENT_FORMAT, &Landing::new().accent(bad));
        }
        silent(LANDING_THEME_ACCENT_FORMAT, &Landing::new().accent("oklch(0.7 0.2 280)"));
    }

    /// The rules about a value of the wrong JSON type have no Rust value that
    /// breaks them: the most hostile typed config never names them.
    #[test]
    fn the_type_rules_cannot_fire_on_a_typed_config() {
        let hostile = Landing::new()
            .tagline("</script>")
            .logo("javascript:x")
            .link("", "")
            .repo_root("nope")
            .env_example("", "")
            .connect_snippet(ConnectTab::Stdio, "")
            .accent("}");
        let found = rules(&hostile);
        for rule in [
            LANDING_SHAPE,
            LANDING_TAGLINE_TYPE,
            LANDING_LINKS_TYPE,
            LANDING_LINK_SHAPE,
            LANDING_REPO_ROOT_TYPE,
            LANDING_ENV_EXAMPLE_TYPE,
            LANDING_ENV_EXAMPLE_VALUE,
            LANDING_CONNECT_SNIPPETS_TYPE,
            LANDING_CONNECT_SNIPPETS_KEY,
            LANDING_CONNECT_SNIPPETS_VALUE,
            LANDING_THEME_TYPE,
            LANDING_THEME_ACCENT,
        ] {
            assert!(!found.contains(&rule.id), "{rule}");
        }
        assert!(found.len() >= 7, "{found:?}");
    }
}
