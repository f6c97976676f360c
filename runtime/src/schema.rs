//! Portable JSON Schemas for a tool's `inputSchema` and `outputSchema`.
//!
//! [`input_schema`] and [`output_schema`] generate a schema with schemars from a
//! Rust type, then make it [`portable`]: free of the constructs that LLM vendors
//! and MCP clients are known to reject, not only valid JSON Schema. `#[mcp_tool]`
//! calls them once per tool and keeps the result for the life of the process.
//!
//! # What "portable" means here
//!
//! - **No `$schema`.** The generated schemas are JSON Schema 2020-12, but Gemini
//!   rejects the key in function parameters ("Unknown name \"$schema\" ..
//!   Cannot find field"), and rmcp's helper sends it.
//! - **No `$defs` / `$ref`**, because Gemini rejects them: every definition is
//!   inlined at each use. A *recursive* type (one that reaches itself, directly
//!   or through others) cannot be inlined, so its definition alone stays in the
//!   root `$defs`, referenced as `#/$defs/<Name>`. A self-reference of the root
//!   type (schemars writes `{"$ref": "#"}`) becomes such a definition too, so the
//!   schema stays correct when it is embedded in another one, as
//!   [`widen_for_error_results`] does.
//! - **Formats from [`PORTABLE_FORMATS`] only** (OpenAI's nine). Others are
//!   dropped: schemars writes `uint32`, `int64`, `double`, `uri`, ..., and
//!   `format: "uri"` once made gpt-5-codex reject a whole tool. The numeric
//!   bounds schemars writes beside them (`minimum: 0` for a `u32`) are kept.
//! - **Every `anyOf` / `oneOf` branch has a `type`**, because Gemini rejects
//!   typeless branches. After inlining, `Option<Struct>` is
//!   `anyOf: [{type: "object", ..}, {type: "null"}]`, already typed; the type of
//!   a branch that is still a `$ref` (a recursive type), a `const`, an `enum` or
//!   a composition is inferred and written beside it. An `anyOf` with an
//!   unconstrained branch accepts anything and is dropped.
//! - **The root is `type: "object"`** also for an internally tagged enum, whose
//!   schema is a `oneOf` of objects without a `type` of its own: the root gets
//!   the union of its branches' types. Nested compositions are left as
//!   schemars writes them.
//! - **No boolean schemas**: `true` (what schemars writes for `serde_json::Value`)
//!   becomes `{}` and `false` becomes `{"not": {}}`, except as the value of
//!   `additionalProperties`, `items` and their kin, where `false` is universal
//!   (OpenAI's strict mode asks for `additionalProperties: false`).
//!
//! Kept as schemars writes them: doc comments as `description` (the model reads
//! them), `Option<primitive>` as `type: ["string", "null"]`, `enum` for enums of
//! unit variants, `additionalProperties: false` for `#[serde(deny_unknown_fields)]`.
//! The root `title` schemars adds (the Rust type's name, e.g. `GetObjectInput`)
//! is dropped by [`input_schema`] and [`output_schema`]: it names a Rust type the
//! model never sees, and the tool has its own title. A title set explicitly with
//! `#[schemars(title = "..")]` is kept.
//!
//! # Optional fields
//!
//! The input schema describes deserialization: an `Option` field may be omitted
//! or `null`, so it is not `required` and its type admits `null`. The output
//! schema describes serialization, which is what a client validates: serde writes
//! `None` as `null`, so the field is `required` and nullable, unless it has
//! `#[serde(skip_serializing_if = "Option::is_none")]`, which makes it optional.
//! Declaring such fields optional-and-non-null regardless would make a strict
//! client reject every result with a `null` in it.
//!
//! # Error results and strict clients
//!
//! A tool that declares an `outputSchema` answers a failure with `isError: true`
//! and `structuredContent = {"error": {code, message, data?}}`, which does not
//! match the success schema. Whether that breaks a client depends on the client:
//!
//! - The official TypeScript SDK (npm `@modelcontextprotocol/sdk` 1.32.2, the
//!   latest 1.x) validates `structuredContent` against the output schema
//!   **even when `isError` is true**: `Client.callTool` in `src/client/index.ts`
//!   (line 714; `dist/esm/client/index.js` line 479) guards validation with
//!   `if (result.structuredContent)` only (line 741; dist line 493), despite the
//!   comment above it saying "not when there's an error", and throws
//!   `McpError(-32602, "Structured content does not match the tool's output
//!   schema: ..")`. The caller never sees the error result. This is
//!   typescript-sdk issue #1943 (fix proposed in PR #1945). Its validator is
//!   Ajv 8 with ajv-formats, `strict: false`, `validateFormats: true`
//!   (`dist/esm/validation/ajv-provider.js` lines 6-16). Calling the real
//!   1.32.2 `Client` against an in-memory server confirms it: an error result is
//!   rejected under the success schema and accepted under the widened one.
//! - The Python SDK (PyPI `mcp`) skips error results: 1.30.0,
//!   `src/mcp/client/session.py` line 412, `if not result.isError: await
//!   self._validate_tool_result(name, result)`; 2.3.0, same file, line 1101,
//!   `if isinstance(result, types.CallToolResult) and not result.is_error:
//!   await self.validate_tool_result(name, result)`.
//! - The MCP Inspector 0.10.17 rejected such results ("data must have required
//!   property .."). A fix that skips error results was proposed (inspector PR
//!   #1045); the Inspector 2.x was not checked here.
//!
//! So a server must advertise, for every tool with an output schema, the
//! schema [`widen_for_error_results`] builds: it accepts the success object
//! exactly as strictly as before, or `{"error": {code, message, data?}}`, and
//! stays portable (its `anyOf` branches are typed; no new `$defs`).
//!
//! # The checker
//!
//! [`portability_problems`] finds what this module removes, in any schema (one
//! a user wrote by hand, or one from rmcp's helper, which keeps `$schema`,
//! `$defs` and `uint32`). The definition linter reuses it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Value, json};

use crate::errors::JsonObject;

/// The `format` values every vendor accepts: OpenAI's nine.
pub const PORTABLE_FORMATS: [&str; 9] =
    ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/// Keywords that annotate a schema without constraining what it accepts.
const ANNOTATIONS: [&str; 8] =
    ["title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"];

/// The JSON types, in the order written in a `type` array.
const JSON_TYPES: [&str; 7] = ["object", "array", "string", "number", "integer", "boolean", "null"];

/// The portable schema of a tool's arguments, from the type they deserialize into.
///
/// MCP requires an object schema (a struct, or an internally tagged enum of
/// struct variants). For any other type the portable schema is returned as it
/// is, and [`is_object_schema`] tells it apart; `#[mcp_tool]` rejects such input
/// types. An object root always has `properties` (`{}` for a struct without
/// fields), which some vendors require of a function's parameters.
///
/// ```
/// use mcp_contract_runtime::schema::input_schema;
/// use serde_json::json;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct GetObjectInput {
///     /// Object ID in the collection, e.g. 436535.
///     object_id: u32,
/// }
///
/// assert_eq!(
///     serde_json::Value::Object((*input_schema::<GetObjectInput>()).clone()),
///     json!({
///         "type": "object",
///         "properties": {
///             "object_id": {
///                 "description": "Object ID in the collection, e.g. 436535.",
///                 "type": "integer",
///                 "minimum": 0
///             }
///         },
///         "required": ["object_id"]
///     })
/// );
/// ```
pub fn input_schema<T: JsonSchema>() -> Arc<JsonObject> {
    let mut schema = generate::<T>(SchemaSettings::draft2020_12().for_deserialize());
    if is_object_schema(&schema) {
        schema.entry("properties").or_insert_with(|| Value::Object(JsonObject::new()));
    }
    Arc::new(schema)
}

/// The portable schema of a tool's structured result, from the type it serializes from.
///
/// This is the success shape. What a server advertises as `outputSchema` is
/// [`widen_for_error_results`] of it, so that strict clients accept error results.
/// As for [`input_schema`], a type whose schema is not an object schema is
/// returned as it is; [`is_object_schema`] tells.
///
/// ```
/// use mcp_contract_runtime::schema::output_schema;
/// use serde_json::json;
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct GetObjectOutput {
///     /// Artist display name, when known.
///     artist: Option<String>,
/// }
///
/// // `None` serializes as `null`: the field is required and nullable.
/// assert_eq!(
///     serde_json::Value::Object((*output_schema::<GetObjectOutput>()).clone()),
///     json!({
///         "type": "object",
///         "properties": {
///             "artist": {"description": "Artist display name, when known.", "type": ["string", "null"]}
///         },
///         "required": ["artist"]
///     })
/// );
/// ```
pub fn output_schema<T: JsonSchema>() -> Arc<JsonObject> {
    Arc::new(generate::<T>(SchemaSettings::draft2020_12().for_serialize()))
}

fn generate<T: JsonSchema>(settings: SchemaSettings) -> JsonObject {
    // `inline_subschemas` is left off: schemars would inline the first use of a
    // recursive type and reference it elsewhere, which is correct but gives two
    // shapes for one type. Inlining in `portable` instead finds the cycles over
    // the whole definition graph, and works on schemas schemars did not make.
    let settings = settings.with(|settings| settings.meta_schema = None);
    let mut schema = settings.into_generator().into_root_schema_for::<T>();
    let mut schema = portable(std::mem::take(schema.ensure_object()));
    if schema.get("title").and_then(Value::as_str) == Some(T::schema_name().as_ref()) {
        schema.remove("title");
    }
    schema
}

/// Whether `schema` is an object schema (`type: "object"`), as MCP requires of
/// a tool's `inputSchema` and `outputSchema`.
///
/// ```
/// use mcp_contract_runtime::schema::{input_schema, is_object_schema};
/// #[derive(schemars::JsonSchema)]
/// struct Input { query: String }
/// assert!(is_object_schema(&input_schema::<Input>()));
/// assert!(!is_object_schema(&input_schema::<Vec<String>>()));
/// ```
pub fn is_object_schema(schema: &JsonObject) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// Make a JSON Schema portable: the transformation [`input_schema`] and
/// [`output_schema`] apply, for schemas from elsewhere.
///
/// See the [module documentation](self) for what changes and why. Local
/// references (`#`, `#/$defs/..`, `#/definitions/..`) are resolved; any other
/// `$ref` is left as it is, and [`portability_problems`] reports it. Applying
/// `portable` twice gives the same schema as applying it once.
///
/// ```
/// use mcp_contract_runtime::schema::{portable, portability_problems};
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
    }
    tidy(&mut root, &def_types);

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

/// The schema a server advertises as the `outputSchema` of a tool whose
/// success shape is `success`: it also accepts the tool's error results,
/// `{"error": {code, message, data?}}`.
///
/// Needed because the official TypeScript SDK validates the `structuredContent`
/// of error results too (see the [module documentation](self)). The success
/// shape stays exactly as strict as `success` says; `success` is made
/// [`portable`] first.
///
/// When `success` is a plain object schema (properties, `required`,
/// `additionalProperties`, annotations, `$defs`) with no property named
/// `error`, its properties stay at the top, `error` joins them, and the required
/// fields move into an `anyOf` of two typed branches: the tool's fields, or
/// `error`. Clients that read `outputSchema.properties` keep working. Otherwise
/// (a tagged enum, a field named `error`, other keywords) the result is
/// `{"type": "object", "anyOf": [success, error envelope]}`.
///
/// ```
/// use mcp_contract_runtime::schema::{output_schema, widen_for_error_results};
/// use serde_json::json;
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Output { title: String }
///
/// let widened = widen_for_error_results(&output_schema::<Output>());
/// assert_eq!(widened["anyOf"], json!([
///     {"type": "object", "required": ["title"]},
///     {"type": "object", "required": ["error"]}
/// ]));
/// assert_eq!(widened["properties"]["title"], json!({"type": "string"}));
/// assert_eq!(widened["properties"]["error"]["required"], json!(["code", "message"]));
/// ```
pub fn widen_for_error_results(success: &JsonObject) -> JsonObject {
    let mut success = portable(success.clone());
    let mergeable = is_object_schema(&success)
        && success.get("properties").and_then(Value::as_object).is_some_and(|props| !props.contains_key("error"))
        && success.keys().all(|key| {
            ANNOTATIONS.contains(&key.as_str())
                || ["type", "properties", "required", "additionalProperties", "$defs"].contains(&key.as_str())
        });
    if mergeable {
        let mut success_branch = into_object(json!({"type": "object"}));
        if let Some(required) = success.remove("required")
            && required.as_array().is_some_and(|required| !required.is_empty())
        {
            success_branch.insert("required".to_owned(), required);
        }
        if let Some(Value::Object(properties)) = success.get_mut("properties") {
            properties.insert("error".to_owned(), Value::Object(error_object_schema()));
        }
        success.insert("anyOf".to_owned(), json!([success_branch, {"type": "object", "required": ["error"]}]));
        return success;
    }
    let defs = success.remove("$defs");
    let mut widened = JsonObject::new();
    widened.insert("type".to_owned(), json!("object"));
    widened.insert("anyOf".to_owned(), json!([success, error_envelope_schema()]));
    if let Some(defs) = defs {
        widened.insert("$defs".to_owned(), defs);
    }
    widened
}

/// The schema of a tool error's structured content alone: `{"error": {code, message, data?}}`.
///
/// ```
/// use mcp_contract_runtime::{McpError, render::structured_error, schema::error_envelope_schema};
/// let schema = error_envelope_schema();
/// assert_eq!(schema["required"], serde_json::json!(["error"]));
/// // What `render` sends has exactly the fields the schema allows.
/// let sent = structured_error(&McpError::not_found("No object 42.").with_reason("not_in_collection"));
/// let allowed = schema["properties"]["error"]["properties"].as_object().unwrap();
/// assert!(sent["error"].as_object().unwrap().keys().all(|key| allowed.contains_key(key)));
/// ```
pub fn error_envelope_schema() -> JsonObject {
    into_object(json!({
        "type": "object",
        "properties": {"error": error_object_schema()},
        "required": ["error"],
        "additionalProperties": false
    }))
}

fn error_object_schema() -> JsonObject {
    into_object(json!({
        "description": "Present only when the call failed (`isError: true`).",
        "type": "object",
        "properties": {
            "code": {"description": "The JSON-RPC error code, e.g. -32001 for NotFound.", "type": "integer"},
            "message": {"description": "What went wrong.", "type": "string"},
            "data": {
                "description": "Details: `reason` names the declared failure mode; `recovery.hint` says what to do next.",
                "type": "object"
            }
        },
        "required": ["code", "message"],
        "additionalProperties": false
    }))
}

/// The object of a `json!({..})` literal.
fn into_object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    }
}

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
        }
    }
}

/// Everything in `schema` that [`portable`] would have removed, or could not.
///
/// The definition linter reports these; tests can assert that a schema has none.
///
/// ```
/// use mcp_contract_runtime::schema::{PortabilityProblemKind, portability_problems};
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

/// A local definition: the root (`#`), or an entry of the root's `$defs` or `definitions`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum DefKey {
    Root,
    Defs(String),
    Definitions(String),
}

/// A keyword that holds definitions, and how its entries are named as [`DefKey`]s.
type DefinitionKeyword = (&'static str, fn(String) -> DefKey);

const DEFINITION_KEYWORDS: [DefinitionKeyword; 2] = [("$defs", DefKey::Defs), ("definitions", DefKey::Definitions)];

fn parse_ref(target: &str) -> Option<DefKey> {
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
fn encode_pointer_segment(name: &str) -> String {
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
fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
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

/// The immediate subschemas of a schema, each with the JSON Pointer suffix that
/// leads to it. Definitions are not among them: they are walked from their uses.
fn subschemas(schema: &JsonObject) -> Vec<(&str, String, &Value)> {
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

fn subschemas_mut(schema: &mut JsonObject) -> Vec<(&str, &mut Value)> {
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
const BOOLEAN_OK: [&str; 5] =
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
fn references(schema: &Value) -> BTreeSet<DefKey> {
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

fn refers_to(schema: &Value, key: &DefKey) -> bool {
    references(schema).contains(key)
}

/// The definitions that reach themselves through references: the ones that
/// cannot be inlined.
fn recursive_definitions(defs: &BTreeMap<DefKey, Value>) -> BTreeSet<DefKey> {
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

fn json_type(value: &Value) -> &'static str {
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

fn type_value(types: &BTreeSet<&'static str>) -> Value {
    let ordered: Vec<&str> = JSON_TYPES.iter().copied().filter(|ty| types.contains(ty)).collect();
    match ordered.as_slice() {
        [single] => json!(single),
        _ => json!(ordered),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::McpError;
    use crate::render::structured_error;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// Search the collection.
    #[derive(Deserialize, Serialize, JsonSchema)]
    struct FlatInput {
        /// Object ID in the collection, e.g. 436535.
        object_id: u32,
        /// Offset in bytes.
        offset: i64,
        /// Minimum score, from 0 to 1.
        min_score: f64,
        /// Include hidden objects.
        include_hidden: bool,
        /// Words to search for.
        query: String,
        /// Tags the objects must have.
        tags: Vec<String>,
        /// Artist name, when known.
        artist: Option<String>,
    }

    #[derive(Serialize, JsonSchema)]
    struct GetObjectOutput {
        /// Title of the object.
        title: String,
        /// Artist display name, when known.
        artist: Option<String>,
        /// Year made, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        year: Option<i32>,
    }

    /// A place on Earth.
    #[derive(Deserialize, Serialize, JsonSchema)]
    struct Location {
        /// City name.
        city: String,
        /// Country code, ISO 3166-1 alpha-2.
        country: String,
    }

    /// How to order results.
    #[derive(Deserialize, Serialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    enum SortOrder {
        Newest,
        Oldest,
        MostViewed,
    }

    #[derive(Deserialize, Serialize, JsonSchema)]
    struct NestedInput {
        /// Where the object was made.
        origin: Location,
        /// Where the object is now, if on loan.
        on_loan_at: Option<Location>,
        /// Result order.
        sort: SortOrder,
        /// Secondary order.
        then_sort: Option<SortOrder>,
        /// When the record was last changed.
        #[schemars(extend("format" = "date-time"))]
        updated_at: String,
        /// Catalogue page.
        #[schemars(url)]
        catalogue: String,
    }

    /// A category in the taxonomy.
    #[derive(Deserialize, Serialize, JsonSchema)]
    struct Category {
        /// Category name.
        name: String,
        /// Subcategories.
        children: Vec<Category>,
    }

    #[derive(Deserialize, Serialize, JsonSchema)]
    struct TaxonomyOutput {
        /// Top-level categories.
        roots: Vec<Category>,
        /// The category that was asked for, if it exists.
        focus: Option<Category>,
        /// Where the taxonomy is kept.
        location: Location,
    }

    /// What to look up.
    #[derive(Deserialize, Serialize, JsonSchema)]
    #[serde(tag = "by", rename_all = "snake_case")]
    enum Lookup {
        /// By object ID.
        Id {
            /// The ID.
            id: u32,
        },
        /// By title words.
        Title { words: String },
    }

    // Exhibit and Room reach each other: both recursive, neither directly.
    #[derive(Deserialize, Serialize, JsonSchema)]
    struct Exhibit {
        rooms: Vec<Room>,
    }

    #[derive(Deserialize, Serialize, JsonSchema)]
    struct Room {
        next: Option<Box<Exhibit>>,
    }

    #[derive(Deserialize, Serialize, JsonSchema)]
    struct Tree<T> {
        value: T,
        children: Vec<Tree<T>>,
    }

    #[derive(Deserialize, Serialize, JsonSchema)]
    struct Mixed {
        lookup: Option<Lookup>,
        extra: serde_json::Value,
        tree: Tree<String>,
        exhibit: Exhibit,
        place: Location,
    }

    #[derive(Serialize, JsonSchema)]
    struct HasErrorField {
        error: Option<String>,
    }

    fn value(schema: &JsonObject) -> Value {
        Value::Object(schema.clone())
    }

    fn object(value: Value) -> JsonObject {
        value.as_object().expect("a JSON object").clone()
    }

    /// Every schema the tests generate, by label.
    fn all_schemas() -> Vec<(&'static str, JsonObject)> {
        let mut schemas = vec![
            ("FlatInput in", (*input_schema::<FlatInput>()).clone()),
            ("FlatInput out", (*output_schema::<FlatInput>()).clone()),
            ("GetObjectOutput out", (*output_schema::<GetObjectOutput>()).clone()),
            ("NestedInput in", (*input_schema::<NestedInput>()).clone()),
            ("Category in", (*input_schema::<Category>()).clone()),
            ("TaxonomyOutput out", (*output_schema::<TaxonomyOutput>()).clone()),
            ("Lookup in", (*input_schema::<Lookup>()).clone()),
            ("Mixed in", (*input_schema::<Mixed>()).clone()),
            ("HasErrorField out", (*output_schema::<HasErrorField>()).clone()),
            ("NoArguments in", (*input_schema::<crate::contract::NoArguments>()).clone()),
        ];
        let widened: Vec<_> = schemas
            .iter()
            .filter(|(label, _)| label.ends_with("out"))
            .map(|(label, schema)| (*label, widen_for_error_results(schema)))
            .collect();
        schemas.extend(widened);
        schemas
    }

    fn has_recursive_type(label: &str) -> bool {
        ["Category", "TaxonomyOutput", "Mixed"].iter().any(|name| label.starts_with(name))
    }

    /// Validators of both drafts the real clients use: the Python SDK's
    /// `jsonschema` picks 2020-12 for a schema without `$schema`; the TypeScript
    /// SDK's Ajv class is draft-07.
    fn accepts(schema: &JsonObject, instance: &Value) -> bool {
        let schema = value(schema);
        let latest = jsonschema::draft202012::new(&schema).expect("a valid 2020-12 schema");
        let draft7 = jsonschema::draft7::new(&schema).expect("a valid draft-07 schema");
        let (by_latest, by_draft7) = (latest.is_valid(instance), draft7.is_valid(instance));
        assert_eq!(by_latest, by_draft7, "the drafts disagree on {instance}");
        by_latest
    }

    #[test]
    fn flat_input_keeps_docs_and_bounds_and_drops_number_formats() {
        assert_eq!(
            value(&input_schema::<FlatInput>()),
            json!({
                "description": "Search the collection.",
                "type": "object",
                "properties": {
                    "object_id": {
                        "description": "Object ID in the collection, e.g. 436535.",
                        "type": "integer",
                        "minimum": 0
                    },
                    "offset": {"description": "Offset in bytes.", "type": "integer"},
                    "min_score": {"description": "Minimum score, from 0 to 1.", "type": "number"},
                    "include_hidden": {"description": "Include hidden objects.", "type": "boolean"},
                    "query": {"description": "Words to search for.", "type": "string"},
                    "tags": {"description": "Tags the objects must have.", "type": "array", "items": {"type": "string"}},
                    "artist": {"description": "Artist name, when known.", "type": ["string", "null"]}
                },
                "required": ["object_id", "offset", "min_score", "include_hidden", "query", "tags"]
            })
        );
    }

    #[test]
    fn output_fields_serialized_as_null_are_required_and_nullable() {
        assert_eq!(
            value(&output_schema::<GetObjectOutput>()),
            json!({
                "type": "object",
                "properties": {
                    "title": {"description": "Title of the object.", "type": "string"},
                    "artist": {"description": "Artist display name, when known.", "type": ["string", "null"]},
                    "year": {"description": "Year made, when known.", "type": ["integer", "null"]}
                },
                "required": ["title", "artist"]
            })
        );
        let schema = output_schema::<GetObjectOutput>();
        let unknown_artist = serde_json::to_value(GetObjectOutput { title: "Ship".into(), artist: None, year: None });
        assert_eq!(unknown_artist.as_ref().unwrap(), &json!({"title": "Ship", "artist": null}));
        assert!(accepts(&schema, &unknown_artist.unwrap()));
    }

    #[test]
    fn nested_structs_and_enums_are_inlined_and_date_time_survives() {
        let location = json!({
            "description": "A place on Earth.",
            "type": "object",
            "properties": {
                "city": {"description": "City name.", "type": "string"},
                "country": {"description": "Country code, ISO 3166-1 alpha-2.", "type": "string"}
            },
            "required": ["city", "country"]
        });
        let mut origin = location.clone();
        origin["description"] = json!("Where the object was made.");
        assert_eq!(
            value(&input_schema::<NestedInput>()),
            json!({
                "type": "object",
                "properties": {
                    "origin": origin,
                    "on_loan_at": {
                        "description": "Where the object is now, if on loan.",
                        "anyOf": [location, {"type": "null"}]
                    },
                    "sort": {"description": "Result order.", "type": "string", "enum": ["newest", "oldest", "most_viewed"]},
                    "then_sort": {
                        "description": "Secondary order.",
                        "anyOf": [
                            {
                                "description": "How to order results.",
                                "type": "string",
                                "enum": ["newest", "oldest", "most_viewed"]
                            },
                            {"type": "null"}
                        ]
                    },
                    "updated_at": {"description": "When the record was last changed.", "type": "string", "format": "date-time"},
                    "catalogue": {"description": "Catalogue page.", "type": "string"}
                },
                "required": ["origin", "sort", "updated_at", "catalogue"]
            })
        );
    }

    #[test]
    fn recursive_root_keeps_only_its_own_definition() {
        let category = json!({
            "description": "A category in the taxonomy.",
            "type": "object",
            "properties": {
                "name": {"description": "Category name.", "type": "string"},
                "children": {
                    "description": "Subcategories.",
                    "type": "array",
                    "items": {"$ref": "#/$defs/Category"}
                }
            },
            "required": ["name", "children"]
        });
        let mut expected = category.clone();
        expected["$defs"] = json!({ "Category": category });
        let schema = input_schema::<Category>();
        assert_eq!(value(&schema), expected);

        let tree =
            json!({"name": "Art", "children": [{"name": "Paintings", "children": [{"name": "Oil", "children": []}]}]});
        assert!(accepts(&schema, &tree));
        let nameless_grandchild =
            json!({"name": "Art", "children": [{"name": "Paintings", "children": [{"children": []}]}]});
        assert!(!accepts(&schema, &nameless_grandchild));
    }

    #[test]
    fn recursive_field_keeps_its_definition_and_its_optional_branch_gets_a_type() {
        assert_eq!(
            value(&output_schema::<TaxonomyOutput>()),
            json!({
                "type": "object",
                "properties": {
                    "roots": {"description": "Top-level categories.", "type": "array", "items": {"$ref": "#/$defs/Category"}},
                    "focus": {
                        "description": "The category that was asked for, if it exists.",
                        "anyOf": [{"type": "object", "$ref": "#/$defs/Category"}, {"type": "null"}]
                    },
                    "location": {
                        "description": "Where the taxonomy is kept.",
                        "type": "object",
                        "properties": {
                            "city": {"description": "City name.", "type": "string"},
                            "country": {"description": "Country code, ISO 3166-1 alpha-2.", "type": "string"}
                        },
                        "required": ["city", "country"]
                    }
                },
                "required": ["roots", "focus", "location"],
                "$defs": {
                    "Category": {
                        "description": "A category in the taxonomy.",
                        "type": "object",
                        "properties": {
                            "name": {"description": "Category name.", "type": "string"},
                            "children": {
                                "description": "Subcategories.",
                                "type": "array",
                                "items": {"$ref": "#/$defs/Category"}
                            }
                        },
                        "required": ["name", "children"]
                    }
                }
            })
        );
    }

    #[test]
    fn mutual_and_generic_recursion_keep_exactly_the_recursive_definitions() {
        let schema = input_schema::<Mixed>();
        let defs: Vec<&String> = schema["$defs"].as_object().unwrap().keys().collect();
        assert_eq!(defs, ["Exhibit", "Room", "Tree"]);
        // Neither Lookup (an enum) nor Location was kept as a definition.
        assert_eq!(schema["properties"]["place"]["type"], "object");
        assert_eq!(schema["properties"]["lookup"]["anyOf"][0]["type"], "object");
        assert_eq!(schema["properties"]["lookup"]["anyOf"][0]["oneOf"][1]["properties"]["by"]["const"], "title");
        assert_eq!(schema["properties"]["extra"], json!({}));
        assert_eq!(
            schema["$defs"]["Room"]["properties"]["next"]["anyOf"][0],
            json!({"type": "object", "$ref": "#/$defs/Exhibit"})
        );
    }

    #[test]
    fn tagged_enum_root_is_an_object_schema() {
        let schema = input_schema::<Lookup>();
        assert!(is_object_schema(&schema));
        assert_eq!(
            schema["oneOf"][0]["properties"]["id"],
            json!({"description": "The ID.", "type": "integer", "minimum": 0})
        );
        assert!(accepts(&schema, &json!({"by": "id", "id": 7})));
        assert!(!accepts(&schema, &json!({"by": "id", "words": "ship"})));
        assert!(!is_object_schema(&input_schema::<Vec<String>>()));
        assert!(!is_object_schema(&input_schema::<Option<FlatInput>>()));
    }

    #[test]
    fn empty_input_has_properties_and_keeps_additional_properties_false() {
        assert_eq!(
            value(&input_schema::<crate::contract::NoArguments>()),
            json!({
                "description": "The arguments of a tool whose handler takes no input: an empty object.",
                "type": "object",
                "properties": {},
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn generated_schemas_have_no_portability_problems_but_recursive_references() {
        for (label, schema) in all_schemas() {
            let problems = portability_problems(&schema);
            let (recursive, others): (Vec<_>, Vec<_>) = problems
                .iter()
                .partition(|problem| matches!(problem.kind, PortabilityProblemKind::RecursiveReference { .. }));
            assert!(others.is_empty(), "{label}: {others:#?}");
            assert_eq!(has_recursive_type(label), !recursive.is_empty(), "{label}: {recursive:#?}");
            assert!(!value(&schema).to_string().contains("\"$ref\":\"#\""), "{label} refers to its root");
        }
    }

    #[test]
    fn portable_is_idempotent() {
        for (label, schema) in all_schemas() {
            assert_eq!(portable(schema.clone()), schema, "{label}");
        }
    }

    #[test]
    fn checker_reports_what_schemars_writes_by_default() {
        let raw = schemars::schema_for!(NestedInput);
        let problems: Vec<(String, PortabilityProblemKind)> = portability_problems(raw.as_object().unwrap())
            .into_iter()
            .map(|problem| (problem.pointer, problem.kind))
            .collect();
        let definition = |name: &str| PortabilityProblemKind::Definition { name: name.into() };
        let reference = |target: &str| PortabilityProblemKind::Reference { target: target.into() };
        assert_eq!(
            problems,
            [
                ("".into(), PortabilityProblemKind::MetaSchema),
                ("/$defs/Location".into(), definition("Location")),
                ("/$defs/SortOrder".into(), definition("SortOrder")),
                ("/properties/catalogue".into(), PortabilityProblemKind::UnportableFormat { format: "uri".into() }),
                ("/properties/on_loan_at/anyOf/0".into(), PortabilityProblemKind::TypelessBranch { keyword: "anyOf" }),
                ("/properties/on_loan_at/anyOf/0".into(), reference("#/$defs/Location")),
                ("/properties/origin".into(), reference("#/$defs/Location")),
                ("/properties/sort".into(), reference("#/$defs/SortOrder")),
                ("/properties/then_sort/anyOf/0".into(), PortabilityProblemKind::TypelessBranch { keyword: "anyOf" }),
                ("/properties/then_sort/anyOf/0".into(), reference("#/$defs/SortOrder")),
            ]
        );
        let first = portability_problems(raw.as_object().unwrap())[0].to_string();
        assert_eq!(
            first,
            "At the root of the schema: the `$schema` key makes some validators fetch a meta-schema; remove it."
        );
    }

    #[test]
    fn checker_flags_boolean_schemas_but_not_additional_properties_false() {
        let schema = json!({
            "type": "object",
            "properties": {"anything": true, "nothing": false},
            "additionalProperties": false
        });
        let pointers: Vec<String> =
            portability_problems(&object(schema.clone())).into_iter().map(|p| p.pointer).collect();
        assert_eq!(pointers, ["/properties/anything", "/properties/nothing"]);
        assert_eq!(
            value(&portable(object(schema))),
            json!({
                "type": "object",
                "properties": {"anything": {}, "nothing": {"not": {}}},
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn a_reference_site_that_also_constrains_keeps_both_constraints() {
        let schema = json!({
            "type": "object",
            "properties": {
                "short_name": {"$ref": "#/$defs/Name", "maxLength": 5, "description": "At most five letters."},
                "name": {"$ref": "#/$defs/Name", "description": "The name."}
            },
            "$defs": {"Name": {"type": "string", "maxLength": 10, "description": "A name."}}
        });
        assert_eq!(
            value(&portable(object(schema))),
            json!({
                "type": "object",
                "properties": {
                    "short_name": {
                        "description": "At most five letters.",
                        "type": "string",
                        "maxLength": 5,
                        "allOf": [{"type": "string", "maxLength": 10, "description": "A name."}]
                    },
                    "name": {"type": "string", "maxLength": 10, "description": "The name."}
                }
            })
        );
    }

    #[test]
    fn encoded_and_draft07_definition_names_resolve() {
        let schema = json!({
            "type": "object",
            "properties": {
                "page": {"$ref": "#/definitions/Page%3CT%3E~1v2"},
                "list": {"$ref": "#/$defs/List%3Cu8%3E"}
            },
            "definitions": {"Page<T>/v2": {"type": "integer", "format": "uint32"}},
            "$defs": {"List<u8>": {
                "type": "object",
                "properties": {"rest": {"anyOf": [{"$ref": "#/$defs/List%3Cu8%3E"}, {"type": "null"}]}}
            }}
        });
        let schema = portable(object(schema));
        assert_eq!(schema["properties"]["page"], json!({"type": "integer"}));
        assert_eq!(schema["properties"]["list"], json!({"$ref": "#/$defs/List%3Cu8%3E"}));
        assert_eq!(
            schema["$defs"],
            json!({"List<u8>": {
                "type": "object",
                "properties": {"rest": {"anyOf": [{"type": "object", "$ref": "#/$defs/List%3Cu8%3E"}, {"type": "null"}]}}
            }})
        );
        assert!(accepts(&schema, &json!({"page": 3, "list": {"rest": {"rest": null}}})));
        assert!(!accepts(&schema, &json!({"page": 3, "list": {"rest": {"rest": 4}}})));
    }

    #[test]
    fn unconstrained_branches_are_dropped_from_any_of_and_typed_in_one_of() {
        let schema = json!({
            "type": "object",
            "properties": {
                "note": {"anyOf": [{"description": "Anything."}, {"type": "null"}]},
                "pick": {"oneOf": [{}, {"const": 3}, {"enum": ["a", null]}]}
            }
        });
        assert_eq!(
            value(&portable(object(schema))),
            json!({
                "type": "object",
                "properties": {
                    "note": {},
                    "pick": {"oneOf": [
                        {"type": ["object", "array", "string", "number", "boolean", "null"]},
                        {"type": "integer", "const": 3},
                        {"type": ["string", "null"], "enum": ["a", null]}
                    ]}
                }
            })
        );
    }

    #[test]
    fn foreign_references_are_left_and_reported() {
        let schema = json!({"type": "object", "properties": {"x": {"$ref": "https://example.com/x.json"}}});
        let schema = portable(object(schema));
        assert_eq!(schema["properties"]["x"], json!({"$ref": "https://example.com/x.json"}));
        assert_eq!(
            portability_problems(&schema),
            [PortabilityProblem {
                pointer: "/properties/x".into(),
                kind: PortabilityProblemKind::Reference { target: "https://example.com/x.json".into() }
            }]
        );
    }

    #[test]
    fn widened_output_keeps_properties_at_the_top_and_accepts_error_results() {
        let error = json!({
            "description": "Present only when the call failed (`isError: true`).",
            "type": "object",
            "properties": {
                "code": {"description": "The JSON-RPC error code, e.g. -32001 for NotFound.", "type": "integer"},
                "message": {"description": "What went wrong.", "type": "string"},
                "data": {
                    "description": "Details: `reason` names the declared failure mode; `recovery.hint` says what to do next.",
                    "type": "object"
                }
            },
            "required": ["code", "message"],
            "additionalProperties": false
        });
        let widened = widen_for_error_results(&output_schema::<GetObjectOutput>());
        assert_eq!(
            value(&widened),
            json!({
                "type": "object",
                "properties": {
                    "title": {"description": "Title of the object.", "type": "string"},
                    "artist": {"description": "Artist display name, when known.", "type": ["string", "null"]},
                    "year": {"description": "Year made, when known.", "type": ["integer", "null"]},
                    "error": error
                },
                "anyOf": [
                    {"type": "object", "required": ["title", "artist"]},
                    {"type": "object", "required": ["error"]}
                ]
            })
        );

        let success = serde_json::to_value(GetObjectOutput { title: "Ship".into(), artist: None, year: Some(1889) });
        assert!(accepts(&widened, &success.unwrap()));
        let failure = McpError::not_found("No object 42.")
            .with_data_field("objectId", 42)
            .with_reason("not_in_collection")
            .with_recovery_hint("Search first.");
        assert!(accepts(&widened, &structured_error(&failure)));
        assert!(accepts(&widened, &structured_error(&McpError::timeout("Too slow."))));
        // As strict as before for the success shape, and strict on the error shape.
        assert!(!accepts(&widened, &json!({"title": "Ship"})));
        assert!(!accepts(&widened, &json!({"title": 3, "artist": null})));
        assert!(!accepts(&widened, &json!({})));
        assert!(!accepts(&widened, &json!({"error": {"code": -32001}})));
        assert!(!accepts(&widened, &json!({"error": {"code": -32001, "message": "x", "stack": "..."}})));
        // What the success schema alone does to an error result: the TypeScript SDK's complaint.
        assert!(!accepts(&output_schema::<GetObjectOutput>(), &structured_error(&failure)));
    }

    #[test]
    fn widened_output_nests_when_the_success_shape_cannot_take_an_error_property() {
        let widened = widen_for_error_results(&output_schema::<HasErrorField>());
        assert_eq!(
            value(&widened),
            json!({
                "type": "object",
                "anyOf": [
                    {"type": "object", "properties": {"error": {"type": ["string", "null"]}}, "required": ["error"]},
                    error_envelope_schema()
                ]
            })
        );
        assert!(accepts(&widened, &json!({"error": null})));
        assert!(accepts(&widened, &json!({"error": "a field of the success shape"})));
        assert!(accepts(&widened, &structured_error(&McpError::internal_error("Boom."))));
        assert!(!accepts(&widened, &json!({"error": 5})));

        let tagged = widen_for_error_results(&output_schema::<Lookup>());
        assert_eq!(tagged["anyOf"][1], value(&error_envelope_schema()));
        assert!(accepts(&tagged, &json!({"by": "title", "words": "ship"})));
        assert!(accepts(&tagged, &structured_error(&McpError::internal_error("Boom."))));
        assert!(!accepts(&tagged, &json!({"by": "title"})));
    }

    #[test]
    fn widened_recursive_output_keeps_its_definitions_at_the_top() {
        for widened in [
            widen_for_error_results(&output_schema::<TaxonomyOutput>()),
            widen_for_error_results(&input_schema::<Category>()),
        ] {
            assert_eq!(widened["$defs"].as_object().unwrap().keys().collect::<Vec<_>>(), ["Category"]);
            assert!(accepts(&widened, &structured_error(&McpError::internal_error("Boom."))));
        }
        let widened = widen_for_error_results(&output_schema::<TaxonomyOutput>());
        let taxonomy = TaxonomyOutput {
            roots: vec![Category {
                name: "Art".into(),
                children: vec![Category { name: "Oil".into(), children: vec![] }],
            }],
            focus: None,
            location: Location { city: "Paris".into(), country: "FR".into() },
        };
        let mut success = serde_json::to_value(&taxonomy).unwrap();
        assert!(accepts(&widened, &success));
        success["roots"][0]["children"][0]["children"] = json!([{"name": 3, "children": []}]);
        assert!(!accepts(&widened, &success));

        // A root that refers to itself, embedded: its `#` became `#/$defs/Category`, so it
        // still means the category and not the widened schema.
        let category = widen_for_error_results(&input_schema::<Category>());
        assert!(accepts(&category, &json!({"name": "Art", "children": [{"name": "Oil", "children": []}]})));
        assert!(!accepts(&category, &json!({"name": "Art", "children": [{"error": {"code": 1, "message": "x"}}]})));
    }
}
