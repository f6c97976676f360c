//! Making a schema portable: definitions inlined, formats and boolean schemas
//! tidied, branches typed.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{Value, json};

use super::walk::{
    BOOLEAN_OK, DEFINITION_KEYWORDS, DefKey, encode_pointer_segment, parse_ref, recursive_definitions, references,
    refers_to, subschemas_mut,
};
use super::{ANNOTATIONS, PORTABLE_FORMATS, into_object};
use crate::error::JsonObject;

/// The JSON types, in the order written in a `type` array.
const JSON_TYPES: [&str; 7] = ["object", "array", "string", "number", "integer", "boolean", "null"];

/// Make a JSON Schema portable: the transformation [`input_schema`](super::input_schema) and
/// [`output_schema`](super::output_schema) apply, for schemas from elsewhere.
///
/// See the [module documentation](super) for what changes and why. Local
/// references (`#`, `#/$defs/..`, `#/definitions/..`) are resolved; any other
/// `$ref` is left as it is, and [`portability_problems`](super::portability_problems) reports it. Applying
/// `portable` twice gives the same schema as applying it once.
///
/// ```
/// use mcp_contract::schema::{portable, portability_problems};
/// use serde_json::json;
///
/// let rmcp_style = json!({
///     "$schema": "https://json-schema.org/draft/2020-12/schema",
///     "type": "object",
///     "properties": {
///         "page": {"$ref": "#/$defs/Page"},
///         "link": {"type": "string", "format": "uri"}
///     },
///     "$defs": {"Page": {"type": "integer", "format": "uint32", "minimum": 0}}
/// });
/// let schema = portable(rmcp_style.as_object().unwrap().clone());
/// assert_eq!(serde_json::Value::Object(schema.clone()), json!({
///     "type": "object",
///     "properties": {
///         "page": {"type": "integer", "minimum": 0},
///         "link": {"type": "string"}
///     }
/// }));
/// assert!(portability_problems(&schema).is_empty());
/// ```
pub fn portable(mut schema: JsonObject) -> JsonObject {
    schema.remove("$schema");
    let mut defs = take_definitions(&mut schema);

    // A reference to the root becomes a definition like any other: the root is
    // then an inlined copy of it.
    let refers_to_root = refers_to(&Value::Object(schema.clone()), &DefKey::Root)
        || defs.values().any(|body| refers_to(body, &DefKey::Root));
    if refers_to_root {
        let mut body = schema.clone();
        body.remove("title");
        defs.insert(DefKey::Root, Value::Object(body));
    }

    let recursive = recursive_definitions(&defs);
    let mut inliner = Inliner { defs: &defs, recursive: &recursive, done: HashMap::new() };
    let mut root = Value::Object(schema);
    inliner.inline(&mut root);
    let mut kept: BTreeMap<DefKey, Value> = BTreeMap::new();
    let mut pending: Vec<DefKey> = references(&root).into_iter().filter(|key| recursive.contains(key)).collect();
    while let Some(key) = pending.pop() {
        if kept.contains_key(&key) {
            continue;
        }
        let Some(body) = defs.get(&key) else { continue };
        let mut body = body.clone();
        inliner.inline(&mut body);
        pending.extend(references(&body).into_iter().filter(|key| recursive.contains(key)));
        kept.insert(key, body);
    }

    // Name the kept definitions and point every reference at `#/$defs/<name>`.
    let root_name = root.get("title").and_then(Value::as_str).unwrap_or("Root").to_owned();
    let mut names: BTreeMap<DefKey, String> = BTreeMap::new();
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for key in kept.keys() {
        let base = match key {
            DefKey::Root => root_name.as_str(),
            DefKey::Defs(name) | DefKey::Definitions(name) => name.as_str(),
        };
        let mut name = base.to_owned();
        let mut suffix = 2;
        while !taken.insert(name.clone()) {
            name = format!("{base}{suffix}");
            suffix += 1;
        }
        names.insert(key.clone(), name);
    }
    let targets: HashMap<DefKey, String> =
        names.iter().map(|(key, name)| (key.clone(), format!("#/$defs/{}", encode_pointer_segment(name)))).collect();
    retarget(&mut root, &targets);
    let mut out_defs = JsonObject::new();
    for (key, mut body) in kept {
        retarget(&mut body, &targets);
        out_defs.insert(names[&key].clone(), body);
    }

    // Tidy the definitions first, so that a `$ref` branch can take the type of its target.
    let mut def_types: HashMap<String, Value> = HashMap::new();
    for (name, body) in &mut out_defs {
        tidy(body, &def_types);
        if let Some(ty) = body.get("type") {
            def_types.insert(format!("#/$defs/{}", encode_pointer_segment(name)), ty.clone());
        }
    }
    for body in out_defs.values_mut() {
        tidy(body, &def_types);
        split_type_arrays(body, false);
    }
    tidy(&mut root, &def_types);
    split_type_arrays(&mut root, true);

    let mut root = into_object(root);
    // MCP wants `type: "object"` at the top, also of a tagged enum (a `oneOf` of objects).
    if !root.contains_key("type")
        && (root.contains_key("anyOf") || root.contains_key("oneOf"))
        && let Some(ty) = infer_types(&root, &def_types)
    {
        root.insert("type".to_owned(), type_value(&ty));
    }
    if !out_defs.is_empty() {
        root.insert("$defs".to_owned(), Value::Object(out_defs));
    }
    root
}

fn take_definitions(schema: &mut JsonObject) -> BTreeMap<DefKey, Value> {
    let mut defs = BTreeMap::new();
    for (keyword, wrap) in DEFINITION_KEYWORDS {
        if let Some(Value::Object(map)) = schema.remove(keyword) {
            defs.extend(map.into_iter().map(|(name, body)| (wrap(name), body)));
        }
    }
    defs
}

struct Inliner<'a> {
    defs: &'a BTreeMap<DefKey, Value>,
    recursive: &'a BTreeSet<DefKey>,
    /// Inlined bodies, so that a type used many times is inlined once.
    done: HashMap<DefKey, Value>,
}

impl Inliner<'_> {
    fn inline(&mut self, schema: &mut Value) {
        let Value::Object(object) = schema else { return };
        let key = object.get("$ref").and_then(Value::as_str).and_then(parse_ref);
        let body = match key {
            Some(key) if !self.recursive.contains(&key) => self.inlined_body(&key),
            _ => None,
        };
        for (_, child) in subschemas_mut(object) {
            self.inline(child);
        }
        if let Some(body) = body {
            object.remove("$ref");
            let site = std::mem::take(object);
            *object = merge_reference_site(body, site);
        }
    }

    fn inlined_body(&mut self, key: &DefKey) -> Option<Value> {
        if let Some(body) = self.done.get(key) {
            return Some(body.clone());
        }
        let mut body = self.defs.get(key)?.clone();
        // Terminates: a definition that is not recursive never reaches itself.
        self.inline(&mut body);
        self.done.insert(key.clone(), body.clone());
        Some(body)
    }
}

/// The schema at a reference site once its target is inlined: the target's
/// keywords, with the site's annotations (a field's doc comment) winning. When
/// the site also constrains a keyword the target has, both must hold, so the
/// target goes into an `allOf` instead.
fn merge_reference_site(body: Value, site: JsonObject) -> JsonObject {
    let mut body = match body {
        Value::Object(object) => object,
        Value::Bool(true) => JsonObject::new(),
        _ => JsonObject::from_iter([("not".to_owned(), Value::Object(JsonObject::new()))]),
    };
    let clash = site.keys().any(|key| !ANNOTATIONS.contains(&key.as_str()) && body.contains_key(key));
    if !clash {
        body.extend(site);
        return body;
    }
    let mut merged = site;
    if !merged.contains_key("type")
        && let Some(ty) = body.get("type")
    {
        merged.insert("type".to_owned(), ty.clone());
    }
    match merged.get_mut("allOf") {
        Some(Value::Array(all)) => all.push(Value::Object(body)),
        _ => {
            merged.insert("allOf".to_owned(), Value::Array(vec![Value::Object(body)]));
        }
    }
    merged
}

/// The last pass, bottom-up: boolean subschemas to objects, formats off the
/// allowlist dropped, types written on typeless branches.
fn tidy(schema: &mut Value, def_types: &HashMap<String, Value>) {
    let Value::Object(object) = schema else { return };
    for (keyword, child) in subschemas_mut(object) {
        if let Value::Bool(accepts) = child
            && !BOOLEAN_OK.contains(&keyword)
        {
            *child = if *accepts { json!({}) } else { json!({"not": {}}) };
        }
        tidy(child, def_types);
    }
    if object.get("format").and_then(Value::as_str).is_some_and(|format| !PORTABLE_FORMATS.contains(&format)) {
        object.remove("format");
    }
    // `anyOf` with a branch that accepts anything accepts anything.
    if let Some(Value::Array(branches)) = object.get("anyOf")
        && branches.iter().any(is_unconstrained)
    {
        object.remove("anyOf");
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = object.get_mut(keyword) {
            for branch in branches {
                if let Value::Object(branch) = branch
                    && !branch.contains_key("type")
                {
                    let ty = if is_unconstrained_object(branch) {
                        // Only in a `oneOf`: every type, which accepts what `{}` accepts.
                        Some(BTreeSet::from(["object", "array", "string", "number", "boolean", "null"]))
                    } else {
                        infer_types(branch, def_types)
                    };
                    if let Some(ty) = ty {
                        branch.insert("type".to_owned(), type_value(&ty));
                    }
                }
            }
        }
    }
}

fn is_unconstrained(schema: &Value) -> bool {
    match schema {
        Value::Bool(accepts) => *accepts,
        Value::Object(object) => is_unconstrained_object(object),
        _ => false,
    }
}

fn is_unconstrained_object(schema: &JsonObject) -> bool {
    schema.keys().all(|key| ANNOTATIONS.contains(&key.as_str()))
}

/// The JSON types a schema admits, when its keywords say so: its `type`, the
/// type of its `$ref` target, `const` or `enum` values, or the union of its
/// `anyOf` / `oneOf` branches.
fn infer_types(schema: &JsonObject, def_types: &HashMap<String, Value>) -> Option<BTreeSet<&'static str>> {
    if let Some(ty) = schema.get("type") {
        return types_of(ty);
    }
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        return def_types.get(target).and_then(types_of);
    }
    if let Some(value) = schema.get("const") {
        return Some(BTreeSet::from([json_type(value)]));
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        return Some(values.iter().map(json_type).collect());
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(keyword) {
            let mut union = BTreeSet::new();
            for branch in branches {
                union.extend(infer_types(branch.as_object()?, def_types)?);
            }
            return (!union.is_empty()).then_some(union);
        }
    }
    None
}

fn types_of(ty: &Value) -> Option<BTreeSet<&'static str>> {
    let known = |name: &str| JSON_TYPES.iter().copied().find(|known| *known == name);
    match ty {
        Value::String(name) => Some(BTreeSet::from([known(name)?])),
        Value::Array(names) => names.iter().map(|name| known(name.as_str()?)).collect(),
        _ => None,
    }
}

fn type_value(types: &BTreeSet<&'static str>) -> Value {
    let ordered: Vec<&str> = JSON_TYPES.iter().copied().filter(|ty| types.contains(ty)).collect();
    match ordered.as_slice() {
        [single] => json!(single),
        _ => json!(ordered),
    }
}

/// The keywords that apply to one JSON type only, which a split `type` array
/// moves into that type's branch.
fn keywords_of(ty: &str) -> &'static [&'static str] {
    match ty {
        "string" => &["minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType"],
        "number" | "integer" => &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "format"],
        "array" => &[
            "items",
            "prefixItems",
            "contains",
            "minContains",
            "maxContains",
            "minItems",
            "maxItems",
            "uniqueItems",
            "unevaluatedItems",
        ],
        "object" => &[
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
            "propertyNames",
            "minProperties",
            "maxProperties",
            "dependentRequired",
            "dependentSchemas",
            "unevaluatedProperties",
        ],
        _ => &[],
    }
}

/// `type: [T, "null"]` (schemars' `Option<primitive>`) becomes
/// `anyOf: [{type: T, ..}, {type: "null"}]`, and any other `type` array an
/// `anyOf` of one branch per type, each with the keywords of its type. Gemini's
/// function declarations take one `type` per schema (an OpenAPI 3.0 subset),
/// while an `anyOf` of typed branches is valid there and in JSON Schema alike,
/// as `Option<Struct>` already is. A branch of an `anyOf` or `oneOf` with a
/// `type` array is replaced by its pieces in that list: the pieces are disjoint
/// by type, so a value matches as many branches as before. The root keeps its
/// `type` (MCP wants `"object"` there), and a node with a `type` array beside
/// an `anyOf`/`oneOf` of its own is left to the checker.
fn split_type_arrays(schema: &mut Value, is_root: bool) {
    let Value::Object(object) = schema else { return };
    // The branches first, so that their pieces (single-typed) are only walked.
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = object.get_mut(keyword) {
            *branches = std::mem::take(branches)
                .into_iter()
                .flat_map(|branch| match branch {
                    Value::Object(branch) if type_array(&branch).is_some() => pieces(&branch),
                    branch => vec![branch],
                })
                .collect();
        }
    }
    for (_, child) in subschemas_mut(object) {
        split_type_arrays(child, false);
    }
    if is_root || object.contains_key("anyOf") || object.contains_key("oneOf") {
        return;
    }
    let Some(types) = type_array(object) else { return };
    if let [single] = types.as_slice() {
        object.insert("type".to_owned(), json!(single));
        return;
    }
    let branches = types
        .iter()
        .map(|ty| {
            let mut piece = JsonObject::new();
            piece.insert("type".to_owned(), json!(ty));
            for keyword in keywords_of(ty) {
                if let Some(value) = object.get(*keyword) {
                    piece.insert((*keyword).to_owned(), value.clone());
                }
            }
            Value::Object(piece)
        })
        .collect();
    object.remove("type");
    for ty in &types {
        for keyword in keywords_of(ty) {
            object.remove(*keyword);
        }
    }
    object.insert("anyOf".to_owned(), Value::Array(branches));
}

/// The types of a `type` array of known types, without `integer`
/// beside `number` (which admits every integer), so the pieces are disjoint.
fn type_array(schema: &JsonObject) -> Option<Vec<&'static str>> {
    let Value::Array(types) = schema.get("type")? else { return None };
    let mut types: Vec<&'static str> = types_of(&Value::Array(types.clone()))?.into_iter().collect();
    if types.contains(&"number") {
        types.retain(|ty| *ty != "integer");
    }
    types.sort_by_key(|ty| JSON_TYPES.iter().position(|known| known == ty));
    Some(types)
}

/// A branch with a `type` array as one branch per type: the branch narrowed to
/// that type, without the keywords of the others.
fn pieces(branch: &JsonObject) -> Vec<Value> {
    let types = type_array(branch).unwrap_or_default();
    if let [single] = types.as_slice() {
        let mut branch = branch.clone();
        branch.insert("type".to_owned(), json!(single));
        return vec![Value::Object(branch)];
    }
    types
        .iter()
        .map(|ty| {
            let mut piece = branch.clone();
            piece.insert("type".to_owned(), json!(ty));
            for other in types.iter().filter(|other| *other != ty) {
                for keyword in keywords_of(other) {
                    if !keywords_of(ty).contains(keyword) {
                        piece.remove(*keyword);
                    }
                }
            }
            Value::Object(piece)
        })
        .collect()
}

/// Point references to kept definitions at their new `#/$defs/<name>`.
fn retarget(schema: &mut Value, targets: &HashMap<DefKey, String>) {
    let Value::Object(object) = schema else { return };
    if let Some(target) =
        object.get("$ref").and_then(Value::as_str).and_then(parse_ref).and_then(|key| targets.get(&key))
    {
        object.insert("$ref".to_owned(), json!(target));
    }
    for (_, child) in subschemas_mut(object) {
        retarget(child, targets);
    }
}

/// The JSON Schema type name of `value` (`integer` for a whole number).
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_i64() || number.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
