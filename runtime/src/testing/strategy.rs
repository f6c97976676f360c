//! proptest strategies built from a JSON Schema: the arguments a client may
//! send a tool, read from the input schema it advertises. Valid values lean
//! on their edges (empty and long strings, Unicode, the bounds of a number,
//! empty and long arrays, every enum value, optional fields present and
//! absent); invalid ones break a valid object in one place.

use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, Union};
use serde_json::{Map, Value};

use crate::schema::required_names;

/// How deep `$ref`s and nested objects are followed; below, arrays are empty
/// and optional fields absent, so a recursive type ends.
const MAX_DEPTH: u32 = 5;

/// Strings of the long edge, in characters (cut to `maxLength` when smaller).
const LONG_STRING: usize = 2_000;

/// Arrays of the long edge (cut to `maxItems` when smaller).
const LONG_ARRAY: usize = 64;

/// Values `schema` accepts; `root` resolves its `$ref`s.
pub(super) fn valid(schema: &Value, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    let Value::Object(schema) = schema else {
        // `true` (anything) or `false` (nothing a client could send): any scalar.
        return any_scalar();
    };
    if let Some(Value::String(reference)) = schema.get("$ref") {
        return match resolve(root, reference) {
            Some(target) if depth < MAX_DEPTH => valid(&target.clone(), root, depth + 1),
            _ => Just(Value::Null).boxed(),
        };
    }
    if let Some(Value::Array(values)) = schema.get("enum")
        && !values.is_empty()
    {
        return proptest::sample::select(values.clone()).boxed();
    }
    if let Some(value) = schema.get("const") {
        return Just(value.clone()).boxed();
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(union)
            && !branches.is_empty()
        {
            // A branch may leave out what the parent says (`{"anyOf": [..], "description": ..}`).
            let branches: Vec<_> =
                branches.iter().map(|branch| valid(&merged(schema, branch, union), root, depth)).collect();
            return Union::new(branches).boxed();
        }
    }
    if let Some(Value::Array(parts)) = schema.get("allOf")
        && let Some(first) = parts.first()
    {
        return valid(&merged(schema, first, "allOf"), root, depth);
    }
    match schema.get("type") {
        Some(Value::Array(types)) if !types.is_empty() => {
            let branches: Vec<_> = types
                .iter()
                .map(|ty| {
                    let mut single = schema.clone();
                    single.insert("type".to_owned(), ty.clone());
                    valid(&Value::Object(single), root, depth)
                })
                .collect();
            Union::new(branches).boxed()
        }
        Some(Value::String(ty)) => typed(ty, schema, root, depth),
        _ if schema.contains_key("properties") => typed("object", schema, root, depth),
        _ if schema.contains_key("items") => typed("array", schema, root, depth),
        _ => any_scalar(),
    }
}

/// Arguments that break `schema` (an object schema) in one place: a required
/// field missing, a field of the wrong type, or a number past its bound; the
/// share of argument decoding in a run.
pub(super) fn invalid(schema: &Value, root: &Value) -> BoxedStrategy<Value> {
    let properties = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    let base = valid(schema, root, 0);
    if properties.is_empty() {
        // Nothing to break inside; the wrong type of the whole arguments object
        // cannot be sent (a call's arguments are an object), an unknown field can.
        return base.prop_map(|value| with_field(value, "unexpected_field", Value::from(1))).boxed();
    }
    let keys: Vec<String> = properties.keys().cloned().collect();
    (base, any::<proptest::sample::Index>(), 0..3u8)
        .prop_map(move |(value, index, mutation)| {
            let key = &keys[index.index(keys.len())];
            let current = value.get(key).cloned();
            match mutation {
                0 if !required.is_empty() => {
                    let missing = &required[index.index(required.len())];
                    without_field(value, missing)
                }
                1 => with_field(value, key, past_bound(properties.get(key), current.as_ref())),
                _ => with_field(value, key, wrong_type(properties.get(key), current.as_ref())),
            }
        })
        .boxed()
}

fn typed(ty: &str, schema: &Map<String, Value>, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    match ty {
        "null" => Just(Value::Null).boxed(),
        "boolean" => any::<bool>().prop_map(Value::Bool).boxed(),
        "integer" => integer(schema),
        "number" => number(schema),
        "string" => string(schema),
        "array" => array(schema, root, depth),
        "object" => object(schema, root, depth),
        _ => any_scalar(),
    }
}

fn integer(schema: &Map<String, Value>) -> BoxedStrategy<Value> {
    let (format_lo, format_hi) = match schema.get("format").and_then(Value::as_str) {
        Some("int8") => (i64::from(i8::MIN), i64::from(i8::MAX)),
        Some("int16") => (i64::from(i16::MIN), i64::from(i16::MAX)),
        Some("int32") => (i64::from(i32::MIN), i64::from(i32::MAX)),
        Some("uint8") => (0, i64::from(u8::MAX)),
        Some("uint16") => (0, i64::from(u16::MAX)),
        Some("uint32" | "uint") => (0, i64::from(u32::MAX)),
        Some("uint64" | "uint128") => (0, i64::MAX),
        _ => (i64::MIN, i64::MAX),
    };
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    let mut lo = format_lo;
    let mut hi = format_hi;
    if let Some(minimum) = bound("minimum") {
        lo = lo.max(saturating(minimum.ceil()));
    }
    if let Some(minimum) = bound("exclusiveMinimum") {
        lo = lo.max(saturating(minimum.floor()).saturating_add(1));
    }
    if let Some(maximum) = bound("maximum") {
        hi = hi.min(saturating(maximum.floor()));
    }
    if let Some(maximum) = bound("exclusiveMaximum") {
        hi = hi.min(saturating(maximum.ceil()).saturating_sub(1));
    }
    if lo > hi {
        return Just(Value::from(lo)).boxed();
    }
    let clamp = move |v: i64| v.clamp(lo, hi);
    prop_oneof![
        1 => Just(lo),
        1 => Just(hi),
        1 => Just(clamp(0)),
        1 => Just(clamp(1)),
        2 => clamp(-1_000)..=clamp(1_000),
        4 => lo..=hi,
    ]
    .prop_map(Value::from)
    .boxed()
}

/// A schema's bound as an integer; `as` saturates at `i64`'s ends, which is
/// what a bound past them means here.
fn saturating(value: f64) -> i64 {
    value as i64
}

fn number(schema: &Map<String, Value>) -> BoxedStrategy<Value> {
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    let lo = bound("minimum").or(bound("exclusiveMinimum")).unwrap_or(-1e12);
    let hi = bound("maximum").or(bound("exclusiveMaximum")).unwrap_or(1e12);
    if lo >= hi {
        return Just(Value::from(lo)).boxed();
    }
    // Inside the exclusive bounds: a hair above the lower, below the upper.
    let lo_edge = if schema.contains_key("exclusiveMinimum") { lo + (hi - lo) * 1e-9 } else { lo };
    let hi_edge = if schema.contains_key("exclusiveMaximum") { hi - (hi - lo) * 1e-9 } else { hi };
    let zero = 0f64.clamp(lo_edge, hi_edge);
    prop_oneof![
        1 => Just(lo_edge),
        1 => Just(hi_edge),
        1 => Just(zero),
        5 => lo_edge..=hi_edge,
    ]
    .prop_map(|v| serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    .boxed()
}

fn string(schema: &Map<String, Value>) -> BoxedStrategy<Value> {
    let length = |key: &str| schema.get(key).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok());
    let min = length("minLength").unwrap_or(0);
    let max = length("maxLength").unwrap_or(usize::MAX).max(min);
    if let Some(format) = schema.get("format").and_then(Value::as_str)
        && let Some(samples) = format_samples(format)
    {
        return proptest::sample::select(samples).prop_map(Value::from).boxed();
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
        && let Ok(matching) = proptest::string::string_regex(pattern)
    {
        return matching.prop_map(move |s| Value::from(fit(s, min, max))).boxed();
    }
    let long = LONG_STRING.min(max).max(min);
    prop_oneof![
        1 => Just(String::new()),
        3 => "[a-zA-Z0-9 _-]{1,16}",
        3 => "\\PC{1,24}",
        1 => LongEdge { min, long }.prop_map(letters),
    ]
    .prop_map(move |s| Value::from(fit(s, min, max)))
    .boxed()
}

/// The long edge of a length: `long` itself, shrinking by binary search
/// toward `min`, so a failure of long strings shrinks to its shortest length
/// in a dozen calls rather than one call per character.
#[derive(Debug)]
struct LongEdge {
    min: usize,
    long: usize,
}

impl Strategy for LongEdge {
    type Tree = proptest::num::usize::BinarySearch;
    type Value = usize;

    fn new_tree(&self, _runner: &mut proptest::test_runner::TestRunner) -> proptest::strategy::NewTree<Self> {
        Ok(proptest::num::usize::BinarySearch::new_above(self.min, self.long))
    }
}

/// `length` letters, varied so no substring repeats within a short span.
fn letters(length: usize) -> String {
    (0..length).map(|i| char::from(b'a' + u8::try_from((i * 7 + i / 26) % 26).unwrap_or(0))).collect()
}

/// `s` padded to `min` characters and cut to `max`.
fn fit(s: String, min: usize, max: usize) -> String {
    let count = s.chars().count();
    if count < min {
        let mut padded = s;
        padded.extend(std::iter::repeat_n('a', min - count));
        padded
    } else if count > max {
        s.chars().take(max).collect()
    } else {
        s
    }
}

/// Values of the string formats LLM vendors accept, valid by their RFCs.
fn format_samples(format: &str) -> Option<Vec<&'static str>> {
    Some(match format {
        "email" => vec!["ada@example.org", "a.b+c@museum.example"],
        "uri" => vec!["https://example.org/", "urn:isbn:0451450523", "https://example.org/a?b=c#d"],
        "date" => vec!["2024-02-29", "1970-01-01", "9999-12-31"],
        "date-time" => vec!["2024-02-29T12:00:00Z", "1970-01-01T00:00:00+01:00"],
        "time" => vec!["12:00:00Z", "23:59:59+02:00"],
        "uuid" => vec!["00000000-0000-0000-0000-000000000000", "67e55044-10b1-426f-9247-bb680e5fe0c8"],
        "ipv4" => vec!["127.0.0.1", "255.255.255.255"],
        "ipv6" => vec!["::1", "2001:db8::1"],
        "hostname" => vec!["example.org", "localhost"],
        _ => return None,
    })
}

fn array(schema: &Map<String, Value>, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    let count = |key: &str| schema.get(key).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok());
    let min = count("minItems").unwrap_or(0);
    let max = count("maxItems").unwrap_or(usize::MAX).max(min);
    if depth >= MAX_DEPTH {
        return Just(Value::Array(Vec::new())).boxed();
    }
    let items = schema.get("items").map_or_else(any_scalar, |items| valid(items, root, depth + 1));
    let short = min..=max.min(min + 4);
    let long = LONG_ARRAY.min(max).max(min);
    prop_oneof![
        4 => proptest::collection::vec(items.clone(), short),
        1 => proptest::collection::vec(items, long..=long),
    ]
    .prop_map(Value::Array)
    .boxed()
}

fn object(schema: &Map<String, Value>, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    let required = required_names(schema);
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return Just(Value::Object(Map::new())).boxed();
    };
    let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = properties
        .iter()
        .map(|(key, property)| {
            let key = key.clone();
            let value = valid(property, root, depth + 1);
            if required.contains(&key.as_str()) {
                value.prop_map(move |value| Some((key.clone(), value))).boxed()
            } else if depth >= MAX_DEPTH {
                Just(None).boxed()
            } else {
                // Absent shrinks first: a failing input loses the fields it does not need.
                proptest::option::of(value.prop_map(move |value| (key.clone(), value))).boxed()
            }
        })
        .collect();
    fields.prop_map(|fields| Value::Object(fields.into_iter().flatten().collect())).boxed()
}

fn any_scalar() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        "\\PC{0,16}".prop_map(Value::from),
    ]
    .boxed()
}

/// `branch` with what its parent declares beside the union.
fn merged(parent: &Map<String, Value>, branch: &Value, union: &str) -> Value {
    let Value::Object(branch) = branch else { return branch.clone() };
    let mut merged = parent.clone();
    merged.remove(union);
    for (key, value) in branch {
        merged.insert(key.clone(), value.clone());
    }
    Value::Object(merged)
}

fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    root.pointer(reference.strip_prefix('#')?)
}

fn with_field(value: Value, key: &str, field: Value) -> Value {
    match value {
        Value::Object(mut object) => {
            object.insert(key.to_owned(), field);
            Value::Object(object)
        }
        other => other,
    }
}

fn without_field(value: Value, key: &str) -> Value {
    match value {
        Value::Object(mut object) => {
            object.remove(key);
            Value::Object(object)
        }
        other => other,
    }
}

/// A value of none of the JSON types `property` allows (its `type`, or its
/// union's branches' types), else of another type than `current`; and one the
/// server's argument repair leaves as it is, so the case stays invalid: a
/// boolean first (no repair makes one a string, a number or an object), and
/// for a list a string holding a comma (never taken for a list of one).
fn wrong_type(property: Option<&Value>, current: Option<&Value>) -> Value {
    let mut allowed: Vec<&str> = Vec::new();
    if let Some(property) = property {
        let branches = ["anyOf", "oneOf"].iter().filter_map(|key| property.get(*key)?.as_array()).flatten();
        for schema in std::iter::once(property).chain(branches) {
            match schema.get("type") {
                Some(Value::String(ty)) => allowed.push(ty),
                Some(Value::Array(types)) => allowed.extend(types.iter().filter_map(Value::as_str)),
                _ => {}
            }
        }
    }
    if allowed.is_empty() {
        allowed.push(match current {
            Some(Value::String(_)) => "string",
            Some(Value::Array(_)) => "array",
            Some(Value::Object(_)) => "object",
            Some(Value::Bool(_)) => "boolean",
            _ => "number",
        });
    }
    let candidates = [
        ("boolean", Value::Bool(true)),
        ("string", Value::from("not of this type, nor a list")),
        ("object", Value::Object(Map::new())),
        ("integer", Value::from(7)),
        ("array", Value::Array(Vec::new())),
    ];
    let list = allowed.contains(&"array");
    for (ty, value) in candidates {
        let taken = allowed.contains(&ty)
            || (ty == "integer" && allowed.contains(&"number"))
            // A lone value where a list is asked for is repaired into a list of one.
            || (list && ty != "string");
        if !taken {
            return value;
        }
    }
    Value::Null
}

/// A number just past the property's bound (or of its integer type), else a wrong type.
fn past_bound(property: Option<&Value>, current: Option<&Value>) -> Value {
    let Some(property) = property else { return wrong_type(None, current) };
    if let Some(maximum) = property.get("maximum").and_then(Value::as_f64) {
        return Value::from(maximum + 1.0);
    }
    if let Some(minimum) = property.get("minimum").and_then(Value::as_f64) {
        return Value::from(minimum - 1.0);
    }
    match property.get("type").and_then(Value::as_str) {
        Some("integer") => Value::from(1.5),
        _ => wrong_type(Some(property), current),
    }
}

#[cfg(test)]
mod tests {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
    use serde_json::json;

    use super::*;

    fn sample(strategy: &BoxedStrategy<Value>, count: usize) -> Vec<Value> {
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
        let mut runner = TestRunner::new_with_rng(proptest::test_runner::Config::default(), rng);
        (0..count).map(|_| strategy.new_tree(&mut runner).unwrap().current()).collect()
    }

    #[test]
    fn every_valid_value_validates_and_the_edges_are_reached() {
        let schema = json!({
            "type": "object",
            "properties": {
                "id": {"type": "integer", "minimum": 1, "maximum": 500},
                "query": {"type": "string", "maxLength": 40},
                "kind": {"type": "string", "enum": ["painting", "vase", "coin"]},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 10},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            },
            "required": ["id", "query", "kind"],
        });
        let validator = jsonschema::draft202012::new(&schema).unwrap();
        let values = sample(&valid(&schema, &schema, 0), 600);
        for value in &values {
            assert!(validator.is_valid(value), "{value}");
        }
        let ids: Vec<i64> = values.iter().map(|v| v["id"].as_i64().unwrap()).collect();
        assert!(ids.contains(&1) && ids.contains(&500), "both bounds");
        let queries: Vec<&str> = values.iter().map(|v| v["query"].as_str().unwrap()).collect();
        assert!(queries.contains(&""), "the empty string");
        assert!(queries.iter().any(|q| q.chars().count() == 40), "the longest string");
        assert!(queries.iter().any(|q| !q.is_ascii()), "Unicode");
        for kind in ["painting", "vase", "coin"] {
            assert!(values.iter().any(|v| v["kind"] == kind), "every enum value: {kind}");
        }
        assert!(values.iter().any(|v| v.get("tags").is_none()), "an optional field absent");
        assert!(values.iter().any(|v| v["tags"].as_array().is_some_and(Vec::is_empty)), "an empty array");
        assert!(values.iter().any(|v| v["tags"].as_array().is_some_and(|t| t.len() == 10)), "the longest array");
        assert!(values.iter().any(|v| v["note"].is_null() && v.get("note").is_some()), "null of an Option");
    }

    #[test]
    fn invalid_values_break_the_schema() {
        let schema = json!({
            "type": "object",
            "properties": {"id": {"type": "integer", "minimum": 1, "maximum": 9}, "name": {"type": "string"}},
            "required": ["id", "name"],
        });
        let validator = jsonschema::draft202012::new(&schema).unwrap();
        for value in sample(&invalid(&schema, &schema), 200) {
            assert!(!validator.is_valid(&value), "{value}");
        }
    }

    #[test]
    fn refs_resolve_and_recursion_ends() {
        let schema = json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "required": ["tree"],
            "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}, "required": ["children"]}},
        });
        let validator = jsonschema::draft202012::new(&schema).unwrap();
        for value in sample(&valid(&schema, &schema, 0), 50) {
            assert!(validator.is_valid(&value), "{value}");
        }
    }
}
