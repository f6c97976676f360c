//! The checker: what in a schema some LLM vendor or MCP client rejects.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value;

use super::PORTABLE_FORMATS;
use super::walk::{
    BOOLEAN_OK, DEFINITION_KEYWORDS, DefKey, escape_pointer, parse_ref, recursive_definitions, refers_to, subschemas,
};
use crate::error::JsonObject;

/// Something in a schema that some LLM vendor or MCP client rejects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortabilityProblem {
    /// Where: a JSON Pointer into the schema (`""` for the root, `/properties/id`).
    pub pointer: String,
    /// What.
    pub kind: PortabilityProblemKind,
}

/// The kinds of [`PortabilityProblem`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PortabilityProblemKind {
    /// A `$schema` key.
    MetaSchema,
    /// A definition that is not part of a cycle (so it could be inlined), or
    /// any definition outside the root's `$defs` / `definitions`.
    Definition {
        /// Its name.
        name: String,
    },
    /// A `$ref` to a definition of a recursive type. Unavoidable for such a
    /// type, and still rejected by Gemini: a linter reports it as a warning.
    RecursiveReference {
        /// The reference.
        target: String,
    },
    /// Any other `$ref`.
    Reference {
        /// The reference.
        target: String,
    },
    /// A `format` outside [`PORTABLE_FORMATS`].
    UnportableFormat {
        /// The format.
        format: String,
    },
    /// An `anyOf` or `oneOf` branch without a `type`.
    TypelessBranch {
        /// `anyOf` or `oneOf`.
        keyword: &'static str,
    },
    /// A boolean schema (`true` or `false`) in place of an object.
    BooleanSchema,
    /// A `type` array, such as `["string", "null"]`: Gemini's function
    /// declarations take one `type` per schema.
    TypeArray {
        /// The types listed.
        types: Vec<String>,
    },
}

impl fmt::Display for PortabilityProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            f.write_str("At the root of the schema: ")?;
        } else {
            write!(f, "At `{}`: ", self.pointer)?;
        }
        match &self.kind {
            PortabilityProblemKind::MetaSchema => {
                f.write_str("the `$schema` key makes some validators fetch a meta-schema; remove it.")
            }
            PortabilityProblemKind::Definition { name } => write!(
                f,
                "the definition `{name}` is not recursive; inline it, because Gemini rejects `$defs` and `$ref`."
            ),
            PortabilityProblemKind::RecursiveReference { target } => write!(
                f,
                "`$ref: {target}` refers to a recursive type, which Gemini rejects; it cannot be inlined, so \
                 consider bounding the recursion if the tool must work with Gemini."
            ),
            PortabilityProblemKind::Reference { target } => write!(
                f,
                "`$ref: {target}` is not a reference to a recursive type; inline its target, because Gemini \
                 rejects `$ref`."
            ),
            PortabilityProblemKind::UnportableFormat { format } => write!(
                f,
                "`format: {format}` is not one of the portable formats ({}); remove it, because some vendors \
                 reject the whole tool for it.",
                PORTABLE_FORMATS.join(", ")
            ),
            PortabilityProblemKind::TypelessBranch { keyword } => {
                write!(f, "this `{keyword}` branch has no `type`, which Gemini rejects; give every branch a `type`.")
            }
            PortabilityProblemKind::BooleanSchema => {
                f.write_str("a boolean schema stands where vendors expect an object; write `{}` or `{\"not\": {}}`.")
            }
            PortabilityProblemKind::TypeArray { types } => write!(
                f,
                "`type: [{}]` lists several types, and Gemini's function declarations take one `type` per schema; \
                 write an `anyOf` of one typed branch per type (`anyOf: [{{\"type\": \"string\"}}, {{\"type\": \"null\"}}]`).",
                types.iter().map(|ty| format!("\"{ty}\"")).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

/// Everything in `schema` that [`portable`](super::portable) would have removed, or could not.
///
/// The definition linter reports these; tests can assert that a schema has none.
///
/// ```
/// use mcp_contract::schema::{PortabilityProblemKind, portability_problems};
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "id": {"type": "integer", "format": "uint32"},
///         "when": {"type": "string", "format": "date-time"}
///     }
/// });
/// let problems = portability_problems(schema.as_object().unwrap());
/// assert_eq!(problems.len(), 1);
/// assert_eq!(problems[0].pointer, "/properties/id");
/// assert_eq!(problems[0].kind, PortabilityProblemKind::UnportableFormat { format: "uint32".into() });
/// ```
pub fn portability_problems(schema: &JsonObject) -> Vec<PortabilityProblem> {
    let mut defs: BTreeMap<DefKey, Value> = BTreeMap::new();
    for (keyword, wrap) in DEFINITION_KEYWORDS {
        if let Some(Value::Object(map)) = schema.get(keyword) {
            for (name, body) in map {
                defs.entry(wrap(name.clone())).or_insert_with(|| body.clone());
            }
        }
    }
    let mut root_body = schema.clone();
    for (keyword, _) in DEFINITION_KEYWORDS {
        root_body.remove(keyword);
    }
    let root_body = Value::Object(root_body);
    if refers_to(&root_body, &DefKey::Root) || defs.values().any(|body| refers_to(body, &DefKey::Root)) {
        defs.insert(DefKey::Root, root_body);
    }
    let recursive = recursive_definitions(&defs);
    let mut checker = Checker { recursive: &recursive, problems: Vec::new() };
    checker.check(&Value::Object(schema.clone()), String::new(), true);
    checker.problems
}

struct Checker<'a> {
    recursive: &'a BTreeSet<DefKey>,
    problems: Vec<PortabilityProblem>,
}

impl Checker<'_> {
    fn report(&mut self, pointer: &str, kind: PortabilityProblemKind) {
        self.problems.push(PortabilityProblem { pointer: pointer.to_owned(), kind });
    }

    fn check(&mut self, schema: &Value, pointer: String, is_root: bool) {
        let object = match schema {
            Value::Bool(_) if is_root => return self.report(&pointer, PortabilityProblemKind::BooleanSchema),
            Value::Object(object) => object,
            _ => return,
        };
        if object.contains_key("$schema") {
            self.report(&pointer, PortabilityProblemKind::MetaSchema);
        }
        if let Some(target) = object.get("$ref").and_then(Value::as_str) {
            let target = target.to_owned();
            let kind = match parse_ref(&target) {
                Some(key) if self.recursive.contains(&key) => PortabilityProblemKind::RecursiveReference { target },
                _ => PortabilityProblemKind::Reference { target },
            };
            self.report(&pointer, kind);
        }
        if let Some(format) = object.get("format").and_then(Value::as_str)
            && !PORTABLE_FORMATS.contains(&format)
        {
            self.report(&pointer, PortabilityProblemKind::UnportableFormat { format: format.to_owned() });
        }
        if let Some(Value::Array(types)) = object.get("type")
            && types.len() > 1
        {
            let types = types.iter().map(|ty| ty.as_str().map_or_else(|| ty.to_string(), str::to_owned)).collect();
            self.report(&pointer, PortabilityProblemKind::TypeArray { types });
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = object.get(keyword) {
                for (index, branch) in branches.iter().enumerate() {
                    if branch.as_object().is_some_and(|branch| !branch.contains_key("type")) {
                        self.report(
                            &format!("{pointer}/{keyword}/{index}"),
                            PortabilityProblemKind::TypelessBranch { keyword },
                        );
                    }
                }
            }
        }
        for (keyword, wrap) in DEFINITION_KEYWORDS {
            if let Some(Value::Object(map)) = object.get(keyword) {
                for (name, body) in map {
                    let at = format!("{pointer}/{}/{}", escape_pointer(keyword), escape_pointer(name));
                    if !(is_root && self.recursive.contains(&wrap(name.clone()))) {
                        self.report(&at, PortabilityProblemKind::Definition { name: name.clone() });
                    }
                    self.check(body, at, false);
                }
            }
        }
        for (keyword, path, child) in subschemas(object) {
            if child.is_boolean() && !BOOLEAN_OK.contains(&keyword) {
                self.report(&format!("{pointer}{path}"), PortabilityProblemKind::BooleanSchema);
            } else {
                self.check(child, format!("{pointer}{path}"), false);
            }
        }
    }
}
