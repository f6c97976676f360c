//! The definition linter on a server of 200 tools, format parity included: what
//! `Server::build()` adds to a server's start-up (the target is under 100 ms).
//!
//! The 200 tools are 4 `#[mcp_tool]` tools of different shapes (a record of 11
//! fields with a list and a nested object, a paginated list, a list/detail
//! union, a map of counts), each registered 50 times under its own name.
//!
//! Beside them, 100 resource templates and 100 prompts, hand-written, each
//! with its params or arguments type: what resources and prompts add.
//!
//! `cargo bench --bench lint`

use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_contract::BoxFuture;
use mcp_contract::lint::LintOptions;
use mcp_contract::lint::{LintInput, validate};
use mcp_contract::prelude::*;
use mcp_contract::prompts::prompt_arguments;
use mcp_contract::tools::DynTool;
use mcp_contract::tools::FormatSample;
use mcp_contract::{
    JsonObject,
    prompts::{DynPrompt, PromptDefinition},
    resources::{DynResource, ResourceDefinition},
    tools::ToolOutput,
};

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Record {
    /// Object ID.
    pub id: u32,
    /// Title.
    pub title: String,
    /// Artist, when known.
    pub artist: Option<String>,
    /// Culture.
    pub culture: String,
    /// Year made.
    pub year: i32,
    /// Department.
    pub department: String,
    /// Medium.
    pub medium: String,
    /// Height and width in centimetres.
    pub size_cm: [f64; 2],
    /// Whether it is on view.
    pub on_view: bool,
    /// Where it is shown.
    pub place: Place,
    /// Subject keywords.
    pub tags: Vec<String>,
}

/// A gallery.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Place {
    /// Gallery name.
    pub gallery: String,
    /// Floor.
    pub floor: u8,
}

fn render_record(r: &Record) -> String {
    format!(
        "{} ({}), {}. {}, {}, {} x {} cm. {}. {}: {} floor {}. Tags: {}. [object {}]",
        r.title,
        r.year,
        r.artist.as_deref().unwrap_or("unknown"),
        r.culture,
        r.medium,
        r.size_cm[0],
        r.size_cm[1],
        r.department,
        if r.on_view { "On view" } else { "In storage" },
        r.place.gallery,
        r.place.floor,
        r.tags.join(", "),
        r.id
    )
}

/// Fetch one record.
#[mcp_tool(format = render_record)]
fn get_record() -> Result<Record, McpError> {
    Err(McpError::not_found("None."))
}

/// One search hit.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Hit {
    /// Object ID.
    pub id: u32,
    /// Title.
    pub title: String,
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Page {
    /// Matches in total.
    pub total: u32,
    /// This page.
    pub page: u32,
    /// Whether a next page exists.
    pub has_more: bool,
    /// The hits.
    pub hits: Vec<Hit>,
}

fn render_page(p: &Page) -> String {
    let hits: Vec<String> = p.hits.iter().map(|h| format!("- {} [{}]", h.title, h.id)).collect();
    format!("{} matches, page {}{}\n{}", p.total, p.page, if p.has_more { ", more" } else { "" }, hits.join("\n"))
}

/// Search records.
#[mcp_tool(format = render_page)]
fn search_records() -> Result<Page, McpError> {
    Err(McpError::not_found("None."))
}

#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum Lookup {
    /// A list.
    List {
        /// Titles.
        items: Vec<String>,
        /// Count.
        total: u32,
    },
    /// One object.
    Detail {
        /// Title.
        title: String,
        /// Provenance.
        history: Vec<String>,
    },
}

fn render_lookup(l: &Lookup) -> String {
    match l {
        Lookup::List { items, total } => format!("{total}: {}", items.join(", ")),
        Lookup::Detail { title, history } => format!("{title}: {}", history.join(" > ")),
    }
}

/// List or show.
#[mcp_tool(format = render_lookup)]
fn lookup_records() -> Result<Lookup, McpError> {
    Err(McpError::not_found("None."))
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Stats {
    /// Objects.
    pub objects: u32,
    /// On view.
    pub on_view: u32,
    /// Per department.
    pub departments: BTreeMap<String, u32>,
}

fn render_stats(s: &Stats) -> String {
    let mut text = format!("{} objects, {} on view\n", s.objects, s.on_view);
    for (name, count) in &s.departments {
        text.push_str(&format!("- {name}: {count}\n"));
    }
    text
}

/// Count records.
#[mcp_tool(format = render_stats)]
fn record_stats() -> Result<Stats, McpError> {
    Err(McpError::not_found("None."))
}

/// A tool served under another name.
struct Renamed {
    inner: Arc<dyn DynTool>,
    definition: &'static ToolDefinition,
}

impl Renamed {
    fn new(inner: Arc<dyn DynTool>, index: usize) -> Self {
        let mut definition = inner.definition().clone();
        definition.name = Box::leak(format!("{}_{index}", definition.name).into_boxed_str());
        Self { inner, definition: Box::leak(Box::new(definition)) }
    }
}

impl DynTool for Renamed {
    fn definition(&self) -> &'static ToolDefinition {
        self.definition
    }

    fn call_json(&self, arguments: JsonObject, ctx: Context) -> BoxFuture<'_, Result<ToolOutput, McpError>> {
        self.inner.call_json(arguments, ctx)
    }

    fn required_state(&self) -> &'static [mcp_contract::context::StateType] {
        self.inner.required_state()
    }

    fn format_sample(&self, sample: serde_json::Value) -> FormatSample {
        self.inner.format_sample(sample)
    }

    fn checked_at_compile_time(&self) -> bool {
        self.inner.checked_at_compile_time()
    }
}

fn lint_200_tools(c: &mut Criterion) {
    let kinds: [Arc<dyn DynTool>; 4] =
        [Arc::new(GetRecord), Arc::new(SearchRecords), Arc::new(LookupRecords), Arc::new(RecordStats)];
    let tools: Vec<Renamed> = (0..200).map(|index| Renamed::new(Arc::clone(&kinds[index % 4]), index)).collect();
    let input = LintInput::default().tools(tools.iter().map(|tool| tool as &dyn DynTool));
    // A benchmark of a linter that checks nothing would measure nothing: the
    // tools take samples, and the clean report comes from checking them.
    assert!(matches!(tools[0].format_sample(serde_json::json!({})), FormatSample::Rejected(_)));
    let report = validate(&input);
    assert!(report.diagnostics.is_empty(), "{report}");
    let mut group = c.benchmark_group("lint");
    group.sample_size(20);
    group
        .bench_function("validate_200_tools_with_format_parity", |b| b.iter(|| black_box(validate(black_box(&input)))));
    let without = input.clone().options(LintOptions { format_parity: false, ..LintOptions::default() });
    group.bench_function("validate_200_tools_without_format_parity", |b| {
        b.iter(|| black_box(validate(black_box(&without))))
    });
    group.finish();
}

/// The variables of an object template.
#[derive(Deserialize, JsonSchema)]
pub struct ObjectParams {
    /// Object ID.
    #[serde(rename = "objectId")]
    pub object_id: u32,
    /// Image size, when an image is asked for.
    pub size: Option<String>,
}

struct Template(&'static ResourceDefinition);

impl Resource for Template {
    type Params = ObjectParams;

    fn definition(&self) -> &'static ResourceDefinition {
        self.0
    }

    async fn read(&self, _uri: &str, params: ObjectParams, _ctx: Context) -> Result<ReadResourceResult, McpError> {
        Ok(ReadResourceResult::text(params.object_id.to_string()))
    }
}

/// The arguments of a visit plan.
#[derive(Deserialize, JsonSchema)]
pub struct PlanArgs {
    /// The department to visit.
    pub department: String,
    /// How many days, 1 by default.
    pub days: Option<u8>,
}

struct Plan(&'static PromptDefinition);

impl Prompt for Plan {
    type Arguments = PlanArgs;

    fn definition(&self) -> &'static PromptDefinition {
        self.0
    }

    async fn get(&self, args: PlanArgs, _ctx: Context) -> Result<Vec<PromptMessage>, McpError> {
        Ok(vec![PromptMessage::user(args.department)])
    }
}

fn lint_100_resources_and_100_prompts(c: &mut Criterion) {
    let leak = |text: String| -> &'static str { Box::leak(text.into_boxed_str()) };
    let resources: Vec<Template> = (0..100)
        .map(|index| {
            let uri = leak(format!("museum://v{index}/objects/{{objectId}}{{?size}}"));
            let definition = ResourceDefinition::new(uri, leak(format!("object_record_{index}")))
                .with_description("One object of the collection, by ID.")
                .with_mime_type("application/json");
            Template(Box::leak(Box::new(definition)))
        })
        .collect();
    let prompts: Vec<Plan> = (0..100)
        .map(|index| {
            let definition = PromptDefinition::new(leak(format!("plan_visit_{index}")), prompt_arguments::<PlanArgs>())
                .with_description("Plan a visit around one department.");
            Plan(Box::leak(Box::new(definition)))
        })
        .collect();
    let input = LintInput::default()
        .resources(resources.iter().map(|resource| resource as &dyn DynResource))
        .prompts(prompts.iter().map(|prompt| prompt as &dyn DynPrompt));
    let report = validate(&input);
    assert!(report.diagnostics.is_empty(), "{report}");
    let mut group = c.benchmark_group("lint");
    group.sample_size(20);
    group.bench_function("validate_100_resources_and_100_prompts", |b| {
        b.iter(|| black_box(validate(black_box(&input))))
    });
    group.finish();
}

criterion_group!(benches, lint_200_tools, lint_100_resources_and_100_prompts);
criterion_main!(benches);
