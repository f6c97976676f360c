//! Walking a schema: its subschemas, its local references, and which
//! definitions are recursive.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::error::JsonObject;

/// A local definition: the root (`#`), or an entry of the root's `$defs` or `definitions`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum DefKey {
    Root,
    Defs(String),
    Definitions(String),
}

/// A keyword that holds definitions, and how its entries are named as [`DefKey`]s.
pub(super) type DefinitionKeyword = (&'static str, fn(String) -> DefKey);

pub(super) const DEFINITION_KEYWORDS: [DefinitionKeyword; 2] =
    [("$defs", DefKey::Defs), ("definitions", DefKey::Definitions)];

pub(super) fn parse_ref(target: &str) -> Option<DefKey> {
    if target == "#" {
        return Some(DefKey::Root);
    }
    if let Some(name) = target.strip_prefix("#/$defs/") {
        return decode_pointer_segment(name).map(DefKey::Defs);
    }
    if let Some(name) = target.strip_prefix("#/definitions/") {
        return decode_pointer_segment(name).map(DefKey::Definitions);
    }
    None
}

/// One segment of a JSON Pointer in a URI fragment: percent-decoded, then `~1`
/// and `~0` unescaped. `None` for a deeper pointer (`Name/properties/x`).
fn decode_pointer_segment(segment: &str) -> Option<String> {
    if segment.contains('/') {
        return None;
    }
    let bytes = segment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let hex = bytes.get(index + 1..index + 3).and_then(|hex| std::str::from_utf8(hex).ok());
        match (bytes[index], hex.and_then(|hex| u8::from_str_radix(hex, 16).ok())) {
            (b'%', Some(byte)) => {
                decoded.push(byte);
                index += 3;
            }
            (byte, _) => {
                decoded.push(byte);
                index += 1;
            }
        }
    }
    let decoded = String::from_utf8(decoded).ok()?;
    Some(decoded.replace("~1", "/").replace("~0", "~"))
}

/// The inverse of [`decode_pointer_segment`], percent-encoding what a URI fragment may not hold.
pub(super) fn encode_pointer_segment(name: &str) -> String {
    let mut encoded = String::with_capacity(name.len());
    for byte in name.bytes() {
        match byte {
            b'~' => encoded.push_str("~0"),
            b'/' => encoded.push_str("~1"),
            b'!' | b'$' | b'&'..=b';' | b'=' | b'?'..=b'Z' | b'_' | b'a'..=b'z' => encoded.push(char::from(byte)),
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}

/// A JSON Pointer segment (RFC 6901) for the checker's report.
pub(super) fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// The immediate subschemas of a schema, each with the JSON Pointer suffix that
/// leads to it. Definitions are not among them: they are walked from their uses.
pub(crate) fn subschemas(schema: &JsonObject) -> Vec<(&str, String, &Value)> {
    let mut found = Vec::new();
    for (keyword, value) in schema {
        let path = escape_pointer(keyword);
        match (SubschemaKind::of(keyword), value) {
            (Some(SubschemaKind::Single | SubschemaKind::List), Value::Array(items)) => {
                found.extend(
                    items.iter().enumerate().map(|(index, item)| (keyword.as_str(), format!("/{path}/{index}"), item)),
                );
            }
            (Some(SubschemaKind::Single), value) => found.push((keyword.as_str(), format!("/{path}"), value)),
            (Some(SubschemaKind::Map), Value::Object(map)) => {
                found.extend(
                    map.iter()
                        .map(|(name, item)| (keyword.as_str(), format!("/{path}/{}", escape_pointer(name)), item)),
                );
            }
            _ => {}
        }
    }
    found
}

pub(super) fn subschemas_mut(schema: &mut JsonObject) -> Vec<(&str, &mut Value)> {
    let mut found = Vec::new();
    for (keyword, value) in schema {
        match (SubschemaKind::of(keyword), value) {
            (Some(SubschemaKind::Single | SubschemaKind::List), Value::Array(items)) => {
                found.extend(items.iter_mut().map(|item| (keyword.as_str(), item)));
            }
            (Some(SubschemaKind::Single), value) => found.push((keyword.as_str(), value)),
            (Some(SubschemaKind::Map), Value::Object(map)) => {
                found.extend(map.values_mut().map(|item| (keyword.as_str(), item)));
            }
            _ => {}
        }
    }
    found
}

/// Keywords whose boolean form is universal (`additionalProperties: false` is
/// what OpenAI's strict mode asks for), so a boolean there is no problem.
pub(super) const BOOLEAN_OK: [&str; 5] =
    ["additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems", "items"];

#[derive(Clone, Copy)]
enum SubschemaKind {
    /// One schema (`items` may also be a list, as in draft-07).
    Single,
    List,
    Map,
}

impl SubschemaKind {
    fn of(keyword: &str) -> Option<Self> {
        match keyword {
            "items"
            | "additionalItems"
            | "additionalProperties"
            | "unevaluatedProperties"
            | "unevaluatedItems"
            | "contains"
            | "propertyNames"
            | "not"
            | "if"
            | "then"
            | "else" => Some(Self::Single),
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => Some(Self::List),
            "properties" | "patternProperties" | "dependentSchemas" => Some(Self::Map),
            _ => None,
        }
    }
}

/// Every local definition `schema` refers to, at any depth.
pub(super) fn references(schema: &Value) -> BTreeSet<DefKey> {
    fn walk(schema: &Value, found: &mut BTreeSet<DefKey>) {
        let Value::Object(object) = schema else { return };
        if let Some(key) = object.get("$ref").and_then(Value::as_str).and_then(parse_ref) {
            found.insert(key);
        }
        for (_, _, child) in subschemas(object) {
            walk(child, found);
        }
    }
    let mut found = BTreeSet::new();
    walk(schema, &mut found);
    found
}

pub(super) fn refers_to(schema: &Value, key: &DefKey) -> bool {
    references(schema).contains(key)
}

/// The definitions that reach themselves through references: the ones that
/// cannot be inlined.
pub(super) fn recursive_definitions(defs: &BTreeMap<DefKey, Value>) -> BTreeSet<DefKey> {
    let edges: BTreeMap<&DefKey, BTreeSet<DefKey>> = defs.iter().map(|(key, body)| (key, references(body))).collect();
    let mut recursive = BTreeSet::new();
    for start in defs.keys() {
        let mut seen: BTreeSet<&DefKey> = BTreeSet::new();
        let mut stack: Vec<&DefKey> = edges[start].iter().collect();
        while let Some(key) = stack.pop() {
            if key == start {
                recursive.insert(start.clone());
                break;
            }
            if seen.insert(key)
                && let Some(next) = edges.get(key)
            {
                stack.extend(next.iter());
            }
        }
    }
    recursive
}
