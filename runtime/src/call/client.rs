//! What a handler can ask the client during a call: which capabilities the
//! client declared, and the requests those capabilities allow (elicitation,
//! sampling), each bounded in time and cancelled with the call.

use std::fmt;
use std::time::Duration;

use serde_json::{Value, json};

use crate::error::{JsonObject, JsonRpcErrorCode, McpError};

/// A capability a client declares, which a server-to-client request needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Capability {
    /// `elicitation`: the client can ask its user for input (`elicitation/create`).
    Elicitation,
    /// `sampling`: the client can run its model for the server (`sampling/createMessage`).
    Sampling,
    /// `roots`: the client can list its roots (`roots/list`).
    Roots,
}

impl Capability {
    /// The capability's key in the client's `capabilities` object.
    pub fn name(self) -> &'static str {
        match self {
            Self::Elicitation => "elicitation",
            Self::Sampling => "sampling",
            Self::Roots => "roots",
        }
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The capabilities the client declared: at `initialize` on a session, in each
/// request's `_meta` on the stateless revision 2026-07-28. Empty when the
/// client declared none (or the call has no client, as in unit tests).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClientCapabilities {
    declared: JsonObject,
}

impl ClientCapabilities {
    /// Capabilities as the client's `capabilities` object has them.
    pub fn from_json(declared: JsonObject) -> Self {
        Self { declared }
    }

    /// Whether the client declared `capability`.
    pub fn has(&self, capability: Capability) -> bool {
        self.declared.get(capability.name()).is_some_and(Value::is_object)
    }

    /// Whether the client takes form elicitations: it declared `elicitation`
    /// with `form`, or with neither mode (what 2025-06-18 clients send).
    pub fn elicitation_form(&self) -> bool {
        self.elicitation_mode("form")
    }

    /// Whether the client takes URL elicitations (SEP-1036): it declared
    /// `elicitation.url`.
    pub fn elicitation_url(&self) -> bool {
        self.declared.get("elicitation").and_then(|e| e.get("url")).is_some_and(Value::is_object)
    }

    /// Whether the client lets a sampling request offer tools (SEP-1577): it
    /// declared `sampling.tools`.
    pub fn sampling_tools(&self) -> bool {
        self.declared.get("sampling").and_then(|s| s.get("tools")).is_some_and(Value::is_object)
    }

    /// The capabilities as the client sent them.
    pub fn as_json(&self) -> &JsonObject {
        &self.declared
    }

    fn elicitation_mode(&self, mode: &str) -> bool {
        let Some(Value::Object(elicitation)) = self.declared.get("elicitation") else { return false };
        let neither = !elicitation.contains_key("form") && !elicitation.contains_key("url");
        (mode == "form" && neither) || elicitation.get(mode).is_some_and(Value::is_object)
    }
}

/// How long a server-to-client request waits for the client's answer unless
/// the server sets another bound ([`Server::client_request_timeout`](crate::server::Server::client_request_timeout)).
/// A person answers an elicitation; a minute is long for a form, short for a
/// model's sampling run behind a confirmation dialog.
pub const DEFAULT_CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a request to the client did not give an answer the handler can use.
///
/// Every case is a well-formed tool error through `?` (see the
/// `From<ClientRequestError> for McpError`), with `data.reason` set to
/// [`reason`](Self::reason) so an author (or a model) can match on it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ClientRequestError {
    /// The client did not declare the capability the request needs; nothing was sent.
    NotDeclared {
        /// The capability, or the part of one (`elicitation.url`), that is missing.
        capability: &'static str,
    },
    /// The client did not answer within the bound; the request was cancelled.
    Timeout {
        /// The bound that passed.
        after: Duration,
    },
    /// The client answered with a JSON-RPC error.
    ClientError {
        /// Its code.
        code: i32,
        /// Its message, as the client wrote it.
        message: String,
    },
    /// The client's answer is not a result of the request's kind.
    Malformed {
        /// What is wrong with it.
        detail: String,
    },
    /// The tool call was cancelled while the request waited.
    Cancelled,
    /// The form's type cannot be an elicitation form (a nested object, an
    /// array of objects); nothing was sent. A bug of the server: `detail` (the
    /// field and the fix) is logged at error and shown by `Display`, while the
    /// tool error a client gets says only that the form could not be built.
    FormInvalid {
        /// Which field, and what to write instead.
        detail: String,
    },
    /// The request could not be sent: no client on this call, the connection
    /// closed, or the protocol revision has no server-to-client requests.
    Unavailable {
        /// Why.
        detail: String,
    },
}

impl ClientRequestError {
    /// The `data.reason` of the tool error this becomes: `client_capability_missing`,
    /// `client_timeout`, `client_error`, `client_answer_malformed`,
    /// `client_request_cancelled` or `client_unavailable`.
    pub fn reason(&self) -> &'static str {
        match self {
            Self::NotDeclared { .. } => "client_capability_missing",
            Self::Timeout { .. } => "client_timeout",
            Self::ClientError { .. } => "client_error",
            Self::Malformed { .. } => "client_answer_malformed",
            Self::Cancelled => "client_request_cancelled",
            Self::FormInvalid { .. } => "elicitation_form_invalid",
            Self::Unavailable { .. } => "client_unavailable",
        }
    }
}

impl fmt::Display for ClientRequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotDeclared { capability } => {
                write!(f, "The client did not declare the `{capability}` capability this tool needs.")
            }
            Self::Timeout { after } => write!(f, "The client did not answer within {} s.", after.as_secs_f64()),
            Self::ClientError { code, message } => {
                // The client's text, capped as every quoted input is.
                let capped: String = message.chars().take(200).collect();
                let more = if capped.len() < message.len() { "…" } else { "" };
                write!(f, "The client answered the request with error {code}: {capped}{more}")
            }
            Self::Malformed { detail } => write!(f, "The client's answer is malformed: {detail}"),
            Self::Cancelled => f.write_str("The tool call was cancelled while it waited for the client."),
            // The rule's id, not its docs.rs address: the client reads this.
            Self::FormInvalid { detail } => write!(
                f,
                "The elicitation form cannot be built: {detail} (rule `{}`)",
                mcp_contract_rules::ELICITATION_FORM_FLAT.id
            ),
            Self::Unavailable { detail } => write!(f, "The client cannot be asked: {detail}"),
        }
    }
}

impl std::error::Error for ClientRequestError {}

impl From<ClientRequestError> for McpError {
    fn from(err: ClientRequestError) -> Self {
        let code = match &err {
            // A precondition of the call does not hold: the client must change.
            ClientRequestError::NotDeclared { .. } | ClientRequestError::Unavailable { .. } => {
                JsonRpcErrorCode::InvalidRequest
            }
            ClientRequestError::Timeout { .. } => JsonRpcErrorCode::Timeout,
            // The client is the upstream here: it failed the server.
            ClientRequestError::ClientError { .. } | ClientRequestError::Malformed { .. } => {
                JsonRpcErrorCode::ServiceUnavailable
            }
            // Nobody reads the answer of a cancelled call; a bad form is the server's bug.
            ClientRequestError::Cancelled | ClientRequestError::FormInvalid { .. } => JsonRpcErrorCode::InternalError,
        };
        let mut data = JsonObject::new();
        if let ClientRequestError::NotDeclared { capability } = &err {
            data.insert("capability".to_owned(), Value::from(*capability));
        }
        let message = match &err {
            // The author's field names and fix stay in the server's log
            // (`Context::elicit` wrote them there): the client can do nothing with them.
            ClientRequestError::FormInvalid { .. } => {
                "The tool could not ask for input: its elicitation form is invalid, a defect of this server.".to_owned()
            }
            _ => err.to_string(),
        };
        let failed = McpError::new(code, message);
        let failed = if data.is_empty() { failed } else { failed.with_data(data) };
        failed.with_reason(err.reason())
    }
}

/// A `sampling/createMessage` request: the conversation, and what the model
/// may do with it.
///
/// ```
/// use mcp_contract::context::{ModelPreferences, Sampling};
///
/// let request = Sampling::new(200)
///     .system_prompt("You summarize museum records in one sentence.")
///     .user("Summarize: Portrait of a Lady, oil on canvas, 1885.")
///     .model_preferences(ModelPreferences::new().hint("claude").speed_priority(0.8));
/// # let _ = request;
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Sampling {
    messages: Vec<Value>,
    system_prompt: Option<String>,
    max_tokens: u32,
    temperature: Option<f64>,
    model_preferences: Option<ModelPreferences>,
    tools: Vec<Value>,
}

impl Sampling {
    /// A request the model answers in at most `max_tokens` tokens.
    pub fn new(max_tokens: u32) -> Self {
        Self {
            messages: Vec::new(),
            system_prompt: None,
            max_tokens,
            temperature: None,
            model_preferences: None,
            tools: Vec::new(),
        }
    }

    /// Add a text message of the user.
    #[must_use]
    pub fn user(mut self, text: impl Into<String>) -> Self {
        self.messages.push(json!({"role": "user", "content": {"type": "text", "text": text.into()}}));
        self
    }

    /// Add a text message of the assistant (an earlier turn of the model).
    #[must_use]
    pub fn assistant(mut self, text: impl Into<String>) -> Self {
        self.messages.push(json!({"role": "assistant", "content": {"type": "text", "text": text.into()}}));
        self
    }

    /// The system prompt the server asks for (the client may change it).
    #[must_use]
    pub fn system_prompt(mut self, text: impl Into<String>) -> Self {
        self.system_prompt = Some(text.into());
        self
    }

    /// The sampling temperature.
    #[must_use]
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Which model the server would like.
    #[must_use]
    pub fn model_preferences(mut self, preferences: ModelPreferences) -> Self {
        self.model_preferences = Some(preferences);
        self
    }

    /// Offer the model a tool (SEP-1577): sent only to a client that declared
    /// `sampling.tools`; otherwise [`Context::sample`](crate::call::Context::sample)
    /// refuses the request before sending it.
    #[must_use]
    pub fn tool(mut self, name: impl Into<String>, description: impl Into<String>, input_schema: JsonObject) -> Self {
        self.tools.push(json!({"name": name.into(), "description": description.into(), "inputSchema": input_schema}));
        self
    }

    /// Whether the request offers tools.
    pub fn has_tools(&self) -> bool {
        !self.tools.is_empty()
    }

    /// The request's params as MCP writes them.
    pub fn to_params(&self) -> JsonObject {
        let mut params = JsonObject::new();
        params.insert("messages".to_owned(), Value::Array(self.messages.clone()));
        params.insert("maxTokens".to_owned(), Value::from(self.max_tokens));
        if let Some(prompt) = &self.system_prompt {
            params.insert("systemPrompt".to_owned(), Value::from(prompt.clone()));
        }
        if let Some(temperature) = self.temperature {
            params.insert("temperature".to_owned(), Value::from(temperature));
        }
        if let Some(preferences) = &self.model_preferences {
            params.insert("modelPreferences".to_owned(), preferences.to_json());
        }
        if !self.tools.is_empty() {
            params.insert("tools".to_owned(), Value::Array(self.tools.clone()));
        }
        params
    }
}

/// The server's wishes for the model a client samples with; priorities from 0 to 1.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelPreferences {
    hints: Vec<String>,
    cost: Option<f64>,
    speed: Option<f64>,
    intelligence: Option<f64>,
}

impl ModelPreferences {
    /// No wishes.
    pub fn new() -> Self {
        Self::default()
    }

    /// A model name (or part of one) to prefer, in order of preference.
    #[must_use]
    pub fn hint(mut self, name: impl Into<String>) -> Self {
        self.hints.push(name.into());
        self
    }

    /// How much a cheap model matters.
    #[must_use]
    pub fn cost_priority(mut self, priority: f64) -> Self {
        self.cost = Some(priority);
        self
    }

    /// How much a fast model matters.
    #[must_use]
    pub fn speed_priority(mut self, priority: f64) -> Self {
        self.speed = Some(priority);
        self
    }

    /// How much a capable model matters.
    #[must_use]
    pub fn intelligence_priority(mut self, priority: f64) -> Self {
        self.intelligence = Some(priority);
        self
    }

    fn to_json(&self) -> Value {
        let mut preferences = JsonObject::new();
        if !self.hints.is_empty() {
            let hints = self.hints.iter().map(|name| json!({ "name": name })).collect();
            preferences.insert("hints".to_owned(), Value::Array(hints));
        }
        for (key, value) in
            [("costPriority", self.cost), ("speedPriority", self.speed), ("intelligencePriority", self.intelligence)]
        {
            if let Some(value) = value {
                preferences.insert(key.to_owned(), Value::from(value));
            }
        }
        Value::Object(preferences)
    }
}

/// The model's answer to a [`Sampling`] request.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SampledMessage {
    /// The text of the answer: its text blocks joined; empty when it has none.
    pub text: String,
    /// The model that answered, as the client names it.
    pub model: String,
    /// Why the model stopped (`endTurn`, `maxTokens`, `stopSequence`, `toolUse`, ..).
    pub stop_reason: Option<String>,
    /// The tools the model asked to use (SEP-1577): `(id, name, input)`.
    pub tool_uses: Vec<(String, String, Value)>,
    /// The answer's `content` as the client sent it.
    pub content: Value,
}

impl SampledMessage {
    /// Read a `CreateMessageResult`; what does not fit is [`ClientRequestError::Malformed`].
    pub fn from_result(result: &JsonObject) -> Result<Self, ClientRequestError> {
        let malformed = |detail: &str| ClientRequestError::Malformed { detail: detail.to_owned() };
        if result.get("role").and_then(Value::as_str) != Some("assistant") {
            return Err(malformed("a sampling result has `role: \"assistant\"`"));
        }
        let model = result.get("model").and_then(Value::as_str).ok_or_else(|| malformed("no `model` string"))?;
        let content = result.get("content").ok_or_else(|| malformed("no `content`"))?;
        let blocks: Vec<&Value> = match content {
            Value::Array(blocks) => blocks.iter().collect(),
            Value::Object(_) => vec![content],
            _ => return Err(malformed("`content` is neither a block nor a list of blocks")),
        };
        let mut text = Vec::new();
        let mut tool_uses = Vec::new();
        for block in blocks {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => text.push(
                    block.get("text").and_then(Value::as_str).ok_or_else(|| malformed("a text block without text"))?,
                ),
                Some("tool_use") => {
                    let field = |key| block.get(key).and_then(Value::as_str).map(str::to_owned);
                    let (Some(id), Some(name)) = (field("id"), field("name")) else {
                        return Err(malformed("a tool_use block without `id` and `name`"));
                    };
                    tool_uses.push((id, name, block.get("input").cloned().unwrap_or(Value::Null)));
                }
                Some(_) => {}
                None => return Err(malformed("a content block without `type`")),
            }
        }
        Ok(Self {
            text: text.join(""),
            model: model.to_owned(),
            stop_reason: result.get("stopReason").and_then(Value::as_str).map(str::to_owned),
            tool_uses,
            content: content.clone(),
        })
    }
}

/// One of the client's roots (`roots/list`): a directory or file the server
/// may work in.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Root {
    /// Its URI (`file://` for now, in MCP).
    pub uri: String,
    /// Its name for people, when the client gave one.
    pub name: Option<String>,
}

impl Root {
    /// Read a `ListRootsResult`; what does not fit is [`ClientRequestError::Malformed`].
    pub fn list_from_result(result: &JsonObject) -> Result<Vec<Self>, ClientRequestError> {
        let malformed = |detail: &str| ClientRequestError::Malformed { detail: detail.to_owned() };
        let roots = result.get("roots").and_then(Value::as_array).ok_or_else(|| malformed("no `roots` list"))?;
        roots
            .iter()
            .map(|root| {
                let uri = root.get("uri").and_then(Value::as_str).ok_or_else(|| malformed("a root without `uri`"))?;
                let name = root.get("name").and_then(Value::as_str).map(str::to_owned);
                Ok(Self { uri: uri.to_owned(), name })
            })
            .collect()
    }
}
