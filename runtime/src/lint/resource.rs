//! Rules over resources and resource templates: the URI (`uri-template-required`,
//! `uri-template-valid`), the params type against the template
//! (`template-params-align`, `schema-is-object`), the name
//! (`name-required`, `resource-name-not-uri`), `description-required`,
//! `resource-mime-type-format`, and the error contract's rules.
//!
//! `template-params-align` reads the params type's JSON Schema, so it sees the
//! names serde decodes: a field `#[serde(rename = "objectId")]` is filled by
//! `{objectId}`, not by `{object_id}`. It runs on every resource, including
//! those `#[mcp_resource]` built, whose compile-time check compares Rust field
//! names. As the macro's, it runs both ways: every variable is a field the
//! params type decodes, and every field a variable.
//!
//! Unlike a tool's input schema, the params schema reaches no client (the
//! template's variables have no descriptions in `resources/templates/list`),
//! so `describe-on-fields` and the portability rules do not read it.

use super::definitions::{check_contract, check_description, check_name_required};
use super::{DefinitionKind, Diagnostic};
use crate::define::DynResource;
use crate::error::JsonObject;
use crate::schema::{Fields, is_object_schema};
use mcp_contract_rules::{
    RESOURCE_MIME_TYPE_FORMAT, RESOURCE_NAME_NOT_URI, SCHEMA_IS_OBJECT, TEMPLATE_PARAMS_ALIGN, URI_TEMPLATE_REQUIRED,
    URI_TEMPLATE_VALID,
};
use mcp_contract_uri_template::UriTemplate;

const KIND: DefinitionKind = DefinitionKind::Resource;

pub(super) fn check(resource: &dyn DynResource, out: &mut Vec<Diagnostic>) {
    let definition = resource.definition();
    let name = definition.name;
    let uri = definition.uri;
    // The key the list entry carries the URI under.
    let uri_path = if uri.contains('{') { "/uriTemplate" } else { "/uri" };
    let report = |out: &mut Vec<Diagnostic>, rule, path: &str, text: String| {
        out.push(Diagnostic::new(rule, KIND, name, Some(path.to_owned()), text));
    };

    if !resource.checked_at_compile_time() {
        if check_name_required(KIND, name, "object_record", out) && looks_like_uri(name, uri) {
            report(
                out,
                RESOURCE_NAME_NOT_URI,
                "/name",
                format!(
                    "the resource name `{name}` looks like a URI; the URI has its own field, the name says what the resource is, e.g. `object_record`"
                ),
            );
        }
        check_description(
            KIND,
            name,
            definition.description,
            "say what it holds, so the model knows when to read it",
            out,
        );
        check_contract(KIND, name, definition.errors, out);
    }

    if let Some(mime_type) = definition.mime_type
        && let Err(why) = check_mime_type(mime_type)
    {
        report(
            out,
            RESOURCE_MIME_TYPE_FORMAT,
            "/mimeType",
            format!(
                "the MIME type `{mime_type}` of resource `{name}` is not `type/subtype` (RFC 6838): {why}; write it as `application/json`, `text/markdown; charset=utf-8`, .."
            ),
        );
    }

    if uri.trim().is_empty() {
        report(
            out,
            URI_TEMPLATE_REQUIRED,
            uri_path,
            format!(
                "resource `{name}` has an empty URI: give it a URI such as `museum://about`, or an RFC 6570 template such as `museum://objects/{{object_id}}`"
            ),
        );
        return;
    }
    let template = match UriTemplate::parse(uri) {
        Ok(template) => template,
        Err(err) => {
            let at = err.offset();
            let shown = uri.get(at..).and_then(|rest| rest.chars().next()).map_or_else(String::new, String::from);
            report(
                out,
                URI_TEMPLATE_VALID,
                uri_path,
                format!(
                    "the URI `{}` of resource `{name}` is not a valid RFC 6570 URI template: {} (at byte {at}, `{}`)",
                    uri.escape_debug(),
                    err.message(),
                    shown.escape_debug()
                ),
            );
            return;
        }
    };
    check_params(name, uri, &template, &resource.params_schema(), out);
}

/// `template-params-align` in both directions, against the names serde decodes;
/// `schema-is-object` when variables have no struct to fill.
fn check_params(name: &str, uri: &str, template: &UriTemplate, schema: &JsonObject, out: &mut Vec<Diagnostic>) {
    let variables = template.variable_names();
    if !is_object_schema(schema) {
        // A static resource may take `()`: nothing fills it, nothing needs to.
        if !variables.is_empty() {
            out.push(Diagnostic::new(
                SCHEMA_IS_OBJECT,
                KIND,
                name,
                Some("/paramsSchema".into()),
                format!("the params type of resource `{name}` is not a struct with named fields (its schema is not `type: \"object\"`), so the variables of `{uri}` cannot fill it: take a struct with a field per variable"),
            ));
        }
        return;
    }
    let Fields { names: properties, required, takes_any } = Fields::of(schema);
    let decodes = if properties.is_empty() {
        "no field".to_owned()
    } else {
        properties.iter().map(|property| format!("`{property}`")).collect::<Vec<_>>().join(", ")
    };

    for variable in &variables {
        if properties.contains(variable) || takes_any {
            continue;
        }
        let hint = match properties.iter().find(|property| same_words(property, variable)) {
            Some(property) => format!(
                "; the params type decodes `{property}` (a `#[serde(rename)]` or `rename_all`?): write `{{{property}}}` in the template, or decode the field as `{variable}`"
            ),
            None => format!("; add a field `{variable}` to the params type, or rename the variable"),
        };
        out.push(Diagnostic::new(
            TEMPLATE_PARAMS_ALIGN,
            KIND,
            name,
            Some("/uriTemplate".into()),
            format!(
                "the variable `{variable}` of `{uri}` is no field of resource `{name}`'s params type, which decodes {decodes}: its value would be dropped{hint}"
            ),
        ));
    }
    // As `#[mcp_resource]` checks it: every field is a variable. A required one
    // no variable fills fails every read; an optional one is only ever empty.
    for field in &properties {
        if variables.contains(field) {
            continue;
        }
        let why = if required.contains(field) {
            format!(
                "the params type of resource `{name}` requires `{field}`, which no variable of `{uri}` fills: every read would fail"
            )
        } else {
            format!(
                "the field `{field}` of resource `{name}`'s params type is no variable of `{uri}`, so it is only ever empty"
            )
        };
        out.push(Diagnostic::new(
            TEMPLATE_PARAMS_ALIGN,
            KIND,
            name,
            Some(format!("/paramsSchema/properties/{}", field.replace('~', "~0").replace('/', "~1"))),
            format!(
                "{why}; add `{{{field}}}` to the template (`{{?{field}}}` for a query parameter), or remove the field"
            ),
        ));
    }
}

/// A name that is the URI, or holds a scheme separator.
fn looks_like_uri(name: &str, uri: &str) -> bool {
    name.contains("://") || name == uri
}

/// The same words, whatever the case convention: `objectId`, `object_id`, `object-id`.
fn same_words(a: &str, b: &str) -> bool {
    let fold = |text: &str| {
        text.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect::<String>()
    };
    fold(a) == fold(b)
}

/// RFC 6838 §4.2: `type/subtype`, each a restricted name (a letter or digit,
/// then up to 126 of letters, digits and `! # $ & - ^ _ . +`); then
/// `; name=value` parameters (RFC 2045), a value maybe quoted.
fn check_mime_type(text: &str) -> Result<(), String> {
    let mut parts = text.split(';');
    let essence = parts.next().unwrap_or_default().trim();
    let Some((kind, subtype)) = essence.split_once('/') else {
        return Err("there is no `/` between type and subtype".into());
    };
    for (what, name) in [("type", kind), ("subtype", subtype)] {
        let mut chars = name.chars();
        let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
        let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || "!#$&-^_.+".contains(c));
        if !first_ok || !rest_ok || name.len() > 127 {
            return Err(format!(
                "the {what} `{name}` is not a letter or digit followed by letters, digits and `!#$&-^_.+`"
            ));
        }
    }
    for parameter in parts {
        let parameter = parameter.trim();
        let valid = parameter.split_once('=').is_some_and(|(key, value)| {
            let key = key.trim();
            !key.is_empty()
                && key.chars().all(|c| c.is_ascii_alphanumeric() || "!#$&-^_.+".contains(c))
                && !value.trim().is_empty()
        });
        if !valid {
            return Err(format!("the parameter `{parameter}` is not `name=value`"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::Deserialize;

    use super::*;
    use crate::call::Context;
    use crate::define::{NoArguments, ReadResourceResult, Resource, ResourceDefinition};
    use crate::error::{ErrorContract, JsonRpcErrorCode, McpError};

    /// A hand-written resource of `definition` whose params are `P`.
    struct Fixture<P>(&'static ResourceDefinition, std::marker::PhantomData<P>);

    impl<P: serde::de::DeserializeOwned + JsonSchema + Send + Sync + 'static> Resource for Fixture<P> {
        type Params = P;
        fn definition(&self) -> &'static ResourceDefinition {
            self.0
        }
        async fn read(&self, _uri: &str, _params: P, _ctx: Context) -> Result<ReadResourceResult, McpError> {
            Ok(ReadResourceResult::text(""))
        }
    }

    fn leak(definition: ResourceDefinition) -> &'static ResourceDefinition {
        Box::leak(Box::new(definition))
    }

    fn findings<P: serde::de::DeserializeOwned + JsonSchema + Send + Sync + 'static>(
        definition: ResourceDefinition,
    ) -> Vec<(&'static str, String)> {
        let resource = Fixture::<P>(leak(definition), std::marker::PhantomData);
        let mut out = Vec::new();
        check(&resource, &mut out);
        out.into_iter().map(|d| (d.rule, d.path.unwrap_or_default())).collect()
    }

    fn described(uri: &'static str, name: &'static str) -> ResourceDefinition {
        ResourceDefinition::new(uri, name).with_description("One object of the collection, by ID.")
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct ObjectParams {
        object_id: u32,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct RenamedParams {
        #[serde(rename = "objectId")]
        object_id: u32,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct ImageParams {
        object_id: u32,
        size: Option<String>,
    }

    const NONE: Vec<(&str, String)> = Vec::new();

    #[test]
    fn a_good_template_and_a_good_static_resource_pass() {
        assert_eq!(findings::<ObjectParams>(described("museum://objects/{object_id}", "object_record")), NONE);
        assert_eq!(findings::<NoArguments>(described("museum://about", "about").with_mime_type("text/markdown")), NONE);
        assert_eq!(findings::<()>(described("museum://about", "about")), NONE);
        let image = described("museum://objects/{object_id}/image{?size}", "object_image");
        assert_eq!(findings::<ImageParams>(image), NONE);
    }

    #[test]
    fn template_params_align_reads_the_names_serde_decodes() {
        assert_eq!(findings::<RenamedParams>(described("museum://objects/{objectId}", "object_record")), NONE);
        let found = findings::<RenamedParams>(described("museum://objects/{object_id}", "object_record"));
        assert_eq!(
            found,
            [
                ("template-params-align", "/uriTemplate".to_owned()),
                ("template-params-align", "/paramsSchema/properties/objectId".to_owned()),
            ]
        );
    }

    #[test]
    fn template_params_align_names_the_rename_it_suspects() {
        let resource = Fixture::<RenamedParams>(
            leak(described("museum://objects/{object_id}", "object_record")),
            std::marker::PhantomData,
        );
        let mut out = Vec::new();
        check(&resource, &mut out);
        assert!(
            out[0].message.contains("the variable `object_id` of `museum://objects/{object_id}` is no field"),
            "{}",
            out[0].message
        );
        assert!(out[0].message.contains("decodes `objectId`"), "{}", out[0].message);
        assert!(out[1].message.contains("requires `objectId`, which no variable"), "{}", out[1].message);
    }

    #[test]
    fn template_params_align_both_directions() {
        // A variable that is no field.
        assert_eq!(
            findings::<ObjectParams>(described("museum://objects/{object_id}{?lang}", "object_record")),
            [("template-params-align", "/uriTemplate".to_owned())]
        );
        // A required field that no variable fills, on a static URI too.
        assert_eq!(
            findings::<ObjectParams>(described("museum://objects/latest", "latest")),
            [("template-params-align", "/paramsSchema/properties/object_id".to_owned())]
        );
        // An optional field that no variable fills: only ever empty.
        let resource = Fixture::<ImageParams>(
            leak(described("museum://objects/{object_id}/image", "image")),
            std::marker::PhantomData,
        );
        let mut out = Vec::new();
        check(&resource, &mut out);
        assert_eq!(
            out.iter().map(|d| (d.rule, d.path.as_deref().unwrap_or_default())).collect::<Vec<_>>(),
            [("template-params-align", "/paramsSchema/properties/size")]
        );
        assert!(out[0].message.contains("so it is only ever empty"), "{}", out[0].message);
        // Variables and no params at all.
        assert_eq!(
            findings::<NoArguments>(described("museum://objects/{object_id}", "object_record")),
            [("template-params-align", "/uriTemplate".to_owned())]
        );
        // A map takes any variable.
        let map = findings::<std::collections::BTreeMap<String, String>>(described("museum://files/{+path}", "file"));
        assert_eq!(map, NONE);
    }

    #[test]
    fn params_that_are_not_a_struct() {
        assert_eq!(
            findings::<u32>(described("museum://objects/{object_id}", "object_record")),
            [("schema-is-object", "/paramsSchema".to_owned())]
        );
    }

    #[test]
    fn uri_template_required_and_valid() {
        assert_eq!(findings::<NoArguments>(described("", "nowhere")), [("uri-template-required", "/uri".to_owned())]);
        let resource = Fixture::<ObjectParams>(
            leak(described("museum://objects/{object id}", "broken")),
            std::marker::PhantomData,
        );
        let mut out = Vec::new();
        check(&resource, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].rule, out[0].path.as_deref()), ("uri-template-valid", Some("/uriTemplate")));
        assert!(out[0].message.contains("(at byte 24, ` `)"), "{}", out[0].message);
    }

    #[test]
    fn name_rules() {
        assert_eq!(findings::<NoArguments>(described("museum://about", " ")), [("name-required", "/name".to_owned())]);
        assert_eq!(
            findings::<NoArguments>(described("museum://about", "museum://about")),
            [("resource-name-not-uri", "/name".to_owned())]
        );
        assert_eq!(
            findings::<NoArguments>(described("about.md", "about.md")),
            [("resource-name-not-uri", "/name".to_owned())]
        );
        assert_eq!(
            findings::<NoArguments>(ResourceDefinition::new("museum://about", "about")),
            [("description-required", "/description".to_owned())]
        );
    }

    #[test]
    fn mime_type_format() {
        for good in ["application/json", "text/markdown; charset=utf-8", "image/svg+xml", "application/vnd.api+json"] {
            assert_eq!(check_mime_type(good), Ok(()), "{good}");
        }
        for bad in ["json", "text/", "/json", "text/mark down", "text/plain; charset", "application/json;"] {
            assert!(check_mime_type(bad).is_err(), "{bad}");
        }
        assert_eq!(
            findings::<NoArguments>(described("museum://about", "about").with_mime_type("markdown")),
            [("resource-mime-type-format", "/mimeType".to_owned())]
        );
    }

    #[test]
    fn contract_rules() {
        static ERRORS: [ErrorContract; 1] = [ErrorContract::new(
            "NotFound",
            JsonRpcErrorCode::NotFound,
            "",
            "Search the collection first to find IDs.",
        )];
        assert_eq!(
            findings::<ObjectParams>(described("museum://objects/{object_id}", "object_record").with_errors(&ERRORS)),
            [
                ("error-contract-reason-format", "/errors/0/reason".to_owned()),
                ("error-contract-when-required", "/errors/0/when".to_owned()),
            ]
        );
    }

    /// What `#[mcp_resource]` checked is not checked twice; the params still are.
    #[test]
    fn checked_at_compile_time_skips_the_definition_rules_only() {
        struct Checked;
        static UNDESCRIBED: ResourceDefinition = ResourceDefinition::new("museum://objects/{id}", "object_record");
        impl Resource for Checked {
            type Params = ObjectParams;
            fn definition(&self) -> &'static ResourceDefinition {
                &UNDESCRIBED
            }
            async fn read(
                &self,
                _uri: &str,
                _params: ObjectParams,
                _ctx: Context,
            ) -> Result<ReadResourceResult, McpError> {
                Ok(ReadResourceResult::text(""))
            }
            fn checked_at_compile_time(&self) -> bool {
                true
            }
        }
        let mut out = Vec::new();
        check(&Checked, &mut out);
        let rules: Vec<&str> = out.iter().map(|d| d.rule).collect();
        assert_eq!(rules, ["template-params-align", "template-params-align"]);
    }
}
