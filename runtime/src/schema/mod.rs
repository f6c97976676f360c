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
//! - **One `type` per schema**: a `type` array, such as schemars'
//!   `type: ["string", "null"]` for an `Option<String>`, becomes an `anyOf` of
//!   one typed branch per type, each with its own type's keywords:
//!   `anyOf: [{type: "string", maxLength: 80}, {type: "null"}]`. Gemini's
//!   function declarations take one `type` per schema (an OpenAPI 3.0 subset,
//!   where null is `nullable`; the Google SDKs map a `{type: "null"}` branch to
//!   it), and the MCP Inspector flags `type` arrays for Gemini; the `anyOf` is
//!   still JSON Schema, so a validating client accepts `null` as before.
//! - **No boolean schemas**: `true` (what schemars writes for `serde_json::Value`)
//!   becomes `{}` and `false` becomes `{"not": {}}`, except as the value of
//!   `additionalProperties`, `items` and their kin, where `false` is universal
//!   (OpenAI's strict mode asks for `additionalProperties: false`).
//!
//! Kept as schemars writes them: doc comments as `description` (the model reads
//! them), `enum` for enums of
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

// Generation is here; `portable` makes a schema portable, `check` finds what
// it would remove, `envelope` widens an output schema for error results, and
// `walk` holds the subschema and reference walks the others share.
mod check;
mod envelope;
mod fields;
mod portable;
#[cfg(test)]
mod tests;
pub(crate) mod walk;

use std::sync::Arc;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

pub use self::check::{PortabilityProblem, PortabilityProblemKind, portability_problems};
pub use self::envelope::{error_envelope_schema, widen_for_error_results};
pub(crate) use self::fields::{Fields, required_names};
pub(crate) use self::portable::json_type;
pub use self::portable::portable;
use crate::error::JsonObject;

/// The `format` values every vendor accepts: OpenAI's nine.
pub const PORTABLE_FORMATS: [&str; 9] =
    ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/// Keywords that annotate a schema without constraining what it accepts.
const ANNOTATIONS: [&str; 8] =
    ["title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"];

/// The portable schema of a tool's arguments, from the type they deserialize into.
///
/// MCP requires an object schema (a struct, or an internally tagged enum of
/// struct variants). For any other type the portable schema is returned as it
/// is, and [`is_object_schema`] tells it apart; the definition linter reports
/// such a tool (rule `schema-is-object`), so `Server::build` refuses it. An
/// object root always has `properties` (`{}` for a struct without
/// fields), which some vendors require of a function's parameters.
///
/// ```
/// use mcp_contract::schema::input_schema;
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
/// use mcp_contract::schema::output_schema;
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
///             "artist": {
///                 "description": "Artist display name, when known.",
///                 "anyOf": [{"type": "string"}, {"type": "null"}]
///             }
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
/// use mcp_contract::schema::{input_schema, is_object_schema};
/// #[derive(schemars::JsonSchema)]
/// struct Input { query: String }
/// assert!(is_object_schema(&input_schema::<Input>()));
/// assert!(!is_object_schema(&input_schema::<Vec<String>>()));
/// ```
pub fn is_object_schema(schema: &JsonObject) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// The object of a `json!({..})` literal.
fn into_object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    }
}
