//! The enrichment rules over a tool's definition: the reference framework's
//! `enrichment-*` family and `capped-list-no-truncation`. What a Rust type
//! already guarantees (an enrichment field always has a schema) cannot fire;
//! docs/lints.md says which.

use serde_json::Value;

use super::{DefinitionKind, Diagnostic, LintOptions};
use crate::define::ToolDefinition;
use crate::error::JsonObject;
use mcp_contract_rules::{
    CAPPED_LIST_NO_TRUNCATION, ENRICHMENT_EMPTY, ENRICHMENT_OUTPUT_COLLISION, ENRICHMENT_PREFER_BLOCK,
    ENRICHMENT_TRAILER_RENDER, ENRICHMENT_TRAILER_UNKNOWN_FIELD, ENRICHMENT_TYPE,
};

/// Output fields that look like agent-facing context rather than domain data.
const CONTEXT_LIKE: [&str; 3] = ["notice", "effectivequery", "queryecho"];

pub(super) fn check_tool(definition: &ToolDefinition, options: &LintOptions, out: &mut Vec<Diagnostic>) {
    let name = definition.name;
    let report = |out: &mut Vec<Diagnostic>, rule, path: String, text: String| {
        out.push(Diagnostic::new(rule, DefinitionKind::Tool, name, Some(path), text));
    };
    let output = definition.output_schema.as_deref().map(properties).unwrap_or_default();
    let Some(enrichment) = &definition.enrichment else {
        for key in output.iter().filter(|key| CONTEXT_LIKE.contains(&key.to_ascii_lowercase().as_str())) {
            report(
                out,
                ENRICHMENT_PREFER_BLOCK,
                format!("/outputSchema/properties/{key}"),
                format!(
                    "output field `{key}` looks like agent-facing context (an empty-result notice, a query echo) rather than domain data: declare it in an enrichment type (`#[mcp_tool(enrichment = ..)]`) and fill it with `ctx.enrich()`, which keeps it out of the domain output and renders it after the `format` text (ignore this if `{key}` is domain data)"
                ),
            );
        }
        check_capped_list(definition, options, &output, &[], out);
        return;
    };
    let schema = &*enrichment.schema;
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        report(
            out,
            ENRICHMENT_TYPE,
            "/enrichment".into(),
            "the enrichment type is no struct: declare `enrichment = SomeStruct` with one `Option` field per agent-facing value".into(),
        );
        return;
    }
    let fields = properties(schema);
    if fields.is_empty() {
        report(
            out,
            ENRICHMENT_EMPTY,
            "/enrichment".into(),
            "the enrichment type has no fields, so it adds nothing: drop `enrichment = ..`, or give the type the fields `ctx.enrich()` fills".into(),
        );
    }
    for key in fields.iter().filter(|key| output.contains(key)) {
        report(
            out,
            ENRICHMENT_OUTPUT_COLLISION,
            format!("/enrichment/properties/{key}"),
            format!(
                "enrichment field `{key}` is also a field of the output: the enrichment would overwrite it in `structuredContent`; rename one of them"
            ),
        );
    }
    let field_schemas = schema.get("properties").and_then(Value::as_object);
    for key in &fields {
        let renderer = enrichment.trailer.iter().any(|trailer| trailer.key == key && trailer.render.is_some());
        let field = field_schemas.and_then(|schemas| schemas.get(key.as_str()));
        if !renderer && field.is_some_and(is_compound) && !field.is_some_and(is_delta) {
            report(
                out,
                ENRICHMENT_TRAILER_RENDER,
                format!("/enrichment/properties/{key}"),
                format!(
                    "enrichment field `{key}` holds an object or a list, which the trailer would write as one line of JSON (`structuredContent` keeps the full value): give it a Markdown renderer (`TrailerField {{ key: \"{key}\", render: Some(..), .. }}`), or use `ctx.enrich().delta(..)` for a before/after change"
                ),
            );
        }
    }
    for trailer in enrichment.trailer.iter().filter(|trailer| !fields.iter().any(|key| key == trailer.key)) {
        report(
            out,
            ENRICHMENT_TRAILER_UNKNOWN_FIELD,
            "/enrichment/trailer".into(),
            format!(
                "the trailer names `{}`, which is no field of the enrichment type: trailer entries must name its fields",
                trailer.key
            ),
        );
    }
    check_capped_list(definition, options, &output, &fields, out);
}

/// `capped-list-no-truncation`: a cap-like input and an array output, with no
/// `truncated` or `totalCount` disclosed in the output or the enrichment.
fn check_capped_list(
    definition: &ToolDefinition,
    options: &LintOptions,
    output: &[String],
    enrichment: &[String],
    out: &mut Vec<Diagnostic>,
) {
    if options.truncation_allowlist.iter().any(|allowed| allowed == definition.name) {
        return;
    }
    let output_schemas =
        definition.output_schema.as_deref().and_then(|schema| schema.get("properties")).and_then(Value::as_object);
    let lists: Vec<&str> = output_schemas
        .into_iter()
        .flatten()
        .filter(|(_, schema)| is_array(schema))
        .map(|(key, _)| key.as_str())
        .collect();
    if lists.is_empty() {
        return;
    }
    let caps: Vec<String> =
        properties(&definition.input_schema).into_iter().filter(|key| is_cap(key, &lists)).collect();
    let disclosed = output.iter().chain(enrichment).any(|key| key == "truncated" || key == "totalCount");
    if !caps.is_empty() && !disclosed {
        out.push(Diagnostic::new(
            CAPPED_LIST_NO_TRUNCATION,
            DefinitionKind::Tool,
            definition.name,
            Some(format!("/inputSchema/properties/{}", caps[0])),
            format!(
                "the tool takes a cap ({}) and returns a list, but never says that the list was cut: a silently capped list leaves the agent unaware of what it missed. Declare `truncated`, `shown` and `cap` (or `totalCount`) in its enrichment type and call `ctx.enrich().truncated(..)` or `.total(n)`, or add `truncated`/`totalCount` to the output; if the tool can never cut its list, add `{}` to `LintOptions::truncation_allowlist`",
                caps.join(", "),
                definition.name
            ),
        ));
    }
}

fn properties(schema: &JsonObject) -> Vec<String> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// Nouns that name a page of results whatever the output calls its list.
const RESULT_NOUNS: [&str; 10] = ["result", "record", "item", "row", "hit", "entry", "match", "count", "page", "doc"];

/// `limit`, `per_page`, `page_size`, `*_limit`, and `max_<noun>` when the noun
/// counts something the tool returns: one of its `lists` (top-level array
/// output fields), or a generic result noun, plural or not, a trailing `_count`
/// aside. So `max_results` and `maxPapers` (beside a `papers` list) are caps;
/// value bounds (`max_depth_km`, `maxLat`, `max_date`) and work budgets
/// (`max_lookups`) are not. The reference narrowed it the same way in 0.13.6.
fn is_cap(key: &str, lists: &[&str]) -> bool {
    let snake = snake_case(key);
    if matches!(snake.as_str(), "limit" | "per_page" | "page_size") || snake.ends_with("_limit") {
        return true;
    }
    let Some(noun) = snake.strip_prefix("max_") else {
        return false;
    };
    let noun = singular(noun.strip_suffix("_count").unwrap_or(noun));
    RESULT_NOUNS.contains(&noun.as_str()) || lists.iter().any(|list| singular(&snake_case(list)) == noun)
}

fn snake_case(key: &str) -> String {
    let mut snake = String::new();
    for (index, ch) in key.char_indices() {
        if ch.is_ascii_uppercase() && index > 0 && !key[..index].ends_with('_') {
            snake.push('_');
        }
        snake.push(ch.to_ascii_lowercase());
    }
    snake
}

/// English plurals of the nouns lists are named by: `entries`, `matches`,
/// `boxes`, `items`; `status` and `address` stay.
fn singular(noun: &str) -> String {
    if let Some(stem) = noun.strip_suffix("ies") {
        format!("{stem}y")
    } else if ["ches", "shes", "xes", "sses"].iter().any(|suffix| noun.ends_with(suffix)) {
        noun[..noun.len() - 2].to_owned()
    } else if noun.ends_with('s') && !noun.ends_with("ss") && !noun.ends_with("us") {
        noun[..noun.len() - 1].to_owned()
    } else {
        noun.to_owned()
    }
}

/// The JSON types a schema allows, `null` aside (so `Option<T>` reads as `T`).
fn types(schema: &Value) -> Vec<&str> {
    let declared = match schema.get("type") {
        Some(Value::String(single)) => vec![single.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let branches = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|keyword| schema.get(*keyword))
        .filter_map(Value::as_array)
        .flatten()
        .flat_map(types);
    declared.into_iter().chain(branches).filter(|kind| *kind != "null").collect()
}

fn is_array(schema: &Value) -> bool {
    types(schema).contains(&"array")
}

fn is_compound(schema: &Value) -> bool {
    types(schema).iter().any(|kind| *kind == "object" || *kind == "array")
}

/// The `{before, after}` shape `delta` writes.
fn is_delta(schema: &Value) -> bool {
    let object = [schema].into_iter().chain(
        ["anyOf", "oneOf"].iter().filter_map(|keyword| schema.get(*keyword)).filter_map(Value::as_array).flatten(),
    );
    object.filter_map(|branch| branch.get("properties").and_then(Value::as_object)).any(|properties| {
        properties.len() == 2 && properties.contains_key("before") && properties.contains_key("after")
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::define::{EnrichmentDefinition, TrailerField};

    fn object(value: Value) -> Arc<JsonObject> {
        Arc::new(value.as_object().expect("an object").clone())
    }

    fn tool(input: Value, output: Value, enrichment: Option<EnrichmentDefinition>) -> ToolDefinition {
        let mut definition = ToolDefinition::new("search", object(input)).with_output_schema(object(output));
        if let Some(enrichment) = enrichment {
            definition = definition.with_enrichment(enrichment);
        }
        definition
    }

    fn rules(definition: &ToolDefinition) -> Vec<&'static str> {
        rules_with(definition, &LintOptions::default())
    }

    fn rules_with(definition: &ToolDefinition, options: &LintOptions) -> Vec<&'static str> {
        let mut out = Vec::new();
        check_tool(definition, options, &mut out);
        out.iter().map(|d| d.rule).collect()
    }

    fn enrichment(properties: Value) -> EnrichmentDefinition {
        EnrichmentDefinition::new(object(json!({"type": "object", "properties": properties})))
    }

    const INPUT: fn() -> Value = || json!({"type": "object", "properties": {"query": {"type": "string"}}});
    const OUTPUT: fn() -> Value = || json!({"type": "object", "properties": {"titles": {"type": "array"}}});

    #[test]
    fn a_clean_enrichment_passes() {
        let clean = tool(INPUT(), OUTPUT(), Some(enrichment(json!({"totalCount": {"type": ["integer", "null"]}}))));
        assert!(rules(&clean).is_empty());
    }

    #[test]
    fn enrichment_type_and_empty() {
        let scalar = EnrichmentDefinition::new(object(json!({"type": "integer"})));
        assert_eq!(rules(&tool(INPUT(), OUTPUT(), Some(scalar))), ["enrichment-type"]);
        assert_eq!(rules(&tool(INPUT(), OUTPUT(), Some(enrichment(json!({}))))), ["enrichment-empty"]);
    }

    #[test]
    fn enrichment_output_collision() {
        let colliding = enrichment(json!({"titles": {"type": "string"}}));
        assert_eq!(rules(&tool(INPUT(), OUTPUT(), Some(colliding))), ["enrichment-output-collision"]);
    }

    #[test]
    fn enrichment_prefer_block_only_without_enrichment() {
        let output = json!({"type": "object", "properties": {"titles": {"type": "array"}, "effectiveQuery": {"type": "string"}}});
        assert_eq!(rules(&tool(INPUT(), output.clone(), None)), ["enrichment-prefer-block"]);
        assert!(rules(&tool(INPUT(), OUTPUT(), None)).is_empty());
    }

    #[test]
    fn enrichment_trailer_render_spares_scalars_deltas_and_rendered_fields() {
        static RENDERED: &[TrailerField] =
            &[TrailerField { key: "page", label: None, render: Some(|_| String::new()) }];
        let page = json!({"page": {"type": ["object", "null"], "properties": {"size": {"type": "integer"}}}});
        assert_eq!(rules(&tool(INPUT(), OUTPUT(), Some(enrichment(page.clone())))), ["enrichment-trailer-render"]);
        assert!(rules(&tool(INPUT(), OUTPUT(), Some(enrichment(page).with_trailer(RENDERED)))).is_empty());
        let delta = json!({"size": {"type": "object", "properties": {"before": {}, "after": {}}}});
        assert!(rules(&tool(INPUT(), OUTPUT(), Some(enrichment(delta)))).is_empty());
        let list = json!({"tags": {"anyOf": [{"type": "array"}, {"type": "null"}]}});
        assert_eq!(rules(&tool(INPUT(), OUTPUT(), Some(enrichment(list)))), ["enrichment-trailer-render"]);
    }

    #[test]
    fn enrichment_trailer_unknown_field() {
        static LABELS: &[TrailerField] = &[TrailerField { key: "total", label: Some("Total"), render: None }];
        let unknown = enrichment(json!({"totalCount": {"type": "integer"}})).with_trailer(LABELS);
        assert_eq!(rules(&tool(INPUT(), OUTPUT(), Some(unknown))), ["enrichment-trailer-unknown-field"]);
    }

    #[test]
    fn capped_list_no_truncation() {
        let capped =
            json!({"type": "object", "properties": {"query": {"type": "string"}, "pageSize": {"type": "integer"}}});
        assert_eq!(rules(&tool(capped.clone(), OUTPUT(), None)), ["capped-list-no-truncation"]);
        let disclosed = enrichment(json!({"truncated": {"type": "boolean"}, "shown": {"type": "integer"}}));
        assert!(rules(&tool(capped.clone(), OUTPUT(), Some(disclosed))).is_empty());
        let scalar_output = json!({"type": "object", "properties": {"count": {"type": "integer"}}});
        assert!(rules(&tool(capped, scalar_output, None)).is_empty(), "no list, nothing capped");
        let allowed = LintOptions { truncation_allowlist: vec!["search".into()], ..LintOptions::default() };
        assert!(rules_with(&tool(capped_input("pageSize"), OUTPUT(), None), &allowed).is_empty());
    }

    fn capped_input(key: &str) -> Value {
        json!({"type": "object", "properties": {"query": {"type": "string"}, key: {"type": "integer"}}})
    }

    #[test]
    fn a_cap_is_a_count_of_what_the_tool_returns() {
        let lists = ["titles", "entries"];
        for key in ["limit", "per_page", "pageSize", "result_limit", "maxResults", "max_items", "maxTitles"] {
            assert!(is_cap(key, &lists), "{key}");
        }
        for key in ["max_entries", "maxEntry", "max_entry_count", "max_matches", "maxDocs", "max_count"] {
            assert!(is_cap(key, &lists), "{key}");
        }
        // Value bounds and work budgets, which 0.10's rule flagged.
        for key in ["max_depth_km", "maxLat", "max_date", "max_court_lookups", "maxCharacters", "maximum", "limited"] {
            assert!(!is_cap(key, &lists), "{key}");
        }
        let bounded = capped_input("maxDepthKm");
        assert!(rules(&tool(bounded, OUTPUT(), None)).is_empty(), "a value bound is no cap");
    }

    #[test]
    fn singular_of_list_names() {
        for (plural, one) in [("entries", "entry"), ("matches", "match"), ("boxes", "box"), ("items", "item")] {
            assert_eq!(singular(plural), one);
        }
        for word in ["status", "address", "page"] {
            assert_eq!(singular(word), word);
        }
    }
}
