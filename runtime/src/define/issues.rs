//! What a refusal of a tool's arguments lists: every place the arguments do
//! not fit the advertised input schema (not only the first, where serde
//! stopped), each as missing, of the wrong type, out of range, not one of the
//! allowed values or an unknown field, and the recovery hint made of them.
//!
//! The size is bounded whatever the client sent, with the reference's caps
//! (0.13.14): [`MAX_ISSUES`] issues listed with the total in `issuesCount`,
//! [`MAX_STRING_CHARS`] characters per string and [`MAX_ARRAY_ENTRIES`]
//! entries per array in `data`, with `<key>Count` beside a cut array.

use serde_json::{Value, json};

use super::mismatch::{
    DESCRIBE_DEPTH, Step, admits_type, branches, describe, dotted, fits, got, pointer, property_names, resolve,
};
use crate::error::JsonObject;
use crate::error::sanitize::cap_chars;
use crate::schema::json_type;

/// The most issues a refusal lists (`data.issues`, the hint); `issuesCount` has them all.
pub(crate) const MAX_ISSUES: usize = 10;
/// The most issues the walk collects through union branches, after which it stops.
pub(crate) const MAX_UNION_ISSUES: usize = 30;
/// The longest string in a refusal's `data`; longer ones are cut and end with "…".
pub(crate) const MAX_STRING_CHARS: usize = 1024;
/// The most entries of an array in a refusal's `data`; `<key>Count` holds the length.
pub(crate) const MAX_ARRAY_ENTRIES: usize = 10;

/// How a value misses its schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    Missing,
    WrongType,
    OutOfRange,
    NotAllowed,
    UnknownField,
    /// The schema takes it and the server's type does not (its own validation).
    Invalid,
}

impl Problem {
    fn as_str(self) -> &'static str {
        match self {
            Self::Missing => "missing",
            Self::WrongType => "wrong_type",
            Self::OutOfRange => "out_of_range",
            Self::NotAllowed => "not_allowed",
            Self::UnknownField => "unknown_field",
            Self::Invalid => "invalid",
        }
    }
}

/// One place the arguments miss the schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Issue {
    pub(crate) path: Vec<Step>,
    pub(crate) problem: Problem,
    /// What the schema expects there, in words.
    pub(crate) expected: String,
    /// What the client sent, in words (`None` for a missing field).
    pub(crate) got: Option<String>,
}

impl Issue {
    fn to_json(&self) -> Value {
        let mut issue = json!({
            "path": dotted(&self.path),
            "pointer": pointer(&self.path),
            "problem": self.problem.as_str(),
            "expected": self.expected,
        });
        if let Some(got) = &self.got {
            issue["got"] = Value::String(got.clone());
        }
        issue
    }

    /// The sentence of the hint that says what to do about it.
    fn advice(&self) -> String {
        let at = dotted(&self.path);
        let got = self.got.as_deref().map(|got| format!(", not {got}")).unwrap_or_default();
        match self.problem {
            Problem::Missing => format!("`{at}` ({})", self.expected),
            Problem::WrongType => format!("Send `{at}` as {}{got}.", self.expected),
            Problem::OutOfRange => format!("Keep `{at}` in range: {}{got}.", self.expected),
            Problem::NotAllowed => format!("Send `{at}` as {}{got}.", self.expected),
            Problem::UnknownField => format!("Remove `{at}`: {}.", self.expected),
            Problem::Invalid => format!("Change `{at}`: {}.", self.expected),
        }
    }
}

/// The issues of `arguments` against `schema`, in document order, at most
/// [`MAX_UNION_ISSUES`] of them, and how many there are in all.
pub(crate) fn collect(schema: &JsonObject, arguments: &Value) -> (Vec<Issue>, usize) {
    let mut walk = Walk { root: schema, issues: Vec::new(), count: 0 };
    walk.value(schema, arguments, &mut Vec::new(), 0);
    (walk.issues, walk.count)
}

struct Walk<'a> {
    root: &'a JsonObject,
    issues: Vec<Issue>,
    count: usize,
}

impl Walk<'_> {
    fn push(&mut self, path: &[Step], problem: Problem, expected: String, got: Option<String>) {
        self.count += 1;
        if self.issues.len() < MAX_UNION_ISSUES {
            self.issues.push(Issue { path: path.to_vec(), problem, expected, got });
        }
    }

    fn value(&mut self, schema: &JsonObject, value: &Value, path: &mut Vec<Step>, depth: usize) {
        // The walk is linear in the arguments (which the transport bounds),
        // so it counts every issue; it keeps the first [`MAX_UNION_ISSUES`].
        if depth > 64 {
            return;
        }
        let root = self.root;
        let schema = resolve(root, schema);
        let expected = || describe(root, schema, DESCRIBE_DEPTH);
        if let Some(branches) = branches(root, schema) {
            if fits(root, schema, value) {
                return;
            }
            // The one branch of the value's JSON type speaks for it; a value no
            // branch types, or several, is of the wrong type as a whole.
            let kind = json_type(value);
            let mut typed = branches.iter().filter(|branch| admits_type(branch, kind) && !is_const(branch));
            match (typed.next(), typed.next()) {
                (Some(one), None) => self.value(one, value, path, depth + 1),
                _ => {
                    let problem = if is_const_union(&branches) { Problem::NotAllowed } else { Problem::WrongType };
                    self.push(path, problem, expected(), Some(got(value)));
                }
            }
            return;
        }
        if let Some(allowed) = schema.get("const") {
            if allowed != value {
                self.push(path, Problem::NotAllowed, expected(), Some(got(value)));
            }
            return;
        }
        if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
            if !allowed.contains(value) {
                self.push(path, Problem::NotAllowed, expected(), Some(got(value)));
            }
            return;
        }
        if !admits_type(schema, json_type(value)) {
            self.push(path, Problem::WrongType, expected(), Some(got(value)));
            return;
        }
        match value {
            Value::Number(_) | Value::String(_) if !fits(root, schema, value) => {
                self.push(path, Problem::OutOfRange, expected(), Some(got(value)));
            }
            Value::Array(items) => {
                let bound = |key: &str| schema.get(key).and_then(Value::as_u64);
                let count = items.len() as u64;
                if bound("minItems").is_some_and(|min| count < min) || bound("maxItems").is_some_and(|max| count > max)
                {
                    self.push(path, Problem::OutOfRange, expected(), Some(got(value)));
                }
                let prefix = schema.get("prefixItems").and_then(Value::as_array);
                for (index, item) in items.iter().enumerate() {
                    let at = prefix.and_then(|prefix| prefix.get(index)).or_else(|| schema.get("items"));
                    let Some(at) = at.and_then(Value::as_object) else { continue };
                    path.push(Step::Index(index));
                    self.value(at, item, path, depth + 1);
                    path.pop();
                }
            }
            Value::Object(fields) => self.object(schema, fields, path, depth),
            _ => {}
        }
    }

    fn object(&mut self, schema: &JsonObject, fields: &JsonObject, path: &mut Vec<Step>, depth: usize) {
        let root = self.root;
        let properties = schema.get("properties").and_then(Value::as_object);
        let required = schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str);
        for name in required {
            if !fields.contains_key(name) {
                let expected = properties
                    .and_then(|properties| properties.get(name))
                    .and_then(Value::as_object)
                    .map_or_else(|| "a value".to_owned(), |at| describe(root, at, DESCRIBE_DEPTH));
                path.push(Step::Key(name.to_owned()));
                self.push(path, Problem::Missing, expected, None);
                path.pop();
            }
        }
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        for (key, field) in fields {
            path.push(Step::Key(key.clone()));
            match properties.and_then(|properties| properties.get(key)).and_then(Value::as_object) {
                Some(at) => self.value(at, field, path, depth + 1),
                None => match schema.get("additionalProperties").and_then(Value::as_object) {
                    Some(at) => self.value(at, field, path, depth + 1),
                    None if closed => {
                        let names = property_names(root, schema);
                        let expected = if names.is_empty() {
                            "this object takes no fields".to_owned()
                        } else {
                            let names: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
                            format!("the fields are {}", names.join(", "))
                        };
                        self.push(path, Problem::UnknownField, expected, None);
                    }
                    None => {}
                },
            }
            path.pop();
        }
    }
}

fn is_const(schema: &JsonObject) -> bool {
    schema.contains_key("const")
}

fn is_const_union(branches: &[&JsonObject]) -> bool {
    branches.iter().all(|branch| is_const(branch) || branch.contains_key("enum"))
}

/// The recovery hint of a refusal: the missing fields in one sentence, then a
/// sentence per other issue, at most [`MAX_ISSUES`] of them (then `(+N more)`).
pub(crate) fn recovery_hint(issues: &[Issue], count: usize) -> String {
    let shown = &issues[..issues.len().min(MAX_ISSUES)];
    let missing: Vec<String> =
        shown.iter().filter(|issue| issue.problem == Problem::Missing).map(Issue::advice).collect();
    let mut sentences = Vec::new();
    if !missing.is_empty() {
        sentences.push(format!("Provide {}.", missing.join(", ")));
    }
    sentences.extend(shown.iter().filter(|issue| issue.problem != Problem::Missing).map(|issue| cap(&issue.advice())));
    let mut hint = sentences.join(" ");
    if count > shown.len() {
        hint.push_str(&format!(" (+{} more)", count - shown.len()));
    }
    hint
}

/// The issues as `data.issues`, at most [`MAX_ISSUES`], each capped.
pub(crate) fn issues_json(issues: &[Issue]) -> Value {
    Value::Array(issues.iter().take(MAX_ISSUES).map(|issue| bounded(issue.to_json())).collect())
}

/// `text` cut to [`MAX_STRING_CHARS`] characters plus "…".
pub(crate) fn cap(text: &str) -> String {
    cap_chars(text, MAX_STRING_CHARS).unwrap_or_else(|| text.to_owned())
}

/// `value` with each string cut to [`MAX_STRING_CHARS`] characters and each
/// array to [`MAX_ARRAY_ENTRIES`] entries, a cut array's length beside it as
/// `<key>Count`: what a refusal's `data` may hold of what the client sent.
pub(crate) fn bounded(value: Value) -> Value {
    match value {
        Value::String(text) => Value::String(cap(&text)),
        Value::Array(items) => Value::Array(items.into_iter().take(MAX_ARRAY_ENTRIES).map(bounded).collect()),
        Value::Object(fields) => {
            let mut out = JsonObject::new();
            for (key, field) in fields {
                if let Value::Array(items) = &field
                    && items.len() > MAX_ARRAY_ENTRIES
                {
                    out.insert(format!("{key}Count"), Value::from(items.len()));
                }
                out.insert(cap(&key), bounded(field));
            }
            Value::Object(out)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    // The types' fields are only decoded, never read.
    #![allow(dead_code)]
    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::json;

    use super::*;
    use crate::define::arguments::{INVALID_ARGUMENTS, decode_arguments};
    use crate::schema::input_schema;

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Order {
        object_id: u32,
        #[schemars(range(min = 1, max = 10))]
        copies: u8,
        note: Option<String>,
        size: Option<Size>,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Size {
        Small,
        Large,
    }

    fn refuse(arguments: Value) -> (String, Value) {
        let err = decode_arguments::<Order>(arguments.as_object().unwrap().clone(), &input_schema::<Order>())
            .expect_err("the arguments are bad");
        assert_eq!(err.reason(), Some(INVALID_ARGUMENTS));
        (err.recovery_hint().unwrap().to_owned(), Value::Object(err.data().unwrap().clone()))
    }

    #[test]
    fn the_hint_tells_missing_from_wrong_type_from_out_of_range() {
        let (hint, data) = refuse(json!({"copies": 40, "note": 7.5, "size": "huge", "colour": "red"}));
        assert_eq!(
            hint,
            "Provide `object_id` (an integer of at least 0). Remove `colour`: the fields are `copies`, `note`, \
             `object_id`, `size`. Keep `copies` in range: an integer between 1 and 10, not the number 40. Send \
             `note` as a string, or null, not the number 7.5. Send `size` as one of \"small\", \"large\", not the \
             string \"huge\"."
        );
        let problems: Vec<(&str, &str)> = data["issues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|issue| (issue["path"].as_str().unwrap(), issue["problem"].as_str().unwrap()))
            .collect();
        assert_eq!(
            problems,
            [
                ("object_id", "missing"),
                ("colour", "unknown_field"),
                ("copies", "out_of_range"),
                ("note", "wrong_type"),
                ("size", "not_allowed")
            ]
        );
        assert_eq!(data["issuesCount"], 5);
        assert_eq!(
            data["issues"][0],
            json!({"path": "object_id", "pointer": "/object_id", "problem": "missing", "expected": "an integer of at least 0"})
        );
    }

    #[test]
    fn a_refusal_is_capped_at_ten_issues_with_the_count() {
        let mut arguments = json!({"object_id": 1, "copies": 1});
        for index in 0..25 {
            arguments[format!("extra_{index:02}")] = json!(index);
        }
        let (hint, data) = refuse(arguments);
        assert_eq!(data["issues"].as_array().unwrap().len(), MAX_ISSUES);
        assert_eq!(data["issuesCount"], 25);
        assert!(hint.ends_with(" (+15 more)"), "{hint}");
        assert_eq!(hint.matches("Remove `").count(), MAX_ISSUES);
    }

    #[test]
    fn strings_and_arrays_in_the_data_are_capped() {
        let long = "x".repeat(5000);
        let (hint, data) = refuse(json!({"object_id": 1, "copies": 1, "note": [long]}));
        let issue = &data["issues"][0];
        assert_eq!(issue["got"], "an array of 1 item");
        let (_, data) = refuse(json!({"object_id": 1, "copies": 1, long.clone(): 1}));
        let path = data["issues"][0]["path"].as_str().unwrap();
        assert_eq!(path.chars().count(), MAX_STRING_CHARS + 1, "cut, then …");
        assert!(path.ends_with('…'));
        assert!(hint.chars().count() < 2 * MAX_STRING_CHARS);
        let bounded = bounded(json!({"ids": (0..25).collect::<Vec<_>>(), "text": "y".repeat(2000)}));
        assert_eq!(bounded["ids"].as_array().unwrap().len(), MAX_ARRAY_ENTRIES);
        assert_eq!(bounded["idsCount"], 25);
        assert_eq!(bounded["text"].as_str().unwrap().chars().count(), MAX_STRING_CHARS + 1);
    }

    #[test]
    fn the_walk_stops_at_the_union_budget() {
        let schema = input_schema::<std::collections::HashMap<String, u8>>();
        let arguments: JsonObject = (0..100).map(|index| (format!("k{index:03}"), json!("x"))).collect();
        let (issues, count) = collect(&schema, &Value::Object(arguments));
        assert_eq!(issues.len(), MAX_UNION_ISSUES);
        assert_eq!(count, 100, "counted past the budget");
    }

    /// A refusal the schema cannot see (the type's own validation) still
    /// lists its one issue, from where serde stopped.
    #[test]
    fn a_refusal_only_the_type_makes_has_one_issue() {
        #[derive(Debug, Deserialize, JsonSchema)]
        struct Narrow {
            #[schemars(with = "u32")]
            #[serde(deserialize_with = "even")]
            count: u32,
        }
        fn even<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
            let value = u32::deserialize(deserializer)?;
            if value % 2 == 0 { Ok(value) } else { Err(serde::de::Error::custom("an even count")) }
        }
        let err =
            decode_arguments::<Narrow>(json!({"count": 3}).as_object().unwrap().clone(), &input_schema::<Narrow>())
                .unwrap_err();
        let data = Value::Object(err.data().unwrap().clone());
        assert_eq!(data["issuesCount"], 1);
        assert_eq!(data["issues"][0]["problem"], "invalid");
        assert_eq!(data["issues"][0]["path"], "count");
    }
}
