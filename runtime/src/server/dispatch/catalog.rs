//! Resources and prompts on a server: registration, the checks of
//! [`Server::build`], and the answers to `resources/list`,
//! `resources/templates/list`, `resources/read`, `prompts/list`, `prompts/get`
//! and `completion/complete`.
//!
//! Unlike a tool's, a resource's or prompt's failure has no error result in MCP:
//! it goes out in the JSON-RPC error envelope, `{code, message, data}`, with
//! `data.reason` and the opted-in `data.recovery.hint` as a tool error carries them.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::{
    CompleteRequestParams, CompleteResult, ErrorData, GetPromptRequestParams, GetPromptResult, PromptsCapability,
    Reference, ResourcesCapability, ServerCapabilities,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::invoke::{Answer, Call, guarded, guarded_round};
use super::observe::Observe;
use crate::call::{BoxFuture, Context, InputRound, RoundEnd, StateType};
use crate::define::PrimitiveKind;
use crate::define::cap_quoted;
use crate::define::{Completion, CompletionRequest, DynPrompt, DynResource, ResourceDefinition};
use crate::error::{ErrorContract, JsonObject, McpError};
use crate::server::error::ServerError;
use crate::server::wire::{
    listed_prompt, listed_resource, listed_template, wire_completion, wire_contents, wire_message,
};
use mcp_contract_uri_template::{Captures, UriTemplate};

/// Resources and prompts registered on a [`Server`](crate::server::builder::Server), not yet checked.
#[derive(Default)]
pub(crate) struct Registered {
    pub(crate) resources: Vec<Arc<dyn DynResource>>,
    pub(crate) prompts: Vec<Arc<dyn DynPrompt>>,
}

impl Registered {
    pub(crate) fn resource_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.resources.iter().map(|resource| resource.definition().name)
    }

    pub(crate) fn prompt_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.prompts.iter().map(|prompt| prompt.definition().name)
    }

    /// The resources, for the linter.
    pub(crate) fn resources(&self) -> impl Iterator<Item = &dyn DynResource> {
        self.resources.iter().map(|resource| &**resource)
    }

    /// The prompts, for the linter.
    pub(crate) fn prompts(&self) -> impl Iterator<Item = &dyn DynPrompt> {
        self.prompts.iter().map(|prompt| &**prompt)
    }
}

/// Checked resources and prompts, with their list entries built once.
pub(crate) struct Catalog {
    resources: Vec<Arc<dyn DynResource>>,
    /// The parsed `uri` of each resource, by index.
    templates: Vec<UriTemplate>,
    /// Static resources by their URI as expansion writes it.
    statics: HashMap<String, usize>,
    listed_resources: Vec<rmcp::model::Resource>,
    listed_templates: Vec<rmcp::model::ResourceTemplate>,
    prompts: Vec<Arc<dyn DynPrompt>>,
    prompts_by_name: HashMap<&'static str, usize>,
    listed_prompts: Vec<rmcp::model::Prompt>,
}

impl Registered {
    /// Check state, URIs (each a valid RFC 6570 template, each registered
    /// once) and build the list entries. [`Server::build`] has checked the
    /// names (`name-unique`) already.
    pub(crate) fn build(self, available: &dyn Fn(StateType) -> bool) -> Result<Catalog, ServerError> {
        let needs: Vec<(PrimitiveKind, &'static str, &'static [StateType])> = self
            .resources
            .iter()
            .map(|resource| (PrimitiveKind::Resource, resource.definition().name, resource.required_state()))
            .chain(
                self.prompts
                    .iter()
                    .map(|prompt| (PrimitiveKind::Prompt, prompt.definition().name, prompt.required_state())),
            )
            .collect();
        for (kind, name, required) in needs {
            if let Some(missing) = required.iter().find(|state| !available(**state)) {
                return Err(ServerError::MissingStateOf { kind, name, type_name: missing.type_name() });
            }
        }

        let mut templates = Vec::with_capacity(self.resources.len());
        let mut statics = HashMap::new();
        let mut listed_resources = Vec::new();
        let mut listed_templates = Vec::new();
        for (index, resource) in self.resources.iter().enumerate() {
            let definition = resource.definition();
            let template = UriTemplate::parse(definition.uri)
                .map_err(|error| ServerError::InvalidUriTemplate { resource: definition.name, error })?;
            if let Some(other) = templates.iter().position(|seen: &UriTemplate| seen.as_str() == definition.uri) {
                let first: &ResourceDefinition = self.resources[other].definition();
                return Err(ServerError::DuplicateResourceUri {
                    uri: definition.uri,
                    first: first.name,
                    second: definition.name,
                });
            }
            if template.is_static() {
                statics.insert(template.expand(&[] as &[(&str, _)]), index);
                listed_resources.push(listed_resource(definition));
            } else {
                listed_templates.push(listed_template(definition));
            }
            templates.push(template);
        }

        let prompts_by_name =
            self.prompts.iter().enumerate().map(|(index, prompt)| (prompt.definition().name, index)).collect();
        let listed_prompts = self.prompts.iter().map(|prompt| listed_prompt(prompt.definition())).collect();
        Ok(Catalog {
            resources: self.resources,
            templates,
            statics,
            listed_resources,
            listed_templates,
            prompts: self.prompts,
            prompts_by_name,
            listed_prompts,
        })
    }
}

/// The longest URI `resources/read` matches against the resource templates, in
/// bytes. RFC 9110 (section 4.1) asks for at least 8,000 octets. Matching a URI
/// against a template whose variable is followed by a literal that the URI
/// repeats (`{name}.txt` and `a.txta.txt…`), or by another expression, costs
/// up to the square of the URI's length: a longer URI is no resource this
/// server has, answered at once.
pub(crate) const MAX_URI_BYTES: usize = 8 * 1024;

impl Catalog {
    /// The resources, in registration order.
    #[cfg_attr(not(feature = "testing"), allow(dead_code, reason = "the testing client checks each"))]
    pub(crate) fn resources(&self) -> &[Arc<dyn DynResource>] {
        &self.resources
    }

    /// The prompts, in registration order.
    #[cfg_attr(not(feature = "testing"), allow(dead_code, reason = "the testing client checks each"))]
    pub(crate) fn prompts(&self) -> &[Arc<dyn DynPrompt>] {
        &self.prompts
    }

    /// Declare `resources`, `prompts` and `completions` only for what the server has.
    pub(crate) fn advertise(&self, capabilities: &mut ServerCapabilities) {
        if !self.resources.is_empty() {
            capabilities.resources = Some(ResourcesCapability::default());
        }
        if !self.prompts.is_empty() {
            capabilities.prompts = Some(PromptsCapability::default());
        }
        let completable = self.templates.iter().any(|template| !template.is_static())
            || self.prompts.iter().any(|prompt| !prompt.definition().arguments.is_empty());
        if completable {
            capabilities.completions = Some(JsonObject::new());
        }
    }

    /// The `resources/list` entries: static resources.
    pub(crate) fn listed_resources(&self) -> &[rmcp::model::Resource] {
        &self.listed_resources
    }

    /// The `resources/templates/list` entries.
    pub(crate) fn listed_templates(&self) -> &[rmcp::model::ResourceTemplate] {
        &self.listed_templates
    }

    /// The `prompts/list` entries.
    pub(crate) fn listed_prompts(&self) -> &[rmcp::model::Prompt] {
        &self.listed_prompts
    }

    /// The resource serving `uri` and the variables it gives: a static resource of
    /// that exact URI, else the template with the most literal text among those
    /// that match (the first registered on a tie).
    /// Only resources whose name is `enabled` take part.
    fn resolve(&self, uri: &str, enabled: impl Fn(&str) -> bool) -> Option<(usize, Captures)> {
        let enabled = |index: usize| enabled(self.resources[index].definition().name);
        if let Some(&index) = self.statics.get(uri)
            && enabled(index)
        {
            return Some((index, Captures::default()));
        }
        if uri.len() > MAX_URI_BYTES {
            return None;
        }
        let mut best: Option<(usize, Captures)> = None;
        for (index, template) in self.templates.iter().enumerate() {
            if template.is_static() || !enabled(index) {
                continue;
            }
            let better =
                best.as_ref().is_none_or(|(chosen, _)| template.literal_len() > self.templates[*chosen].literal_len());
            if better && let Some(captures) = template.match_uri(uri) {
                best = Some((index, captures));
            }
        }
        best
    }

    /// `resources/read`.
    pub(crate) async fn read(
        &self,
        uri: String,
        enabled: impl Fn(&str) -> bool,
        context: impl FnOnce(&'static str, &'static [ErrorContract]) -> Context,
        cancellation: &CancellationToken,
        observe: &Arc<Observe>,
        round: Option<&InputRound>,
    ) -> Answer<Result<rmcp::model::ReadResourceResult, RoundEnd>> {
        let Some((index, variables)) = self.resolve(&uri, enabled) else {
            return Err(no_resource_at(&uri));
        };
        let resource = &self.resources[index];
        let definition = resource.definition();
        let ctx = context(definition.name, definition.errors);
        let log = Call::new(PrimitiveKind::Resource, definition.name, &ctx, observe);
        let read = in_round(round, resource.read_captures(&uri, variables, ctx));
        let contents = match guarded_round(read, cancellation, log).await? {
            Ok(contents) => contents,
            Err(end) => return Ok(Err(end)),
        };
        Ok(Ok(rmcp::model::ReadResourceResult::new(wire_contents(contents, &uri, definition))))
    }

    /// `resources/subscribe` takes the URI of a resource this server reads,
    /// and refuses any other as `resources/read` would.
    pub(crate) fn check_subscribable(&self, uri: &str, enabled: impl Fn(&str) -> bool) -> Answer<()> {
        match self.resolve(uri, enabled) {
            Some(_) => Ok(()),
            None => Err(no_resource_at(uri)),
        }
    }

    /// `prompts/get`.
    pub(crate) async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        enabled: impl Fn(&str) -> bool,
        context: impl FnOnce(&'static str, &'static [ErrorContract]) -> Context,
        cancellation: &CancellationToken,
        observe: &Arc<Observe>,
        round: Option<&InputRound>,
    ) -> Answer<Result<GetPromptResult, RoundEnd>> {
        let Some(prompt) = self.prompt(&request.name).filter(|_| enabled(&request.name)) else {
            let name = cap_quoted(&request.name);
            return Err(ErrorData::invalid_params(
                format!("Unknown prompt `{name}`. Call prompts/list to see the prompts this server offers."),
                Some(json!({ "name": name })),
            ));
        };
        let definition = prompt.definition();
        let ctx = context(definition.name, definition.errors);
        let log = Call::new(PrimitiveKind::Prompt, definition.name, &ctx, observe);
        let arguments = request.arguments.unwrap_or_default();
        let messages = match guarded_round(in_round(round, prompt.get_json(arguments, ctx)), cancellation, log).await? {
            Ok(messages) => messages,
            Err(end) => return Ok(Err(end)),
        };
        let mut result = GetPromptResult::new(messages.into_iter().map(wire_message).collect());
        result.description = definition.description.map(str::to_owned);
        Ok(Ok(result))
    }
}

/// `handler` driven by `round` (when the request has one): its error stays
/// the handler's, an ended round is the `Ok` side's `Err`.
fn in_round<'a, T: Send + 'a>(
    round: Option<&'a InputRound>,
    handler: BoxFuture<'a, Result<T, McpError>>,
) -> BoxFuture<'a, Result<Result<T, RoundEnd>, McpError>> {
    Box::pin(async move {
        let Some(round) = round else { return handler.await.map(Ok) };
        match round.drive(handler).await {
            Ok(Ok(value)) => Ok(Ok(value)),
            Ok(Err(err)) => Err(err),
            Err(end) => Ok(Err(end)),
        }
    })
}

/// The error for a URI no (enabled) resource serves.
fn no_resource_at(uri: &str) -> ErrorData {
    let length = uri.len();
    // The URI is the client's text: quoted capped, in the message and in `data`.
    let uri = cap_quoted(uri);
    tracing::debug!(%uri, length, "no resource matches the URI");
    let message = if length > MAX_URI_BYTES {
        format!(
            "No resource matches the URI `{uri}`: it is {length} bytes long, and this server reads URIs \
             of at most {MAX_URI_BYTES} bytes."
        )
    } else {
        format!(
            "No resource matches the URI `{uri}`. Call resources/list and resources/templates/list \
             to see the resources this server offers."
        )
    };
    ErrorData::resource_not_found(message, Some(json!({ "uri": uri })))
}

impl Catalog {
    /// `completion/complete`, for a template variable or a prompt argument.
    pub(crate) async fn complete(
        &self,
        request: CompleteRequestParams,
        enabled: impl Fn(PrimitiveKind, &str) -> bool,
        context: impl FnOnce(&'static str, &'static [ErrorContract]) -> Context,
        cancellation: &CancellationToken,
        observe: &Arc<Observe>,
    ) -> Answer<CompleteResult> {
        let mut completion_request = CompletionRequest::new(request.argument.name, request.argument.value);
        if let Some(arguments) = request.context.and_then(|context| context.arguments) {
            completion_request.resolved = arguments.into_iter().collect();
        }
        let argument = completion_request.argument.clone();
        let (log, future): (_, BoxFuture<'_, Result<Completion, McpError>>) = match &request.r#ref {
            Reference::Resource(reference) => {
                let found = self.templates.iter().position(|template| template.as_str() == reference.uri);
                let found =
                    found.filter(|&index| enabled(PrimitiveKind::Resource, self.resources[index].definition().name));
                let Some(index) = found else {
                    return Err(unknown_reference(format!(
                        "No resource template is `{}`. Call resources/templates/list to see this server's templates.",
                        cap_quoted(&reference.uri)
                    )));
                };
                if !self.templates[index].variable_names().contains(&argument.as_str()) {
                    return Err(unknown_argument(&argument, "the resource template", &reference.uri));
                }
                let resource = &self.resources[index];
                let definition = resource.definition();
                let ctx = context(definition.name, definition.errors);
                let log = Call::new(PrimitiveKind::Resource, definition.name, &ctx, observe).completion();
                (log, resource.complete_dyn(completion_request, ctx))
            }
            Reference::Prompt(reference) => {
                let Some(prompt) =
                    self.prompt(&reference.name).filter(|_| enabled(PrimitiveKind::Prompt, &reference.name))
                else {
                    return Err(unknown_reference(format!(
                        "Unknown prompt `{}`. Call prompts/list to see the prompts this server offers.",
                        cap_quoted(&reference.name)
                    )));
                };
                let definition = prompt.definition();
                if !definition.arguments.iter().any(|known| known.name == argument) {
                    return Err(unknown_argument(&argument, "the prompt", definition.name));
                }
                let ctx = context(definition.name, definition.errors);
                let log = Call::new(PrimitiveKind::Prompt, definition.name, &ctx, observe).completion();
                (log, prompt.complete_dyn(completion_request, ctx))
            }
            other => {
                return Err(unknown_reference(format!(
                    "Cannot complete arguments of a `{}` reference.",
                    other.reference_type()
                )));
            }
        };
        let completion = guarded(future, cancellation, log).await?;
        Ok(CompleteResult::new(wire_completion(completion)))
    }

    fn prompt(&self, name: &str) -> Option<&Arc<dyn DynPrompt>> {
        self.prompts_by_name.get(name).map(|&index| &self.prompts[index])
    }
}

fn unknown_reference(message: String) -> ErrorData {
    ErrorData::invalid_params(message, None)
}

/// An argument the template or prompt does not have. Both names are known to
/// exist (the owner's was looked up), but the argument is the client's text.
fn unknown_argument(argument: &str, owner: &str, name: &str) -> ErrorData {
    let argument = cap_quoted(argument);
    ErrorData::invalid_params(
        format!("`{argument}` is not an argument of {owner} `{name}`."),
        Some(json!({ "argument": argument })),
    )
}
