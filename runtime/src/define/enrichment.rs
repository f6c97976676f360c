//! What a tool declares of its enrichment, and what becomes of a call's
//! [`Enrichment`](crate::call::Enrichment) on the wire: the declared fields are
//! merged into `structuredContent`, and rendered as one text block after the
//! `format` text (the trailer), as the reference framework renders them.

use std::sync::{Arc, LazyLock};

use regex::Regex;
use serde_json::Value;

use super::{Content, ToolOutput};
use crate::call::{EnrichmentField, EnrichmentKind};
use crate::error::JsonObject;
use crate::error::sanitize::cap_chars;

/// The most characters of one enrichment string that reach the client, as
/// for an error message: longer ones are cut and marked with "…".
const MAX_ENRICHMENT_CHARS: usize = 1024;

/// `value` with each of its strings capped at [`MAX_ENRICHMENT_CHARS`].
fn capped(value: Value) -> Value {
    match value {
        Value::String(text) => Value::String(cap_chars(&text, MAX_ENRICHMENT_CHARS).unwrap_or(text)),
        Value::Array(items) => Value::Array(items.into_iter().map(capped).collect()),
        Value::Object(fields) => Value::Object(fields.into_iter().map(|(key, value)| (key, capped(value))).collect()),
        other => other,
    }
}

/// How the trailer shows one enrichment field: a label instead of its key, or a
/// renderer of its own (Markdown) instead of the default by kind.
#[derive(Clone, Copy, Debug)]
pub struct TrailerField {
    /// The enrichment field (its name in `structuredContent`).
    pub key: &'static str,
    /// Shown instead of the key in `**label:** value`.
    pub label: Option<&'static str>,
    /// Renders the value; the default by kind when `None`.
    pub render: Option<fn(&Value) -> String>,
}

/// A tool's declared enrichment: the JSON Schema of its enrichment type, and
/// the trailer's per-field presentation.
#[derive(Clone, Debug)]
pub struct EnrichmentDefinition {
    /// The object schema of the enrichment type; its properties are the fields
    /// that reach the client.
    pub schema: Arc<JsonObject>,
    /// Labels and renderers by field.
    pub trailer: &'static [TrailerField],
}

impl EnrichmentDefinition {
    /// The enrichment declared by `schema` (see [`schema::output_schema`](crate::schema::output_schema)).
    pub fn new(schema: Arc<JsonObject>) -> Self {
        Self { schema, trailer: &[] }
    }

    /// Set the trailer's labels and renderers.
    #[must_use]
    pub fn with_trailer(mut self, trailer: &'static [TrailerField]) -> Self {
        self.trailer = trailer;
        self
    }

    /// The declared field names.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|properties| properties.keys())
            .map(String::as_str)
    }

    fn declares(&self, key: &str) -> bool {
        self.keys().any(|declared| declared == key)
    }

    /// `output` with the declared fields of `fields` merged into its structured
    /// content and rendered as a trailer block after its content. Undeclared
    /// fields are dropped; nothing changes when no declared field was set.
    /// Each string of a field is cut to 1,024 characters and "…" first: an echo of a 10 MB query does not come back whole, on
    /// either surface.
    pub fn apply(&self, mut output: ToolOutput, fields: &[EnrichmentField]) -> ToolOutput {
        let fields: Vec<EnrichmentField> = fields
            .iter()
            .filter(|field| self.declares(&field.key))
            .map(|field| EnrichmentField { value: capped(field.value.clone()), ..field.clone() })
            .collect();
        if fields.is_empty() {
            return output;
        }
        let merged = |mut object: JsonObject| {
            for field in &fields {
                object.insert(field.key.clone(), field.value.clone());
            }
            Value::Object(object)
        };
        output.structured = match output.structured.take() {
            Some(Value::Object(object)) => Some(merged(object)),
            // A structured result that is no object has no place for fields.
            Some(other) => Some(other),
            None => Some(merged(JsonObject::new())),
        };
        if let Some(trailer) = self.render_trailer(&fields) {
            output.content.push(Content::text(trailer));
        }
        output
    }

    /// The trailer text of `fields`: `"\n\n"` then one line per field, with a
    /// blank line after a field whose last line opens a block quote or a list
    /// item, so CommonMark does not fold the next field into it.
    fn render_trailer(&self, fields: &[EnrichmentField]) -> Option<String> {
        let mut joined = String::new();
        for field in fields {
            let text = self.render_field(field);
            if !joined.is_empty() {
                joined.push_str(if opens_lazy_container(&joined) { "\n\n" } else { "\n" });
            }
            joined.push_str(&text);
        }
        (!joined.is_empty()).then(|| format!("\n\n{joined}"))
    }

    fn render_field(&self, field: &EnrichmentField) -> String {
        let presentation = self.trailer.iter().find(|trailer| trailer.key == field.key);
        if let Some(render) = presentation.and_then(|trailer| trailer.render) {
            return render(&field.value);
        }
        let label = presentation.and_then(|trailer| trailer.label).unwrap_or(&field.key);
        match field.kind {
            EnrichmentKind::Notice => format!("> {}", plain(&field.value)),
            EnrichmentKind::Total => format!("**{} total**", plain(&field.value)),
            EnrichmentKind::Echo => format!("Query: {}", plain(&field.value)),
            EnrichmentKind::Delta => {
                let side = |name| field.value.get(name).map_or_else(|| "null".to_owned(), plain);
                format!("**{label}:** {} → {}", side("before"), side("after"))
            }
            _ => format!("**{label}:** {}", plain(&field.value)),
        }
    }
}

/// A value as the trailer writes it: strings bare, objects and arrays as JSON.
fn plain(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Whether the last line of `text` is a block quote or a list item (`>`, `-`,
/// `+`, `*`, `1.`, `1)`, indented by up to three spaces, the marker followed by
/// a space or the end of the line).
fn opens_lazy_container(text: &str) -> bool {
    static OPENS: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^ {0,3}(?:>|(?:[-+*]|\d{1,9}[.)])(?: |$))").expect("valid pattern"));
    OPENS.is_match(text.rsplit('\n').next().unwrap_or(text))
}

/// `output_schema` extended with the enrichment's properties (none required),
/// as `tools/list` advertises it; the domain schema stays as the tool wrote it,
/// so format parity never asks the `format` text for enrichment fields.
pub fn extend_output_schema(output_schema: &JsonObject, enrichment: &EnrichmentDefinition) -> JsonObject {
    let mut extended = output_schema.clone();
    let added = enrichment.schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    if let Some(Value::Object(properties)) = extended.get_mut("properties") {
        for (key, schema) in added {
            properties.entry(key).or_insert(schema);
        }
    } else {
        extended.insert("properties".to_owned(), Value::Object(added));
    }
    extended
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::call::{Enrichment, Truncation};

    fn definition(keys: &[&str], trailer: &'static [TrailerField]) -> EnrichmentDefinition {
        let properties: JsonObject = keys.iter().map(|key| ((*key).to_owned(), json!({}))).collect();
        let schema = json!({"type": "object", "properties": properties});
        EnrichmentDefinition::new(Arc::new(schema.as_object().unwrap().clone())).with_trailer(trailer)
    }

    fn trailer(definition: &EnrichmentDefinition, enrichment: &Enrichment) -> String {
        let output = definition.apply(ToolOutput::text("domain"), &enrichment.snapshot());
        match output.content.get(1) {
            Some(Content::Text { text }) => text.clone(),
            other => panic!("no trailer block: {other:?}"),
        }
    }

    // The reference's own expected strings (its enrichment tests), as snapshots.
    #[test]
    fn an_echo_of_a_long_query_is_capped_on_both_surfaces() {
        let e = Enrichment::default();
        let query = "ü".repeat(10 * MAX_ENRICHMENT_CHARS);
        e.echo(&query).delta("filter", &query, "short");
        let output = definition(&["effectiveQuery", "filter"], &[]).apply(ToolOutput::text("domain"), &e.snapshot());
        let capped = format!("{}…", "ü".repeat(MAX_ENRICHMENT_CHARS));
        let structured = output.structured.expect("structured content");
        assert_eq!(structured["effectiveQuery"], json!(capped));
        assert_eq!(structured["filter"], json!({"before": capped, "after": "short"}));
        let Some(Content::Text { text }) = output.content.get(1) else { panic!("no trailer") };
        assert_eq!(text, &format!("\n\nQuery: {capped}\n**filter:** {capped} → short"));
    }

    #[test]
    fn notice_only() {
        let e = Enrichment::default();
        e.notice("Nothing matched.");
        assert_eq!(trailer(&definition(&["notice"], &[]), &e), "\n\n> Nothing matched.");
    }

    #[test]
    fn a_blank_line_follows_a_block_quote_and_fields_render_by_kind() {
        let e = Enrichment::default();
        e.notice("No recalls matched that filter.").total(0).echo("product_name=xyz").fields(json!({"pageSize": 25}));
        let def = definition(&["notice", "totalCount", "effectiveQuery", "pageSize"], &[]);
        assert_eq!(
            trailer(&def, &e),
            "\n\n> No recalls matched that filter.\n\n**0 total**\nQuery: product_name=xyz\n**pageSize:** 25"
        );
    }

    #[test]
    fn a_renderer_that_ends_in_a_list_item_gets_a_blank_line() {
        static LIST: &[TrailerField] =
            &[TrailerField { key: "page", label: None, render: Some(|_| "### Page\n- size: 25".to_owned()) }];
        static PLAIN: &[TrailerField] =
            &[TrailerField { key: "page", label: None, render: Some(|_| "### Page\nsize: 25".to_owned()) }];
        static QUOTE: &[TrailerField] =
            &[TrailerField { key: "page", label: None, render: Some(|_| "> page size 25".to_owned()) }];
        let e = Enrichment::default();
        e.fields(json!({"page": {"size": 25}})).total(3);
        assert_eq!(trailer(&definition(&["page", "totalCount"], LIST), &e), "\n\n### Page\n- size: 25\n\n**3 total**");
        assert_eq!(trailer(&definition(&["page", "totalCount"], PLAIN), &e), "\n\n### Page\nsize: 25\n**3 total**");
        let e = Enrichment::default();
        e.fields(json!({"page": 1})).notice("Nothing matched.");
        assert_eq!(trailer(&definition(&["page", "notice"], QUOTE), &e), "\n\n> page size 25\n\n> Nothing matched.");
    }

    #[test]
    fn delta_and_labels() {
        static LABELS: &[TrailerField] = &[TrailerField { key: "sizeInBytes", label: Some("Size"), render: None }];
        let e = Enrichment::default();
        e.delta("sizeInBytes", 0, 68);
        assert_eq!(trailer(&definition(&["sizeInBytes"], &[]), &e), "\n\n**sizeInBytes:** 0 → 68");
        assert_eq!(trailer(&definition(&["sizeInBytes"], LABELS), &e), "\n\n**Size:** 0 → 68");
    }

    #[test]
    fn truncation_writes_its_fields_and_a_notice() {
        let e = Enrichment::default();
        e.echo("wave").total(57).truncated(Truncation { shown: 10, cap: 10, ..Truncation::default() });
        let def = definition(&["effectiveQuery", "totalCount", "truncated", "shown", "cap", "notice"], &[]);
        assert_eq!(
            trailer(&def, &e),
            "\n\nQuery: wave\n**57 total**\n**truncated:** true\n**shown:** 10\n**cap:** 10\n> Results capped at 10; showing 10. Raise the cap or narrow with filters."
        );
    }

    #[test]
    fn only_declared_fields_reach_the_wire_and_merge_into_structured_content() {
        let e = Enrichment::default();
        e.total(2).fields(json!({"undeclared": true, "skipped": null}));
        let def = definition(&["totalCount"], &[]);
        let output = ToolOutput::structured(&json!({"results": ["a", "b"]}), None).unwrap();
        let output = def.apply(output, &e.snapshot());
        assert_eq!(output.structured, Some(json!({"results": ["a", "b"], "totalCount": 2})));
        assert_eq!(output.content.len(), 2);

        let untouched = def.apply(ToolOutput::text("x"), &Enrichment::default().snapshot());
        assert_eq!(untouched, ToolOutput::text("x"), "nothing set, nothing added");
    }

    #[test]
    fn the_advertised_schema_adds_the_enrichment_properties() {
        let output = json!({"type": "object", "properties": {"results": {"type": "array"}}, "required": ["results"]});
        let def = definition(&["totalCount"], &[]);
        let extended = extend_output_schema(output.as_object().unwrap(), &def);
        assert_eq!(
            Value::Object(extended),
            json!({"type": "object", "properties": {"results": {"type": "array"}, "totalCount": {}}, "required": ["results"]})
        );
    }
}
