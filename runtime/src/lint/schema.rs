//! Schema rules: `schema-is-object`, `describe-on-fields`,
//! `schema-unsatisfiable`, `input-alias-conflict`, and portability
//! (`schema-format-portability`, `schema-anyof-needs-type`,
//! `schema-no-discriminator-keyword`, `schema-no-defs`, `schema-dialect-tag`,
//! `schema-root-oneof-portability`)
//! under a [`Profile`].
//!
//! `schema-is-object` and `describe-on-fields` read the schemas a tool defines.
//! Portability reads what reaches the wire: the input schema as defined, and
//! the output schema as the server advertises it
//! ([`widen_for_error_results`]), which is already made portable.

use serde_json::Value;

use super::{DefinitionKind, Diagnostic, LintOptions, Profile};
use crate::define::ToolDefinition;
use crate::error::JsonObject;
use crate::schema::{PORTABLE_FORMATS, is_object_schema, widen_for_error_results};
use mcp_contract_rules::check::{self, AliasConflict};
use mcp_contract_rules::{
    DESCRIBE_ON_FIELDS, INPUT_ALIAS_CONFLICT, SCHEMA_ANYOF_NEEDS_TYPE, SCHEMA_DIALECT_TAG, SCHEMA_FORMAT_PORTABILITY,
    SCHEMA_IS_OBJECT, SCHEMA_NO_DEFS, SCHEMA_NO_DISCRIMINATOR_KEYWORD, SCHEMA_ROOT_ONEOF_PORTABILITY,
    SCHEMA_TYPE_ARRAY, SCHEMA_UNSATISFIABLE,
};

pub(super) fn check_tool(definition: &ToolDefinition, options: &LintOptions, out: &mut Vec<Diagnostic>) {
    let name = definition.name;
    let input = &*definition.input_schema;
    if !is_object_schema(input) {
        out.push(Diagnostic::new(
            SCHEMA_IS_OBJECT,
            DefinitionKind::Tool,
            name,
            Some("/inputSchema".into()),
            format!("the input schema of tool `{name}` is not an object schema (`type: \"object\"`), as MCP requires: take a struct with named fields as the input"),
        ));
    }
    describe_on_fields(DefinitionKind::Tool, name, "input", "/inputSchema", input, out);
    unsatisfiable(DefinitionKind::Tool, name, "/inputSchema", input, out);
    input_aliases(definition, out);
    portability(DefinitionKind::Tool, name, "/inputSchema", input, options, out);
    if options.profile == Profile::Strict {
        root_union(name, input, out);
    }

    if let Some(output) = &definition.output_schema {
        if !is_object_schema(output) {
            out.push(Diagnostic::new(
                SCHEMA_IS_OBJECT,
                DefinitionKind::Tool,
                name,
                Some("/outputSchema".into()),
                format!("the output schema of tool `{name}` is not an object schema (`type: \"object\"`), so its `structuredContent` cannot be an object as MCP requires: return a struct with named fields"),
            ));
        }
        describe_on_fields(DefinitionKind::Tool, name, "output", "/outputSchema", output, out);
        unsatisfiable(DefinitionKind::Tool, name, "/outputSchema", output, out);
        portability(DefinitionKind::Tool, name, "/outputSchema", &widen_for_error_results(output), options, out);
    }
}

// ------------------------------------------------------------------ input-alias-conflict

/// `input-alias-conflict` against the input schema's properties: the macro
/// judged what its attribute shows, by the same [`check::alias_conflicts`];
/// only here are the input's fields known.
fn input_aliases(definition: &ToolDefinition, out: &mut Vec<Diagnostic>) {
    if definition.input_aliases.is_empty() {
        return;
    }
    let name = definition.name;
    let fields: Vec<&str> = definition
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let declared: Vec<(&str, &[&str])> =
        definition.input_aliases.iter().map(|alias| (alias.field, alias.aliases)).collect();
    for conflict in check::alias_conflicts(&declared, Some(&fields)) {
        let (pointer, text) = match conflict {
            AliasConflict::AliasIsField { entry, alias } => (
                format!("/inputAliases/{entry}/{alias}"),
                format!(
                    "the alias `{}` of `{}` is a field of the input: a call that sends it means that field; remove the alias",
                    declared[entry].1[alias], declared[entry].0
                ),
            ),
            AliasConflict::Shared { entry, alias, first } => (
                format!("/inputAliases/{entry}/{alias}"),
                format!(
                    "the alias `{}` of `{}` is declared for `{}` already: a call that sends it names no one field; keep it on one field",
                    declared[entry].1[alias], declared[entry].0, declared[first].0
                ),
            ),
            AliasConflict::UnknownField { entry } => (
                format!("/inputAliases/{entry}"),
                format!(
                    "the aliases of `{}` name no field of the input (its fields are {}): name a field of the input schema",
                    declared[entry].0,
                    fields.iter().map(|field| format!("`{field}`")).collect::<Vec<_>>().join(", ")
                ),
            ),
        };
        out.push(Diagnostic::new(INPUT_ALIAS_CONFLICT, DefinitionKind::Tool, name, Some(pointer), text));
    }
}

// ------------------------------------------------------------------ describe-on-fields

/// The reference's walk: object fields, compound array elements and
/// non-literal union options need a `description`; primitive array elements
/// and literals (a `const`, such as the tag of a tagged enum's variant, or a
/// one-value `enum`) do not. A described parent does not excuse its children.
pub(super) fn describe_on_fields(
    kind: DefinitionKind,
    name: &str,
    label: &str,
    pointer: &str,
    schema: &JsonObject,
    out: &mut Vec<Diagnostic>,
) {
    let mut walk = DescribeWalk { root: schema, kind, name, out, refs: Vec::new() };
    walk.node(schema, label, pointer);
}

struct DescribeWalk<'a> {
    root: &'a JsonObject,
    kind: DefinitionKind,
    name: &'a str,
    out: &'a mut Vec<Diagnostic>,
    /// The `$ref`s being walked, so a recursive type is walked once.
    refs: Vec<String>,
}

impl<'a> DescribeWalk<'a> {
    fn node(&mut self, schema: &'a JsonObject, field: &str, pointer: &str) {
        if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
            if self.refs.iter().any(|seen| seen == target) {
                return;
            }
            if let Some(body) = resolve(self.root, target) {
                self.refs.push(target.to_owned());
                self.node(body, field, pointer);
                self.refs.pop();
            }
        }
        if let Some(Value::Object(properties)) = schema.get("properties") {
            for (key, child) in properties {
                let Value::Object(child) = child else { continue };
                let child_field = format!("{field}.{key}");
                let child_pointer = format!("{pointer}/properties/{}", escape(key));
                if !is_literal(child) && !self.described(child) {
                    self.report(&child_field, &child_pointer, "field");
                }
                self.node(child, &child_field, &child_pointer);
            }
        }
        if let Some(Value::Object(items)) = schema.get("items") {
            let child_field = format!("{field}[]");
            let child_pointer = format!("{pointer}/items");
            if self.is_compound(items) && !self.described(items) {
                self.report(&child_field, &child_pointer, "array element");
            }
            self.node(items, &child_field, &child_pointer);
        }
        if let Some(Value::Object(values)) = schema.get("additionalProperties") {
            self.node(values, &format!("{field}.<key>"), &format!("{pointer}/additionalProperties"));
        }
        for keyword in ["anyOf", "oneOf"] {
            let Some(Value::Array(options)) = schema.get(keyword) else { continue };
            let options: Vec<(usize, &JsonObject)> = options
                .iter()
                .enumerate()
                .filter_map(|(index, option)| option.as_object().map(|option| (index, option)))
                .filter(|(_, option)| !is_null_schema(option))
                .collect();
            // `Option<T>` is `anyOf: [T, null]`: the field's own description covers T.
            let is_union = options.len() > 1;
            for (index, option) in options {
                let option_pointer = format!("{pointer}/{keyword}/{index}");
                let option_field = format!("{field}|{index}");
                if is_union && !is_literal(option) && !self.described(option) {
                    self.report(&option_field, &option_pointer, "union option");
                }
                self.node(option, if is_union { &option_field } else { field }, &option_pointer);
            }
        }
    }

    fn described(&self, schema: &JsonObject) -> bool {
        let has = |schema: &JsonObject| {
            schema.get("description").and_then(Value::as_str).is_some_and(|d| !d.trim().is_empty())
        };
        has(schema)
            || schema.get("$ref").and_then(Value::as_str).and_then(|target| resolve(self.root, target)).is_some_and(has)
    }

    fn is_compound(&self, schema: &JsonObject) -> bool {
        let schema =
            schema.get("$ref").and_then(Value::as_str).and_then(|target| resolve(self.root, target)).unwrap_or(schema);
        schema.contains_key("properties")
            || schema.contains_key("anyOf")
            || schema.contains_key("oneOf")
            || schema.contains_key("items")
            || types(schema).iter().any(|ty| *ty == "object" || *ty == "array")
    }

    fn report(&mut self, field: &str, pointer: &str, what: &str) {
        self.out.push(Diagnostic::new(
            DESCRIBE_ON_FIELDS,
            self.kind,
            self.name,
            Some(pointer.to_owned()),
            format!(
                "{what} `{field}` of {} `{}` has no description: add a `///` doc comment (or `#[schemars(description = \"..\")]`) saying what it holds, since the model reads it",
                self.kind, self.name
            ),
        ));
    }
}

/// `{type: "null"}`: the `None` of an `Option`.
fn is_null_schema(schema: &JsonObject) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

/// A `const`, or an `enum` of one value: a structural marker, exempt.
fn is_literal(schema: &JsonObject) -> bool {
    schema.contains_key("const") || schema.get("enum").and_then(Value::as_array).is_some_and(|values| values.len() == 1)
}

fn types(schema: &JsonObject) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(ty)) => vec![ty.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// A local reference: `#`, `#/$defs/<name>` or `#/definitions/<name>`.
pub(super) fn resolve<'a>(root: &'a JsonObject, target: &str) -> Option<&'a JsonObject> {
    if target == "#" {
        return Some(root);
    }
    let (keyword, name) = if let Some(name) = target.strip_prefix("#/$defs/") {
        ("$defs", name)
    } else {
        ("definitions", target.strip_prefix("#/definitions/")?)
    };
    let name = name.replace("~1", "/").replace("~0", "~");
    root.get(keyword)?.get(&name)?.as_object()
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

// ------------------------------------------------------------------ schema-unsatisfiable

/// `schema-unsatisfiable`: every node of `schema` that no value can satisfy
/// (`enum: []`, `anyOf: []`, `oneOf: []`, `type: []`, `not: {}`, `not: true`),
/// reported once, at the outermost such node. `allOf: []` and empty
/// `required`/`properties` constrain nothing, so they pass. The walk does not
/// enter `not` or `if`: an empty value set there makes its parent match
/// everything (or take `else`), the opposite finding.
pub(super) fn unsatisfiable(
    kind: DefinitionKind,
    name: &str,
    prefix: &str,
    schema: &JsonObject,
    out: &mut Vec<Diagnostic>,
) {
    let mut found = Vec::new();
    empty_value_sets(schema, String::new(), &mut found);
    for pointer in found {
        out.push(Diagnostic::new(
            SCHEMA_UNSATISFIABLE,
            kind,
            name,
            Some(format!("{prefix}{pointer}")),
            format!(
                "`{prefix}{pointer}` of {kind} `{name}` admits no value at all, so no call (or no result) can ever fill it and nothing else reports the gap: an enum without variants (`enum Never {{}}`), an empty `enum`/`anyOf`/`oneOf`/`type` list or `not: {{}}` from a hand-written schema; give the type at least one variant, or remove the field"
            ),
        ));
    }
}

fn empty_value_sets(schema: &JsonObject, pointer: String, found: &mut Vec<String>) {
    let empty_list = |keyword: &str| schema.get(keyword).and_then(Value::as_array).is_some_and(Vec::is_empty);
    let negates_everything = match schema.get("not") {
        Some(Value::Bool(true)) => true,
        Some(Value::Object(not)) => not.is_empty(),
        _ => false,
    };
    if ["enum", "anyOf", "oneOf", "type"].into_iter().any(empty_list) || negates_everything {
        found.push(pointer);
        return;
    }
    for (keyword, suffix, child) in crate::schema::walk::subschemas(schema) {
        if let (false, Value::Object(child)) = (matches!(keyword, "not" | "if"), child) {
            empty_value_sets(child, format!("{pointer}{suffix}"), found);
        }
    }
    for keyword in ["$defs", "definitions"] {
        if let Some(Value::Object(definitions)) = schema.get(keyword) {
            for (key, child) in definitions {
                if let Value::Object(child) = child {
                    empty_value_sets(child, format!("{pointer}/{keyword}/{}", escape(key)), found);
                }
            }
        }
    }
}

// ------------------------------------------------------------------ portability

/// `schema-root-oneof-portability` (the `strict` profile): a union at the
/// root of the input schema, as a tagged enum input gives
/// (`{"type": "object", "oneOf": [..]}`). The shape is valid JSON Schema 2020-12
/// on both protocol revisions, but a client that reads only `type` and
/// `properties` sees a tool without parameters. The reference flags `oneOf`
/// (0.12.1); an untagged enum's root `anyOf` has the same problem, so it is
/// flagged too.
fn root_union(name: &str, input: &JsonObject, out: &mut Vec<Diagnostic>) {
    for keyword in ["oneOf", "anyOf"] {
        if input.get(keyword).and_then(Value::as_array).is_some_and(|branches| !branches.is_empty()) {
            out.push(Diagnostic::new(
                SCHEMA_ROOT_ONEOF_PORTABILITY,
                DefinitionKind::Tool,
                name,
                Some(format!("/inputSchema/{keyword}")),
                format!(
                    "the input of tool `{name}` is a union (`{keyword}` at its root, an enum as the input type): valid on both protocol revisions, but a client that reads only `type` and `properties` sees a tool without parameters. For the widest reach, take a struct with a `kind` field and optional per-mode fields, and check their combination in the handler"
                ),
            ));
        }
    }
}

pub(super) fn portability(
    kind: DefinitionKind,
    name: &str,
    prefix: &str,
    schema: &JsonObject,
    options: &LintOptions,
    out: &mut Vec<Diagnostic>,
) {
    let report = |out: &mut Vec<Diagnostic>, rule, pointer: &str, text: String| {
        out.push(Diagnostic::new(rule, kind, name, Some(format!("{prefix}{pointer}")), text));
    };
    let allowlist: Vec<&str> = match &options.format_allowlist {
        Some(list) => list.iter().map(String::as_str).collect(),
        None => PORTABLE_FORMATS.to_vec(),
    };

    let mut keywords = Vec::new();
    visit(schema, String::new(), &mut |node, pointer| keywords.push((node, pointer)));
    for (node, pointer) in &keywords {
        if let Some(format) = node.get("format").and_then(Value::as_str)
            && !allowlist.contains(&format)
        {
            report(
                out,
                SCHEMA_FORMAT_PORTABILITY,
                pointer,
                format!(
                    "`format: \"{format}\"` is not one of the formats every vendor accepts ({}); OpenAI rejects the whole tool for it: drop the format and say it in the field's description",
                    allowlist.join(", ")
                ),
            );
        }
        if node.contains_key("discriminator") {
            report(
                out,
                SCHEMA_NO_DISCRIMINATOR_KEYWORD,
                &format!("{pointer}/discriminator"),
                "the OpenAPI `discriminator` keyword is ignored by OpenAI and unknown to Gemini: drop it; the `const` tag of each branch tells the variants apart".into(),
            );
        }
    }

    let wants_no_defs = matches!(options.profile, Profile::Strict | Profile::Gemini);
    for (node, pointer) in &keywords {
        for keyword in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = node.get(keyword) else { continue };
            for (index, branch) in branches.iter().enumerate() {
                if branch.as_object().is_some_and(|branch| !branch.contains_key("type")) {
                    report(
                        out,
                        SCHEMA_ANYOF_NEEDS_TYPE,
                        &format!("{pointer}/{keyword}/{index}"),
                        format!(
                            "this `{keyword}` branch has no `type`, which Gemini rejects: give every branch a `type`"
                        ),
                    );
                }
            }
        }
        if wants_no_defs {
            for keyword in ["$defs", "definitions"] {
                let Some(Value::Object(definitions)) = node.get(keyword) else { continue };
                for name in definitions.keys() {
                    report(
                        out,
                        SCHEMA_NO_DEFS,
                        &format!("{pointer}/{}/{}", escape(keyword), escape(name)),
                        format!(
                            "the schema keeps the definition `{name}`, and Gemini rejects `$defs` and `$ref`: inline it (a recursive type needs a bounded depth)"
                        ),
                    );
                }
            }
            if let Some(target) = node.get("$ref").and_then(Value::as_str) {
                report(
                    out,
                    SCHEMA_NO_DEFS,
                    pointer,
                    format!(
                        "`$ref: {target}` is rejected by Gemini: inline the referenced schema (a recursive type needs a bounded depth)"
                    ),
                );
            }
        }
        if wants_no_defs
            && let Some(Value::Array(types)) = node.get("type")
            && types.len() > 1
        {
            let listed = types.iter().map(Value::to_string).collect::<Vec<_>>().join(", ");
            report(
                out,
                SCHEMA_TYPE_ARRAY,
                &format!("{pointer}/type"),
                format!(
                    "`type: [{listed}]` lists several types, and Gemini's function declarations take one `type` per schema (an OpenAPI 3.0 subset): write `anyOf` with one typed branch per type, as `schema::portable` does (`anyOf: [{{\"type\": \"string\"}}, {{\"type\": \"null\"}}]` for an optional string)"
                ),
            );
        }
        if options.profile == Profile::Gemini && node.contains_key("$schema") {
            report(
                out,
                SCHEMA_DIALECT_TAG,
                pointer,
                "Gemini rejects the `$schema` key in function parameters: remove it for the `gemini` profile".into(),
            );
        }
    }
    if options.profile == Profile::Strict && !schema.contains_key("$schema") {
        report(
            out,
            SCHEMA_DIALECT_TAG,
            "",
            "the schema has no `$schema` dialect tag; older clients assume draft-07: add `\"$schema\": \"https://json-schema.org/draft/2020-12/schema\"` (the `strict` profile asks for it; Gemini refuses it)".into(),
        );
    }
}

/// Every schema object in `schema`, with its JSON Pointer, definitions included:
/// the schema module's subschema walk, plus `$defs`, which that walk reaches
/// from their uses instead.
fn visit<'a>(schema: &'a JsonObject, pointer: String, f: &mut dyn FnMut(&'a JsonObject, String)) {
    for (_, suffix, child) in crate::schema::walk::subschemas(schema) {
        if let Value::Object(child) = child {
            visit(child, format!("{pointer}{suffix}"), f);
        }
    }
    for keyword in ["$defs", "definitions"] {
        if let Some(Value::Object(definitions)) = schema.get(keyword) {
            for (name, child) in definitions {
                if let Value::Object(child) = child {
                    visit(child, format!("{pointer}/{keyword}/{}", escape(name)), f);
                }
            }
        }
    }
    f(schema, pointer);
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::define::ToolAnnotations;

    fn object(value: Value) -> Arc<JsonObject> {
        Arc::new(value.as_object().cloned().unwrap_or_default())
    }

    fn tool(input: Value, output: Option<Value>) -> ToolDefinition {
        ToolDefinition {
            name: "t",
            title: None,
            description: Some("A tool."),
            input_schema: object(input),
            output_schema: output.map(object),
            annotations: ToolAnnotations::default(),
            auth_scopes: &[],
            errors: &[],
            enrichment: None,
            app: None,
            requires: &[],
            task_support: crate::define::TaskSupport::Forbidden,
            task_input_first: false,
            input_aliases: &[],
            repair_arguments: true,
            allowed_rules: &[],
        }
    }

    fn findings(definition: &ToolDefinition, profile: Profile) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        check_tool(definition, &LintOptions { profile, ..LintOptions::default() }, &mut out);
        out.into_iter().map(|d| (d.rule, d.path.unwrap_or_default())).collect()
    }

    fn described(ty: &str) -> Value {
        json!({"type": ty, "description": "d"})
    }

    #[test]
    fn schema_is_object_fires_on_input_and_output() {
        let definition = tool(json!({"type": "array", "items": {"type": "string"}}), Some(json!({"type": "string"})));
        let found = findings(&definition, Profile::Default);
        assert!(found.contains(&("schema-is-object", "/inputSchema".into())), "{found:?}");
        assert!(found.contains(&("schema-is-object", "/outputSchema".into())), "{found:?}");
        let ok = tool(json!({"type": "object", "properties": {}}), Some(json!({"type": "object", "properties": {}})));
        assert_eq!(findings(&ok, Profile::Default), Vec::<(&str, String)>::new());
    }

    #[test]
    fn input_alias_conflict_is_judged_against_the_input_schema() {
        use crate::define::InputAlias;
        let input = json!({
            "type": "object",
            "properties": {"query": described("string"), "limit": described("integer")}
        });
        let aliases = |declared: &'static [InputAlias]| {
            let definition = tool(input.clone(), None).with_input_aliases(declared);
            findings(&definition, Profile::Default)
                .into_iter()
                .filter(|(rule, _)| *rule == "input-alias-conflict")
                .map(|(_, path)| path)
                .collect::<Vec<_>>()
        };
        const FINE: &[InputAlias] = &[InputAlias::new("query", &["q", "search"]), InputAlias::new("limit", &["max"])];
        const IS_FIELD: &[InputAlias] = &[InputAlias::new("query", &["q", "limit"])];
        const SHARED: &[InputAlias] = &[InputAlias::new("query", &["q"]), InputAlias::new("limit", &["q"])];
        const NO_FIELD: &[InputAlias] = &[InputAlias::new("colour", &["color"])];
        assert_eq!(aliases(FINE), Vec::<String>::new());
        assert_eq!(aliases(IS_FIELD), ["/inputAliases/0/1"]);
        assert_eq!(aliases(SHARED), ["/inputAliases/1/0"]);
        assert_eq!(aliases(NO_FIELD), ["/inputAliases/0"]);
    }

    #[test]
    fn describe_on_fields_walks_like_the_reference() {
        let input = json!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}, "description": "d"},
                "filters": {
                    "type": "array", "description": "d",
                    "items": {"type": "object", "properties": {"status": {"type": "string"}}}
                },
                "either": {"description": "d", "anyOf": [
                    {"type": "string"},
                    {"type": "array", "items": {"type": "string"}, "description": "d"},
                    {"const": ""}
                ]},
                "maybe": {"description": "d", "anyOf": [
                    {"type": "object", "properties": {"inner": {"type": "integer"}}},
                    {"type": "null"}
                ]},
                "parent": {"type": "object", "description": "d", "properties": {"child": {"type": "boolean"}}}
            }
        });
        let found = findings(&tool(input, None), Profile::Default);
        let paths: Vec<&str> =
            found.iter().filter(|(rule, _)| *rule == "describe-on-fields").map(|(_, path)| path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/inputSchema/properties/either/anyOf/0",
                "/inputSchema/properties/filters/items",
                "/inputSchema/properties/filters/items/properties/status",
                "/inputSchema/properties/maybe/anyOf/0/properties/inner",
                "/inputSchema/properties/parent/properties/child",
                "/inputSchema/properties/query",
            ]
        );
    }

    #[test]
    fn describe_on_fields_is_quiet_when_everything_is_described() {
        let input = json!({"type": "object", "properties": {
            "query": described("string"),
            "tags": {"type": "array", "items": {"type": "string"}, "description": "d"}
        }});
        assert_eq!(findings(&tool(input, None), Profile::Default), Vec::<(&str, String)>::new());
    }

    #[test]
    fn format_portability_uses_the_allowlist() {
        let input = json!({"type": "object", "properties": {
            "link": {"type": "string", "format": "uri", "description": "d"},
            "when": {"type": "string", "format": "date-time", "description": "d"}
        }});
        let definition = tool(input, None);
        assert_eq!(
            findings(&definition, Profile::Default),
            [("schema-format-portability", "/inputSchema/properties/link".to_owned())]
        );
        let mut out = Vec::new();
        let options = LintOptions { format_allowlist: Some(vec!["uri".into()]), ..LintOptions::default() };
        check_tool(&definition, &options, &mut out);
        assert_eq!(
            out.iter().map(|d| d.path.as_deref().unwrap_or("")).collect::<Vec<_>>(),
            ["/inputSchema/properties/when"]
        );
    }

    #[test]
    fn anyof_needs_type_and_no_discriminator() {
        let input = json!({"type": "object", "properties": {"pet": {
            "description": "d",
            "discriminator": {"propertyName": "kind"},
            "oneOf": [
                {"type": "object", "description": "d", "properties": {"kind": {"const": "cat"}}},
                {"description": "d", "properties": {"kind": {"const": "dog"}}}
            ]
        }}});
        let found = findings(&tool(input, None), Profile::Default);
        assert_eq!(
            found,
            [
                ("schema-no-discriminator-keyword", "/inputSchema/properties/pet/discriminator".to_owned()),
                ("schema-anyof-needs-type", "/inputSchema/properties/pet/oneOf/1".to_owned()),
            ]
        );
        let typed = json!({"type": "object", "properties": {"pet": {"description": "d", "oneOf": [described("string"), described("integer")]}}});
        assert_eq!(findings(&tool(typed, None), Profile::Default), Vec::<(&str, String)>::new());
    }

    #[test]
    fn profiles_decide_defs_and_the_dialect_tag() {
        let input = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"page": {"$ref": "#/$defs/Page", "description": "d"}},
            "$defs": {"Page": {"type": "integer"}}
        });
        let definition = tool(input, None);
        assert_eq!(findings(&definition, Profile::Default), Vec::<(&str, String)>::new());
        let strict: Vec<&str> = findings(&definition, Profile::Strict).into_iter().map(|(rule, _)| rule).collect();
        assert_eq!(strict, ["schema-no-defs", "schema-no-defs"]);
        let gemini: Vec<&str> = findings(&definition, Profile::Gemini).into_iter().map(|(rule, _)| rule).collect();
        assert_eq!(gemini, ["schema-no-defs", "schema-no-defs", "schema-dialect-tag"]);

        let untagged = tool(json!({"type": "object", "properties": {}}), None);
        assert_eq!(findings(&untagged, Profile::Strict), [("schema-dialect-tag", "/inputSchema".to_owned())]);
        assert_eq!(findings(&untagged, Profile::Gemini), Vec::<(&str, String)>::new());
    }

    #[test]
    fn generated_schemas_are_portable_under_the_default_profile() {
        #[derive(schemars::JsonSchema, serde::Serialize)]
        #[allow(dead_code)]
        struct Output {
            /// A link.
            link: String,
            /// Sizes.
            sizes: Vec<u8>,
            /// Maybe.
            maybe: Option<Inner>,
        }
        #[derive(schemars::JsonSchema, serde::Serialize)]
        #[allow(dead_code)]
        struct Inner {
            /// A value.
            value: f32,
        }
        let definition = ToolDefinition {
            output_schema: Some(crate::schema::output_schema::<Output>()),
            ..tool(json!({"type": "object", "properties": {}}), None)
        };
        assert_eq!(findings(&definition, Profile::Default), Vec::<(&str, String)>::new());
    }

    /// What the MCP Inspector flags for Gemini, the `gemini` profile flags too,
    /// and the schemas `#[mcp_tool]` publishes never carry it.
    #[test]
    fn type_arrays_are_flagged_for_gemini_and_strict_and_generated_schemas_have_none() {
        let hand_written = tool(
            json!({"type": "object", "properties": {"nickname": {"type": ["string", "null"], "description": "d"}}}),
            None,
        );
        assert_eq!(findings(&hand_written, Profile::Default), Vec::<(&str, String)>::new());
        let at = ("schema-type-array", "/inputSchema/properties/nickname/type".to_owned());
        assert_eq!(findings(&hand_written, Profile::Gemini), std::slice::from_ref(&at));
        assert_eq!(findings(&hand_written, Profile::Strict), [at, ("schema-dialect-tag", "/inputSchema".to_owned())]);

        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Input {
            /// Nickname, if any.
            nickname: Option<String>,
            /// Page, if any.
            page: Option<u32>,
        }
        let generated = tool(Value::Object((*crate::schema::input_schema::<Input>()).clone()), None);
        assert_eq!(findings(&generated, Profile::Gemini), Vec::<(&str, String)>::new());
    }

    #[test]
    fn unsatisfiable_nodes_are_found_where_they_are() {
        let input = json!({
            "type": "object",
            "properties": {
                "unit": {"type": "string", "enum": [], "description": "d"},
                "either": {"anyOf": [], "description": "d"},
                "never": {"not": {}, "description": "d"},
                "fine": {"allOf": [], "required": [], "properties": {}, "description": "d"},
                "negated": {"not": {"enum": []}, "description": "d"},
                "list": {"type": "array", "items": {"$ref": "#/$defs/Empty"}, "description": "d"}
            },
            "$defs": {"Empty": {"oneOf": []}}
        });
        let found: Vec<String> = findings(&tool(input, None), Profile::Default)
            .into_iter()
            .filter(|(rule, _)| *rule == "schema-unsatisfiable")
            .map(|(_, path)| path)
            .collect();
        assert_eq!(
            found,
            [
                "/inputSchema/properties/either",
                "/inputSchema/properties/never",
                "/inputSchema/properties/unit",
                "/inputSchema/$defs/Empty"
            ]
        );
        let output = json!({"type": "object", "properties": {"kind": {"type": [], "description": "d"}}});
        let found = findings(&tool(json!({"type": "object", "properties": {}}), Some(output)), Profile::Default);
        assert_eq!(found, [("schema-unsatisfiable", "/outputSchema/properties/kind".to_owned())]);
    }

    #[test]
    fn an_enum_without_variants_is_unsatisfiable() {
        /// Nothing.
        #[derive(schemars::JsonSchema, serde::Deserialize)]
        enum Never {}
        #[derive(schemars::JsonSchema, serde::Deserialize)]
        struct Input {
            /// What never comes.
            #[allow(dead_code)]
            never: Never,
        }
        let definition = tool(Value::Object((*crate::schema::input_schema::<Input>()).clone()), None);
        let rules: Vec<&str> = findings(&definition, Profile::Default).into_iter().map(|(rule, _)| rule).collect();
        assert!(rules.contains(&"schema-unsatisfiable"), "{rules:?}");
    }

    #[test]
    fn a_root_union_is_flagged_under_strict_only() {
        let input = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "oneOf": [
                {"type": "object", "properties": {"kind": {"const": "a"}}, "description": "d"},
                {"type": "object", "properties": {"kind": {"const": "b"}}, "description": "d"}
            ]
        });
        assert_eq!(findings(&tool(input.clone(), None), Profile::Default), Vec::<(&str, String)>::new());
        assert_eq!(
            findings(&tool(input, None), Profile::Strict),
            [("schema-root-oneof-portability", "/inputSchema/oneOf".to_owned())]
        );
    }
}
