//! What an argument error says: the field's path, and what the schema the
//! client was given expects there (its JSON type, bounds, allowed values)
//! beside what the client sent. serde's own message names Rust types
//! (`expected u32`, `struct Page`, `untagged enum Filter`), so it stays the
//! error's cause, for the server's log only.

use serde_json::Value;

use crate::error::JsonObject;
use crate::schema::json_type;

/// How deep a description of nested schemas goes (`an array, each an array,
/// each ..`) before it says no more.
pub(crate) const DESCRIBE_DEPTH: usize = 3;

/// One step into the arguments: an object's key or an array's index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

/// Why the arguments at a path do not fit their schema.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Mismatch {
    /// A required field is absent; `expected` describes its schema.
    Missing { expected: String },
    /// A field the schema does not have, where no other is allowed.
    Unknown { allowed: Vec<String> },
    /// A value the schema, or the server, does not accept.
    Invalid { detail: String },
}

/// The path of the field at fault and why.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Explained {
    pub(crate) path: Vec<Step>,
    pub(crate) mismatch: Mismatch,
}

/// The path as a person reads it: `page.size`, `tags[2]`, `.` for the arguments themselves.
pub(crate) fn dotted(path: &[Step]) -> String {
    if path.is_empty() {
        return ".".to_owned();
    }
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) if out.is_empty() => out.push_str(key),
            Step::Key(key) => {
                out.push('.');
                out.push_str(key);
            }
            Step::Index(index) => out.push_str(&format!("[{index}]")),
        }
    }
    out
}

/// The path as a JSON Pointer (RFC 6901): `/page/size`, `/tags/2`, `` for the arguments.
pub(crate) fn pointer(path: &[Step]) -> String {
    path.iter()
        .map(|step| match step {
            Step::Key(key) => format!("/{}", key.replace('~', "~0").replace('/', "~1")),
            Step::Index(index) => format!("/{index}"),
        })
        .collect()
}

/// Why `arguments` do not fit `schema`, where the decoder stopped at `path`
/// with `serde_message`. The message only tells which kind of failure it was
/// (a missing or unknown field, a bad value); what the answer says comes
/// from the schema and the value.
pub(crate) fn explain(schema: &JsonObject, arguments: &Value, path: &[Step], serde_message: &str) -> Explained {
    let mut path = path.to_vec();
    if let Some(field) = quoted_after(serde_message, "missing field `") {
        let container = walk(schema, arguments, &path);
        let tag = container.and_then(|(at, _)| tag_of(schema, at)).filter(|(tag, _)| tag == field);
        let field_schema = container.and_then(|(at, value)| property(schema, choose(schema, at, value), field));
        path.push(Step::Key(field.to_owned()));
        let expected = match (tag, field_schema) {
            // A tagged enum's tag: any variant's value, not the first variant's.
            (Some((_, allowed)), _) => one_of(allowed.iter()),
            (None, Some(at)) => describe(schema, at, DESCRIBE_DEPTH),
            (None, None) => "a value".to_owned(),
        };
        return Explained { path, mismatch: Mismatch::Missing { expected } };
    }
    if let Some(field) = quoted_after(serde_message, "unknown field `") {
        // serde reports an unknown field at the object or at the field itself.
        if path.last() != Some(&Step::Key(field.to_owned())) {
            path.push(Step::Key(field.to_owned()));
        }
        let container = walk(schema, arguments, &path[..path.len() - 1]).map(|(at, value)| choose(schema, at, value));
        let allowed = container.map(|at| property_names(schema, at)).unwrap_or_default();
        return Explained { path, mismatch: Mismatch::Unknown { allowed } };
    }
    // A tagged enum's tag: any variant's value, not the first variant's.
    if let Some((Step::Key(key), parent)) = path.split_last()
        && let Some((parent_schema, Some(parent_value))) = walk(schema, arguments, parent)
        && let Some((tag, allowed)) = tag_of(schema, parent_schema).filter(|(tag, _)| tag == key)
    {
        let detail = match parent_value.get(&tag) {
            Some(found) => format!("expected {}, got {}", one_of(allowed.iter()), got(found)),
            None => format!("expected {}", one_of(allowed.iter())),
        };
        return Explained { path, mismatch: Mismatch::Invalid { detail } };
    }
    let detail = match walk(schema, arguments, &path) {
        Some((at, Some(value))) => {
            // serde loses the path inside what it buffers (internally tagged
            // and untagged enums, flattened fields): the schema finds the part
            // that does not fit.
            let (at, value) = match innermost(schema, at, value, &mut path) {
                Innermost::Missing(expected) => return Explained { path, mismatch: Mismatch::Missing { expected } },
                Innermost::BadTag(allowed, found) => {
                    let detail = format!("expected {}, got {}", one_of(allowed.iter()), got(found));
                    return Explained { path, mismatch: Mismatch::Invalid { detail } };
                }
                Innermost::At(at, value) => (at, value),
            };
            let expected = describe(schema, at, DESCRIBE_DEPTH);
            if !fits(schema, at, value) {
                format!("expected {expected}, got {}", got(value))
            } else if let Some(reason) = custom_message(serde_message) {
                // The type's own validation, in its own words.
                format!("{} is not accepted: {}", got(value), cap_quoted(reason))
            } else if value.is_number() {
                // The schema takes it, the Rust type does not: beyond its range.
                format!("{} is out of the range this field accepts ({expected})", got(value))
            } else {
                format!("{} is not accepted here ({expected})", got(value))
            }
        }
        Some((at, None)) => format!("expected {}", describe(schema, at, DESCRIBE_DEPTH)),
        None => "the value does not fit the tool's input schema".to_owned(),
    };
    Explained { path, mismatch: Mismatch::Invalid { detail } }
}

enum Innermost<'a> {
    /// A required field is missing (its path pushed), expected as this.
    Missing(String),
    /// A tagged enum's tag with a value no variant has; the values there are.
    BadTag(Vec<Value>, &'a Value),
    /// The innermost schema and value that do not fit (or the ones given, when all parts fit).
    At(&'a JsonObject, &'a Value),
}

/// The innermost part of `value` that does not fit `schema`, its steps pushed on `path`.
fn innermost<'a>(
    root: &'a JsonObject,
    schema: &'a JsonObject,
    value: &'a Value,
    path: &mut Vec<Step>,
) -> Innermost<'a> {
    let (mut schema, mut value) = (schema, value);
    // Bounded by the arguments' depth, which the transport caps.
    loop {
        if let Some((tag, allowed)) = tag_of(root, schema)
            && let Value::Object(fields) = value
        {
            match fields.get(&tag) {
                None => {
                    path.push(Step::Key(tag));
                    return Innermost::Missing(one_of(allowed.iter()));
                }
                Some(found) if !allowed.contains(found) => {
                    path.push(Step::Key(tag));
                    return Innermost::BadTag(allowed, found);
                }
                Some(_) => {}
            }
        }
        let here = choose(root, schema, Some(value));
        let next = match value {
            Value::Object(fields) if admits_type(here, "object") => {
                let required = here.get("required").and_then(Value::as_array);
                if let Some(name) =
                    required.into_iter().flatten().filter_map(Value::as_str).find(|name| !fields.contains_key(*name))
                {
                    let expected = property(root, here, name)
                        .map_or_else(|| "a value".to_owned(), |at| describe(root, at, DESCRIBE_DEPTH));
                    path.push(Step::Key(name.to_owned()));
                    return Innermost::Missing(expected);
                }
                fields.iter().find_map(|(key, field)| {
                    let at = property(root, here, key)?;
                    (!fits(root, at, field)).then(|| (Step::Key(key.clone()), at, field))
                })
            }
            Value::Array(items) if admits_type(here, "array") => {
                here.get("items").and_then(Value::as_object).and_then(|at| {
                    items
                        .iter()
                        .enumerate()
                        .find(|(_, item)| !fits(root, at, item))
                        .map(|(index, item)| (Step::Index(index), at, item))
                })
            }
            _ => None,
        };
        match next {
            Some((step, at, inner)) => {
                path.push(step);
                schema = at;
                value = inner;
            }
            None => return Innermost::At(schema, value),
        }
    }
}

/// The tag of a union of tagged objects (an internally tagged enum): the
/// property every object branch fixes with a `const`, and those values.
fn tag_of(root: &JsonObject, schema: &JsonObject) -> Option<(String, Vec<Value>)> {
    fn objects<'a>(root: &'a JsonObject, schema: &'a JsonObject, out: &mut Vec<&'a JsonObject>) {
        match branches(root, schema) {
            Some(list) => list.into_iter().for_each(|branch| objects(root, branch, out)),
            None if types(schema) != ["null"] => out.push(schema),
            None => {}
        }
    }
    let schema = resolve(root, schema);
    branches(root, schema)?;
    let mut list = Vec::new();
    objects(root, schema, &mut list);
    let first = list.first()?.get("properties")?.as_object()?;
    first.keys().find_map(|key| {
        let values: Option<Vec<Value>> = list
            .iter()
            .map(|branch| {
                let property = branch.get("properties")?.get(key)?.as_object()?;
                resolve(root, property).get("const").cloned()
            })
            .collect();
        values.filter(|values| values.len() > 1).map(|values| (key.clone(), values))
    })
}

/// serde's own wordings, which name Rust types; anything else is the
/// message of a type's own validation (`#[serde(try_from)]`, a hand-written
/// `Deserialize`), written for the caller.
fn custom_message(message: &str) -> Option<&str> {
    const STOCK: [&str; 9] = [
        "invalid type:",
        "invalid value:",
        "invalid length",
        "unknown variant",
        "unknown field",
        "missing field",
        "duplicate field",
        "data did not match any variant",
        "expected ",
    ];
    let message = message.trim();
    (!message.is_empty() && !STOCK.iter().any(|stock| message.starts_with(stock))).then_some(message)
}

/// The text between `prefix` and the next backtick.
fn quoted_after<'a>(message: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = message.strip_prefix(prefix)?;
    rest.find('`').map(|end| &rest[..end])
}

/// The schema at `path` and the value there (when the arguments have one).
fn walk<'a>(root: &'a JsonObject, arguments: &'a Value, path: &[Step]) -> Option<(&'a JsonObject, Option<&'a Value>)> {
    let mut schema = root;
    let mut value = Some(arguments);
    for step in path {
        let here = choose(root, schema, value);
        match step {
            Step::Key(key) => {
                schema = property(root, here, key)?;
                value = value.and_then(|value| value.get(key));
            }
            Step::Index(index) => {
                let prefix = here.get("prefixItems").and_then(Value::as_array).and_then(|items| items.get(*index));
                schema = prefix.or_else(|| here.get("items")).and_then(Value::as_object)?;
                value = value.and_then(|value| value.get(index));
            }
        }
    }
    Some((schema, value))
}

/// `schema` with its `$ref` followed (local references only).
pub(crate) fn resolve<'a>(root: &'a JsonObject, mut schema: &'a JsonObject) -> &'a JsonObject {
    // A bounded number of hops: a reference cycle must not hang an error path.
    for _ in 0..16 {
        let Some(target) = schema.get("$ref").and_then(Value::as_str) else { break };
        let found = if target == "#" {
            Some(root)
        } else {
            ["#/$defs/", "#/definitions/"].iter().find_map(|prefix| {
                let name = target.strip_prefix(prefix)?.replace("~1", "/").replace("~0", "~");
                root.get(&prefix[2..prefix.len() - 1])?.get(&name)?.as_object()
            })
        };
        match found {
            Some(found) => schema = found,
            None => break,
        }
    }
    schema
}

/// The branches of a union (`anyOf`, `oneOf`), resolved.
pub(crate) fn branches<'a>(root: &'a JsonObject, schema: &'a JsonObject) -> Option<Vec<&'a JsonObject>> {
    union_branches(root, schema).map(Iterator::collect)
}

/// [`branches`], without collecting them (argument repair reads them on every call).
pub(crate) fn union_branches<'a>(
    root: &'a JsonObject,
    schema: &'a JsonObject,
) -> Option<impl Iterator<Item = &'a JsonObject>> {
    let list = schema.get("anyOf").or_else(|| schema.get("oneOf"))?.as_array()?;
    Some(list.iter().filter_map(Value::as_object).map(move |branch| resolve(root, branch)))
}

/// The part of `schema` that speaks for `value`: a union's first branch of
/// the value's JSON type (and tag, for a tagged enum), else the schema itself.
fn choose<'a>(root: &'a JsonObject, schema: &'a JsonObject, value: Option<&Value>) -> &'a JsonObject {
    let schema = resolve(root, schema);
    let Some(branches) = branches(root, schema) else { return schema };
    let Some(value) = value else {
        return branches.iter().copied().find(|branch| !types(branch).contains(&"null")).unwrap_or(schema);
    };
    let kind = json_type(value);
    branches
        .iter()
        .copied()
        .find(|branch| admits_type(branch, kind) && tags_match(root, branch, value))
        .or_else(|| branches.iter().copied().find(|branch| admits_type(branch, kind)))
        .map_or(schema, |branch| choose(root, branch, Some(value)))
}

/// Whether every `const` property of an object branch (a tagged enum's tag) has its value in `value`.
fn tags_match(root: &JsonObject, branch: &JsonObject, value: &Value) -> bool {
    let Some(properties) = branch.get("properties").and_then(Value::as_object) else { return true };
    properties.iter().all(|(key, property)| {
        let property = property.as_object().map(|property| resolve(root, property));
        match property.and_then(|property| property.get("const")) {
            Some(tag) => value.get(key) == Some(tag),
            None => true,
        }
    })
}

/// The schema of the field `key` of an object schema: its property, or what
/// `additionalProperties` allows.
fn property<'a>(root: &'a JsonObject, schema: &'a JsonObject, key: &str) -> Option<&'a JsonObject> {
    let schema = resolve(root, schema);
    if let Some(found) = schema.get("properties").and_then(|properties| properties.get(key)).and_then(Value::as_object)
    {
        return Some(found);
    }
    if let Some(branches) = branches(root, schema) {
        return branches.into_iter().find_map(|branch| property(root, branch, key));
    }
    schema.get("additionalProperties").and_then(Value::as_object)
}

pub(crate) fn property_names(root: &JsonObject, schema: &JsonObject) -> Vec<String> {
    let schema = resolve(root, schema);
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// The JSON types a schema names in `type` (a string or a list).
pub(crate) fn types(schema: &JsonObject) -> Vec<&str> {
    type_names(schema).collect()
}

/// [`types`], without collecting them (argument repair reads them on every call).
pub(crate) fn type_names(schema: &JsonObject) -> impl Iterator<Item = &str> {
    let (one, list) = match schema.get("type") {
        Some(Value::String(name)) => (Some(name.as_str()), None),
        Some(Value::Array(names)) => (None, Some(names.iter().filter_map(Value::as_str))),
        _ => (None, None),
    };
    one.into_iter().chain(list.into_iter().flatten())
}

pub(crate) fn admits_type(schema: &JsonObject, kind: &str) -> bool {
    let named = types(schema);
    if named.is_empty() {
        // `const` and `enum` say the type by their values.
        let values: Vec<&Value> = match (schema.get("const"), schema.get("enum").and_then(Value::as_array)) {
            (Some(value), _) => vec![value],
            (None, Some(values)) => values.iter().collect(),
            (None, None) => return true,
        };
        return values.iter().any(|value| json_type(value) == kind || (kind == "integer" && value.is_number()));
    }
    named.iter().any(|name| *name == kind || (*name == "number" && kind == "integer"))
}

/// Whether `value` fits `schema` as far as [`describe`] tells: type, bounds, allowed values.
pub(crate) fn fits(root: &JsonObject, schema: &JsonObject, value: &Value) -> bool {
    let schema = resolve(root, schema);
    if let Some(branches) = branches(root, schema) {
        return branches.iter().any(|branch| fits(root, branch, value));
    }
    if let Some(allowed) = schema.get("const") {
        return allowed == value;
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        return allowed.contains(value);
    }
    if !admits_type(schema, json_type(value)) {
        return false;
    }
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    if let Some(number) = value.as_f64() {
        let below = bound("minimum").is_some_and(|min| number < min)
            || bound("exclusiveMinimum").is_some_and(|min| number <= min);
        let above = bound("maximum").is_some_and(|max| number > max)
            || bound("exclusiveMaximum").is_some_and(|max| number >= max);
        return !below && !above;
    }
    let count = match value {
        Value::String(text) => Some((text.chars().count(), "minLength", "maxLength")),
        Value::Array(items) => Some((items.len(), "minItems", "maxItems")),
        _ => None,
    };
    if let Some((count, min, max)) = count {
        let count = count as f64;
        if bound(min).is_some_and(|min| count < min) || bound(max).is_some_and(|max| count > max) {
            return false;
        }
    }
    match value {
        Value::Array(items) => match schema.get("items").and_then(Value::as_object) {
            Some(at) => items.iter().all(|item| fits(root, at, item)),
            None => true,
        },
        Value::Object(fields) => {
            let required = schema.get("required").and_then(Value::as_array).into_iter().flatten();
            let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
            required.filter_map(Value::as_str).all(|name| fields.contains_key(name))
                && fields.iter().all(|(key, field)| match property(root, schema, key) {
                    Some(at) => fits(root, at, field),
                    None => !closed,
                })
        }
        _ => true,
    }
}

/// What `schema` expects, in words: "an integer between 0 and 255", "one of
/// "small", "large"", "an array of at most 10 items, each a string".
pub(crate) fn describe(root: &JsonObject, schema: &JsonObject, depth: usize) -> String {
    let schema = resolve(root, schema);
    if let Some(value) = schema.get("const") {
        return format!("exactly {}", quote(value));
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return one_of(values.iter());
    }
    if let Some((tag, values)) = tag_of(root, schema) {
        let nullable = branches(root, schema).into_iter().flatten().any(|branch| types(branch) == ["null"]);
        let text = format!("an object whose `{tag}` is {}", one_of(values.iter()));
        return if nullable { format!("{text}, or null") } else { text };
    }
    if let Some(branches) = branches(root, schema) {
        // A documented enum: each variant a `const` of its own.
        if let Some(values) = branches.iter().map(|branch| branch.get("const")).collect::<Option<Vec<_>>>() {
            return one_of(values.into_iter());
        }
        let nullable = branches.iter().any(|branch| types(branch) == ["null"]);
        let mut others: Vec<String> = Vec::new();
        for branch in branches.iter().filter(|branch| types(branch) != ["null"]) {
            let text = if depth == 0 { "a value".to_owned() } else { describe(root, branch, depth - 1) };
            // Nested unions repeat their branches; say each once.
            if !others.contains(&text) {
                others.push(text);
            }
        }
        let mut text = others.join(", or ");
        if nullable {
            text.push_str(if text.is_empty() { "null" } else { ", or null" });
        }
        return text;
    }
    let named = types(schema);
    if named.is_empty() {
        return "any JSON value".to_owned();
    }
    named.iter().map(|name| describe_type(root, schema, name, depth)).collect::<Vec<_>>().join(" or ")
}

fn describe_type(root: &JsonObject, schema: &JsonObject, name: &str, depth: usize) -> String {
    let number = |key: &str| schema.get(key).filter(|value| value.is_number()).map(Value::to_string);
    match name {
        "integer" | "number" => {
            let mut text = if name == "integer" { "an integer".to_owned() } else { "a number".to_owned() };
            match (number("minimum"), number("maximum")) {
                (Some(min), Some(max)) => text.push_str(&format!(" between {min} and {max}")),
                (Some(min), None) => text.push_str(&format!(" of at least {min}")),
                (None, Some(max)) => text.push_str(&format!(" of at most {max}")),
                (None, None) => {}
            }
            if let Some(min) = number("exclusiveMinimum") {
                text.push_str(&format!(" greater than {min}"));
            }
            if let Some(max) = number("exclusiveMaximum") {
                text.push_str(&format!(" less than {max}"));
            }
            text
        }
        "string" => {
            let mut text = "a string".to_owned();
            text.push_str(&count_phrase(number("minLength"), number("maxLength"), "characters"));
            if let Some(format) = schema.get("format").and_then(Value::as_str) {
                text.push_str(&format!(" in the format `{format}`"));
            }
            if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
                text.push_str(&format!(" matching the pattern `{pattern}`"));
            }
            text
        }
        "array" => {
            let mut text = "an array".to_owned();
            text.push_str(&count_phrase(number("minItems"), number("maxItems"), "items"));
            if let Some(items) = schema.get("items").and_then(Value::as_object)
                && depth > 0
            {
                text.push_str(&format!(", each {}", describe(root, items, depth - 1)));
            }
            text
        }
        "object" => {
            let required: Vec<String> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).map(|name| format!("`{name}`")).collect())
                .unwrap_or_default();
            if required.is_empty() { "an object".to_owned() } else { format!("an object with {}", required.join(", ")) }
        }
        "boolean" => "`true` or `false`".to_owned(),
        "null" => "null".to_owned(),
        other => format!("a JSON {other}"),
    }
}

fn count_phrase(min: Option<String>, max: Option<String>, unit: &str) -> String {
    match (min, max) {
        (Some(min), Some(max)) if min == max => format!(" of exactly {min} {unit}"),
        (Some(min), Some(max)) => format!(" of {min} to {max} {unit}"),
        (Some(min), None) => format!(" of at least {min} {unit}"),
        (None, Some(max)) => format!(" of at most {max} {unit}"),
        (None, None) => String::new(),
    }
}

fn one_of<'a>(values: impl Iterator<Item = &'a Value>) -> String {
    let values: Vec<String> = values.map(quote).collect();
    match values.as_slice() {
        [one] => format!("exactly {one}"),
        _ => format!("one of {}", values.join(", ")),
    }
}

/// A schema's value as JSON, capped: a schema's `enum` is the server's, but can be long.
fn quote(value: &Value) -> String {
    cap_quoted(&value.to_string()).into_owned()
}

/// What the client sent, in words; its text capped.
pub(crate) fn got(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(flag) => format!("`{flag}`"),
        Value::Number(number) => format!("the number {number}"),
        Value::String(text) => format!("the string {}", Value::String(cap_quoted(text).into_owned())),
        Value::Array(items) if items.len() == 1 => "an array of 1 item".to_owned(),
        Value::Array(items) => format!("an array of {} items", items.len()),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// How many characters of client-supplied text an error message quotes; the
/// rest is cut and marked with "…".
pub(crate) const QUOTED_INPUT_CHARS: usize = 200;

/// `text` as an error message may quote it: at most [`QUOTED_INPUT_CHARS`]
/// characters, then "…".
pub(crate) fn cap_quoted(text: &str) -> std::borrow::Cow<'_, str> {
    crate::error::sanitize::cap_chars(text, QUOTED_INPUT_CHARS).map_or(text.into(), Into::into)
}

#[cfg(test)]
mod tests {
    use super::cap_quoted;

    #[test]
    fn cap_quoted_cuts_at_the_limit_and_marks_the_cut() {
        assert_eq!(cap_quoted("search_objects"), "search_objects");
        let long = "x".repeat(10_000);
        assert_eq!(cap_quoted(&long).chars().count(), 201);
        assert!(cap_quoted(&long).ends_with('…'));
    }
}
