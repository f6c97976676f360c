//! Arguments an agent got slightly wrong, repaired before they are decoded:
//! `"15"` for 15, a lone value for a one-element array, a stringified JSON
//! object, `null` for an absent optional field, a key in the wrong case or
//! under a declared alias, a key of the client's own the tool does not take.
//!
//! Every repair is driven by the input schema the tool advertises, and only
//! where the value as sent does not fit it: a field whose schema does not say
//! one type (a union of several, an untyped `serde_json::Value`) is left as
//! sent, so a repair never guesses a type, and a call that was valid is never
//! changed. The taxonomy follows the reference's pre-validation step (0.13.4,
//! 0.13.9, 0.13.14).

use serde_json::{Value, json};

use super::arguments::INVALID_ARGUMENTS;
use super::mismatch::{admits_type, resolve, type_names, union_branches};
use crate::error::{JsonObject, McpError};
use crate::schema::json_type;

/// One field's other names, declared with `#[mcp_tool(input_aliases(field = ["alias", ..]))]`:
/// an argument sent under an alias is decoded as the field, when the field
/// itself was not sent. Aliases are not advertised: the input schema names
/// the field only.
///
/// ```
/// use mcp_contract::tools::InputAlias;
/// const ALIASES: &[InputAlias] = &[InputAlias::new("query", &["q", "search"])];
/// assert_eq!(ALIASES[0].aliases, ["q", "search"]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct InputAlias {
    /// The declared field, a property of the input schema.
    pub field: &'static str,
    /// The names an agent may send it under.
    pub aliases: &'static [&'static str],
}

impl InputAlias {
    /// `field` also answers to each of `aliases`.
    pub const fn new(field: &'static str, aliases: &'static [&'static str]) -> Self {
        Self { field, aliases }
    }
}

/// What one repair did; the `kind` label of `mcp_input_repairs_total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RepairKind {
    /// A key sent under a declared alias, renamed to its field.
    Aliased,
    /// A key that names a field but for case, `-` or `_` (`Query`, `max-results`).
    CaseFolded,
    /// A key of the client's own (`_trace`, `_meta`: it starts with `_`) that
    /// a closed schema (`additionalProperties: false`) does not take, dropped.
    /// Any other unknown key is refused: it may be a misspelt field, whose
    /// value the agent meant.
    Dropped,
    /// `"15"` where the schema says integer or number.
    StringAsNumber,
    /// `"true"` or `"false"` where the schema says boolean.
    StringAsBoolean,
    /// An integer where the schema says string.
    NumberAsString,
    /// A lone value where the schema says array: an array of one.
    ValueAsArray,
    /// A JSON object sent as a string where the schema says object.
    StringifiedObject,
    /// A JSON array sent as a string where the schema says array.
    StringifiedArray,
    /// `null` for a field that is optional and does not take null: absent.
    NullAsAbsent,
}

impl RepairKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Aliased => "aliased",
            Self::CaseFolded => "case_folded",
            Self::Dropped => "dropped",
            Self::StringAsNumber => "string_as_number",
            Self::StringAsBoolean => "string_as_boolean",
            Self::NumberAsString => "number_as_string",
            Self::ValueAsArray => "value_as_array",
            Self::StringifiedObject => "stringified_object",
            Self::StringifiedArray => "stringified_array",
            Self::NullAsAbsent => "null_as_absent",
        }
    }
}

/// One repair: what, where (the dotted path as sent), and for a renamed key
/// the field it became.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Repair {
    pub(crate) kind: RepairKind,
    pub(crate) path: String,
    pub(crate) target: Option<String>,
}

/// How deep the repair follows nested objects and arrays; deeper values are
/// left as sent (the decoder still judges them).
const MAX_DEPTH: usize = 32;

/// Repair `arguments` against `schema` (the tool's advertised input schema),
/// with the tool's declared `aliases`; the repairs made, in order.
pub(crate) fn repair(arguments: &mut JsonObject, schema: &JsonObject, aliases: &[InputAlias]) -> Vec<Repair> {
    let mut repairs = Vec::new();
    let root = resolve(schema, schema);
    // A null taken as absent frees its field for a key that was refused it
    // as sent beside it (`"depth": null, "Depth": "3"`): the keys, then their
    // values, are repaired again, so that one pass makes every repair and a
    // second makes none. Each round removes a key, so the rounds end.
    loop {
        repair_keys(arguments, root, aliases, &mut repairs);
        let kept = arguments.len();
        repair_fields(arguments, schema, root, Path::Root, 0, &mut repairs);
        if arguments.len() == kept {
            return repairs;
        }
    }
}

/// Where a value sits in the arguments, written out (`a.b[2]`) only for a
/// repair: most calls need none, and each field would cost a string.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Field(&'a Path<'a>, &'a str),
    Item(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn render(self) -> String {
        match self {
            Self::Root => String::new(),
            Self::Field(parent, key) => {
                let at = parent.render();
                if at.is_empty() { key.to_owned() } else { format!("{at}.{key}") }
            }
            Self::Item(parent, index) => format!("{}[{index}]", parent.render()),
        }
    }
}

/// The key repairs, at the root only (where aliases are declared, and where
/// clients add keys of their own): aliases, then case, then drops of the
/// client's own keys (the reference's underscore rule, 0.13.9).
fn repair_keys(arguments: &mut JsonObject, schema: &JsonObject, aliases: &[InputAlias], repairs: &mut Vec<Repair>) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return };
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    let undeclared: Vec<String> = arguments.keys().filter(|key| !properties.contains_key(*key)).cloned().collect();
    for key in undeclared {
        let alias = aliases.iter().find(|alias| alias.aliases.contains(&key.as_str())).map(|alias| alias.field);
        let folded = || {
            let mut matches = properties.keys().filter(|field| fold(field) == fold(&key));
            match (matches.next(), matches.next()) {
                (Some(field), None) => Some(field.as_str()),
                _ => None,
            }
        };
        let (kind, target) = match alias {
            Some(field) => (RepairKind::Aliased, Some(field)),
            None => (RepairKind::CaseFolded, folded()),
        };
        // An alias or a case variant sent beside its field is the agent's
        // mistake to see, not a value to pick: the decoder refuses the key.
        if let Some(target) = target.filter(|target| !arguments.contains_key(*target)) {
            let target = target.to_owned();
            let Some(value) = arguments.remove(&key) else { continue };
            arguments.insert(target.clone(), value);
            repairs.push(Repair { kind, path: key, target: Some(target) });
        } else if closed && target.is_none() && key.starts_with('_') {
            arguments.remove(&key);
            repairs.push(Repair { kind: RepairKind::Dropped, path: key, target: None });
        }
    }
}

/// `max-results`, `Max_Results` and `maxResults` alike: lowercase, without `-` and `_`.
fn fold(key: &str) -> String {
    key.chars().filter(|ch| *ch != '-' && *ch != '_').flat_map(char::to_lowercase).collect()
}

/// The value repairs of each field of an object against `schema`'s properties.
fn repair_fields(
    object: &mut JsonObject,
    root: &JsonObject,
    schema: &JsonObject,
    at: Path<'_>,
    depth: usize,
    repairs: &mut Vec<Repair>,
) {
    if depth >= MAX_DEPTH {
        return;
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return };
    let required = |key: &str| {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|names| names.iter().any(|name| name.as_str() == Some(key)))
    };
    // The nulls taken as absent are removed once the walk is over; the
    // repairs stay in the order of the keys.
    let mut absent = Vec::new();
    for (key, value) in object.iter_mut() {
        let Some(field) = properties.get(key).and_then(Value::as_object) else { continue };
        let Some(shape) = shape(root, field) else { continue };
        let path = Path::Field(&at, key);
        if value.is_null() {
            if !shape.nullable && !required(key) {
                absent.push(key.clone());
                repairs.push(Repair { kind: RepairKind::NullAsAbsent, path: path.render(), target: None });
            }
            continue;
        }
        repair_value(value, root, shape, path, depth + 1, repairs);
    }
    for key in absent {
        object.remove(&key);
    }
}

/// What a schema says of a value: one JSON type (a union of one type and
/// null counts, nullable), and the schema of that type.
#[derive(Clone, Copy)]
struct Shape<'a> {
    kind: &'a str,
    nullable: bool,
    schema: &'a JsonObject,
}

/// The one type `schema` states, if it states exactly one besides null.
fn shape<'a>(root: &'a JsonObject, schema: &'a JsonObject) -> Option<Shape<'a>> {
    let schema = resolve(root, schema);
    if let Some(branches) = union_branches(root, schema) {
        let (mut nullable, mut others) = (false, Others::None);
        for branch in branches {
            let mut names = type_names(branch);
            if names.next() == Some("null") && names.next().is_none() {
                nullable = true;
            } else {
                others = others.and(branch);
            }
        }
        let Others::One(one) = others else { return None };
        return shape(root, one).map(|shape| Shape { nullable: shape.nullable || nullable, ..shape });
    }
    // `const` and `enum` without a `type`: the values say it, and a repair
    // toward one of them would be a guess at which.
    let (mut nullable, mut others) = (false, Others::None);
    for kind in type_names(schema) {
        if kind == "null" {
            nullable = true;
        } else {
            others = others.and(kind);
        }
    }
    let Others::One(kind) = others else { return None };
    Some(Shape { kind, nullable, schema })
}

/// What a union holds besides null: nothing, one thing, or more than one.
#[derive(Clone, Copy)]
enum Others<T> {
    None,
    One(T),
    Several,
}

impl<T> Others<T> {
    fn and(self, other: T) -> Self {
        match self {
            Self::None => Self::One(other),
            Self::One(_) | Self::Several => Self::Several,
        }
    }
}

fn repair_value(
    value: &mut Value,
    root: &JsonObject,
    shape: Shape<'_>,
    path: Path<'_>,
    depth: usize,
    repairs: &mut Vec<Repair>,
) {
    if depth >= MAX_DEPTH {
        return;
    }
    let mut note = |kind| repairs.push(Repair { kind, path: path.render(), target: None });
    match (shape.kind, &*value) {
        ("integer" | "number", Value::String(text)) => {
            if let Some(number) = parse_number(text, shape.kind == "integer") {
                *value = Value::Number(number);
                note(RepairKind::StringAsNumber);
            }
        }
        ("boolean", Value::String(text)) => match text.trim() {
            "true" => {
                *value = Value::Bool(true);
                note(RepairKind::StringAsBoolean);
            }
            "false" => {
                *value = Value::Bool(false);
                note(RepairKind::StringAsBoolean);
            }
            _ => {}
        },
        // An integer only: a float's text (`1e21`, `0.30000000000000004`) is
        // no spelling an agent meant.
        ("string", Value::Number(number)) if number.is_i64() || number.is_u64() => {
            *value = Value::String(number.to_string());
            note(RepairKind::NumberAsString);
        }
        ("object", Value::String(text)) if text.trim_start().starts_with('{') => {
            if let Ok(parsed @ Value::Object(_)) = serde_json::from_str::<Value>(text) {
                *value = parsed;
                note(RepairKind::StringifiedObject);
            }
        }
        ("array", Value::String(text)) if text.trim_start().starts_with('[') => {
            if let Ok(parsed @ Value::Array(_)) = serde_json::from_str::<Value>(text) {
                *value = parsed;
                note(RepairKind::StringifiedArray);
            }
        }
        // A lone value for a list: a list of one, when it makes an item (after
        // the item's own repair). Not a string holding a comma or a line
        // break, which may be several values in one.
        ("array", Value::String(text)) if text.contains([',', '\n', '\r']) => {}
        ("array", lone) if !matches!(lone, Value::Array(_) | Value::Null) => {
            let makes_an_item = match shape_of_items(root, shape.schema) {
                Some(item) => {
                    let mut probe = lone.clone();
                    repair_value(&mut probe, root, item, path, depth + 1, &mut Vec::new());
                    admits_type(item.schema, json_type(&probe))
                }
                // An array of anything takes it; an array whose items are a
                // union is not guessed at.
                None => !shape.schema.contains_key("items"),
            };
            if makes_an_item {
                *value = Value::Array(vec![value.take()]);
                note(RepairKind::ValueAsArray);
            }
        }
        _ => {}
    }
    match value {
        Value::Object(object) if shape.kind == "object" => {
            repair_fields(object, root, resolve(root, shape.schema), path, depth, repairs);
        }
        Value::Array(items) if shape.kind == "array" => {
            let Some(item) = shape_of_items(root, shape.schema) else { return };
            for (index, element) in items.iter_mut().enumerate() {
                repair_value(element, root, item, Path::Item(&path, index), depth + 1, repairs);
            }
        }
        _ => {}
    }
}

fn shape_of_items<'a>(root: &'a JsonObject, schema: &'a JsonObject) -> Option<Shape<'a>> {
    shape(root, schema.get("items").and_then(Value::as_object)?)
}

/// `text` as a JSON number: an integer where `integer` is asked, else any
/// finite number; surrounding white space allowed, nothing else.
fn parse_number(text: &str, integer: bool) -> Option<serde_json::Number> {
    let trimmed = text.trim();
    let number: serde_json::Number = trimmed.parse().ok()?;
    if integer && !(number.is_i64() || number.is_u64()) {
        return None;
    }
    number.as_f64().filter(|float| float.is_finite())?;
    Some(number)
}

/// The declared aliases the (repaired) arguments hold beside their field:
/// `(alias, field)`, for a refusal to name (the repair picks neither).
pub(crate) fn aliases_beside_fields(arguments: &JsonObject, aliases: &[InputAlias]) -> Vec<(String, &'static str)> {
    aliases
        .iter()
        .filter(|alias| arguments.contains_key(alias.field))
        .flat_map(|alias| {
            alias
                .aliases
                .iter()
                .filter(|name| arguments.contains_key(**name))
                .map(|name| ((*name).to_owned(), alias.field))
        })
        .collect()
}

/// A refusal of arguments whose keys a repair rewrote, with the rewrites:
/// `data.input` lists them (`aliased`, `caseFolded`: `{key, field}`;
/// `dropped`: the keys) and the hint says them, since the refusal's paths
/// name the fields and the agent sent other keys (the reference's, 0.13.9);
/// an alias sent beside its field (`beside`, from [`aliases_beside_fields`])
/// is named as one in the hint (the reference's sentence, 0.13.14).
pub(crate) fn with_rewrites(err: McpError, repairs: &[Repair], beside: &[(String, &'static str)]) -> McpError {
    if err.reason() != Some(INVALID_ARGUMENTS) {
        return err;
    }
    let err = if beside.is_empty() {
        err
    } else {
        let mut sentences: Vec<String> = err.recovery_hint().map(str::to_owned).into_iter().collect();
        sentences.extend(
            beside
                .iter()
                .map(|(alias, field)| format!("`{alias}` is an alias of `{field}`; send one of them, not both.")),
        );
        err.with_recovery_hint(super::issues::cap(&sentences.join(" ")))
    };
    let renamed = |kind| -> Vec<Value> {
        repairs
            .iter()
            .filter(|repair| repair.kind == kind)
            .map(|repair| json!({"key": repair.path, "field": repair.target}))
            .collect()
    };
    let (aliased, case_folded) = (renamed(RepairKind::Aliased), renamed(RepairKind::CaseFolded));
    let dropped: Vec<&str> =
        repairs.iter().filter(|repair| repair.kind == RepairKind::Dropped).map(|repair| repair.path.as_str()).collect();
    if aliased.is_empty() && case_folded.is_empty() && dropped.is_empty() {
        return err;
    }
    let mut sentences: Vec<String> = repairs
        .iter()
        .filter_map(|repair| match (repair.kind, &repair.target) {
            (RepairKind::Aliased | RepairKind::CaseFolded, Some(field)) => {
                Some(format!("Validated `{}` as `{field}`.", repair.path))
            }
            (RepairKind::Dropped, _) => Some(format!("Dropped undeclared key `{}`.", repair.path)),
            _ => None,
        })
        .collect();
    if let Some(hint) = err.recovery_hint() {
        sentences.insert(0, hint.to_owned());
    }
    let mut input = JsonObject::new();
    for (key, list) in [("aliased", aliased), ("caseFolded", case_folded)] {
        if !list.is_empty() {
            input.insert(key.to_owned(), Value::Array(list));
        }
    }
    if !dropped.is_empty() {
        input.insert("dropped".to_owned(), Value::from(dropped));
    }
    err.with_recovery_hint(super::issues::cap(&sentences.join(" ")))
        .with_data_field("input", super::issues::bounded(Value::Object(input)))
}

#[cfg(test)]
mod tests {
    // The types' fields are only decoded, never read.
    #![allow(dead_code)]
    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::json;

    use super::*;
    use crate::schema::input_schema;

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Size {
        Small,
        Large,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    struct Page {
        number: u16,
        #[serde(default)]
        per_page: u32,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Search {
        query: String,
        limit: Option<u32>,
        max_results: Option<u32>,
        score: Option<f64>,
        exact: Option<bool>,
        object_id: Option<String>,
        tags: Option<Vec<String>>,
        ids: Option<Vec<u32>>,
        page: Option<Page>,
        size: Option<Size>,
        /// Any JSON: the schema states no type, so nothing is repaired.
        extra: Option<serde_json::Value>,
        /// A union of two types: which one the agent meant is not guessed.
        either: Option<Either>,
        #[serde(default)]
        nullable: Option<Option<u32>>,
        /// Optional, and no null: a default.
        #[serde(default)]
        depth: u32,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(untagged)]
    enum Either {
        Number(u32),
        Text(String),
    }

    const ALIASES: &[InputAlias] = &[InputAlias::new("query", &["q", "search"])];

    fn run(arguments: Value) -> (Value, Vec<(&'static str, String)>) {
        let mut arguments = arguments.as_object().unwrap().clone();
        let repairs = repair(&mut arguments, &input_schema::<Search>(), ALIASES);
        let listed = repairs.into_iter().map(|repair| (repair.kind.as_str(), repair.path)).collect();
        (Value::Object(arguments), listed)
    }

    fn kinds(arguments: Value) -> Vec<&'static str> {
        run(arguments).1.into_iter().map(|(kind, _)| kind).collect()
    }

    /// Found by the `argument_repair` fuzz target (a 30-minute run): a null
    /// taken as absent left its field to a case variant sent beside it only
    /// on a second pass.
    #[test]
    fn a_field_freed_by_a_null_takes_its_case_variant_in_the_same_pass() {
        let (repaired, repairs) = run(json!({"query": "a", "depth": null, "Depth": "3"}));
        assert_eq!(repaired, json!({"query": "a", "depth": 3}));
        let kinds: Vec<_> = repairs.iter().map(|(kind, path)| (*kind, path.as_str())).collect();
        assert_eq!(kinds, [("null_as_absent", "depth"), ("case_folded", "Depth"), ("string_as_number", "depth")]);
        let mut again = repaired.as_object().unwrap().clone();
        assert_eq!(repair(&mut again, &input_schema::<Search>(), ALIASES), [], "a second pass repairs nothing");
        // A null that stays (the field takes null) still refuses the variant beside it.
        let (kept, repairs) = run(json!({"query": "a", "limit": null, "LIMIT": "3"}));
        assert_eq!(kept, json!({"query": "a", "limit": null, "LIMIT": "3"}));
        assert!(repairs.is_empty(), "{repairs:?}");
    }

    #[test]
    fn each_repair_follows_the_schema() {
        for (sent, repaired, kind) in [
            (json!({"query": "a", "limit": "15"}), json!({"query": "a", "limit": 15}), "string_as_number"),
            (json!({"query": "a", "limit": " 15 "}), json!({"query": "a", "limit": 15}), "string_as_number"),
            (json!({"query": "a", "score": "0.5"}), json!({"query": "a", "score": 0.5}), "string_as_number"),
            (json!({"query": "a", "exact": "true"}), json!({"query": "a", "exact": true}), "string_as_boolean"),
            (json!({"query": 1234}), json!({"query": "1234"}), "number_as_string"),
            (json!({"query": "a", "tags": "blue"}), json!({"query": "a", "tags": ["blue"]}), "value_as_array"),
            (
                json!({"query": "a", "tags": "[\"a\",\"b\"]"}),
                json!({"query": "a", "tags": ["a", "b"]}),
                "stringified_array",
            ),
            (
                json!({"query": "a", "page": "{\"number\": 2}"}),
                json!({"query": "a", "page": {"number": 2}}),
                "stringified_object",
            ),
            (json!({"query": "a", "depth": null}), json!({"query": "a"}), "null_as_absent"),
            (json!({"q": "vase"}), json!({"query": "vase"}), "aliased"),
            (json!({"search": "vase"}), json!({"query": "vase"}), "aliased"),
            (json!({"Query": "vase"}), json!({"query": "vase"}), "case_folded"),
            (json!({"query": "a", "max-results": 3}), json!({"query": "a", "max_results": 3}), "case_folded"),
            (json!({"query": "a", "MaxResults": 3}), json!({"query": "a", "max_results": 3}), "case_folded"),
            (json!({"query": "a", "_client_trace": "x"}), json!({"query": "a"}), "dropped"),
        ] {
            let (got, repairs) = run(sent.clone());
            assert_eq!(got, repaired, "{sent}");
            assert_eq!(repairs.iter().map(|(kind, _)| *kind).collect::<Vec<_>>(), [kind], "{sent}");
        }
    }

    #[test]
    fn repairs_reach_nested_fields_and_items_with_their_paths() {
        let (got, repairs) =
            run(json!({"query": "a", "page": {"number": "2", "per_page": null}, "ids": ["1", 2, "3"]}));
        assert_eq!(got, json!({"query": "a", "page": {"number": 2}, "ids": [1, 2, 3]}));
        assert_eq!(
            repairs,
            [
                ("string_as_number", "ids[0]".to_owned()),
                ("string_as_number", "ids[2]".to_owned()),
                ("string_as_number", "page.number".to_owned()),
                ("null_as_absent", "page.per_page".to_owned()),
            ]
        );
        // A lone value for a list of numbers: the item repaired too.
        let (got, _) = run(json!({"query": "a", "ids": "7"}));
        assert_eq!(got["ids"], json!([7]));
    }

    /// Each of these would be a guess beyond what the schema states; a
    /// repair that made them would fail here.
    #[test]
    fn nothing_is_guessed_beyond_the_schema() {
        for sent in [
            // A valid call is left as it is.
            json!({"query": "a", "limit": 15, "tags": ["x"], "nullable": null}),
            // An `Option` takes null: it is no absent field to make.
            json!({"query": "a", "limit": null}),
            // Untyped: any JSON value.
            json!({"query": "a", "extra": "15"}),
            json!({"query": "a", "extra": "{\"a\": 1}"}),
            // A union of a number and a string: which one is not guessed.
            json!({"query": "a", "either": "15"}),
            // An enum's values are the schema's: no case folding of values.
            json!({"query": "a", "size": "LARGE"}),
            // Not numbers, not booleans, not JSON.
            json!({"query": "a", "limit": "fifteen"}),
            json!({"query": "a", "limit": "1.5"}),
            json!({"query": "a", "limit": "0x10"}),
            json!({"query": "a", "exact": "yes"}),
            json!({"query": "a", "page": "{not json"}),
            json!({"query": "a", "page": "[1]"}),
            // A float for a string, a boolean for a string.
            json!({"query": 1.5}),
            json!({"query": true}),
            // A string with a comma may be several values: not one item.
            json!({"query": "a", "tags": "red, blue"}),
            // A lone object is no string item.
            json!({"query": "a", "tags": {"name": "x"}}),
            // A required field's null is not made absent.
            json!({"query": null}),
            // An unknown key that is no client's own (it may be a misspelt field): refused, not dropped.
            json!({"query": "a", "limt": 5}),
            // An alias or a case variant beside its field: not picked.
            json!({"query": "a", "q": "b"}),
            json!({"query": "a", "QUERY": "b"}),
        ] {
            let (got, repairs) = run(sent.clone());
            assert_eq!(got, sent, "repaired {repairs:?}");
            assert!(repairs.is_empty(), "{sent}: {repairs:?}");
        }
    }

    #[test]
    fn an_ambiguous_case_fold_and_an_open_schema_keep_the_key() {
        #[derive(Deserialize, JsonSchema)]
        struct Open {
            max_results: Option<u32>,
            maxresults: Option<u32>,
        }
        let mut arguments = json!({"MaxResults": 1, "other": 2}).as_object().unwrap().clone();
        let repairs = repair(&mut arguments, &input_schema::<Open>(), &[]);
        assert!(repairs.is_empty(), "{repairs:?}");
        assert_eq!(Value::Object(arguments), json!({"MaxResults": 1, "other": 2}));
    }

    #[test]
    fn a_repaired_call_decodes_where_the_call_as_sent_does_not() {
        let sent = json!({"q": "vase", "limit": "15", "tags": "blue", "exact": "false", "Page": {"number": "2"}});
        let schema = input_schema::<Search>();
        assert!(
            super::super::arguments::decode_arguments::<Search>(sent.as_object().unwrap().clone(), &schema).is_err()
        );
        let (repaired, repairs) = run(sent);
        let decoded: Search =
            super::super::arguments::decode_arguments(repaired.as_object().unwrap().clone(), &schema).unwrap();
        assert_eq!(decoded.limit, Some(15));
        assert_eq!(decoded.page.map(|page| page.number), Some(2));
        assert_eq!(kinds(json!({"q": "vase"})), ["aliased"]);
        assert_eq!(repairs.len(), 6, "{repairs:?}");
    }

    #[test]
    fn a_refusal_after_key_rewrites_lists_them() {
        let schema = input_schema::<Search>();
        let mut arguments = json!({"q": "vase", "limit": "many", "_trace": 1}).as_object().unwrap().clone();
        let repairs = repair(&mut arguments, &schema, ALIASES);
        let err = super::super::arguments::decode_arguments::<Search>(arguments, &schema).unwrap_err();
        let err = with_rewrites(err, &repairs, &[]);
        let data = Value::Object(err.data().unwrap().clone());
        assert_eq!(data["input"], json!({"aliased": [{"key": "q", "field": "query"}], "dropped": ["_trace"]}));
        let hint = err.recovery_hint().unwrap();
        assert!(hint.ends_with("Dropped undeclared key `_trace`. Validated `q` as `query`."), "{hint}");
        assert!(hint.starts_with("Send `limit` as an integer"), "{hint}");
    }
}
