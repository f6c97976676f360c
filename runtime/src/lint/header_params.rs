//! `header-param-designation`: the `x-mcp-header` designations of a tool's
//! input schema (protocol revision 2026-07-28, SEP-2243), checked as a client
//! checks them. A client mirrors a designated argument into an
//! `Mcp-Param-<Name>` request header, and one that finds a designation it may
//! not honour drops the whole tool from `tools/list` (rmcp's client does, with
//! a log line at most), so a wrong designation makes a tool vanish for
//! Streamable HTTP clients and nothing on the server says why.
//!
//! Designate a field with `#[schemars(extend("x-mcp-header" = "Region"))]`;
//! rmcp's Streamable HTTP service then refuses a call whose header and body
//! disagree.

use serde_json::Value;

use super::{DefinitionKind, Diagnostic};
use crate::define::ToolDefinition;
use crate::error::JsonObject;
use mcp_contract_rules::HEADER_PARAM_DESIGNATION;

const KEY: &str = "x-mcp-header";

/// The types the specification lets a designated field have. The TypeScript
/// SDK also takes `number`; rmcp's client does not, and drops the tool.
const PRIMITIVES: [&str; 3] = ["string", "integer", "boolean"];

pub(super) fn check_tool(definition: &ToolDefinition, out: &mut Vec<Diagnostic>) {
    let mut scan = Scan { seen: Vec::new(), faults: Vec::new() };
    scan.node(&definition.input_schema, "/inputSchema", true);
    for (pointer, fault) in scan.faults {
        out.push(Diagnostic::new(
            HEADER_PARAM_DESIGNATION,
            DefinitionKind::Tool,
            definition.name,
            Some(pointer),
            format!(
                "{fault}; a Streamable HTTP client that finds such a designation drops tool `{}` from its list. Designate a required string, integer or boolean field reached from the input's root through its fields alone, with `#[schemars(extend(\"x-mcp-header\" = \"Name\"))]`",
                definition.name
            ),
        ));
    }
}

struct Scan {
    /// The header names designated so far, lowercased, with where.
    seen: Vec<(String, String)>,
    faults: Vec<(String, String)>,
}

impl Scan {
    /// `on_chain`: `schema` is the root or a property reached from it through
    /// `properties` alone, the only place a designation may sit.
    fn node(&mut self, schema: &JsonObject, pointer: &str, on_chain: bool) {
        if let Some(header) = schema.get(KEY) {
            self.designation(schema, header, pointer, on_chain && pointer != "/inputSchema");
        }
        if let Some(Value::Object(properties)) = schema.get("properties") {
            for (key, child) in properties {
                if let Value::Object(child) = child {
                    self.node(child, &format!("{pointer}/properties/{}", escape(key)), on_chain);
                }
            }
        }
        for (keyword, suffix, child) in crate::schema::walk::subschemas(schema) {
            if keyword != "properties"
                && let Value::Object(child) = child
            {
                self.node(child, &format!("{pointer}{suffix}"), false);
            }
        }
        for keyword in ["$defs", "definitions"] {
            if let Some(Value::Object(definitions)) = schema.get(keyword) {
                for (key, child) in definitions {
                    if let Value::Object(child) = child {
                        self.node(child, &format!("{pointer}/{keyword}/{}", escape(key)), false);
                    }
                }
            }
        }
    }

    fn designation(&mut self, schema: &JsonObject, header: &Value, pointer: &str, reachable: bool) {
        let pointer = format!("{pointer}/{KEY}");
        let fault = |text: String| (pointer.clone(), text);
        let Some(name) = header.as_str().filter(|name| !name.is_empty()) else {
            self.faults.push(fault(format!("`{KEY}` is {header}, not a header name")));
            return;
        };
        if !reachable {
            self.faults.push(fault(format!(
                "`{KEY}: {name}` is not on a field reached from the input's root through `properties` alone (it is on the root, or under `items`, a union, `additionalProperties` or a `$ref` target)"
            )));
        } else if !name.bytes().all(is_tchar) {
            self.faults.push(fault(format!(
                "`{KEY}: {name}` is no HTTP token (RFC 9110): no spaces, control characters or delimiters"
            )));
        } else if let Some((_, first)) = self.seen.iter().find(|(seen, _)| seen.eq_ignore_ascii_case(name)) {
            self.faults.push(fault(format!(
                "`{KEY}: {name}` repeats the header of {first}, and header names are case-insensitive"
            )));
        } else {
            match schema.get("type") {
                Some(Value::String(ty)) if PRIMITIVES.contains(&ty.as_str()) => {}
                other => self.faults.push(fault(format!(
                    "`{KEY}: {name}` sits on a field of type {}, and only a string, an integer or a boolean can travel as a header (an `Option` field reads as `[\"string\", \"null\"]`)",
                    other.map_or_else(|| "none".to_owned(), Value::to_string)
                ))),
            }
            self.seen.push((name.to_owned(), pointer.clone()));
        }
    }
}

/// RFC 9110 `tchar`.
fn is_tchar(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    fn findings(input: Value) -> Vec<String> {
        let definition = ToolDefinition::new("query", Arc::new(input.as_object().cloned().unwrap_or_default()));
        let mut out = Vec::new();
        check_tool(&definition, &mut out);
        out.into_iter().map(|d| format!("{} {}", d.path.unwrap_or_default(), d.message)).collect()
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Routed {
        /// Where the query runs.
        #[schemars(extend("x-mcp-header" = "Region"))]
        region: String,
        /// The query.
        query: String,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct OptionalRegion {
        /// Where the query runs.
        #[schemars(extend("x-mcp-header" = "Region"))]
        region: Option<String>,
    }

    #[test]
    fn a_designated_required_string_passes() {
        let schema = crate::schema::input_schema::<Routed>();
        assert!(findings(Value::Object((*schema).clone())).is_empty());
    }

    #[test]
    fn an_optional_field_cannot_travel_as_a_header() {
        let schema = crate::schema::input_schema::<OptionalRegion>();
        let found = findings(Value::Object((*schema).clone()));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("/inputSchema/properties/region/x-mcp-header "), "{found:?}");
    }

    #[test]
    fn each_constraint_of_the_specification() {
        let string = |name: &str| json!({"type": "string", "x-mcp-header": name});
        let cases = [
            (json!({"type": "object", "x-mcp-header": "Root"}), "/inputSchema/x-mcp-header", "through `properties`"),
            (
                json!({"type": "object", "properties": {"tags": {"type": "array", "items": string("Tag")}}}),
                "/inputSchema/properties/tags/items/x-mcp-header",
                "through `properties`",
            ),
            (
                json!({"type": "object", "properties": {"a": {"anyOf": [string("A"), {"type": "null"}]}}}),
                "/inputSchema/properties/a/anyOf/0/x-mcp-header",
                "through `properties`",
            ),
            (
                json!({"type": "object", "properties": {"a": string("Bad Name")}}),
                "/inputSchema/properties/a/x-mcp-header",
                "no HTTP token",
            ),
            (
                json!({"type": "object", "properties": {"a": string("")}}),
                "/inputSchema/properties/a/x-mcp-header",
                "not a header name",
            ),
            (
                json!({"type": "object", "properties": {"a": string("Region"), "b": string("region")}}),
                "/inputSchema/properties/b/x-mcp-header",
                "case-insensitive",
            ),
            (
                json!({"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}}),
                "/inputSchema/properties/n/x-mcp-header",
                "of type \"number\"",
            ),
        ];
        for (input, pointer, says) in cases {
            let found = findings(input.clone());
            assert_eq!(found.len(), 1, "{input}: {found:?}");
            assert!(found[0].starts_with(&format!("{pointer} ")) && found[0].contains(says), "{input}: {found:?}");
        }
        let nested = json!({"type": "object", "properties": {"where": {"type": "object", "properties": {"zone": string("Zone")}}}});
        assert!(findings(nested).is_empty(), "a nested field reached through properties may be designated");
    }
}
