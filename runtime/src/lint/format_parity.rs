//! Format parity: every field of a tool's structured result must show in the
//! text its `format` function renders.
//!
//! Some MCP clients hand the model `structuredContent`, others only
//! `content[]`; a field `format` leaves out is invisible to the second kind.
//! The check builds samples of the output from its schema, decodes each into
//! the tool's output type, renders it with the tool's own `render`, and looks
//! for each leaf in the text.
//!
//! - **Strings** get a sentinel `MCPPARITY<path folded to [A-Za-z0-9]>`:
//!   alphanumeric, so markdown, HTML or URL escaping cannot hide it.
//! - **Integers** get `900000001` and up; **numbers** `9100001` and up, which
//!   an `f32` field holds and prints exactly. Both also match with thousands
//!   separators (`900,000,001`, `900.000.001`, `900 000 001`).
//!   An integer whose bounds exclude them (`u8`) gets a small value instead and
//!   is checked like a boolean.
//! - **Booleans, enums and small integers** are *flipped*: the sample is
//!   rendered again with only that leaf changed (`true` to `false`, the first
//!   enum value to the second), and the leaf shows when the text changes. This
//!   is stricter than the reference's token match, which fixed text such as
//!   "available: true" in the formatter could satisfy. A value that cannot
//!   change (a `const`, a one-value `enum`) is matched as a delimited token or
//!   by its key name (a whole word, or a camelCase/snake_case segment of at
//!   least 3 letters); the `const` tag of a union branch is exempt.
//! - **Unions** (`anyOf`/`oneOf`): each branch is walked in a sample of its
//!   own, at most [`MAX_VARIANTS`] samples per tool; the `null` of an `Option`
//!   is not a branch.
//! - The walk stops at depth [`MAX_DEPTH`] with a `format-parity-depth-limit`
//!   warning naming the field, rather than passing silently; a recursive type
//!   is walked once.

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value, json};

use super::schema::resolve;
use super::{DefinitionKind, Diagnostic};
use crate::define::{Content, DynTool, FormatSample, ToolOutput};
use crate::error::JsonObject;
use crate::schema::{is_object_schema, required_names};
use mcp_contract_rules::{FORMAT_PARITY, FORMAT_PARITY_DEPTH_LIMIT, FORMAT_PARITY_THREW, FORMAT_PARITY_WALK_FAILED};

/// How deep the walk descends: each object field, array element and union branch is a level.
pub(super) const MAX_DEPTH: usize = 8;
/// How many samples (union branches) one tool gets at most.
pub(super) const MAX_VARIANTS: usize = 32;
/// How many flip renders one sample gets at most; past it, flippable leaves are token-matched.
const MAX_FLIPS: usize = 64;
/// The most elements a `minItems` makes a sample array hold.
const MAX_MIN_ITEMS: u64 = 16;

const FIRST_INTEGER: u64 = 900_000_001;
/// Below 2^24 an `f32` holds every integer, and prints it digit for digit
/// (`910000128_f32` prints as `910000100`): the sentinels of `number` leaves,
/// which may be `f32` fields, stay there.
const FIRST_NUMBER: u64 = 9_100_001;

/// The `format-parity` findings of formatters that several tools share: one
/// finding per (function, field), listing the tools, rather than one per tool.
#[derive(Default)]
pub(super) struct SharedFormatters {
    /// (function, field) -> the index of its finding in the output, the tools.
    seen: std::collections::HashMap<(&'static str, String), (usize, Vec<&'static str>)>,
}

impl SharedFormatters {
    /// Reword the findings of the functions that more than one tool shares.
    pub(super) fn finish(self, out: &mut [Diagnostic]) {
        for ((function, path), (index, tools)) in self.seen {
            if tools.len() > 1 {
                out[index] = Diagnostic::new(
                    FORMAT_PARITY,
                    DefinitionKind::Tool,
                    tools[0],
                    Some(path.clone()),
                    missing_field(function, &tools, &path),
                );
            }
        }
    }
}

/// The text of a `format-parity` finding: the function, the tools, the field.
fn missing_field(function: &str, tools: &[&str], path: &str) -> String {
    let short = function.rsplit("::").next().unwrap_or(function);
    let who = match tools {
        [tool] => format!("the `format` function `{function}` of tool `{tool}`"),
        _ => format!(
            "the `format` function `{function}`, shared by tools {},",
            tools.iter().map(|tool| format!("`{tool}`")).collect::<Vec<_>>().join(", ")
        ),
    };
    format!(
        "{who} does not render output field `{path}`, so clients that read only `content` (the text) never see it while clients that read `structuredContent` do: render the field in `{short}`, or drop it from the output"
    )
}

pub(super) fn check_tool(tool: &dyn DynTool, shared: &mut SharedFormatters, out: &mut Vec<Diagnostic>) {
    let definition = tool.definition();
    let name = definition.name;
    let Some(schema) = &definition.output_schema else { return };
    if !is_object_schema(schema) {
        return; // `schema-is-object` says why.
    }
    let report = |out: &mut Vec<Diagnostic>, rule, path: Option<String>, text: String| {
        out.push(Diagnostic::new(rule, DefinitionKind::Tool, name, path, text));
    };

    let mut walker = Walker::new(schema);
    let variants = walker.walk(&Value::Object((**schema).clone()), &Place::root(), 0);
    let variants = match variants {
        Ok(variants) => variants,
        Err(why) => {
            report(
                out,
                FORMAT_PARITY_WALK_FAILED,
                None,
                format!(
                    "the output schema of tool `{name}` could not be walked to build a sample ({why}), so format parity is not verified"
                ),
            );
            return;
        }
    };
    for path in &walker.truncated {
        report(
            out,
            FORMAT_PARITY_DEPTH_LIMIT,
            Some(path.clone()),
            format!(
                "output field `{path}` of tool `{name}` is nested deeper than the format-parity walk's limit ({MAX_DEPTH}), so it and what is under it were not checked: flatten the output or check by hand that `format` renders it"
            ),
        );
    }
    if walker.capped {
        report(
            out,
            FORMAT_PARITY_WALK_FAILED,
            None,
            format!(
                "the output of tool `{name}` has more union branches than the {MAX_VARIANTS} samples format parity renders; the branches past them were not checked"
            ),
        );
    }

    let mut missing: BTreeSet<String> = BTreeSet::new();
    let mut reported: Vec<String> = Vec::new();
    for variant in &variants {
        let text = match render(tool, variant.value.clone()) {
            Rendered::Text(text) => text,
            Rendered::NotChecked => return,
            Rendered::Failed(rule, text) => {
                let text = format!("{text} (tool `{name}`); format parity is not verified");
                report(out, rule, None, text);
                return;
            }
        };
        let mut flips = 0;
        for leaf in &variant.leaves {
            if leaf.exempt || missing.contains(&leaf.path) {
                continue;
            }
            let shown = match &leaf.alternative {
                Some(alternative) if flips < MAX_FLIPS => {
                    flips += 1;
                    let mut flipped = variant.value.clone();
                    set(&mut flipped, &leaf.location, alternative.clone());
                    match render(tool, flipped) {
                        Rendered::Text(other) => other != text,
                        _ => leaf.matches(&text),
                    }
                }
                _ => leaf.matches(&text),
            };
            if !shown && missing.insert(leaf.path.clone()) {
                reported.push(leaf.path.clone());
            }
        }
    }
    for path in reported {
        let Some(function) = tool.format_function() else {
            report(
                out,
                FORMAT_PARITY,
                Some(path.clone()),
                format!(
                    "the `format` of tool `{name}` does not render output field `{path}`, so clients that read only `content` (the text) never see it while clients that read `structuredContent` do: render the field in `format`, or drop it from the output"
                ),
            );
            continue;
        };
        match shared.seen.get_mut(&(function, path.clone())) {
            Some((_, tools)) => tools.push(name),
            None => {
                shared.seen.insert((function, path.clone()), (out.len(), vec![name]));
                report(out, FORMAT_PARITY, Some(path.clone()), missing_field(function, &[name], &path));
            }
        }
    }
}

enum Rendered {
    Text(String),
    NotChecked,
    Failed(super::Rule, String),
}

/// Decode and render one sample, catching a panicking formatter.
fn render(tool: &dyn DynTool, sample: Value) -> Rendered {
    match catch_unwind(AssertUnwindSafe(|| tool.format_sample(sample))) {
        Ok(FormatSample::Rendered(Ok(output))) => Rendered::Text(text_of(&output)),
        Ok(FormatSample::Rendered(Err(err))) => {
            Rendered::Failed(FORMAT_PARITY_THREW, format!("rendering a sample output failed: {}", err.message()))
        }
        Ok(FormatSample::NotDeserializable) => Rendered::Failed(
            FORMAT_PARITY_WALK_FAILED,
            "the output type is not `Deserialize`, so no sample of it can be built: derive `Deserialize` on it".into(),
        ),
        Ok(FormatSample::Rejected(why)) => Rendered::Failed(
            FORMAT_PARITY_WALK_FAILED,
            format!("the output type refused a sample built from its schema {why}"),
        ),
        Ok(FormatSample::NotChecked) => Rendered::NotChecked,
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a non-string panic".into());
            Rendered::Failed(
                FORMAT_PARITY_THREW,
                format!(
                    "`format` panicked on a sample output ({message}); it should render any value its output type can hold"
                ),
            )
        }
    }
}

/// Everything a client could show the model from `content`: every string and
/// number of every block (text, image or audio data, embedded resources, links).
fn text_of(output: &ToolOutput) -> String {
    fn collect(value: &Value, text: &mut String) {
        match value {
            Value::String(part) => {
                text.push_str(part);
                text.push('\n');
            }
            Value::Number(number) => {
                text.push_str(&number.to_string());
                text.push('\n');
            }
            Value::Array(items) => items.iter().for_each(|item| collect(item, text)),
            Value::Object(map) => {
                map.iter().filter(|(key, _)| *key != "type").for_each(|(_, item)| collect(item, text))
            }
            Value::Bool(_) | Value::Null => {}
        }
    }
    let mut text = String::new();
    for block in &output.content {
        if let Content::Text { text: part } = block {
            text.push_str(part);
            text.push('\n');
        } else if let Ok(value) = serde_json::to_value(block) {
            collect(&value, &mut text);
        }
    }
    text
}

// ------------------------------------------------------------------ samples

/// A segment of a leaf's location in the sample value.
#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

/// Where the walk is: the display path (`results[].title`), the key, the location.
#[derive(Clone, Debug)]
struct Place {
    path: String,
    key: String,
    location: Vec<Seg>,
    /// The place is a field of an object that is a union branch: a `const` here is the branch's tag.
    in_branch: bool,
    /// The object at this place is a union branch.
    branch_object: bool,
}

impl Place {
    fn root() -> Self {
        Self { path: String::new(), key: String::new(), location: Vec::new(), in_branch: false, branch_object: false }
    }

    fn field(&self, key: &str, in_branch: bool) -> Self {
        let path = if self.path.is_empty() { key.to_owned() } else { format!("{}.{key}", self.path) };
        let mut location = self.location.clone();
        location.push(Seg::Key(key.to_owned()));
        Self { path, key: key.to_owned(), location, in_branch, branch_object: false }
    }

    fn element(&self, index: usize, label: &str) -> Self {
        let mut location = self.location.clone();
        location.push(Seg::Index(index));
        Self {
            path: format!("{}{label}", self.path),
            key: self.key.clone(),
            location,
            in_branch: false,
            branch_object: false,
        }
    }

    fn display(&self) -> String {
        if self.path.is_empty() { "<root>".to_owned() } else { self.path.clone() }
    }
}

#[derive(Clone, Debug)]
struct Leaf {
    path: String,
    key: String,
    location: Vec<Seg>,
    /// What to look for in the text.
    sentinel: String,
    /// Distinctive: a substring match suffices. Otherwise a delimited token or the key name.
    strict: bool,
    /// Whether digit grouping may separate the sentinel's digits.
    numeric: bool,
    /// A different valid value: the leaf shows when the text changes with it.
    alternative: Option<Value>,
    /// A union branch's `const` tag: it carries no value of its own.
    exempt: bool,
}

impl Leaf {
    fn matches(&self, text: &str) -> bool {
        let found = |text: &str| {
            if self.strict { text.contains(&self.sentinel) } else { contains_token(text, &self.sentinel) }
        };
        if found(text) || (self.numeric && found(&ungroup_digits(text))) {
            return true;
        }
        !self.strict && key_name_appears(&self.key, text)
    }
}

#[derive(Clone, Debug)]
struct Variant {
    value: Value,
    leaves: Vec<Leaf>,
}

struct Walker<'s> {
    root: &'s JsonObject,
    integers: u64,
    numbers: u64,
    small: u64,
    refs: Vec<String>,
    truncated: BTreeSet<String>,
    capped: bool,
}

impl<'s> Walker<'s> {
    fn new(root: &'s JsonObject) -> Self {
        Self { root, integers: 0, numbers: 0, small: 0, refs: Vec::new(), truncated: BTreeSet::new(), capped: false }
    }

    fn walk(&mut self, schema: &Value, place: &Place, depth: usize) -> Result<Vec<Variant>, String> {
        let schema = match schema {
            Value::Object(schema) => schema,
            // `true` (or a missing schema) accepts anything: a string sentinel.
            Value::Bool(true) => &JsonObject::new(),
            _ => return Err(format!("`{}` has a schema that accepts nothing", place.display())),
        };
        if depth > MAX_DEPTH {
            self.truncated.insert(place.display());
            return Ok(vec![Variant { value: minimal(self.root, schema, 0), leaves: Vec::new() }]);
        }
        if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
            if self.refs.iter().any(|seen| seen == target) {
                // A recursive type: its fields were walked where it first appeared.
                return Ok(vec![Variant { value: minimal(self.root, schema, 0), leaves: Vec::new() }]);
            }
            let body = resolve(self.root, target)
                .ok_or_else(|| format!("`{}` refers to `{target}`, which is not in the schema", place.display()))?;
            let mut merged = body.clone();
            for (key, value) in schema {
                if key != "$ref" {
                    merged.insert(key.clone(), value.clone());
                }
            }
            self.refs.push(target.to_owned());
            let walked = self.walk(&Value::Object(merged), place, depth);
            self.refs.pop();
            return walked;
        }
        if let Some(Value::Array(parts)) = schema.get("allOf") {
            let mut merged = schema.clone();
            merged.remove("allOf");
            for part in parts {
                let part = match part {
                    Value::Object(part) => match part.get("$ref").and_then(Value::as_str) {
                        Some(target) => resolve(self.root, target).cloned().unwrap_or_default(),
                        None => part.clone(),
                    },
                    _ => continue,
                };
                merge_into(&mut merged, &part);
            }
            return self.walk(&Value::Object(merged), place, depth);
        }
        for keyword in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = schema.get(keyword) else { continue };
            let mut base = schema.clone();
            base.remove(keyword);
            let branches: Vec<&JsonObject> = branches
                .iter()
                .filter_map(Value::as_object)
                .filter(|branch| branch.get("type").and_then(Value::as_str) != Some("null"))
                .collect();
            if branches.is_empty() {
                return Ok(vec![Variant { value: Value::Null, leaves: Vec::new() }]);
            }
            let is_union = branches.len() > 1;
            // An enum whose variants are documented is a union of `const`s: one leaf that can flip.
            let literals: Option<Vec<Value>> = branches.iter().map(|branch| literal(branch)).collect();
            if is_union && let Some(values) = literals {
                return Ok(vec![leaf_variant(
                    place,
                    values[0].clone(),
                    token(&values[0]),
                    false,
                    Some(values[1].clone()),
                )]);
            }
            let mut variants = Vec::new();
            for branch in branches {
                let mut merged = base.clone();
                if types(&merged).iter().any(|ty| ty == "null") || merged.get("type").is_some_and(Value::is_array) {
                    merged.remove("type"); // the branch says which of the types it is
                }
                merge_into(&mut merged, branch);
                let mut branch_place = place.clone();
                branch_place.branch_object = is_union;
                variants.extend(self.walk(&Value::Object(merged), &branch_place, depth + usize::from(is_union))?);
            }
            return Ok(self.cap(variants));
        }
        if let Some(value) = schema.get("const") {
            return Ok(vec![self.fixed_leaf(place, value.clone())]);
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            let Some(first) = values.first() else {
                return Err(format!("`{}` has an empty `enum`", place.display()));
            };
            if values.len() == 1 {
                return Ok(vec![self.fixed_leaf(place, first.clone())]);
            }
            return Ok(vec![leaf_variant(place, first.clone(), token(first), false, Some(values[1].clone()))]);
        }

        match primary_type(schema).as_deref() {
            Some("object") => self.object(schema, place, depth),
            Some("array") => self.array(schema, place, depth),
            Some("string") | None => Ok(vec![self.string(schema, place)]),
            Some("integer") => Ok(vec![self.integer(schema, place)]),
            Some("number") => Ok(vec![self.number(place)]),
            Some("boolean") => Ok(vec![leaf_variant(place, json!(true), "true".into(), false, Some(json!(false)))]),
            Some("null") => Ok(vec![Variant { value: Value::Null, leaves: Vec::new() }]),
            Some(other) => Err(format!("`{}` has the unknown type `{other}`", place.display())),
        }
    }

    fn fixed_leaf(&self, place: &Place, value: Value) -> Variant {
        let mut variant = leaf_variant(place, value.clone(), token(&value), false, None);
        variant.leaves[0].exempt = place.in_branch;
        variant
    }

    fn object(&mut self, schema: &JsonObject, place: &Place, depth: usize) -> Result<Vec<Variant>, String> {
        let mut children: Vec<(String, Vec<Variant>)> = Vec::new();
        if let Some(Value::Object(properties)) = schema.get("properties") {
            for (key, child) in properties {
                let child_place = place.field(key, place.branch_object);
                children.push((key.clone(), self.walk(child, &child_place, depth + 1)?));
            }
        }
        if let Some(values @ Value::Object(_)) = schema.get("additionalProperties") {
            let key = "parity_key";
            let mut child_place = place.field(key, false);
            child_place.path = if place.path.is_empty() { "<key>".into() } else { format!("{}.<key>", place.path) };
            children.push((key.to_owned(), self.walk(values, &child_place, depth + 1)?));
        }
        let build = |choice: &[usize]| {
            let mut value = Map::new();
            let mut leaves = Vec::new();
            for ((key, variants), &pick) in children.iter().zip(choice) {
                value.insert(key.clone(), variants[pick].value.clone());
                leaves.extend(variants[pick].leaves.iter().cloned());
            }
            Variant { value: Value::Object(value), leaves }
        };
        let base = vec![0; children.len()];
        let mut variants = vec![build(&base)];
        for (index, (_, options)) in children.iter().enumerate() {
            for pick in 1..options.len() {
                let mut choice = base.clone();
                choice[index] = pick;
                variants.push(build(&choice));
            }
        }
        Ok(self.cap(variants))
    }

    fn array(&mut self, schema: &JsonObject, place: &Place, depth: usize) -> Result<Vec<Variant>, String> {
        let mut items: Vec<(Place, &Value)> = Vec::new();
        if let Some(Value::Array(prefix)) = schema.get("prefixItems") {
            for (index, item) in prefix.iter().enumerate() {
                items.push((place.element(index, &format!("[{index}]")), item));
            }
        }
        if items.is_empty()
            && let Some(item) = schema.get("items").filter(|item| item.is_object())
        {
            let count = schema.get("minItems").and_then(Value::as_u64).unwrap_or(1).clamp(1, MAX_MIN_ITEMS);
            for index in 0..usize::try_from(count).unwrap_or(1) {
                let label = if count == 1 { "[]".to_owned() } else { format!("[{index}]") };
                items.push((place.element(index, &label), item));
            }
        }
        let mut elements = Vec::new();
        for (element_place, item) in items {
            elements.push(self.walk(item, &element_place, depth + 1)?);
        }
        let build = |choice: &[usize]| {
            let mut value = Vec::new();
            let mut leaves = Vec::new();
            for (variants, &pick) in elements.iter().zip(choice) {
                value.push(variants[pick].value.clone());
                leaves.extend(variants[pick].leaves.iter().cloned());
            }
            Variant { value: Value::Array(value), leaves }
        };
        let base = vec![0; elements.len()];
        let mut variants = vec![build(&base)];
        if let Some(first) = elements.first() {
            for pick in 1..first.len() {
                let mut choice = base.clone();
                choice[0] = pick;
                variants.push(build(&choice));
            }
        }
        Ok(self.cap(variants))
    }

    fn string(&mut self, schema: &JsonObject, place: &Place) -> Variant {
        let sentinel = format!("MCPPARITY{}", fold(&place.path));
        let fixed = |value: &str, alternative: &str| {
            leaf_variant(place, json!(value), value.to_owned(), false, Some(json!(alternative)))
        };
        match schema.get("format").and_then(Value::as_str) {
            Some("date-time") => fixed("2001-02-03T04:05:06Z", "2002-03-04T05:06:07Z"),
            Some("date") => fixed("2001-02-03", "2002-03-04"),
            Some("time") => fixed("04:05:06", "05:06:07"),
            Some("duration") => fixed("P3D", "P4D"),
            Some("ipv4") => fixed("192.0.2.1", "192.0.2.2"),
            Some("ipv6") => fixed("2001:db8::1", "2001:db8::2"),
            Some("uuid") => {
                self.integers += 1;
                let value = format!("00000000-0000-4000-8000-{:012}", self.integers);
                leaf_variant(place, json!(value), value.clone(), true, None)
            }
            Some("email") => leaf_variant(place, json!(format!("{sentinel}@example.com")), sentinel, true, None),
            Some("hostname") => leaf_variant(place, json!(format!("{sentinel}.example.com")), sentinel, true, None),
            _ => leaf_variant(place, json!(sentinel), sentinel, true, None),
        }
    }

    fn integer(&mut self, schema: &JsonObject, place: &Place) -> Variant {
        let minimum = schema.get("minimum").and_then(Value::as_f64);
        let maximum = schema.get("maximum").and_then(Value::as_f64);
        let candidate = FIRST_INTEGER + self.integers;
        #[allow(clippy::cast_precision_loss, reason = "sentinels are far below 2^52")]
        let fits =
            maximum.is_none_or(|max| candidate as f64 <= max) && minimum.is_none_or(|min| candidate as f64 >= min);
        if fits {
            self.integers += 1;
            let mut variant = leaf_variant(place, json!(candidate), candidate.to_string(), true, None);
            variant.leaves[0].numeric = true;
            return variant;
        }
        // A small integer type: a value inside its bounds, checked by flipping it.
        self.small += 1;
        #[allow(clippy::cast_possible_truncation, reason = "bounds of an integer type")]
        let low = minimum.unwrap_or(0.0).max(0.0).min(maximum.unwrap_or(f64::MAX)) as i64;
        #[allow(clippy::cast_possible_truncation, reason = "bounds of an integer type")]
        let high = maximum.unwrap_or(f64::MAX).min(i64::MAX as f64) as i64;
        let span = (high - low).max(0);
        let offset = i64::try_from(self.small).unwrap_or(1) % span.max(1);
        let value = low + 1 + offset;
        let value = if value > high { low } else { value };
        let alternative = if value == low { (low < high).then(|| low + 1) } else { Some(low) };
        leaf_variant(place, json!(value), value.to_string(), false, alternative.map(|alt| json!(alt)))
    }

    fn number(&mut self, place: &Place) -> Variant {
        let value = FIRST_NUMBER + self.numbers;
        self.numbers += 1;
        let mut variant = leaf_variant(place, json!(value), value.to_string(), true, None);
        variant.leaves[0].numeric = true;
        variant
    }

    fn cap(&mut self, mut variants: Vec<Variant>) -> Vec<Variant> {
        if variants.len() > MAX_VARIANTS {
            variants.truncate(MAX_VARIANTS);
            self.capped = true;
        }
        variants
    }
}

fn leaf_variant(place: &Place, value: Value, sentinel: String, strict: bool, alternative: Option<Value>) -> Variant {
    let leaf = Leaf {
        path: place.display(),
        key: place.key.clone(),
        location: place.location.clone(),
        sentinel,
        strict,
        numeric: false,
        alternative,
        exempt: false,
    };
    Variant { value, leaves: vec![leaf] }
}

/// The value of a `const` or one-value `enum` schema.
fn literal(schema: &JsonObject) -> Option<Value> {
    if let Some(value) = schema.get("const") {
        return Some(value.clone());
    }
    match schema.get("enum").and_then(Value::as_array).map(Vec::as_slice) {
        Some([value]) => Some(value.clone()),
        _ => None,
    }
}

/// The text a fixed value shows as: a string without its quotes.
fn token(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn types(schema: &JsonObject) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(ty)) => vec![ty.clone()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    }
}

/// The type a sample takes: the first non-null one, or what the keywords imply.
fn primary_type(schema: &JsonObject) -> Option<String> {
    let types = types(schema);
    if let Some(ty) = types.iter().find(|ty| *ty != "null") {
        return Some(ty.clone());
    }
    if !types.is_empty() {
        return Some("null".into());
    }
    if schema.contains_key("properties") || schema.contains_key("additionalProperties") {
        Some("object".into())
    } else if schema.contains_key("items") || schema.contains_key("prefixItems") {
        Some("array".into())
    } else {
        None
    }
}

/// Merge `part` into `into`: properties and `required` are united, other keywords overwritten.
fn merge_into(into: &mut JsonObject, part: &JsonObject) {
    for (key, value) in part {
        match (key.as_str(), into.get_mut(key), value) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                mine.extend(theirs.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                mine.extend(theirs.iter().cloned());
            }
            _ => {
                into.insert(key.clone(), value.clone());
            }
        }
    }
}

/// The smallest valid value of `schema` (no leaves): what a cut-off or recursive subtree holds.
fn minimal(root: &JsonObject, schema: &JsonObject, depth: usize) -> Value {
    if depth > 32 {
        return Value::Null;
    }
    if let Some(body) = schema.get("$ref").and_then(Value::as_str).and_then(|target| resolve(root, target)) {
        return minimal(root, body, depth + 1);
    }
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|values| values.first()) {
        return first.clone();
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(keyword) {
            let branches: Vec<&JsonObject> = branches.iter().filter_map(Value::as_object).collect();
            if branches.iter().any(|branch| branch.get("type").and_then(Value::as_str) == Some("null")) {
                return Value::Null;
            }
            if let Some(first) = branches.first() {
                let mut merged = schema.clone();
                merged.remove(keyword);
                merge_into(&mut merged, first);
                return minimal(root, &merged, depth + 1);
            }
        }
    }
    if types(schema).iter().any(|ty| ty == "null") {
        return Value::Null;
    }
    match primary_type(schema).as_deref() {
        Some("object") => {
            let mut value = Map::new();
            let required = required_names(schema);
            if let Some(Value::Object(properties)) = schema.get("properties") {
                for (key, child) in properties {
                    if required.contains(&key.as_str())
                        && let Value::Object(child) = child
                    {
                        value.insert(key.clone(), minimal(root, child, depth + 1));
                    }
                }
            }
            Value::Object(value)
        }
        Some("array") => {
            let count = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0).min(MAX_MIN_ITEMS);
            let item = schema.get("items").and_then(Value::as_object);
            let element = item.map_or(Value::Null, |item| minimal(root, item, depth + 1));
            Value::Array((0..count).map(|_| element.clone()).collect())
        }
        Some("integer" | "number") => {
            let minimum = schema.get("minimum").and_then(Value::as_f64).unwrap_or(0.0).max(0.0);
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a small bound")]
            let value = minimum.ceil() as u64;
            json!(value)
        }
        Some("boolean") => json!(false),
        _ => match schema.get("format").and_then(Value::as_str) {
            Some("date-time") => json!("2001-02-03T04:05:06Z"),
            Some("date") => json!("2001-02-03"),
            Some("time") => json!("04:05:06"),
            Some("uuid") => json!("00000000-0000-4000-8000-000000000000"),
            _ => json!(""),
        },
    }
}

fn set(value: &mut Value, location: &[Seg], new: Value) {
    let mut current = value;
    for seg in location {
        let next = match (seg, current) {
            (Seg::Key(key), Value::Object(map)) => map.get_mut(key),
            (Seg::Index(index), Value::Array(items)) => items.get_mut(*index),
            _ => None,
        };
        let Some(next) = next else { return };
        current = next;
    }
    *current = new;
}

/// The path with every run of other characters folded to `Q`, so `a.bc` and `ab.c` stay apart.
fn fold(path: &str) -> String {
    let mut folded = String::with_capacity(path.len());
    let mut in_run = false;
    for ch in path.chars() {
        if ch.is_ascii_alphanumeric() {
            folded.push(ch);
            in_run = false;
        } else if !in_run {
            folded.push('Q');
            in_run = true;
        }
    }
    if folded.is_empty() { "root".into() } else { folded }
}

// ------------------------------------------------------------------ matching

/// A run of digits in thousands groups, with the separators of the common locales:
/// `,` `.` `'` `’` `_`, the Arabic `٬`, and spaces (plain, no-break, narrow, thin).
static THOUSANDS_GROUPS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[0-9]{1,3}(?:[,._'\x{2019}\x{066C} \x{00A0}\x{202F}\x{2009}][0-9]{3})+\b")
        .expect("the thousands-group pattern is valid")
});

/// The text with the separators inside thousands groups removed: `900,000,001`
/// becomes `900000001`; a decimal mark outside the group shape (`90,000,000.1`)
/// stays, so a lossy transform does not match by accident.
fn ungroup_digits(text: &str) -> String {
    THOUSANDS_GROUPS
        .replace_all(text, |caps: &regex::Captures<'_>| {
            caps[0].chars().filter(char::is_ascii_digit).collect::<String>()
        })
        .into_owned()
}

fn is_word_char(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

/// `needle` in `text`, not flanked by a letter, digit or `_`.
fn contains_token(text: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    text.match_indices(needle).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + needle.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

/// The key as a whole word (case-insensitive), or one of its camelCase /
/// snake_case segments of 3 letters or more.
fn key_name_appears(key: &str, text: &str) -> bool {
    let text = text.to_lowercase();
    let word = |word: &str| word.chars().count() >= 3 && contains_token(&text, &word.to_lowercase());
    if word(key) {
        return true;
    }
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for ch in key.chars() {
        if ch == '_' || ch == '-' {
            segments.push(std::mem::take(&mut current));
            previous_lower = false;
            continue;
        }
        if ch.is_uppercase() && previous_lower {
            segments.push(std::mem::take(&mut current));
        }
        previous_lower = ch.is_lowercase() || ch.is_ascii_digit();
        current.push(ch);
    }
    segments.push(current);
    segments.iter().any(|segment| word(segment))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_groups_of_common_locales_are_joined() {
        for text in
            ["900,000,001", "900.000.001", "900 000 001", "900\u{202F}000\u{202F}001", "900'000'001", "900_000_001"]
        {
            assert!(ungroup_digits(text).contains("900000001"), "{text}");
        }
        assert!(!ungroup_digits("90,000,000.1").contains("900000001"));
        assert!(!ungroup_digits("9e8").contains("900000001"));
    }

    #[test]
    fn tokens_are_delimited() {
        assert!(contains_token("mode: full.", "full"));
        assert!(!contains_token("fully loaded", "full"));
        assert!(!contains_token("MCPPARITYfull", "full"));
    }

    #[test]
    fn key_names_match_as_words_or_segments() {
        assert!(key_name_appears("on_view", "Object is ON VIEW? no: it is on view"));
        assert!(key_name_appears("isArchived", "Archived: yes"));
        assert!(!key_name_appears("is_ok", "this is ok"));
        assert!(!key_name_appears("archived", "unarchived"));
    }

    #[test]
    fn folded_paths_stay_distinct() {
        assert_ne!(fold("a.bc"), fold("ab.c"));
        assert_eq!(fold("results[].title"), "resultsQtitle");
        assert_eq!(fold(""), "root");
    }
}
