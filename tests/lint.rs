//! The definition linter on tools `#[mcp_tool]` builds and on hand-written
//! ones: format parity (with the reference's known traps as named
//! regressions), the schema rules, and the server's modes; and on resources
//! and prompts, generated and hand-written.

#![cfg(feature = "rmcp")]

use std::sync::LazyLock;

use mcp_contract::lint::{Diagnostic, LintInput, LintOptions, LintReport, Severity, validate};
use mcp_contract::prelude::*;
use mcp_contract::server::ServerError;
use mcp_contract::tools::DynTool;
use mcp_contract::{
    prompts::prompt_arguments,
    tools::{NoArguments, OutputSample},
};
use mcp_contract::{
    prompts::{DynPrompt, PromptDefinition},
    resources::{DynResource, ResourceDefinition},
    tools::ToolOutput,
};
use serde_json::json;

fn lint(tools: &[&dyn DynTool]) -> LintReport {
    validate(&LintInput::default().tools(tools.iter().copied()))
}

/// `(rule, path)` of each diagnostic.
fn found(report: &LintReport) -> Vec<(&'static str, String)> {
    report.diagnostics.iter().map(|d| (d.rule, d.path.clone().unwrap_or_default())).collect()
}

fn of_rule<'a>(report: &'a LintReport, rule: &str) -> Vec<&'a Diagnostic> {
    report.diagnostics.iter().filter(|d| d.rule == rule).collect()
}

// ---------------------------------------------------------------- a formatter that renders every field

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Exhibit {
    /// Title of the object.
    pub title: String,
    /// Artist, when known.
    pub artist: Option<String>,
    /// Year made.
    pub year: i32,
    /// Height in centimetres.
    pub height_cm: f32,
    /// Gallery floor.
    pub floor: u8,
    /// Whether it is on view.
    pub on_view: bool,
    /// How it may be lent.
    pub loan: Loan,
    /// Subject keywords.
    pub tags: Vec<String>,
    /// Height and width in centimetres.
    pub size: [f64; 2],
}

/// How an object may be lent.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
pub enum Loan {
    /// To anyone.
    Full,
    /// To partner museums.
    Partners,
    /// Never.
    None,
}

fn render_exhibit(exhibit: &Exhibit) -> String {
    format!(
        "{} by {} ({}), {} cm, floor {}, {}, loan: {}, tags: {}, size {} x {}",
        exhibit.title,
        exhibit.artist.as_deref().unwrap_or("unknown"),
        exhibit.year,
        exhibit.height_cm,
        exhibit.floor,
        if exhibit.on_view { "on view" } else { "in storage" },
        match exhibit.loan {
            Loan::Full => "full",
            Loan::Partners => "partners",
            Loan::None => "never",
        },
        exhibit.tags.join(", "),
        exhibit.size[0],
        exhibit.size[1],
    )
}

/// Show one exhibit.
#[mcp_tool(format = render_exhibit)]
fn show_exhibit() -> Result<Exhibit, McpError> {
    Err(McpError::not_found("None."))
}

#[test]
fn format_parity_passes_when_every_field_is_rendered() {
    let report = lint(&[&ShowExhibit]);
    assert_eq!(found(&report), Vec::<(&str, String)>::new(), "{report}");
    assert!(report.passed);
}

// ---------------------------------------------------------------- missing fields

fn render_title_only(exhibit: &Exhibit) -> String {
    format!("{} ({})", exhibit.title, exhibit.year)
}

/// Show one exhibit, briefly.
#[mcp_tool(format = render_title_only)]
fn brief_exhibit() -> Result<Exhibit, McpError> {
    Err(McpError::not_found("None."))
}

#[test]
fn format_parity_reports_each_field_the_text_leaves_out() {
    let report = lint(&[&BriefExhibit]);
    let missing: Vec<String> =
        of_rule(&report, "format-parity").iter().map(|d| d.path.clone().unwrap_or_default()).collect();
    assert_eq!(missing, ["artist", "floor", "height_cm", "loan", "on_view", "size[0]", "size[1]", "tags[]"]);
    assert!(!report.passed);
    let first = of_rule(&report, "format-parity")[0];
    assert_eq!((first.severity, first.name.as_str()), (Severity::Error, "brief_exhibit"));
    assert!(first.message.ends_with(&mcp_contract::rules::docs_url("format-parity")), "{}", first.message);
}

/// Search exhibits, with the same brief formatter.
#[mcp_tool(format = render_title_only)]
fn search_exhibits() -> Result<Exhibit, McpError> {
    Err(McpError::not_found("None."))
}

/// A random exhibit, with the same brief formatter.
#[mcp_tool(format = render_title_only)]
fn random_exhibit() -> Result<Exhibit, McpError> {
    Err(McpError::not_found("None."))
}

#[test]
fn a_formatter_shared_by_several_tools_is_reported_once_per_field_naming_it_and_the_tools() {
    let report = lint(&[&BriefExhibit, &ShowExhibit, &SearchExhibits, &RandomExhibit]);
    let findings = of_rule(&report, "format-parity");
    let missing: Vec<&str> = findings.iter().map(|d| d.path.as_deref().unwrap_or_default()).collect();
    assert_eq!(
        missing,
        ["artist", "floor", "height_cm", "loan", "on_view", "size[0]", "size[1]", "tags[]"],
        "{report}"
    );
    let artist = findings[0];
    assert_eq!(artist.name, "brief_exhibit");
    assert!(
        artist.message.starts_with(
            "the `format` function `lint::render_title_only`, shared by tools `brief_exhibit`, `search_exhibits`, `random_exhibit`, does not render output field `artist`"
        ),
        "{}",
        artist.message
    );
    assert!(artist.message.contains("render the field in `render_title_only`"), "{}", artist.message);
    assert!(artist.message.ends_with(&mcp_contract::rules::docs_url("format-parity")), "{}", artist.message);
}

// ---------------------------------------------------------------- regressions of the reference

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Totals {
    /// Visitors this year.
    pub visitors: u64,
    /// Revenue in euros.
    pub revenue: f64,
    /// Objects lent out.
    pub lent: u32,
}

fn render_grouped(totals: &Totals) -> String {
    fn group(n: u64, sep: char) -> String {
        let digits = n.to_string();
        let mut out = String::new();
        for (index, ch) in digits.chars().enumerate() {
            if index > 0 && (digits.len() - index).is_multiple_of(3) {
                out.push(sep);
            }
            out.push(ch);
        }
        out
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let revenue = totals.revenue as u64;
    format!(
        "{} visitors, €{},00 revenue, {} lent",
        group(totals.visitors, ','),
        group(revenue, '.'),
        group(u64::from(totals.lent), '\u{202F}')
    )
}

/// Yearly totals.
#[mcp_tool(format = render_grouped)]
fn yearly_totals() -> Result<Totals, McpError> {
    Err(McpError::not_found("None."))
}

/// Regression: numbers rendered with a locale's thousands separators still match.
#[test]
fn numbers_with_locale_grouping_match() {
    let report = lint(&[&YearlyTotals]);
    assert_eq!(found(&report), Vec::<(&str, String)>::new(), "{report}");
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Note {
    /// The note's title, in markdown.
    pub note_title: String,
    /// Its body.
    pub body_text: String,
}

fn escape_markdown(text: &str) -> String {
    text.chars().fold(String::new(), |mut out, ch| {
        if "\\`*_{}[]()#+-.!|".contains(ch) {
            out.push('\\');
        }
        out.push(ch);
        out
    })
}

fn render_note(note: &Note) -> String {
    format!("## {}\n\n{}", escape_markdown(&note.note_title), escape_markdown(&note.body_text))
}

/// A note.
#[mcp_tool(format = render_note)]
fn read_note() -> Result<Note, McpError> {
    Err(McpError::not_found("None."))
}

/// Regression: a formatter that escapes markdown does not hide the sentinels.
#[test]
fn a_formatter_that_escapes_markdown_passes() {
    let report = lint(&[&ReadNote]);
    assert_eq!(found(&report), Vec::<(&str, String)>::new(), "{report}");
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Deep {
    /// Level 1.
    pub a: L2,
}
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct L2 {
    /// Level 2.
    pub b: L3,
}
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct L3 {
    /// Level 3.
    pub c: L4,
}
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct L4 {
    /// Level 4.
    pub d: L5,
}
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct L5 {
    /// Level 5.
    pub e: L6,
}
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct L6 {
    /// Level 6.
    pub f: L7,
}
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct L7 {
    /// Level 7.
    pub g: L8,
}
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct L8 {
    /// Level 8.
    pub h: L9,
    /// Shallow enough to check.
    pub shallow: String,
}
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct L9 {
    /// Level 9: past the walk's limit.
    pub hidden: String,
}

fn render_deep(deep: &Deep) -> String {
    deep.a.b.c.d.e.f.g.shallow.clone()
}

/// A deeply nested output.
#[mcp_tool(format = render_deep)]
fn deep_output() -> Result<Deep, McpError> {
    Err(McpError::not_found("None."))
}

/// Regression: a field deeper than the walk's limit is reported as unchecked, not passed silently.
#[test]
fn an_output_nested_deeper_than_the_limit_warns() {
    let report = lint(&[&DeepOutput]);
    assert_eq!(found(&report), [("format-parity-depth-limit", "a.b.c.d.e.f.g.h.hidden".to_owned())], "{report}");
    assert!(report.passed, "a warning");
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct AvailabilityOutput {
    /// Whether the object can be borrowed.
    pub available: bool,
    /// How it may be lent.
    pub loan: Loan,
    /// The title.
    pub title: String,
}

fn render_fixed_text(availability: &AvailabilityOutput) -> String {
    // Fixed text that holds the key name and the sentinels' values, while the
    // fields themselves are never read.
    format!("{}: available: true; loan: full", availability.title)
}

/// Availability of an object.
#[mcp_tool(format = render_fixed_text)]
fn availability() -> Result<AvailabilityOutput, McpError> {
    Err(McpError::not_found("None."))
}

/// Regression: a boolean or enum sentinel colliding with fixed text in the
/// formatter does not pass: the leaf is flipped and the text must change.
#[test]
fn a_sentinel_colliding_with_fixed_text_in_the_formatter_fires() {
    let report = lint(&[&Availability]);
    assert_eq!(found(&report), [("format-parity", "available".to_owned()), ("format-parity", "loan".to_owned())]);
}

#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum LookupOutput {
    /// A page of summaries.
    List {
        /// The titles found.
        items: Vec<String>,
        /// How many match in total.
        total: u32,
    },
    /// One object in full.
    Detail {
        /// The object's title.
        title: String,
        /// Where it has been, oldest first.
        history: Vec<String>,
    },
}

fn render_lookup(lookup: &LookupOutput) -> String {
    match lookup {
        LookupOutput::List { items, total } => format!("{total} found: {}", items.join(", ")),
        LookupOutput::Detail { title, history } => format!("{title}\nProvenance: {}", history.join(" > ")),
    }
}

fn render_lookup_forgetting_history(lookup: &LookupOutput) -> String {
    match lookup {
        LookupOutput::List { items, total } => format!("{total} found: {}", items.join(", ")),
        LookupOutput::Detail { title, .. } => title.clone(),
    }
}

/// List or show objects.
#[mcp_tool(format = render_lookup)]
fn lookup() -> Result<LookupOutput, McpError> {
    Err(McpError::not_found("None."))
}

/// List or show objects, forgetting the provenance.
#[mcp_tool(format = render_lookup_forgetting_history)]
fn lookup_without_history() -> Result<LookupOutput, McpError> {
    Err(McpError::not_found("None."))
}

/// Regression: a union output with list and detail branches: each branch is
/// walked on its own, and the `mode` tag needs no rendering.
#[test]
fn a_union_output_with_list_and_detail_branches_walks_each_branch() {
    assert_eq!(found(&lint(&[&Lookup])), Vec::<(&str, String)>::new());
    assert_eq!(found(&lint(&[&LookupWithoutHistory])), [("format-parity", "history[]".to_owned())]);
}

// ---------------------------------------------------------------- a hand-written tool: a multi-value literal

#[derive(Serialize, Deserialize)]
pub struct Rating {
    pub stars: u8,
    pub comment: String,
}

static RATING: LazyLock<ToolDefinition> = LazyLock::new(|| {
    let object = |value: serde_json::Value| std::sync::Arc::new(value.as_object().cloned().unwrap_or_default());
    ToolDefinition::new("rate", object(json!({"type": "object", "properties": {}})))
        .with_description("Rate an object.")
        .with_output_schema(object(json!({
            "type": "object",
            "properties": {
                "stars": {"description": "One to three stars.", "enum": [1, 2, 3]},
                "comment": {"description": "Why.", "type": "string"}
            },
            "required": ["stars", "comment"]
        })))
});

/// A hand-written tool: `render` shows the stars only when `show_stars`.
struct Rate {
    show_stars: bool,
}

impl Tool for Rate {
    type Input = mcp_contract::tools::NoArguments;
    type Output = Rating;

    fn definition(&self) -> &'static ToolDefinition {
        &RATING
    }

    async fn call(&self, _input: Self::Input, _ctx: Context) -> Result<Rating, McpError> {
        Ok(Rating { stars: 3, comment: "Fine.".into() })
    }

    fn render(&self, output: Rating) -> Result<ToolOutput, McpError> {
        let text = if self.show_stars {
            format!("{} stars: {}", output.stars, output.comment)
        } else {
            format!("1 comment: {}", output.comment)
        };
        ToolOutput::structured(&output, Some(vec![Content::text(text)]))
    }

    fn sample_output(&self, sample: serde_json::Value) -> OutputSample<Rating> {
        OutputSample::decode(sample)
    }
}

/// Regression: a multi-value literal (`enum: [1, 2, 3]` on a number) is a
/// valid sample, and a "1" elsewhere in the text does not pass for it.
#[test]
fn a_multi_value_literal_is_sampled_and_checked() {
    assert_eq!(found(&lint(&[&Rate { show_stars: true }])), Vec::<(&str, String)>::new());
    assert_eq!(found(&lint(&[&Rate { show_stars: false }])), [("format-parity", "stars".to_owned())]);
}

// ---------------------------------------------------------------- threw, walk-failed

fn render_panicking(exhibit: &Exhibit) -> String {
    assert!(exhibit.tags.len() > 5, "expected more tags");
    String::new()
}

/// A formatter that is not total.
#[mcp_tool(format = render_panicking)]
fn fragile() -> Result<Exhibit, McpError> {
    Err(McpError::not_found("None."))
}

#[test]
fn a_panicking_formatter_is_format_parity_threw() {
    let report = lint(&[&Fragile]);
    assert_eq!(found(&report), [("format-parity-threw", String::new())]);
    assert!(report.diagnostics[0].message.contains("expected more tags"), "{}", report.diagnostics[0].message);
    assert!(report.passed, "a warning");
}

/// Serialize only: no sample can be decoded.
#[derive(Serialize, JsonSchema)]
pub struct WriteOnlyOutput {
    /// A title.
    pub title: String,
}

fn render_write_only(output: &WriteOnlyOutput) -> String {
    output.title.clone()
}

/// An output that is not `Deserialize`.
#[mcp_tool(format = render_write_only)]
fn write_only() -> Result<WriteOnlyOutput, McpError> {
    Ok(WriteOnlyOutput { title: "x".into() })
}

#[test]
fn an_output_that_is_not_deserialize_is_said_once() {
    let report = lint(&[&WriteOnly]);
    assert_eq!(found(&report), [("format-parity-walk-failed", String::new())]);
    assert!(report.diagnostics[0].message.contains("not `Deserialize`"), "{}", report.diagnostics[0].message);
}

/// An ISBN: its `Deserialize` accepts digits and dashes only, which its schema
/// (a plain string) does not say.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "String")]
pub struct Isbn(String);

impl TryFrom<String> for Isbn {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        if text.chars().all(|ch| ch.is_ascii_digit() || ch == '-') {
            Ok(Self(text))
        } else {
            Err(format!("`{text}` is not an ISBN"))
        }
    }
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Book {
    /// The book's ISBN.
    pub isbn: Isbn,
}

fn render_book(book: &Book) -> String {
    book.isbn.0.clone()
}

/// A book by ISBN.
#[mcp_tool(format = render_book)]
fn get_book() -> Result<Book, McpError> {
    Err(McpError::not_found("None."))
}

#[test]
fn an_output_type_stricter_than_its_schema_is_format_parity_walk_failed() {
    let report = lint(&[&GetBook]);
    assert_eq!(found(&report), [("format-parity-walk-failed", String::new())]);
    let message = &report.diagnostics[0].message;
    assert!(message.contains("refused a sample") && message.contains("at `isbn`"), "{message}");
}

/// Without `format`, the text is the JSON itself: nothing to check, nothing said.
#[mcp_tool]
fn plain_json() -> Result<WriteOnlyOutput, McpError> {
    Ok(WriteOnlyOutput { title: "x".into() })
}

#[test]
fn a_tool_without_format_is_not_checked() {
    assert_eq!(found(&lint(&[&PlainJson])), Vec::<(&str, String)>::new());
}

// ---------------------------------------------------------------- schema rules on generated schemas

#[derive(Deserialize, JsonSchema)]
pub struct UndocumentedInput {
    pub query: String,
    /// Documented.
    pub page: Option<u32>,
}

/// A tool whose input field has no doc comment.
#[mcp_tool]
fn undocumented(input: UndocumentedInput) -> Result<String, McpError> {
    Ok(input.query)
}

/// Regression: a new user's undocumented field no longer passes silently.
#[test]
fn an_undocumented_field_warns() {
    let report = lint(&[&Undocumented]);
    assert_eq!(found(&report), [("describe-on-fields", "/inputSchema/properties/query".to_owned())]);
    assert!(report.passed);
}

/// A scalar input, which MCP does not allow.
#[mcp_tool]
fn scalar_input(input: Vec<String>) -> Result<String, McpError> {
    Ok(input.join(" "))
}

#[test]
fn a_non_object_input_is_schema_is_object() {
    let report = lint(&[&ScalarInput]);
    assert_eq!(found(&report), [("schema-is-object", "/inputSchema".to_owned())]);
}

/// The same undocumented input, its warning allowed for this tool alone.
#[mcp_tool(allow(describe-on-fields))]
fn undocumented_allowed(input: UndocumentedInput) -> Result<String, McpError> {
    Ok(input.query)
}

/// Regression: `allow(describe-on-fields)` was "unknown lint rule", though
/// docs/lints.md says `allow(..)` silences one rule on one tool.
#[test]
fn allow_silences_a_definition_linter_warning_on_that_tool_only() {
    assert_eq!(Tool::definition(&UndocumentedAllowed).allowed_rules, ["describe-on-fields"]);
    let report = lint(&[&UndocumentedAllowed, &Undocumented]);
    let warned: Vec<(&str, &str)> = report.diagnostics.iter().map(|d| (d.rule, d.name.as_str())).collect();
    assert_eq!(warned, [("describe-on-fields", "undocumented")]);
    mcp_contract::lint::assert_lint_clean(&Server::new("museum", "1.0.0").tool(UndocumentedAllowed));
}

/// A hand-written definition allows as the attribute does; an error rule is
/// reported whatever it allows.
#[test]
fn allowed_rules_on_a_hand_written_definition_silence_warnings_not_errors() {
    let report = lint(&[&AllowsTooMuch]);
    assert_eq!(found(&report), [("schema-is-object", "/inputSchema".to_owned())]);
}

static ALLOWS_TOO_MUCH: LazyLock<ToolDefinition> = LazyLock::new(|| {
    let object = |value: serde_json::Value| std::sync::Arc::new(value.as_object().cloned().unwrap_or_default());
    ToolDefinition::new("allows_too_much", object(json!({"type": "string"})))
        .with_description("Take a bare string, its field rule allowed.")
        .with_allowed_rules(&["schema-is-object", "describe-on-fields"])
});

/// A hand-written tool whose input is no object, and allows that error.
struct AllowsTooMuch;

impl Tool for AllowsTooMuch {
    type Input = String;
    type Output = String;

    fn definition(&self) -> &'static ToolDefinition {
        &ALLOWS_TOO_MUCH
    }

    async fn call(&self, input: String, _ctx: Context) -> Result<String, McpError> {
        Ok(input)
    }

    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

// ---------------------------------------------------------------- the server

#[test]
fn build_fails_with_every_lint_error_and_can_be_told_not_to_lint() {
    let err = Server::new("museum", "1.0.0").tool(BriefExhibit).tool(ScalarInput).build().unwrap_err();
    let ServerError::Lint(report) = &err else { panic!("expected a lint error, got {err}") };
    assert_eq!(report.errors().count(), 9);
    let text = err.to_string();
    assert!(text.contains("error[format-parity] tool `brief_exhibit` at `artist`"), "{text}");
    assert!(text.contains("error[schema-is-object] tool `scalar_input` at `/inputSchema`"), "{text}");

    assert!(Server::new("museum", "1.0.0").tool(BriefExhibit).lint_at_build(false).build().is_ok());
    // Warnings alone do not fail the build.
    assert!(Server::new("museum", "1.0.0").tool(Undocumented).tool(Fragile).build().is_ok());
}

#[test]
fn name_unique_across_the_server() {
    let server = Server::new("museum", "1.0.0").tool(ShowExhibit).tool(ShowExhibit);
    assert_eq!(found(&server.lint(None)), [("name-unique", "/name".to_owned())]);
}

#[test]
fn assert_lint_clean_passes_a_clean_server_and_panics_with_the_report() {
    mcp_contract::lint::assert_lint_clean(&Server::new("museum", "1.0.0").tool(ShowExhibit).tool(Lookup));
    let panic = std::panic::catch_unwind(|| {
        mcp_contract::lint::assert_lint_clean(&Server::new("museum", "1.0.0").tool(Undocumented));
    })
    .expect_err("a warning is not clean");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("warning[describe-on-fields] tool `undocumented`"), "{message}");
}

#[test]
fn options_can_turn_format_parity_off() {
    let options = LintOptions { format_parity: false, ..LintOptions::default() };
    let report = validate(&LintInput::default().tools([&BriefExhibit as &dyn DynTool]).options(options));
    assert_eq!(found(&report), Vec::<(&str, String)>::new());
}

#[test]
fn the_json_report_has_the_documented_shape() {
    let json = lint(&[&Undocumented]).to_json();
    assert_eq!(
        json,
        json!({
            "passed": true,
            "diagnostics": [{
                "rule": "describe-on-fields",
                "severity": "warning",
                "kind": "tool",
                "name": "undocumented",
                "path": "/inputSchema/properties/query",
                "message": json["diagnostics"][0]["message"],
            }]
        })
    );
}

// ---------------------------------------------------------------- resources and prompts

/// The variables of the object template, decoded under camelCase names.
#[derive(Deserialize, JsonSchema)]
pub struct RenamedParams {
    /// The object's ID.
    #[serde(rename = "objectId")]
    pub object_id: u32,
}

/// A hand-written resource of `definition`, whose params are [`RenamedParams`].
struct RenamedRecord(&'static ResourceDefinition);

impl Resource for RenamedRecord {
    type Params = RenamedParams;

    fn definition(&self) -> &'static ResourceDefinition {
        self.0
    }

    async fn read(&self, _uri: &str, params: RenamedParams, _ctx: Context) -> Result<ReadResourceResult, McpError> {
        Ok(ReadResourceResult::text(params.object_id.to_string()))
    }
}

static CAMEL: ResourceDefinition = ResourceDefinition::new("museum://objects/{objectId}", "object_record")
    .with_description("One object of the collection, by ID.")
    .with_mime_type("application/json");

static SNAKE: ResourceDefinition = ResourceDefinition::new("museum://objects/{object_id}", "object_record")
    .with_description("One object of the collection, by ID.")
    .with_mime_type("application/json");

#[test]
fn template_params_align_reads_serde_names_through_server_build() {
    assert!(Server::new("museum", "1.0.0").resource(RenamedRecord(&CAMEL)).build().is_ok());

    let err = Server::new("museum", "1.0.0").resource(RenamedRecord(&SNAKE)).build().unwrap_err();
    let ServerError::Lint(report) = &err else { panic!("expected a lint error, got {err}") };
    assert_eq!(
        found(report),
        [
            ("template-params-align", "/uriTemplate".to_owned()),
            ("template-params-align", "/paramsSchema/properties/objectId".to_owned()),
        ]
    );
    let text = err.to_string();
    assert!(text.contains("error[template-params-align] resource `object_record` at `/uriTemplate`"), "{text}");
    assert!(text.contains("decodes `objectId`"), "{text}");
}

/// Hand-written: a name that is the URI, a MIME type without a subtype, no description.
static ABOUT_PAGE: ResourceDefinition =
    ResourceDefinition::new("museum://about", "museum://about").with_mime_type("markdown");

/// A hand-written prompt listing the arguments of another type, undocumented.
#[derive(Deserialize, JsonSchema)]
pub struct OldVisitArgs {
    pub department: String,
}

/// The arguments the prompt decodes.
#[derive(Deserialize, JsonSchema)]
pub struct VisitArgs {
    /// The department to visit.
    pub department: String,
    /// How many days.
    pub days: u8,
}

static PLAN: LazyLock<PromptDefinition> = LazyLock::new(|| {
    PromptDefinition::new("plan_visit", prompt_arguments::<OldVisitArgs>()).with_description("Plan a visit.")
});

struct HandWrittenPlan;

impl Prompt for HandWrittenPlan {
    type Arguments = VisitArgs;

    fn definition(&self) -> &'static PromptDefinition {
        &PLAN
    }

    async fn get(&self, args: VisitArgs, _ctx: Context) -> Result<Vec<PromptMessage>, McpError> {
        Ok(vec![PromptMessage::user(format!("{} days in {}", args.days, args.department))])
    }
}

#[test]
fn validate_checks_hand_written_resources_and_prompts() {
    let report = validate(
        &LintInput::default()
            .resources([&RenamedRecord(&ABOUT_PAGE) as &dyn DynResource])
            .prompts([&HandWrittenPlan as &dyn DynPrompt]),
    );
    let kinds: Vec<(&str, String, String)> =
        report.diagnostics.iter().map(|d| (d.rule, d.kind.to_string(), d.path.clone().unwrap_or_default())).collect();
    assert_eq!(
        kinds,
        [
            ("resource-name-not-uri", "resource".to_owned(), "/name".to_owned()),
            ("description-required", "resource".to_owned(), "/description".to_owned()),
            ("resource-mime-type-format", "resource".to_owned(), "/mimeType".to_owned()),
            ("template-params-align", "resource".to_owned(), "/paramsSchema/properties/objectId".to_owned()),
            ("describe-on-fields", "prompt".to_owned(), "/arguments/0/description".to_owned()),
            ("prompt-arguments-align", "prompt".to_owned(), "/arguments".to_owned()),
        ]
    );
    assert!(!report.passed);
    assert_eq!(report.to_json()["diagnostics"][4]["kind"], "prompt");
}

/// Opening hours and address.
#[mcp_resource(uri = "museum://about", name = "about", mime_type = "text/markdown")]
fn about() -> Result<String, McpError> {
    Ok("Open daily.".into())
}

/// Say hello to a visitor.
#[mcp_prompt(name = "greet")]
fn greet() -> Result<Vec<PromptMessage>, McpError> {
    Ok(vec![PromptMessage::assistant("Welcome to the museum.")])
}

/// Shares the name of the resource `about`.
#[mcp_tool(name = "about")]
fn about_tool() -> Result<String, McpError> {
    Ok("about".into())
}

#[test]
fn generated_resources_and_prompts_are_lint_clean() {
    mcp_contract::lint::assert_lint_clean(
        &Server::new("museum", "1.0.0").tool(ShowExhibit).resource(About).resource(RenamedRecord(&CAMEL)).prompt(Greet),
    );
    let panic = std::panic::catch_unwind(|| {
        mcp_contract::lint::assert_lint_clean(&Server::new("museum", "1.0.0").prompt(HandWrittenPlan));
    })
    .expect_err("an undocumented argument is not clean");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains("warning[describe-on-fields] prompt `plan_visit` at `/arguments/0/description`"),
        "{message}"
    );
}

// No description, the warning allowed at the attribute: the linter must not
// bring back what the author silenced where the rule was checked.
#[mcp_resource(uri = "museum://floor-plan", name = "floor_plan", allow(description-required))]
fn floor_plan() -> Result<String, McpError> {
    Ok("Ground floor: arms and armor.".into())
}

#[mcp_prompt(name = "quiet_greeting", allow(description-required))]
fn quiet_greeting() -> Result<Vec<PromptMessage>, McpError> {
    Ok(vec![PromptMessage::assistant("Welcome.")])
}

#[test]
fn a_warning_allowed_on_a_resource_or_prompt_macro_stays_silent_in_the_linter() {
    let server = Server::new("museum", "1.0.0").resource(FloorPlan).prompt(QuietGreeting);
    let report = server.lint(None);
    assert!(of_rule(&report, "description-required").is_empty(), "{report}");
    mcp_contract::lint::assert_lint_clean(&server);
}

/// The arguments of a tour, one of them undocumented.
#[derive(Deserialize, JsonSchema)]
pub struct TourArgs {
    room: String,
}

/// Plan a tour of one room.
#[mcp_prompt]
fn tour(args: TourArgs) -> Result<Vec<PromptMessage>, McpError> {
    Ok(vec![PromptMessage::user(format!("Plan a tour of {}.", args.room))])
}

/// The same tour, its argument's warning allowed for this prompt alone.
#[mcp_prompt(allow(describe-on-fields))]
fn quiet_tour(args: TourArgs) -> Result<Vec<PromptMessage>, McpError> {
    Ok(vec![PromptMessage::user(format!("Plan a tour of {}.", args.room))])
}

/// The floor plan, as a MIME type no client can read.
#[mcp_resource(uri = "museum://plan", name = "plan", mime_type = "markdown")]
fn plan() -> Result<String, McpError> {
    Ok("Ground floor.".into())
}

/// The same plan, the MIME type's warning allowed for this resource alone.
#[mcp_resource(uri = "museum://quiet-plan", name = "quiet_plan", mime_type = "markdown", allow(resource-mime-type-format))]
fn quiet_plan() -> Result<String, McpError> {
    Ok("Ground floor.".into())
}

/// Regression: `allow(<linter rule>)` on a resource or prompt was refused
/// ("reads `allow(..)` on a tool's definition only"): their definitions now
/// carry it, and the linter honours it on that definition alone.
#[test]
fn allow_silences_a_definition_linter_warning_on_that_resource_or_prompt_only() {
    assert_eq!(Prompt::definition(&QuietTour).allowed_rules, ["describe-on-fields"]);
    assert_eq!(Resource::definition(&QuietPlan).allowed_rules, ["resource-mime-type-format"]);
    let server = Server::new("museum", "1.0.0").prompt(Tour).prompt(QuietTour).resource(Plan).resource(QuietPlan);
    let report = server.lint(None);
    let warned: Vec<(&str, &str)> = report.diagnostics.iter().map(|d| (d.rule, d.name.as_str())).collect();
    assert_eq!(warned, [("resource-mime-type-format", "plan"), ("describe-on-fields", "tour")], "{report}");
    mcp_contract::lint::assert_lint_clean(&Server::new("museum", "1.0.0").prompt(QuietTour).resource(QuietPlan));
}

/// A hand-written definition allows as the attributes do; an error rule is
/// reported whatever it allows.
#[test]
fn allowed_rules_on_hand_written_resources_and_prompts_silence_warnings_not_errors() {
    struct Notes;
    static NOTES: ResourceDefinition = ResourceDefinition::new("museum://notes", "")
        .with_description("Curators' notes.")
        .with_mime_type("markdown")
        .with_allowed_rules(&["resource-mime-type-format", "name-required"]);
    impl Resource for Notes {
        type Params = NoArguments;
        fn definition(&self) -> &'static ResourceDefinition {
            &NOTES
        }
        async fn read(&self, _uri: &str, _params: NoArguments, _ctx: Context) -> Result<ReadResourceResult, McpError> {
            Ok(ReadResourceResult::text(""))
        }
    }
    let report = validate(&LintInput::default().resources([&Notes as &dyn DynResource]));
    assert_eq!(found(&report), [("name-required", "/name".to_owned())]);
    assert!(!report.passed);
}

#[test]
fn name_unique_spans_tools_resources_and_prompts() {
    let server = Server::new("museum", "1.0.0").tool(AboutTool).resource(About).prompt(Greet);
    let report = server.lint(None);
    let unique = of_rule(&report, "name-unique");
    assert_eq!(unique.len(), 1, "{report}");
    assert_eq!((unique[0].kind.to_string(), unique[0].name.as_str()), ("resource".to_owned(), "about"));
    assert!(unique[0].message.contains("which a tool already has"), "{}", unique[0].message);

    let err = server.build().unwrap_err();
    assert!(matches!(err, ServerError::DuplicateName { name: "about", .. }), "{err}");
    // The name check does not depend on the linter.
    let err = Server::new("museum", "1.0.0").resource(About).prompt(Greet).tool(AboutTool).lint_at_build(false).build();
    assert!(matches!(err, Err(ServerError::DuplicateName { name: "about", .. })));
}

#[tokio::test]
async fn lint_mode_covers_resources_and_prompts() {
    let code = Server::new("museum", "1.0.0")
        .resource(RenamedRecord(&SNAKE))
        .run_cli_with(["lint".to_owned(), "--format".to_owned(), "json".to_owned()])
        .await;
    assert_eq!(code, std::process::ExitCode::FAILURE);
    let code = Server::new("museum", "1.0.0")
        .resource(RenamedRecord(&CAMEL))
        .prompt(Greet)
        .run_cli_with(["lint".to_owned()])
        .await;
    assert_eq!(code, std::process::ExitCode::SUCCESS);
}

/// The collection a handler reads; the server below never registers it.
struct Collection;

/// Count the objects of the collection.
#[mcp_tool(annotations(read_only))]
fn count_objects(_collection: State<Collection>) -> Result<String, McpError> {
    Ok("0".into())
}

#[tokio::test]
async fn lint_mode_fails_on_a_server_that_lints_clean_but_does_not_build() {
    let server = || Server::new("museum", "1.0.0").tool(CountObjects);
    assert!(server().lint(None).passed, "the definitions themselves are clean");
    assert_eq!(server().run_cli_with(["lint".to_owned()]).await, std::process::ExitCode::FAILURE);
    let registered = server().state(Collection).run_cli_with(["lint".to_owned()]).await;
    assert_eq!(registered, std::process::ExitCode::SUCCESS);
}

#[test]
fn a_static_resource_with_nothing_to_fill_needs_no_params() {
    struct Hours;
    static HOURS: ResourceDefinition =
        ResourceDefinition::new("museum://hours", "hours").with_description("Opening hours.");
    impl Resource for Hours {
        type Params = NoArguments;
        fn definition(&self) -> &'static ResourceDefinition {
            &HOURS
        }
        async fn read(&self, _uri: &str, _params: NoArguments, _ctx: Context) -> Result<ReadResourceResult, McpError> {
            Ok(ReadResourceResult::text("10:00 to 17:00"))
        }
    }
    let report = validate(&LintInput::default().resources([&Hours as &dyn DynResource]));
    assert_eq!(found(&report), Vec::<(&str, String)>::new());
}

/// The variables of the object template, under camelCase names.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CamelParams {
    /// The object's ID.
    pub object_id: u32,
}

/// One object by its ID, under the name serde decodes.
#[mcp_resource(uri = "museum://objects/{objectId}", name = "camel_record", params_renamed)]
fn camel_record(params: CamelParams) -> Result<String, McpError> {
    Ok(params.object_id.to_string())
}

/// One object by its ID, under the Rust name, which serde does not decode.
#[mcp_resource(uri = "museum://objects/{object_id}", name = "snake_record", params_renamed)]
fn snake_record(params: CamelParams) -> Result<String, McpError> {
    Ok(params.object_id.to_string())
}

/// `params_renamed` leaves the comparison to the linter, which `Server::build` runs.
#[test]
fn a_generated_resource_with_renamed_params_is_checked_when_the_server_is_built() {
    assert!(Server::new("museum", "1.0.0").resource(CamelRecord).build().is_ok());
    let err = Server::new("museum", "1.0.0").resource(SnakeRecord).build().unwrap_err();
    let ServerError::Lint(report) = &err else { panic!("expected a lint error, got {err}") };
    assert_eq!(
        found(report),
        [
            ("template-params-align", "/uriTemplate".to_owned()),
            ("template-params-align", "/paramsSchema/properties/objectId".to_owned()),
        ]
    );
}

// ------------------------------------------------------------------ schemas as written

/// The suite's 2020-12 schema, less one field's description, with a format
/// not every vendor takes.
fn contact_schema() -> serde_json::Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"$anchor": "addressDef", "type": "object",
            "properties": {"city": {"type": "string", "description": "The city."}}}},
        "properties": {
            "name": {"type": "string", "description": "Who to reach."},
            "address": {"$ref": "#/$defs/address", "description": "Where they live."},
            "phone": {"type": "string", "format": "phone"}
        },
        "allOf": [{"required": ["name"]}],
        "if": {"properties": {"name": {"const": "desk"}}},
        "then": {"required": ["phone"]},
        "else": {"required": []},
        "additionalProperties": false
    })
}

/// Save a contact, its schema written by hand.
#[mcp_tool(input_schema = contact_schema)]
fn save_contact(input: mcp_contract::JsonObject) -> Result<String, McpError> {
    Ok(format!("saved {}", input.len()))
}

fn not_an_object() -> serde_json::Value {
    json!(true)
}

/// Take anything, by a schema that is no object.
#[mcp_tool(input_schema = not_an_object)]
fn take_anything(input: mcp_contract::JsonObject) -> Result<String, McpError> {
    Ok(format!("took {}", input.len()))
}

#[test]
fn a_given_schema_is_published_as_written_and_linted_like_any_other() {
    let published = serde_json::Value::Object((*Tool::definition(&SaveContact).input_schema).clone());
    assert_eq!(published, contact_schema(), "no keyword added, moved or dropped");
    let report = lint(&[&SaveContact]);
    let rules: Vec<_> = found(&report).into_iter().map(|(rule, _)| rule).collect();
    assert!(rules.contains(&"describe-on-fields"), "the undescribed `phone` is found: {report}");
    assert!(rules.contains(&"schema-format-portability"), "the portability rules run on it too: {report}");

    let report = lint(&[&TakeAnything]);
    assert!(!report.passed, "a schema that is no object fails the lint");
    assert_eq!(found(&report).first().map(|(rule, _)| *rule), Some("schema-is-object"), "{report}");
}
