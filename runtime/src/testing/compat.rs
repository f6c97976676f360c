//! What a change of a server's wire contract means for the agents that call
//! it: [`compare`] two pins ([`Pin`](super::Pin)'s JSON) and classify each
//! difference as [`Breaking`](ChangeKind::Breaking) or
//! [`Additive`](ChangeKind::Additive); [`announces_breaking`] says whether a
//! version bump owns up to a breaking one (semver: a major bump, a minor one
//! under 0.x).
//!
//! The direction decides: an input is what agents send, so it may accept
//! more (a new optional field, a loosened bound, a new enum value) but not
//! less; an output is what agents read, so it may say more fields but not
//! fewer, and no value they have not seen (a new enum value, a loosened
//! bound). A difference the classifier cannot place is breaking.

use std::collections::BTreeSet;
use std::fmt;

use serde_json::{Map, Value};

/// Whether agents written against the old contract still work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangeKind {
    /// An agent written against the old contract may now fail.
    Breaking,
    /// Nothing an agent relied on changed.
    Additive,
}

/// One difference between two pins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractChange {
    /// Breaking or additive.
    pub kind: ChangeKind,
    /// Where: `tools.search.inputSchema.query`, `prompts.greet`.
    pub path: String,
    /// What changed, in words.
    pub what: String,
}

impl fmt::Display for ContractChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            ChangeKind::Breaking => "breaking",
            ChangeKind::Additive => "additive",
        };
        write!(f, "{kind}: {}: {}", self.path, self.what)
    }
}

/// Which way values flow through a schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    /// Agents send it: accepting less breaks them.
    Input,
    /// Agents read it: saying more than before breaks them.
    Output,
}

static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

struct Diff<'a> {
    changes: Vec<ContractChange>,
    old_root: &'a Value,
    new_root: &'a Value,
    /// `$ref` pairs being compared, so a recursive type is compared once.
    refs: Vec<(Option<String>, Option<String>)>,
}

/// Every difference between the `old` and the `new` pin, breaking ones first.
pub fn compare(old: &Value, new: &Value) -> Vec<ContractChange> {
    let mut diff = Diff { changes: Vec::new(), old_root: old, new_root: new, refs: Vec::new() };
    diff.named("tools", old, new, Diff::tool);
    diff.named("resources", old, new, Diff::entry);
    diff.named("resourceTemplates", old, new, Diff::entry);
    diff.named("prompts", old, new, Diff::entry);
    diff.changes.sort_by_key(|change| change.kind);
    diff.changes
}

/// Whether going from `old` to `new` announces a breaking change: a major
/// bump, or under 0.x a minor one (`0.3.1` to `0.4.0`). Versions that are no
/// semver announce nothing.
pub fn announces_breaking(old: &str, new: &str) -> bool {
    match (semver(old), semver(new)) {
        (Some((old_major, old_minor)), Some((new_major, new_minor))) => {
            new_major > old_major || (old_major == 0 && new_major == 0 && new_minor > old_minor)
        }
        _ => false,
    }
}

/// The version that announces a breaking change after `old`.
pub fn next_breaking(old: &str) -> Option<String> {
    let (major, minor) = semver(old)?;
    Some(if major == 0 { format!("0.{}.0", minor + 1) } else { format!("{}.0.0", major + 1) })
}

fn semver(version: &str) -> Option<(u64, u64)> {
    let core = version.split(['-', '+']).next()?;
    let mut parts = core.split('.');
    let (major, minor, patch) = (parts.next()?, parts.next()?, parts.next()?);
    patch.parse::<u64>().ok()?;
    parts.next().is_none().then_some(())?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

impl<'a> Diff<'a> {
    fn push(&mut self, kind: ChangeKind, path: &str, what: impl Into<String>) {
        self.changes.push(ContractChange { kind, path: path.to_owned(), what: what.into() });
    }

    /// A map of named entries (`tools`, `prompts`, ..): removed ones break,
    /// new ones add, common ones are compared by `each`.
    fn named(
        &mut self,
        section: &str,
        old: &'a Value,
        new: &'a Value,
        each: fn(&mut Self, &str, &'a Value, &'a Value),
    ) {
        let entries = |pin: &'a Value| pin.get(section).and_then(Value::as_object).unwrap_or(&EMPTY);
        let (old, new) = (entries(old), entries(new));
        let singular = section.trim_end_matches('s');
        for (name, before) in old {
            let path = format!("{section}.{name}");
            match new.get(name) {
                None => self.push(ChangeKind::Breaking, &path, format!("the {singular} was removed")),
                Some(after) => each(self, &path, before, after),
            }
        }
        for name in new.keys().filter(|name| !old.contains_key(*name)) {
            self.push(ChangeKind::Additive, &format!("{section}.{name}"), format!("a new {singular}"));
        }
    }

    fn tool(&mut self, path: &str, old: &'a Value, new: &'a Value) {
        let keys = keys(old, new);
        for key in keys {
            let here = format!("{path}.{key}");
            let (before, after) = (old.get(&key), new.get(&key));
            match key.as_str() {
                "inputSchema" => self.schema_root(&here, before, after, Flow::Input),
                "outputSchema" => match (before, after) {
                    (Some(_), None) => self.push(ChangeKind::Breaking, &here, "the output schema was removed"),
                    (None, Some(_)) => self.push(ChangeKind::Additive, &here, "an output schema was declared"),
                    _ => self.schema_root(&here, before, after, Flow::Output),
                },
                "annotations" => self.annotations(&here, before, after),
                "errors" => self.errors(&here, before, after),
                "title" | "description" => self.text(&here, before, after),
                // Rendered from `errors`, which says what changed in them.
                "envelopes" => {}
                _ if before != after => self.unplaced(&here),
                _ => {}
            }
        }
    }

    /// A resource, template or prompt: its words may change, its arguments
    /// as an input does, anything else (a URI, a MIME type) breaks.
    fn entry(&mut self, path: &str, old: &'a Value, new: &'a Value) {
        for key in keys(old, new) {
            let here = format!("{path}.{key}");
            let (before, after) = (old.get(&key), new.get(&key));
            match key.as_str() {
                "title" | "description" | "name" => self.text(&here, before, after),
                "errors" => self.errors(&here, before, after),
                "arguments" => self.prompt_arguments(&here, before, after),
                "envelopes" => {}
                _ if before != after => self.unplaced(&here),
                _ => {}
            }
        }
    }

    fn prompt_arguments(&mut self, path: &str, old: Option<&'a Value>, new: Option<&'a Value>) {
        let by_name = |list: Option<&'a Value>| -> Vec<(&'a str, bool)> {
            list.and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|arg| Some((arg.get("name")?.as_str()?, arg.get("required") == Some(&Value::Bool(true)))))
                .collect()
        };
        let (old, new) = (by_name(old), by_name(new));
        for (name, _) in &old {
            if !new.iter().any(|(other, _)| other == name) {
                self.push(ChangeKind::Breaking, &format!("{path}.{name}"), "the argument was removed");
            }
        }
        for (name, required) in &new {
            let here = format!("{path}.{name}");
            match old.iter().find(|(other, _)| other == name) {
                None if *required => self.push(ChangeKind::Breaking, &here, "a new required argument"),
                None => self.push(ChangeKind::Additive, &here, "a new optional argument"),
                Some((_, false)) if *required => self.push(ChangeKind::Breaking, &here, "the argument became required"),
                Some((_, true)) if !required => self.push(ChangeKind::Additive, &here, "the argument became optional"),
                _ => {}
            }
        }
    }

    fn text(&mut self, path: &str, old: Option<&'a Value>, new: Option<&'a Value>) {
        if old != new {
            self.push(ChangeKind::Additive, path, "the text changed");
        }
    }

    fn unplaced(&mut self, path: &str) {
        self.push(ChangeKind::Breaking, path, "changed in a way the classifier cannot place; read the pin's diff");
    }

    /// Hints an agent may rely on to call a tool without asking: weakening one breaks.
    fn annotations(&mut self, path: &str, old: Option<&'a Value>, new: Option<&'a Value>) {
        // The defaults of MCP's annotations: read-only false, destructive true, idempotent false, open-world true.
        let hint = |set: Option<&Value>, key: &str, default: bool| {
            set.and_then(|set| set.get(key)).and_then(Value::as_bool).unwrap_or(default)
        };
        for (key, default, safe) in
            [("readOnlyHint", false, true), ("destructiveHint", true, false), ("idempotentHint", false, true)]
        {
            let (before, after) = (hint(old, key, default), hint(new, key, default));
            if before != after {
                let kind = if after == safe { ChangeKind::Additive } else { ChangeKind::Breaking };
                self.push(kind, &format!("{path}.{key}"), format!("{before} became {after}"));
            }
        }
        for key in keys_of(old, new) {
            if !["readOnlyHint", "destructiveHint", "idempotentHint"].contains(&key.as_str())
                && old.and_then(|set| set.get(&key)) != new.and_then(|set| set.get(&key))
            {
                self.push(ChangeKind::Additive, &format!("{path}.{key}"), "the hint changed");
            }
        }
    }

    /// The declared failure modes, by reason.
    fn errors(&mut self, path: &str, old: Option<&'a Value>, new: Option<&'a Value>) {
        let by_reason = |list: Option<&'a Value>| -> Vec<(&'a str, &'a Value)> {
            list.and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|entry| Some((entry.get("reason")?.as_str()?, entry)))
                .collect()
        };
        let (old, new) = (by_reason(old), by_reason(new));
        for (reason, before) in &old {
            let here = format!("{path}.{reason}");
            let Some((_, after)) = new.iter().find(|(other, _)| other == reason) else {
                self.push(ChangeKind::Breaking, &here, "the reason was removed");
                continue;
            };
            if before.get("code") != after.get("code") {
                let code = |entry: &Value| entry.get("code").map_or_else(|| "none".to_owned(), Value::to_string);
                self.push(
                    ChangeKind::Breaking,
                    &here,
                    format!("its code changed from {} to {}", code(before), code(after)),
                );
            }
            if before != after && before.get("code") == after.get("code") {
                self.push(ChangeKind::Additive, &here, "its words or retryability changed");
            }
        }
        for (reason, _) in new.iter().filter(|(reason, _)| !old.iter().any(|(other, _)| other == reason)) {
            self.push(ChangeKind::Additive, &format!("{path}.{reason}"), "a new reason");
        }
    }

    fn schema_root(&mut self, path: &str, old: Option<&'a Value>, new: Option<&'a Value>, flow: Flow) {
        match (old, new) {
            (Some(old), Some(new)) => self.schema(path, old, new, flow),
            (None, None) => {}
            _ => self.unplaced(path),
        }
    }

    /// Compare two schemas of one place, `$ref`s followed.
    fn schema(&mut self, path: &str, old: &'a Value, new: &'a Value, flow: Flow) {
        let refs = (ref_of(old), ref_of(new));
        let referenced = refs.0.is_some() || refs.1.is_some();
        if referenced && self.refs.contains(&refs) {
            return;
        }
        let (Some(old), Some(new)) = (self.follow(old, self.old_root), self.follow(new, self.new_root)) else {
            return self.unplaced(path);
        };
        if old == new {
            return;
        }
        if referenced {
            self.refs.push(refs.clone());
        }
        self.schema_body(path, old, new, flow);
        if referenced {
            self.refs.retain(|seen| seen != &refs);
        }
    }

    /// A local `$ref` resolved against its pin: the nearest `$defs` entry of
    /// its name (each schema of a pin keeps its definitions beside it).
    fn follow(&self, schema: &'a Value, root: &'a Value) -> Option<&'a Value> {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(target) => find_definition(root, target.rsplit('/').next().unwrap_or_default()),
            None => Some(schema),
        }
    }

    fn schema_body(&mut self, path: &str, old: &'a Value, new: &'a Value, flow: Flow) {
        let (old_types, new_types) = (types(old), types(new));
        let (gained, lost): (Vec<_>, Vec<_>) =
            (new_types.difference(&old_types).cloned().collect(), old_types.difference(&new_types).cloned().collect());
        if !gained.is_empty() || !lost.is_empty() {
            // An input that takes more types, or an output that says fewer, breaks nobody.
            let widened = lost.is_empty();
            let narrowed = gained.is_empty();
            let kind = match flow {
                Flow::Input if widened => ChangeKind::Additive,
                Flow::Output if narrowed => ChangeKind::Additive,
                _ => ChangeKind::Breaking,
            };
            let list = |set: &[String]| if set.is_empty() { "nothing".to_owned() } else { set.join(", ") };
            self.push(kind, path, format!("its type lost {} and gained {}", list(&lost), list(&gained)));
        }
        for key in keys(old, new) {
            let (before, after) = (old.get(&key), new.get(&key));
            if before == after {
                continue;
            }
            match key.as_str() {
                "type" | "$ref" | "$defs" | "definitions" | "$schema" => {}
                // Fields are compared with their requiredness, once.
                "required" if old.get("properties") == new.get("properties") => self.properties(path, old, new, flow),
                "required" => {}
                "description" | "title" | "default" | "examples" => self.text(&format!("{path}.{key}"), before, after),
                "properties" => self.properties(path, old, new, flow),
                "items" => match (before, after) {
                    (Some(before), Some(after)) => self.schema(&format!("{path}[]"), before, after, flow),
                    _ => self.unplaced(&format!("{path}.items")),
                },
                "enum" => self.values(path, before, after, flow),
                "minimum" | "exclusiveMinimum" | "minLength" | "minItems" | "minProperties" => {
                    self.bound(&format!("{path}.{key}"), before, after, flow, true);
                }
                "maximum" | "exclusiveMaximum" | "maxLength" | "maxItems" | "maxProperties" => {
                    self.bound(&format!("{path}.{key}"), before, after, flow, false);
                }
                "anyOf" | "oneOf" => self.union(&format!("{path}.{key}"), before, after, flow),
                "additionalProperties" => self.open(&format!("{path}.{key}"), before, after, flow),
                _ => self.unplaced(&format!("{path}.{key}")),
            }
        }
    }

    fn properties(&mut self, path: &str, old: &'a Value, new: &'a Value, flow: Flow) {
        let fields = |schema: &'a Value| schema.get("properties").and_then(Value::as_object);
        let required = |schema: &Value, key: &str| {
            schema.get("required").and_then(Value::as_array).is_some_and(|list| list.iter().any(|k| k == key))
        };
        let (before, after) = (fields(old).unwrap_or(&EMPTY), fields(new).unwrap_or(&EMPTY));
        for (key, schema) in before {
            let here = format!("{path}.{key}");
            let Some(now) = after.get(key) else {
                self.push(ChangeKind::Breaking, &here, format!("the {} field was removed", flow.noun()));
                continue;
            };
            match (required(old, key), required(new, key), flow) {
                (false, true, Flow::Input) => self.push(ChangeKind::Breaking, &here, "the field became required"),
                (true, false, Flow::Input) => self.push(ChangeKind::Additive, &here, "the field became optional"),
                (true, false, Flow::Output) => {
                    self.push(ChangeKind::Breaking, &here, "the field may now be missing from the output");
                }
                (false, true, Flow::Output) => self.push(ChangeKind::Additive, &here, "the field is now always there"),
                _ => {}
            }
            self.schema(&here, schema, now, flow);
        }
        for key in after.keys().filter(|key| !before.contains_key(*key)) {
            let here = format!("{path}.{key}");
            match (flow, required(new, key)) {
                (Flow::Input, true) => self.push(ChangeKind::Breaking, &here, "a new required input field"),
                (Flow::Input, false) => self.push(ChangeKind::Additive, &here, "a new optional input field"),
                (Flow::Output, _) => self.push(ChangeKind::Additive, &here, "a new output field"),
            }
        }
    }

    /// An `enum`: an input may take more values, an output may say fewer.
    fn values(&mut self, path: &str, old: Option<&'a Value>, new: Option<&'a Value>, flow: Flow) {
        let set = |list: Option<&Value>| -> Option<BTreeSet<String>> {
            Some(list?.as_array()?.iter().map(Value::to_string).collect())
        };
        let (Some(before), Some(after)) = (set(old), set(new)) else {
            // An enum added restricts; one removed opens.
            let restricted = new.is_some();
            let kind = if restricted == (flow == Flow::Input) { ChangeKind::Breaking } else { ChangeKind::Additive };
            return self.push(
                kind,
                &format!("{path}.enum"),
                if restricted { "values restricted to a list" } else { "no longer a closed list" },
            );
        };
        let removed: Vec<&String> = before.difference(&after).collect();
        let added: Vec<&String> = after.difference(&before).collect();
        let join = |values: &[&String]| values.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", ");
        if !removed.is_empty() {
            let kind = if flow == Flow::Input { ChangeKind::Breaking } else { ChangeKind::Additive };
            self.push(kind, &format!("{path}.enum"), format!("values removed: {}", join(&removed)));
        }
        if !added.is_empty() {
            let kind = if flow == Flow::Output { ChangeKind::Breaking } else { ChangeKind::Additive };
            self.push(kind, &format!("{path}.enum"), format!("values added: {}", join(&added)));
        }
    }

    /// A bound: a lower one raised or an upper one lowered tightens.
    fn bound(&mut self, path: &str, old: Option<&'a Value>, new: Option<&'a Value>, flow: Flow, lower: bool) {
        let number = |value: Option<&Value>| value.and_then(Value::as_f64);
        let tightened = match (number(old), number(new)) {
            (Some(before), Some(after)) => (after > before) == lower,
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (None, None) => return self.unplaced(path),
        };
        let show = |value: Option<&Value>| value.map_or_else(|| "none".to_owned(), Value::to_string);
        let what = format!("{} became {}", show(old), show(new));
        let kind = if tightened == (flow == Flow::Input) { ChangeKind::Breaking } else { ChangeKind::Additive };
        self.push(kind, path, format!("{} {what}", if tightened { "tightened:" } else { "loosened:" }));
    }

    /// `additionalProperties`: an input that refuses unknown keys it took breaks.
    fn open(&mut self, path: &str, old: Option<&'a Value>, new: Option<&'a Value>, flow: Flow) {
        let closed = |value: Option<&Value>| value == Some(&Value::Bool(false));
        match (closed(old), closed(new)) {
            (false, true) => {
                let kind = if flow == Flow::Input { ChangeKind::Breaking } else { ChangeKind::Additive };
                self.push(kind, path, "unknown keys are no longer allowed");
            }
            (true, false) => {
                let kind = if flow == Flow::Input { ChangeKind::Additive } else { ChangeKind::Breaking };
                self.push(kind, path, "unknown keys are allowed now");
            }
            _ => self.unplaced(path),
        }
    }

    /// Union branches, matched by their tag (a `const` property) or their
    /// text: a branch added to an input or removed from an output is additive.
    fn union(&mut self, path: &str, old: Option<&'a Value>, new: Option<&'a Value>, flow: Flow) {
        let branches = |list: Option<&'a Value>| -> Vec<(String, &'a Value)> {
            list.and_then(Value::as_array).into_iter().flatten().map(|branch| (tag(branch), branch)).collect()
        };
        let (before, after) = (branches(old), branches(new));
        for (key, schema) in &before {
            match after.iter().find(|(other, _)| other == key) {
                Some((_, now)) => self.schema(&format!("{path}[{key}]"), schema, now, flow),
                None => {
                    let kind = if flow == Flow::Input { ChangeKind::Breaking } else { ChangeKind::Additive };
                    self.push(kind, &format!("{path}[{key}]"), "a branch was removed");
                }
            }
        }
        for (key, _) in after.iter().filter(|(key, _)| !before.iter().any(|(other, _)| other == key)) {
            let kind = if flow == Flow::Output { ChangeKind::Breaking } else { ChangeKind::Additive };
            self.push(kind, &format!("{path}[{key}]"), "a new branch");
        }
    }
}

impl Flow {
    fn noun(self) -> &'static str {
        match self {
            Self::Input => "input",
            Self::Output => "output",
        }
    }
}

fn keys(old: &Value, new: &Value) -> BTreeSet<String> {
    keys_of(Some(old), Some(new))
}

fn keys_of(old: Option<&Value>, new: Option<&Value>) -> BTreeSet<String> {
    [old, new].into_iter().flatten().filter_map(Value::as_object).flat_map(|object| object.keys().cloned()).collect()
}

fn ref_of(schema: &Value) -> Option<String> {
    schema.get("$ref").and_then(Value::as_str).map(str::to_owned)
}

fn find_definition<'a>(root: &'a Value, name: &str) -> Option<&'a Value> {
    match root {
        Value::Object(object) => ["$defs", "definitions"]
            .iter()
            .find_map(|keyword| object.get(*keyword)?.get(name))
            .or_else(|| object.values().find_map(|child| find_definition(child, name))),
        Value::Array(items) => items.iter().find_map(|item| find_definition(item, name)),
        _ => None,
    }
}

/// The JSON types a schema allows; `null` from `Option` included.
fn types(schema: &Value) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = match schema.get("type") {
        Some(Value::String(single)) => [single.clone()].into(),
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => BTreeSet::new(),
    };
    // `Option<T>` as `anyOf: [T, {type: null}]`.
    if let Some(Value::Array(branches)) = schema.get("anyOf")
        && branches.iter().any(|branch| branch.get("type").and_then(Value::as_str) == Some("null"))
    {
        out.insert("null".to_owned());
    }
    out
}

/// A union branch's name: the value of its `const` property (a tagged
/// enum's tag), its own `const`, its title, or its text.
fn tag(branch: &Value) -> String {
    if let Some(value) = branch.get("const") {
        return value.to_string();
    }
    let tagged = branch.get("properties").and_then(Value::as_object).and_then(|properties| {
        properties.iter().find_map(|(key, schema)| Some(format!("{key}={}", schema.get("const")?)))
    });
    tagged
        .or_else(|| branch.get("title").and_then(Value::as_str).map(str::to_owned))
        .or_else(|| branch.get("type").map(Value::to_string))
        .unwrap_or_else(|| branch.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pin(input: Value, output: Value) -> Value {
        json!({"server": {"name": "s", "version": "1.0.0"}, "tools": {"search": {
            "description": "Search.", "inputSchema": input, "outputSchema": output,
            "errors": [{"reason": "not_found", "code": -32001, "when": "w", "recovery": "r", "retryable": false}],
        }}})
    }

    fn object(properties: Value, required: &[&str]) -> Value {
        json!({"type": "object", "properties": properties, "required": required})
    }

    fn changes(old: &Value, new: &Value) -> Vec<String> {
        compare(old, new).iter().map(ToString::to_string).collect()
    }

    fn base() -> Value {
        pin(
            object(
                json!({"query": {"type": "string", "maxLength": 80}, "limit": {"type": "integer", "minimum": 1}}),
                &["query"],
            ),
            object(
                json!({"titles": {"type": "array", "items": {"type": "string"}}, "kind": {"enum": ["a", "b"]}}),
                &["titles"],
            ),
        )
    }

    fn edit(path: &str, value: Value) -> Value {
        let mut pin = base();
        match pin.pointer_mut(path) {
            Some(slot) => *slot = value,
            None => match path.rsplit_once('/').and_then(|(parent, key)| Some((pin.pointer_mut(parent)?, key))) {
                Some((Value::Object(parent), key)) => drop(parent.insert(key.into(), value)),
                Some((Value::Array(parent), _)) => parent.push(value),
                _ => panic!("{path} has no parent"),
            },
        }
        pin
    }

    const INPUT: &str = "/tools/search/inputSchema";
    const OUTPUT: &str = "/tools/search/outputSchema";

    #[test]
    fn the_same_pin_has_no_change() {
        assert!(compare(&base(), &base()).is_empty());
    }

    fn without(path: &str) -> Value {
        let mut pin = base();
        let (parent, key) = path.rsplit_once('/').expect("a pointer");
        pin.pointer_mut(parent).and_then(Value::as_object_mut).expect("the parent").remove(key);
        pin
    }

    #[test]
    fn each_breaking_change_of_the_issue() {
        let mut required_field = edit(&format!("{INPUT}/properties/since"), json!({"type": "string"}));
        required_field["tools"]["search"]["inputSchema"]["required"] = json!(["query", "since"]);
        let cases = [
            (without("/tools/search"), "tools.search: the tool was removed"),
            (edit("/tools/search/errors", json!([])), "tools.search.errors.not_found: the reason was removed"),
            (
                without(&format!("{OUTPUT}/properties/titles")),
                "tools.search.outputSchema.titles: the output field was removed",
            ),
            (
                edit("/tools/search/errors/0/code", json!(-32002)),
                "tools.search.errors.not_found: its code changed from -32001 to -32002",
            ),
            (
                edit(&format!("{INPUT}/required"), json!(["query", "limit"])),
                "tools.search.inputSchema.limit: the field became required",
            ),
            (required_field, "tools.search.inputSchema.since: a new required input field"),
            (
                edit(&format!("{OUTPUT}/properties/kind/enum"), json!(["a", "b", "c"])),
                "tools.search.outputSchema.kind.enum: values added: \"c\"",
            ),
            (
                edit(&format!("{INPUT}/properties/query/maxLength"), json!(40)),
                "tools.search.inputSchema.query.maxLength: tightened: 80 became 40",
            ),
            (
                edit(&format!("{INPUT}/properties/limit/type"), json!("string")),
                "tools.search.inputSchema.limit: its type lost integer and gained string",
            ),
            (
                edit("/tools/search/execution", json!({"taskSupport": "required"})),
                "tools.search.execution: changed in a way the classifier cannot place; read the pin's diff",
            ),
        ];
        for (new, expected) in cases {
            let found = changes(&base(), &new);
            assert!(found.contains(&format!("breaking: {expected}")), "{expected}: {found:?}");
        }
    }

    #[test]
    fn each_additive_change_of_the_issue() {
        let mut new_tool = base();
        new_tool["tools"]["fetch"] = base()["tools"]["search"].clone();
        let cases = [
            (new_tool, "tools.fetch: a new tool"),
            (
                edit(&format!("{INPUT}/properties/since"), json!({"type": "string"})),
                "tools.search.inputSchema.since: a new optional input field",
            ),
            (
                edit(&format!("{OUTPUT}/properties/total"), json!({"type": "integer"})),
                "tools.search.outputSchema.total: a new output field",
            ),
            (
                edit("/tools/search/errors/1", json!({"reason": "busy", "code": -32003})),
                "tools.search.errors.busy: a new reason",
            ),
            (
                edit(&format!("{INPUT}/properties/query/maxLength"), json!(200)),
                "tools.search.inputSchema.query.maxLength: loosened: 80 became 200",
            ),
            (
                edit(&format!("{INPUT}/properties/limit/minimum"), json!(0)),
                "tools.search.inputSchema.limit.minimum: loosened: 1 became 0",
            ),
        ];
        for (new, expected) in cases {
            let found = changes(&base(), &new);
            assert_eq!(found, [format!("additive: {expected}")], "{expected}");
        }
    }

    #[test]
    fn enum_values_and_bounds_turn_around_between_input_and_output() {
        let pin = edit(&format!("{INPUT}/properties/mode"), json!({"enum": ["fast", "full"]}));
        let fewer = edit(&format!("{INPUT}/properties/mode"), json!({"enum": ["fast"]}));
        assert_eq!(changes(&pin, &fewer), ["breaking: tools.search.inputSchema.mode.enum: values removed: \"full\""]);
        assert_eq!(changes(&fewer, &pin), ["additive: tools.search.inputSchema.mode.enum: values added: \"full\""]);
        let narrower = edit(&format!("{OUTPUT}/properties/kind/enum"), json!(["a"]));
        assert_eq!(
            changes(&base(), &narrower),
            ["additive: tools.search.outputSchema.kind.enum: values removed: \"b\""]
        );
    }

    #[test]
    fn tagged_variants_and_refs_are_followed() {
        let variant = |tag: &str| json!({"type": "object", "properties": {"kind": {"const": tag}, "id": {"type": "string"}}, "required": ["kind", "id"]});
        let old = pin(
            json!({"type": "object", "oneOf": [variant("a"), variant("b")]}),
            json!({"$ref": "#/$defs/Out", "$defs": {"Out": object(json!({"n": {"type": "integer"}}), &["n"])}}),
        );
        let mut new = old.clone();
        new["tools"]["search"]["inputSchema"]["oneOf"].as_array_mut().unwrap().push(variant("c"));
        new["tools"]["search"]["outputSchema"]["$defs"]["Out"]["properties"]["n"]["maximum"] = json!(10);
        let found = changes(&old, &new);
        assert!(
            found.contains(&"additive: tools.search.inputSchema.oneOf[kind=\"c\"]: a new branch".to_owned()),
            "{found:?}"
        );
        assert!(
            found.contains(&"additive: tools.search.outputSchema.n.maximum: tightened: none became 10".to_owned()),
            "{found:?}"
        );
    }

    #[test]
    fn annotations_that_an_agent_trusts_break_when_weakened() {
        let with = |read_only: bool| edit("/tools/search/annotations", json!({"readOnlyHint": read_only}));
        assert_eq!(
            changes(&with(true), &with(false)),
            ["breaking: tools.search.annotations.readOnlyHint: true became false"]
        );
        assert_eq!(
            changes(&with(false), &with(true)),
            ["additive: tools.search.annotations.readOnlyHint: false became true"]
        );
    }

    #[test]
    fn versions_announce_a_breaking_change_as_semver_says() {
        assert!(announces_breaking("1.4.2", "2.0.0"));
        assert!(!announces_breaking("1.4.2", "1.5.0"));
        assert!(announces_breaking("0.3.1", "0.4.0"));
        assert!(!announces_breaking("0.3.1", "0.3.2"));
        assert!(announces_breaking("0.9.0", "1.0.0"));
        assert!(!announces_breaking("1.0", "2.0"), "no semver, nothing announced");
        assert_eq!(next_breaking("0.3.1").as_deref(), Some("0.4.0"));
        assert_eq!(next_breaking("2.1.0").as_deref(), Some("3.0.0"));
    }

    #[test]
    fn prompt_arguments_are_an_input() {
        let prompt = |args: Value| json!({"prompts": {"plan": {"description": "Plan.", "arguments": args}}});
        let old = prompt(json!([{"name": "department", "required": true}, {"name": "hours"}]));
        let required = prompt(json!([{"name": "department", "required": true}, {"name": "hours", "required": true}]));
        assert_eq!(changes(&old, &required), ["breaking: prompts.plan.arguments.hours: the argument became required"]);
        let fewer = prompt(json!([{"name": "department", "required": true}]));
        assert_eq!(changes(&old, &fewer), ["breaking: prompts.plan.arguments.hours: the argument was removed"]);
        assert_eq!(changes(&fewer, &old), ["additive: prompts.plan.arguments.hours: a new optional argument"]);
        let moved = json!({"resources": {"museum://about": {"mimeType": "text/html"}}});
        let before = json!({"resources": {"museum://about": {"mimeType": "text/markdown"}}});
        assert!(changes(&before, &moved)[0].starts_with("breaking: resources.museum://about.mimeType"));
    }
}
