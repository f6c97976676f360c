//! What the landing page, the server card and the status document show,
//! read once from what the server publishes (`initialize`, `tools/list`,
//! `resources/list`, `resources/templates/list`, `prompts/list`), so the
//! page never says anything a client would not see.

use serde_json::Value;

use crate::auth::AuthMode;
use crate::define::{Landing, TaskSupport};
use crate::error::JsonObject;
use crate::server::wire::ERRORS_META_KEY;

/// Everything the three views are rendered from.
#[derive(Clone, Debug)]
pub(crate) struct Manifest {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) version: String,
    pub(crate) description: Option<String>,
    pub(crate) website_url: Option<String>,
    pub(crate) landing: Landing,
    pub(crate) auth: AuthSummary,
    /// The MCP endpoint's path, e.g. `/mcp`.
    pub(crate) endpoint_path: String,
    /// Whether the transport serves without sessions.
    pub(crate) stateless: bool,
    /// The protocol version `initialize` answers with.
    pub(crate) protocol_version: String,
    pub(crate) tools: Vec<ToolView>,
    pub(crate) resources: Vec<ResourceView>,
    pub(crate) prompts: Vec<PromptView>,
    /// The extensions `initialize` advertises (`capabilities.extensions`), by id.
    pub(crate) extensions: Vec<String>,
    /// The skills the server serves (SEP-2640), as `resources/list` shows their `SKILL.md`.
    pub(crate) skills: Vec<SkillView>,
}

/// How callers authenticate, as the page and the card say it.
#[derive(Clone, Debug, Default)]
pub(crate) struct AuthSummary {
    pub(crate) mode: AuthMode,
    pub(crate) issuer: Option<String>,
    pub(crate) audience: Option<String>,
    pub(crate) jwks_uri: Option<String>,
    pub(crate) resource: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct ToolView {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
    pub(crate) fields: Vec<FieldView>,
    pub(crate) errors: Vec<ContractView>,
    /// The `ui://` resource of its MCP App (`_meta.ui.resourceUri`).
    pub(crate) app: Option<String>,
    /// Whether its calls run as tasks; no list publishes it (the tasks
    /// extension leaves it to the call), so it comes from the definition.
    pub(crate) task: TaskSupport,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct FieldView {
    pub(crate) name: String,
    pub(crate) kind: String,
    pub(crate) required: bool,
    pub(crate) description: Option<String>,
}

/// One entry of an error contract, as `_meta` publishes it.
#[derive(Clone, Debug, Default)]
pub(crate) struct ContractView {
    pub(crate) reason: String,
    pub(crate) code: i64,
    pub(crate) when: String,
    pub(crate) recovery: String,
    pub(crate) retryable: bool,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct ResourceView {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    /// The URI, or the URI template of a template.
    pub(crate) uri: String,
    pub(crate) template: bool,
    pub(crate) mime_type: Option<String>,
    pub(crate) errors: Vec<ContractView>,
}

/// A skill, for the card and the page: its `SKILL.md`'s URI, name and description.
#[derive(Clone, Debug, Default)]
pub(crate) struct SkillView {
    pub(crate) uri: String,
    pub(crate) name: String,
    pub(crate) description: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct PromptView {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) arguments: Vec<FieldView>,
}

impl ToolView {
    pub(crate) fn from_listed(tool: &rmcp::model::Tool, task: TaskSupport) -> Self {
        let annotations = tool.annotations.as_ref();
        let meta = tool.meta.as_ref().map(|meta| &meta.0);
        Self {
            name: tool.name.to_string(),
            title: tool.title.clone().or_else(|| annotations.and_then(|a| a.title.clone())),
            description: tool.description.as_deref().map(str::to_owned),
            read_only: annotations.and_then(|a| a.read_only_hint),
            destructive: annotations.and_then(|a| a.destructive_hint),
            idempotent: annotations.and_then(|a| a.idempotent_hint),
            open_world: annotations.and_then(|a| a.open_world_hint),
            fields: fields_of(&tool.input_schema),
            errors: contract_of(meta),
            app: meta
                .and_then(|meta| meta.get("ui"))
                .and_then(|ui| ui.get("resourceUri"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            task,
        }
    }
}

/// The top-level properties of an input schema, in the schema's order.
fn fields_of(schema: &JsonObject) -> Vec<FieldView> {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| FieldView {
            name: name.clone(),
            kind: type_of(property),
            required: required.contains(&name.as_str()),
            description: property.get("description").and_then(Value::as_str).map(str::to_owned),
        })
        .collect()
}

/// A short name of a property's type: `string`, `integer | null`, `array of string`, `"a" | "b"`.
fn type_of(property: &Value) -> String {
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        return values.iter().map(Value::to_string).collect::<Vec<_>>().join(" | ");
    }
    let base = match property.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" | "),
        _ => match property.get("anyOf").or_else(|| property.get("oneOf")).and_then(Value::as_array) {
            Some(branches) => branches.iter().map(type_of).collect::<Vec<_>>().join(" | "),
            None => "any".to_owned(),
        },
    };
    match property.get("items") {
        Some(items) if base == "array" => format!("array of {}", type_of(items)),
        _ => base,
    }
}

pub(crate) fn contract_of(meta: Option<&JsonObject>) -> Vec<ContractView> {
    let Some(entries) = meta.and_then(|meta| meta.get(ERRORS_META_KEY)).and_then(Value::as_array) else {
        return Vec::new();
    };
    let text = |entry: &Value, key: &str| entry.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    entries
        .iter()
        .map(|entry| ContractView {
            reason: text(entry, "reason"),
            code: entry.get("code").and_then(Value::as_i64).unwrap_or_default(),
            when: text(entry, "when"),
            recovery: text(entry, "recovery"),
            retryable: entry.get("retryable").and_then(Value::as_bool).unwrap_or(false),
        })
        .collect()
}

impl Manifest {
    /// `name` after its last `/`: what a client config keys the server by.
    pub(crate) fn short_name(&self) -> &str {
        self.name.rsplit('/').next().unwrap_or(&self.name)
    }

    /// The line under the name: the tagline, else the description.
    pub(crate) fn tagline(&self) -> Option<&str> {
        self.landing.tagline.as_deref().or(self.description.as_deref()).filter(|text| !text.trim().is_empty())
    }

    /// The repository as `(url, owner/repo)`, when `repo_root` has the GitHub shape.
    pub(crate) fn repo(&self) -> Option<(String, String)> {
        let root = self.landing.repo_root.as_deref()?.trim();
        let captures = crate::lint::GITHUB_REPO_ROOT.captures(root)?;
        let (owner, repo) = (&captures[1], &captures[2]);
        Some((format!("https://github.com/{owner}/{repo}"), format!("{owner}/{repo}")))
    }

    /// Whether anonymous callers get the reduced page.
    pub(crate) fn requires_auth(&self) -> bool {
        self.landing.require_auth.unwrap_or(self.auth.mode != AuthMode::None)
    }
}
