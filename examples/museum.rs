//! Quick start: an offline MCP server over a museum collection.
//!
//! The collection (`examples/data/collection.json`, 120 records) is fake data,
//! generated once with a seeded script and committed, so the example runs with
//! no network and answers the same way every time.
//!
//! ```text
//! cargo run --example museum                       # stdio (what MCP clients launch)
//! cargo run --example museum -- --http 127.0.0.1:8080            # Streamable HTTP at /mcp
//! cargo run --example museum -- --http 127.0.0.1:8080 --stateless
//! cargo run --example museum -- lint               # the definition linter (exit 1 on errors)
//! cargo run --example museum -- --collection my-collection.json   # another collection file
//! npx @modelcontextprotocol/inspector cargo run --example museum
//! MCP_AUTH_MODE=jwt MCP_AUTH_SECRET_KEY=<32+ bytes> cargo run --example museum -- --http 127.0.0.1:8080
//! ```
//!
//! Over HTTP the auth mode comes from the environment (`MCP_AUTH_MODE` and
//! friends, see the guide's "Auth" chapter); `get_object_image`
//! declares the scope `images:read`. Replicas behind a load balancer share
//! `REQUEST_STATE_KEY` (32 bytes or more), the key of the `requestState` of
//! input-required rounds, and with the feature `redis`, `MCP_REDIS_URL`.
//!
//! Each tool shows a part of the error contract: `search_objects` validates its
//! input and paginates; `get_object` fails with `not_in_collection` and a
//! recovery hint and formats its text; `get_object_image` simulates a throttling
//! upstream (`image_service_busy`, retryable); `collection_stats` reports progress.
//! The static resource `museum://about`, the template `museum://objects/{object_id}`
//! and the prompt `plan_visit` show `#[mcp_resource]` and `#[mcp_prompt]`; the
//! template fails through its own `errors(..)` contract, as a tool does.
//! `get_object` pairs with an MCP App, the object viewer at
//! `ui://museum/object-viewer` (examples/museum-object-viewer.html), which a
//! host renders beside the chat with the call's result.
//! `sign_guestbook` changes the resource `museum://guestbook` and announces it
//! to the clients subscribed to it (`Changes`); `export_department` is long
//! enough to run as a task for a client that polls (`task(optional)`).

use std::collections::{BTreeMap, VecDeque};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Duration;

use mcp_contract::prelude::*;
use mcp_contract::server::Landing;
use mcp_contract::server::{Changes, ServeArgs};
use mcp_contract::tools::Truncation;

/// One record of the collection, as stored.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct ObjectRecord {
    /// Object ID in the collection, e.g. 100019.
    pub id: u32,
    /// Title of the object.
    pub title: String,
    /// Artist display name, when known.
    pub artist: Option<String>,
    /// Culture the object comes from.
    pub culture: String,
    /// Year the object was made.
    pub year: i32,
    /// Curatorial department.
    pub department: String,
    /// Materials and technique.
    pub medium: String,
    /// Height and width in centimetres.
    pub dimensions_cm: [f64; 2],
    /// Whether the object is on view now.
    pub on_view: bool,
    /// The gallery showing it, when on view.
    pub gallery: Option<String>,
    /// Subject keywords.
    pub tags: Vec<String>,
}

/// The collection every tool reads: the server's shared state, loaded once when
/// serving starts (`Server::state_with`, so `--help` and `lint` never read it)
/// and handed to each handler as `State<Collection>`. A real server keeps its
/// database pool or HTTP client the same way.
pub struct Collection {
    /// The records, sorted by ID.
    records: Vec<ObjectRecord>,
    /// The objects `take_off_view` took off view since the server started.
    taken_off_view: std::sync::Mutex<std::collections::BTreeSet<u32>>,
}

impl Collection {
    /// The bundled collection.
    pub(crate) fn bundled() -> Result<Self, serde_json::Error> {
        Self::parse(include_str!("data/collection.json"))
    }

    /// The collection of a JSON file shaped like `examples/data/collection.json`.
    async fn open(path: &std::path::Path) -> Result<Self, String> {
        // Read once at startup, before any client is served: blocking is fine here.
        let text = std::fs::read_to_string(path).map_err(|err| format!("cannot read {}: {err}", path.display()))?;
        Self::parse(&text).map_err(|err| format!("{} is not a collection: {err}", path.display()))
    }

    fn parse(text: &str) -> Result<Self, serde_json::Error> {
        let mut records: Vec<ObjectRecord> = serde_json::from_str(text)?;
        records.sort_by_key(|record| record.id);
        Ok(Self { records, taken_off_view: std::sync::Mutex::default() })
    }

    fn find(&self, id: u32) -> Option<&ObjectRecord> {
        self.records.binary_search_by_key(&id, |record| record.id).ok().map(|index| &self.records[index])
    }

    /// A record as it stands now: off view once `take_off_view` took it off.
    fn current(&self, record: &ObjectRecord) -> ObjectRecord {
        let mut record = record.clone();
        if self.taken_off_view.lock().unwrap_or_else(std::sync::PoisonError::into_inner).contains(&record.id) {
            record.on_view = false;
            record.gallery = None;
        }
        record
    }

    fn departments(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.records.iter().map(|record| record.department.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        names
    }
}

// ---------------------------------------------------------------- search_objects

/// The largest page `search_objects` serves.
const MAX_PAGE_SIZE: u32 = 25;

#[derive(Deserialize, JsonSchema)]
pub struct SearchObjectsInput {
    /// Words to look for in titles, artists, cultures, media and tags, e.g. "harbor".
    pub query: String,
    /// Only objects of this department, e.g. "Ceramics".
    pub department: Option<String>,
    /// Page number, starting at 1.
    pub page: Option<u32>,
    /// Results per page, 1 to 25; 10 by default.
    pub page_size: Option<u32>,
}

/// One object of a page of search results.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct ObjectSummary {
    /// Object ID, for get_object.
    pub id: u32,
    /// Title of the object.
    pub title: String,
    /// Artist display name, when known.
    pub artist: Option<String>,
    /// Year the object was made.
    pub year: i32,
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct SearchObjectsOutput {
    /// How many objects match in total.
    pub total: u32,
    /// This page's number.
    pub page: u32,
    /// Whether a next page exists.
    pub has_more: bool,
    /// The matching objects of this page.
    pub results: Vec<ObjectSummary>,
}

/// What the agent should know about a search beside its page of results.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchEnrichment {
    /// The words searched for, as the server understood the query (lowercase, words of two letters or more).
    pub effective_query: Option<String>,
    /// How many objects match in all pages.
    pub total_count: Option<u64>,
    /// Why nothing matched, or that the page size capped the results.
    pub notice: Option<String>,
    /// Whether this page shows fewer objects than match.
    pub truncated: Option<bool>,
    /// How many objects this page shows.
    pub shown: Option<u64>,
    /// The page size that capped the results.
    pub cap: Option<u64>,
}

/// Search the collection by words, optionally within one department; results are paginated.
// Agents reach for `q` or `search` as often as for `query`: those are
// repaired to `query` before decoding (never advertised), as are "2" for a
// page number and a key such as `pageSize` or `Page-Size`.
#[mcp_tool(
    input_aliases(query = ["q", "search"]),
    annotations(read_only, idempotent, open_world = false),
    enrichment = SearchEnrichment,
    errors(
        invalid_query(code = ValidationError, when = "The query is empty or has no word of two letters or more",
            recovery = "Search with at least one word of two letters or more, e.g. \"harbor\"."),
        invalid_page_size(code = ValidationError, when = "The page size is 0 or above 25",
            recovery = "Ask for a page size between 1 and 25."),
        unknown_department(code = NotFound, when = "No department has this name",
            recovery = "Use one of the departments collection_stats lists, or leave department out."),
        page_out_of_range(code = ValidationError, when = "The page is past the last page of results",
            recovery = "Start again at page 1; the previous result's has_more says whether a next page exists."),
    ),
)]
async fn search_objects(
    input: SearchObjectsInput,
    collection: State<Collection>,
    ctx: Ctx,
) -> Result<SearchObjectsOutput, McpError> {
    let words: Vec<String> =
        input.query.split_whitespace().filter(|word| word.chars().count() >= 2).map(str::to_lowercase).collect();
    if words.is_empty() {
        return Err(ctx.fail(invalid_query, "The query has no word of two letters or more."));
    }
    let page_size = input.page_size.unwrap_or(10);
    if page_size == 0 || page_size > MAX_PAGE_SIZE {
        return Err(ctx
            .fail(invalid_page_size, format!("A page holds 1 to {MAX_PAGE_SIZE} results, not {page_size}."))
            .with_data_field("pageSize", page_size));
    }
    if let Some(department) = &input.department
        && !collection.departments().iter().any(|known| known.eq_ignore_ascii_case(department))
    {
        return Err(ctx
            .fail(unknown_department, format!("The collection has no department named \"{department}\"."))
            .with_data_field("departments", collection.departments()));
    }
    let matches: Vec<&ObjectRecord> = collection
        .records
        .iter()
        .filter(|record| input.department.as_ref().is_none_or(|d| record.department.eq_ignore_ascii_case(d)))
        .filter(|record| {
            let haystack = format!(
                "{} {} {} {} {}",
                record.title,
                record.artist.as_deref().unwrap_or(""),
                record.culture,
                record.medium,
                record.tags.join(" ")
            )
            .to_lowercase();
            words.iter().all(|word| haystack.contains(word.as_str()))
        })
        .collect();
    let total = u32::try_from(matches.len()).unwrap_or(u32::MAX);
    ctx.enrich().echo(words.join(" ")).total(u64::from(total));
    if total == 0 {
        ctx.enrich().notice("Nothing matched every word: search with fewer or broader words.");
    }
    let page = input.page.unwrap_or(1).max(1);
    let last_page = total.div_ceil(page_size).max(1);
    if page > last_page {
        return Err(ctx
            .fail(page_out_of_range, format!("Page {page} is past the last page ({last_page}) of {total} results."))
            .with_data_field("lastPage", last_page));
    }
    let start = ((page - 1) * page_size) as usize;
    let results = matches
        .iter()
        .skip(start)
        .take(page_size as usize)
        .map(|record| ObjectSummary {
            id: record.id,
            title: record.title.clone(),
            artist: record.artist.clone(),
            year: record.year,
        })
        .collect::<Vec<_>>();
    if results.len() < matches.len() {
        let guidance = format!("Showing {} of {total}; ask for page {} for more.", results.len(), page + 1);
        let shown = results.len() as u64;
        let guidance = (page < last_page).then_some(guidance);
        ctx.enrich().truncated(Truncation {
            shown,
            cap: u64::from(page_size),
            ceiling: Some(u64::from(MAX_PAGE_SIZE)),
            guidance,
        });
    }
    Ok(SearchObjectsOutput { total, page, has_more: page < last_page, results })
}

// ---------------------------------------------------------------- get_object

#[derive(Deserialize, JsonSchema)]
pub struct GetObjectInput {
    /// Object ID in the collection, e.g. 100019; search_objects finds IDs.
    pub object_id: u32,
}

fn render_object(object: &ObjectRecord) -> String {
    let artist = object.artist.as_deref().unwrap_or("unknown artist");
    let place = match (object.on_view, &object.gallery) {
        (true, Some(gallery)) => format!("On view in {gallery}."),
        (true, None) => "On view.".to_owned(),
        (false, _) => "Not on view.".to_owned(),
    };
    let tags = if object.tags.is_empty() { "none".to_owned() } else { object.tags.join(", ") };
    format!(
        "{title} ({year}), {artist}. {culture}, {medium}, {h} x {w} cm. {department}. {place} Tags: {tags}. [object {id}]",
        title = object.title,
        year = object.year,
        culture = object.culture,
        medium = object.medium,
        h = object.dimensions_cm[0],
        w = object.dimensions_cm[1],
        department = object.department,
        id = object.id,
    )
}

/// Fetch one object of the collection by its ID.
#[mcp_tool(
    annotations(read_only, idempotent, open_world = false),
    format = render_object,
    app = "ui://museum/object-viewer",
    errors(
        not_in_collection(code = NotFound, when = "No object has this ID",
            recovery = "Search with search_objects first to find valid object IDs."),
    ),
)]
async fn get_object(input: GetObjectInput, collection: State<Collection>, ctx: Ctx) -> Result<ObjectRecord, McpError> {
    match collection.find(input.object_id) {
        Some(record) => Ok(collection.current(record)),
        None => Err(ctx
            .fail(not_in_collection, format!("No object {} in the collection.", input.object_id))
            .with_data_field("objectId", input.object_id)),
    }
}

// ---------------------------------------------------------------- get_object_image

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct ObjectImage {
    /// Object ID.
    pub object_id: u32,
    /// Where the image service would serve the full-size image.
    pub image_url: String,
    /// Width and height in pixels.
    pub size_px: [u32; 2],
}

/// Describe the full-size image of an object, from the (simulated) image service.
///
/// The image service of this offline example throttles every object whose ID
/// is divisible by 3, deterministically, to show a retryable failure.
#[mcp_tool(
    annotations(read_only, idempotent, open_world = false),
    auth("images:read"),
    errors(
        not_in_collection(code = NotFound, when = "No object has this ID",
            recovery = "Search with search_objects first to find valid object IDs."),
        image_service_busy(code = RateLimited, retryable, when = "The image service throttles requests",
            recovery = "Wait about thirty seconds, then call get_object_image again; get_object works meanwhile."),
    ),
)]
async fn get_object_image(
    input: GetObjectInput,
    collection: State<Collection>,
    ctx: Ctx,
) -> Result<ObjectImage, McpError> {
    let Some(record) = collection.find(input.object_id) else {
        return Err(ctx.fail(not_in_collection, format!("No object {} in the collection.", input.object_id)));
    };
    if record.id % 3 == 0 {
        return Err(ctx
            .fail(image_service_busy, "The image service is throttling requests (HTTP 429).")
            .with_data_field("retryAfter", 30));
    }
    // The pixel size follows the object's proportions at 40 pixels per centimetre.
    let [h, w] = record.dimensions_cm.map(|cm| (cm * 40.0).round() as u32);
    Ok(ObjectImage {
        object_id: record.id,
        image_url: format!("https://images.example.org/{}.jpg", record.id),
        size_px: [w, h],
    })
}

// ---------------------------------------------------------------- collection_stats

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct CollectionSummary {
    /// Objects in the collection.
    pub objects: u32,
    /// Objects on view now.
    pub on_view: u32,
    /// Objects per department.
    pub departments: BTreeMap<String, u32>,
}

fn render_stats(stats: &CollectionSummary) -> String {
    let mut text = format!("{} objects, {} on view.\n", stats.objects, stats.on_view);
    for (department, count) in &stats.departments {
        text.push_str(&format!("- {department}: {count}\n"));
    }
    text
}

/// Count the collection's objects per department and how many are on view.
#[mcp_tool(annotations(read_only, idempotent, open_world = false), format = render_stats)]
async fn collection_stats(collection: State<Collection>, ctx: Ctx) -> Result<CollectionSummary, McpError> {
    // Counting a big collection takes a while: the call frees its connection,
    // and the client comes back with `Last-Event-ID` for the progress, the log
    // and the answer (SSE polling; a no-op on stdio and stateless HTTP).
    ctx.close_sse_stream().await;
    let names = collection.departments();
    let mut stats = CollectionSummary { objects: 0, on_view: 0, departments: BTreeMap::new() };
    for (done, department) in names.iter().enumerate() {
        let count = collection.records.iter().filter(|record| record.department == *department).count();
        stats.departments.insert((*department).to_owned(), u32::try_from(count).unwrap_or(u32::MAX));
        ctx.progress((done + 1) as f64, Some(names.len() as f64), Some(format!("Counted {department}."))).await;
    }
    stats.objects = u32::try_from(collection.records.len()).unwrap_or(u32::MAX);
    stats.on_view =
        u32::try_from(collection.records.iter().filter(|record| record.on_view).count()).unwrap_or(u32::MAX);
    ctx.log(LogLevel::Info, format!("collection_stats counted {} departments", names.len())).await;
    Ok(stats)
}

// ---------------------------------------------------------------- take_off_view and summarize_object

/// What `take_off_view` asks the user before it acts.
#[derive(Deserialize, JsonSchema, ElicitForm)]
pub struct ConfirmTakeOffView {
    /// Take the object off view now.
    pub confirm: bool,
}

/// Take an object off view, after the user confirms: it leaves its gallery
/// until a curator puts it back. Needs a client that can ask its user.
#[mcp_tool(
    requires(elicitation),
    annotations(destructive, idempotent, open_world = false),
    errors(
        not_in_collection(code = NotFound, when = "No object has this ID",
            recovery = "Search with search_objects first to find valid object IDs."),
    ),
)]
async fn take_off_view(input: GetObjectInput, collection: State<Collection>, ctx: Ctx) -> Result<String, McpError> {
    let Some(record) = collection.find(input.object_id) else {
        return Err(ctx
            .fail(not_in_collection, format!("No object {} in the collection.", input.object_id))
            .with_data_field("objectId", input.object_id));
    };
    let question = format!("Take \"{}\" ({}) off view?", record.title, record.id);
    match ctx.elicit::<ConfirmTakeOffView>(question).await? {
        Elicitation::Accepted(ConfirmTakeOffView { confirm: true }) => {
            collection.taken_off_view.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(record.id);
            Ok(format!("\"{}\" is off view.", record.title))
        }
        Elicitation::Accepted(_) | Elicitation::Declined | Elicitation::Cancelled => {
            Ok(format!("\"{}\" stays where it is: the user did not confirm.", record.title))
        }
    }
}

/// Summarize an object's record in one sentence with the client's model.
#[mcp_tool(
    requires(sampling),
    annotations(read_only, open_world = false),
    errors(
        not_in_collection(code = NotFound, when = "No object has this ID",
            recovery = "Search with search_objects first to find valid object IDs."),
    ),
)]
async fn summarize_object(input: GetObjectInput, collection: State<Collection>, ctx: Ctx) -> Result<String, McpError> {
    let Some(record) = collection.find(input.object_id) else {
        return Err(ctx
            .fail(not_in_collection, format!("No object {} in the collection.", input.object_id))
            .with_data_field("objectId", input.object_id));
    };
    let artist = record.artist.as_deref().unwrap_or("an unknown artist");
    let request = Sampling::new(120)
        .system_prompt("You write one-sentence summaries of museum records for visitors.")
        .user(format!(
            "{} by {artist}, {} {}, {}; {} department. Tags: {}.",
            record.title,
            record.culture,
            record.year,
            record.medium,
            record.department,
            record.tags.join(", ")
        ));
    Ok(ctx.sample(request).await?.text)
}

// ---------------------------------------------------------------- resources and prompts

/// What the museum is and holds: opening hours and the departments of the collection.
#[mcp_resource(uri = "museum://about", name = "about", title = "About the museum", mime_type = "text/markdown")]
fn about_museum(collection: State<Collection>) -> Result<String, McpError> {
    Ok(format!(
        "# The offline museum\n\nOpen daily, 10:00 to 17:00. {} objects in {} departments: {}.",
        collection.records.len(),
        collection.departments().len(),
        collection.departments().join(", ")
    ))
}

/// The object viewer, get_object's MCP App: an HTML page that shows the object
/// a get_object call returns, for hosts that render apps beside the chat.
#[mcp_resource(
    uri = "ui://museum/object-viewer",
    name = "object_viewer",
    title = "Object viewer",
    ui(prefers_border = true)
)]
fn object_viewer() -> Result<String, McpError> {
    Ok(include_str!("museum-object-viewer.html").to_owned())
}

#[derive(Deserialize, JsonSchema)]
pub struct ObjectRecordParams {
    pub object_id: u32,
}

/// The full record of one object of the collection, as JSON, by its ID.
#[mcp_resource(
    uri = "museum://objects/{object_id}",
    name = "object_record",
    mime_type = "application/json",
    errors(not_in_collection(code = NotFound, when = "No object of the collection has this ID",
        recovery = "Search with search_objects first to find valid object IDs.")),
)]
fn object_record_by_id(
    params: ObjectRecordParams,
    collection: State<Collection>,
    ctx: Ctx,
) -> Result<ReadResourceResult, McpError> {
    match collection.find(params.object_id) {
        Some(record) => ReadResourceResult::json(record),
        None => Err(ctx.fail(not_in_collection, format!("No object with ID {} in the collection.", params.object_id))),
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct PlanVisitArgs {
    /// The department to plan the visit around, e.g. "Asian Art" (collection_stats lists them).
    pub department: String,
    /// How many hours the visit lasts, 1 to 8; 2 by default.
    pub hours: Option<u8>,
}

/// Plan a visit of the museum around one department and its objects on view.
#[mcp_prompt(title = "Plan a visit", complete = complete_department)]
fn plan_visit(args: PlanVisitArgs, collection: State<Collection>) -> Result<Vec<PromptMessage>, McpError> {
    let hours = args.hours.unwrap_or(2);
    if !(1..=8).contains(&hours) {
        return Err(McpError::invalid_params(format!(
            "A visit of {hours} hours is not possible; the museum opens 7 hours a day."
        ))
        .with_data_field("argument", "hours"));
    }
    let on_view: Vec<&ObjectRecord> =
        collection.records.iter().filter(|record| record.department == args.department && record.on_view).collect();
    if on_view.is_empty() {
        return Err(McpError::not_found(format!("No object of the department `{}` is on view.", args.department))
            .with_reason("unknown_department")
            .with_recovery_hint("Call collection_stats to list the departments."));
    }
    let highlights: Vec<String> =
        on_view.iter().take(5).map(|record| format!("{} (museum://objects/{})", record.title, record.id)).collect();
    Ok(vec![PromptMessage::user(format!(
        "Plan a {hours}-hour visit of the {} department. Objects on view include: {}. Read their records for details.",
        args.department,
        highlights.join("; ")
    ))])
}

/// `completion/complete` for `plan_visit`'s `department`: the departments that
/// start with what the user typed.
async fn complete_department(request: CompletionRequest, ctx: Context) -> Result<Completion, McpError> {
    let collection = State::<Collection>::from_context(&ctx)?;
    Ok(match request.argument.as_str() {
        "department" => Completion::matching(collection.departments(), &request.value),
        _ => Completion::none(),
    })
}

// ---------------------------------------------------------------- the guestbook: a resource that changes

/// How many signatures the guestbook shows.
const GUESTBOOK_SIZE: usize = 20;

/// The guestbook's last signatures, oldest first.
#[derive(Default)]
pub struct GuestbookState {
    names: Mutex<VecDeque<String>>,
}

/// The museum's guestbook: the last 20 visitors who signed it, newest last.
/// Subscribe to it to hear when someone signs.
#[mcp_resource(uri = "museum://guestbook", name = "guestbook", title = "Guestbook", mime_type = "text/plain")]
fn guestbook(book: State<GuestbookState>) -> Result<String, McpError> {
    let names = book.names.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if names.is_empty() {
        return Ok("Nobody has signed the guestbook yet.".to_owned());
    }
    Ok(names.iter().map(String::as_str).collect::<Vec<_>>().join("\n"))
}

#[derive(Deserialize, JsonSchema)]
pub struct SignGuestbookInput {
    /// The name to sign with, 1 to 60 characters.
    pub name: String,
}

/// Sign the museum's guestbook; clients subscribed to museum://guestbook are told it changed.
#[mcp_tool(
    annotations(read_only = false, destructive = false, idempotent = false, open_world = false),
    errors(invalid_name(code = ValidationError, when = "The name is blank or longer than 60 characters",
        recovery = "Sign again with a name of 1 to 60 characters.")),
)]
async fn sign_guestbook(
    input: SignGuestbookInput,
    book: State<GuestbookState>,
    changes: State<Changes>,
    ctx: Ctx,
) -> Result<String, McpError> {
    let name = input.name.trim();
    if name.is_empty() || name.chars().count() > 60 {
        return Err(ctx.fail(invalid_name, "A guestbook name has 1 to 60 characters."));
    }
    {
        let mut names = book.names.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if names.len() == GUESTBOOK_SIZE {
            names.pop_front();
        }
        names.push_back(name.to_owned());
    }
    changes.resource_updated("museum://guestbook").await;
    Ok(format!("Thank you for signing, {name}."))
}

// ---------------------------------------------------------------- a long-running tool: a task

#[derive(Deserialize, JsonSchema)]
pub struct ExportDepartmentInput {
    /// The department to export, e.g. "Asian Art" (collection_stats lists them).
    pub department: String,
}

/// Export every record of one department as CSV (id, title, year); takes a
/// few seconds, so a client that polls gets a task.
#[mcp_tool(
    task(optional),
    annotations(read_only, idempotent, open_world = false),
    errors(unknown_department(code = NotFound, when = "No department has this name",
        recovery = "Use one of the departments collection_stats lists.")),
)]
async fn export_department(
    input: ExportDepartmentInput,
    collection: State<Collection>,
    ctx: Ctx,
) -> Result<String, McpError> {
    let records: Vec<&ObjectRecord> =
        collection.records.iter().filter(|record| record.department == input.department).collect();
    if records.is_empty() {
        return Err(ctx.fail(unknown_department, format!("No department `{}`.", input.department)));
    }
    let mut csv = String::from("id,title,year\n");
    for (done, record) in records.iter().enumerate() {
        // The slow part of a real export (a query per page, a file to write);
        // cancelling the task stops it here.
        tokio::time::sleep(Duration::from_millis(100)).await;
        csv.push_str(&format!("{},\"{}\",{}\n", record.id, record.title.replace('"', "\"\""), record.year));
        ctx.progress((done + 1) as f64, Some(records.len() as f64), None).await;
    }
    Ok(csv)
}

// ---------------------------------------------------------------- test-only

/// Fail by panicking, to exercise the server's panic path (served only with MUSEUM_TEST_TOOLS=1).
#[mcp_tool(name = "debug_panic")]
fn debug_panic() -> Result<String, McpError> {
    panic!("debug_panic was called: internal state must not reach the client")
}

#[derive(Deserialize, JsonSchema)]
pub struct BusyInput {
    /// How long to compute, in milliseconds (at most 60 000).
    pub millis: u64,
}

fn compute_for(millis: u64) -> u64 {
    let until = std::time::Instant::now() + std::time::Duration::from_millis(millis.min(60_000));
    let mut turns = 0u64;
    while std::time::Instant::now() < until {
        turns = std::hint::black_box(turns.wrapping_add(1));
    }
    turns
}

/// Compute for a while in a plain `fn`, which the server runs on the blocking pool (served only with MUSEUM_TEST_TOOLS=1).
#[mcp_tool(name = "debug_busy")]
fn debug_busy(input: BusyInput) -> Result<String, McpError> {
    Ok(format!("computed {} turns", compute_for(input.millis)))
}

/// Compute for a while in an `async fn` that never yields (served only with MUSEUM_TEST_TOOLS=1).
#[mcp_tool(name = "debug_spin")]
async fn debug_spin(input: BusyInput) -> Result<String, McpError> {
    Ok(format!("spun {} turns", compute_for(input.millis)))
}

// ---------------------------------------------------------------- main

/// The museum's command line: its own flag beside the serving ones.
#[derive(clap::Parser)]
#[command(name = "museum", version, about = "An offline museum collection over MCP")]
struct Cli {
    /// The collection's JSON file, shaped like examples/data/collection.json (the bundled one by default)
    #[arg(long, value_name = "PATH")]
    collection: Option<std::path::PathBuf>,
    #[command(flatten)]
    serve: ServeArgs,
}

pub(crate) fn server(collection: Option<std::path::PathBuf>) -> Server {
    // The example lives in the framework's own crate, so it names itself;
    // your server would say `mcp_contract::server_from_crate!()`.
    let server = Server::new("museum", env!("CARGO_PKG_VERSION"))
        .title("Museum collection (offline example)")
        .description("Search a museum's collection offline and fetch its objects, with typed error contracts.")
        .repository(env!("CARGO_PKG_REPOSITORY"))
        .landing(
            Landing::new()
                .tagline("An offline museum collection: search objects, fetch one, see what can go wrong and why.")
                .repo_root(env!("CARGO_PKG_REPOSITORY"))
                .link("https://docs.rs/mcp-contract", "Docs")
                .link("https://modelcontextprotocol.io", "Model Context Protocol")
                .env_example("RUST_LOG", "info")
                .accent("#0f766e"),
        )
        .instructions(
            "Find objects with search_objects, then fetch one with get_object. collection_stats lists the \
             departments. get_object_image may be throttled: wait and retry when it says so.",
        )
        // Read when serving starts, after the command line is parsed.
        .state_with(move || async move {
            match collection {
                Some(path) => Collection::open(&path).await,
                None => Collection::bundled().map_err(|err| format!("the bundled collection: {err}")),
            }
        })
        .tool(SearchObjects)
        .tool(GetObject)
        .tool(GetObjectImage)
        .tool(CollectionStats)
        .tool(TakeOffView)
        .tool(SummarizeObject)
        .tool(SignGuestbook)
        .tool(ExportDepartment)
        .resource(AboutMuseum)
        .resource(Guestbook)
        .resource(ObjectViewer)
        .resource(ObjectRecordById)
        .prompt(PlanVisit)
        // How to use the tools well, as an agent skill (SEP-2640), read into the binary.
        .skills(mcp_contract::embed_skills!("museum-skills"))
        .state(GuestbookState::default())
        .changes(Changes::new());
    if std::env::var_os("MUSEUM_TEST_TOOLS").is_some_and(|value| value == "1") {
        server.tool(DebugPanic).tool(DebugBusy).tool(DebugSpin)
    } else {
        server
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    // `--help` and bad flags print and exit here, before anything is built.
    let cli = <Cli as clap::Parser>::parse();
    // The crate's logs (failed calls, panics) on stderr, filtered by RUST_LOG.
    mcp_contract::logging::init();
    // No argument: stdio. `--http ADDR [--stateless]`: Streamable HTTP.
    // `lint [--format json] [--server-json PATH]`: check the tool definitions.
    // `server-json --name io.github.mcp-contract/museum`: write examples/museum.server.json.
    let server = server(cli.collection);
    // Replicas behind a load balancer share the key that signs the
    // `requestState` of input-required rounds (revision 2026-07-28): a round
    // answered by one replica is retried on any other. Without it each
    // process draws its own, and a retry that reaches another replica is refused.
    let server = match std::env::var("REQUEST_STATE_KEY") {
        Ok(key) if !key.is_empty() => server.request_state_key(key),
        _ => server,
    };
    cli.serve.run(server).await
}

// ---------------------------------------------------------------- tests

/// Check the contract of every tool the museum serves by default, with the
/// cases `cases` gives each; its tests below assert the reports pass, and
/// `benches/contract.rs` times it.
#[cfg_attr(not(test), allow(dead_code, reason = "the example's tests and benches/contract.rs run it"))]
pub(crate) async fn check_every_tool(
    client: &mcp_contract::testing::Client,
    cases: impl Fn() -> mcp_contract::testing::Cases,
) -> Vec<mcp_contract::testing::ContractReport> {
    use mcp_contract::testing::check_contract;
    let checked = [
        check_contract(client, SearchObjects, cases()).await,
        check_contract(client, GetObject, cases()).await,
        check_contract(client, GetObjectImage, cases()).await,
        check_contract(client, CollectionStats, cases()).await,
        check_contract(client, TakeOffView, cases()).await,
        check_contract(client, SummarizeObject, cases()).await,
        check_contract(client, SignGuestbook, cases()).await,
        check_contract(client, ExportDepartment, cases()).await,
    ];
    checked.into_iter().map(|report| report.unwrap_or_else(|err| panic!("the check could not run: {err}"))).collect()
}

/// The museum through `mcp_contract::testing`: the in-process client over the
/// whole stack, and every tool's contract checked on generated inputs.
#[cfg(test)]
mod tests {
    use mcp_contract::testing::Client;
    use serde_json::json;

    use super::*;

    /// A client with what every museum tool may need: a caller holding the
    /// image scope, and answers for the confirmation and the summary.
    async fn client() -> Client {
        Client::builder()
            .caller(AuthInfo::with_scopes(["images:read"]))
            .answer_elicitation(json!({"action": "accept", "content": {"confirm": true}}))
            .answer_sampling(json!({"role": "assistant", "content": {"type": "text", "text": "A vase."}, "model": "m"}))
            .connect(server(None))
            .await
            .expect("the museum builds")
    }

    /// What a client receives from the museum, pinned in
    /// `examples/snapshots/museum.contract.snap`: a change shows as a diff to
    /// review with `cargo insta review`, and a breaking one fails unless the
    /// version in Cargo.toml announces it.
    #[tokio::test]
    async fn the_contract_is_pinned() {
        mcp_contract::testing::assert_contract_pinned!(server(None));
    }

    #[tokio::test]
    async fn search_then_get_then_fail_as_declared() {
        let client = client().await;
        let record = &Collection::bundled().unwrap().records[0];
        let word = record.title.split_whitespace().find(|word| word.chars().count() >= 3).unwrap().to_owned();
        let found = client.call(SearchObjects, json!({"query": word})).await.unwrap_or_else(|err| panic!("{err}"));
        let first = found.results.first().expect("the first record's word finds something");
        let object = client.call(GetObject, json!({"object_id": first.id})).await.unwrap();
        assert_eq!(object.title, first.title);
        let Err(err) = client.call(GetObject, json!({"object_id": 1})).await else { panic!("not in the collection") };
        assert_eq!((err.code(), err.reason()), (JsonRpcErrorCode::NotFound, Some("not_in_collection")));
        assert!(err.recovery_hint().unwrap().contains("search_objects"));
        let Err(err) = client.call(SearchObjects, json!({"query": word, "page_size": 99})).await else {
            panic!("refused")
        };
        assert_eq!(err.reason(), Some("invalid_page_size"));
    }

    /// The error envelope as the agent reads it: the declared hint without
    /// `.with_recovery()`, `data.requestId`, and the text's terms line saying
    /// what `data` says.
    #[tokio::test]
    async fn a_declared_failure_reaches_the_agent_in_its_envelope() {
        let client = client().await;
        let result = client.call_tool_raw("get_object", json!({"object_id": 1})).await.unwrap();
        assert_eq!(result.is_error, Some(true));
        let error = &result.structured_content.as_ref().unwrap()["error"];
        let data = &error["data"];
        assert_eq!(data["reason"], "not_in_collection");
        assert_eq!(data["retryable"], false);
        let hint = data["recovery"]["hint"].as_str().expect("the declared hint, filled in by the server");
        let request_id = data["requestId"].as_str().expect("every error carries its request id");
        assert!(request_id.len() == 11 && request_id.as_bytes()[5] == b'-', "{request_id}");
        let text = result.content[0].as_text().unwrap().text.as_str();
        assert!(text.starts_with(&format!("Error: {}", error["message"].as_str().unwrap())), "{text}");
        assert!(text.contains(&format!("\n\nRecovery: {hint}\n\n")), "{text}");
        assert!(
            text.ends_with(&format!("(reason not_in_collection · not retryable · request {request_id})")),
            "{text}"
        );
    }

    /// What an agent gets slightly wrong is repaired and answers as a normal
    /// success; what cannot be repaired is refused with what to send instead.
    #[tokio::test]
    async fn a_repaired_call_succeeds_and_a_refused_one_says_what_to_send() {
        let client = client().await;
        let record = &Collection::bundled().unwrap().records[0];
        let word = record.title.split_whitespace().find(|word| word.chars().count() >= 3).unwrap().to_owned();
        let as_sent = client.call(SearchObjects, json!({"query": word, "page_size": 5})).await.unwrap();
        // An alias, a number as a string, a key in another case: one repair each.
        let repaired = client.call(SearchObjects, json!({"q": word, "pageSize": "5", "page": "1"})).await.unwrap();
        assert_eq!(repaired.total, as_sent.total);
        assert_eq!(repaired.results.len(), as_sent.results.len());
        // `page_size` of "five" is no number, `query` is missing: refused, both named.
        let Err(err) = client.call(SearchObjects, json!({"page_size": "five"})).await else { panic!("refused") };
        assert_eq!((err.code(), err.reason()), (JsonRpcErrorCode::InvalidParams, Some("invalid_arguments")));
        assert_eq!(
            err.recovery_hint(),
            Some(
                "Provide `query` (a string). Send `page_size` as an integer of at least 0, or null, not the string \
                 \"five\"."
            )
        );
        assert_eq!(err.data().unwrap()["issuesCount"], 2);
    }

    #[tokio::test]
    async fn the_image_scope_is_checked_and_elicitation_and_sampling_are_answered() {
        let id = Collection::bundled().unwrap().records[0].id;
        let stranger =
            Client::builder().caller(AuthInfo::with_scopes(["objects:read"])).connect(server(None)).await.unwrap();
        let Err(err) = stranger.call(GetObjectImage, json!({"object_id": id})).await else { panic!("refused") };
        assert_eq!(err.code(), JsonRpcErrorCode::Forbidden);
        let client = client().await;
        assert!(client.call(TakeOffView, json!({"object_id": id})).await.unwrap().ends_with("is off view."));
        assert_eq!(client.call(SummarizeObject, json!({"object_id": id})).await.unwrap(), "A vase.");
    }

    #[tokio::test]
    async fn resources_prompts_and_the_guestbook_update() {
        let client = client().await;
        assert!(client.list_resources().await.unwrap().iter().any(|resource| resource.uri == "museum://about"));
        let id = Collection::bundled().unwrap().records[0].id;
        let record = client.read_resource(&format!("museum://objects/{id}")).await.unwrap();
        assert!(serde_json::to_string(&record).unwrap().contains(&id.to_string()));
        let department = Collection::bundled().unwrap().records[0].department.clone();
        let prompt = client.get_prompt("plan_visit", json!({"department": department})).await.unwrap();
        assert!(!prompt.messages.is_empty());
        client.subscribe("museum://guestbook").await.unwrap();
        client.call(SignGuestbook, json!({"name": "Ada"})).await.unwrap();
        let heard =
            client.wait_for(1, |n| matches!(n, mcp_contract::testing::Notification::ResourceUpdated { .. })).await;
        assert!(heard.is_ok(), "{heard:?}");
    }

    #[tokio::test]
    async fn the_museum_serves_its_skill() {
        let client = client().await;
        let skills = client.list_skills().await.unwrap();
        let names: Vec<&str> = skills.iter().map(|skill| skill.name()).collect();
        assert_eq!(names, ["collection-search"]);
        let errors = client.read_resource("skill://collection-search/references/errors.md").await.unwrap();
        assert!(serde_json::to_string(&errors).unwrap().contains("image_service_busy"));
        let lint = server(None).lint(None);
        assert!(lint.diagnostics.iter().all(|d| !d.rule.starts_with("skill-")), "{lint}");
    }

    /// Every tool's failures are declared, its outputs fit its schema and its
    /// format shows them: 200 generated inputs each, seed fixed (raise with
    /// MCP_CONTRACT_CASES, replay with MCP_CONTRACT_SEED).
    #[tokio::test]
    async fn every_tool_keeps_its_contract() {
        use mcp_contract::testing::{Cases, assert_contract};
        let client = client().await;
        let reports = check_every_tool(&client, || Cases::new(200).seed(21).or_from_env()).await;
        assert_eq!(reports.len(), 8);
        let search = &reports[0];
        assert!(search.succeeded > 0 && search.failed > 0, "successes and failures both checked: {search}");
        for report in &reports {
            report.assert_passed();
        }
        // The one-line form, for a single tool.
        assert_contract(&client, GetObject, Cases::new(50).seed(1)).await;
    }
}
