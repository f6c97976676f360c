//! Pinning what a client receives from a server, and reviewing each change
//! of it: [`assert_contract_pinned!`](crate::assert_contract_pinned) writes
//! a server's wire contract (every tool's `tools/list` entry with its
//! schemas, annotations and error contract, each declared error's envelope,
//! (its request id pinned as [`PINNED_REQUEST_ID`]), the resources,
//! templates and prompts) into an [insta] snapshot, and fails
//! on a breaking change ([`compat`](super::compat)) that the server's version
//! does not announce.
//!
//! [insta]: https://insta.rs

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::Client;
use super::compat::{self, ChangeKind, ContractChange};
use crate::error::{ErrorContract, McpError, render};
use crate::server::{ERRORS_META_KEY, Server, ServerError};

/// A server's wire contract, as a client reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Pin {
    /// The server's name and version, then one map per kind of primitive, keyed by name.
    pub value: Value,
}

impl Pin {
    /// Serve `server` to an in-process client and read its contract.
    ///
    /// # Errors
    ///
    /// The [`ServerError`] of building it; a list request that fails is
    /// reported as [`ServerError::Io`].
    pub async fn read(server: Server) -> Result<Self, ServerError> {
        let built = server.build_state().await?.build()?;
        let info = built.config().server_info.clone();
        let mut envelopes: Map<String, Value> =
            built.tool_contracts().map(|(name, contract)| (name.to_owned(), envelopes_of(contract))).collect();
        let client = Client::builder().connect_built(built).await;
        let failed = |err: McpError| ServerError::Io(std::io::Error::other(err.to_string()));
        let mut tools = Map::new();
        for tool in client.list_tools().await.map_err(failed)? {
            let mut entry = serde_json::to_value(&tool).unwrap_or_default();
            let errors = entry.pointer(&format!("/_meta/{}", ERRORS_META_KEY.replace('/', "~1"))).cloned();
            if let (Some(object), Some(errors)) = (entry.as_object_mut(), errors) {
                object.insert("errors".to_owned(), errors);
                object.insert("envelopes".to_owned(), envelopes.remove(&*tool.name).unwrap_or_default());
            }
            strip(&mut entry, "name");
            tools.insert(tool.name.to_string(), entry);
        }
        let keyed = |entries: Vec<Value>, key: &str| -> Value {
            let mut map = Map::new();
            for mut entry in entries {
                let name = entry.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
                strip(&mut entry, key);
                map.insert(name, entry);
            }
            Value::Object(map)
        };
        let resources = keyed(as_values(client.list_resources().await.map_err(failed)?), "uri");
        let templates = keyed(as_values(client.list_resource_templates().await.map_err(failed)?), "uriTemplate");
        let prompts = keyed(as_values(client.list_prompts().await.map_err(failed)?), "name");
        Ok(Self {
            value: json!({
                "server": {"name": info.name, "version": info.version},
                "tools": tools,
                "resources": resources,
                "resourceTemplates": templates,
                "prompts": prompts,
            }),
        })
    }

    /// The server's name.
    pub fn server_name(&self) -> &str {
        self.value.pointer("/server/name").and_then(Value::as_str).unwrap_or("server")
    }

    /// The server's version.
    pub fn version(&self) -> &str {
        self.value.pointer("/server/version").and_then(Value::as_str).unwrap_or_default()
    }

    /// The snapshot's text: the pin as pretty JSON, keys sorted.
    pub fn text(&self) -> String {
        serde_json::to_string_pretty(&self.value).unwrap_or_default()
    }

    /// The pin a snapshot file holds (insta's header aside).
    pub fn from_snapshot(text: &str) -> Option<Self> {
        let body = text.strip_prefix("---").and_then(|rest| rest.split_once("\n---\n")).map_or(text, |(_, body)| body);
        serde_json::from_str(body.trim()).ok().map(|value| Self { value })
    }

    /// What changed from `accepted` to this pin, breaking changes first.
    pub fn changes_since(&self, accepted: &Pin) -> Vec<ContractChange> {
        compat::compare(&accepted.value, &self.value)
    }
}

fn as_values<T: serde::Serialize>(list: Vec<T>) -> Vec<Value> {
    list.iter().map(|item| serde_json::to_value(item).unwrap_or_default()).collect()
}

/// The request id the pin shows in place of the one each answer draws.
pub const PINNED_REQUEST_ID: &str = "00000-00000";

/// Each declared reason's error as a client receives it from the server:
/// filled from its contract entry as the server fills an answer (the
/// recovery hint unless private, `retryable`), with the entry's `when` as
/// the message a handler would write and [`PINNED_REQUEST_ID`].
fn envelopes_of(contract: &[ErrorContract]) -> Value {
    let envelopes = contract.iter().map(|entry| {
        let err = McpError::new(entry.code, entry.when)
            .with_reason(entry.reason)
            .with_contract_entry(entry)
            .with_request_id(PINNED_REQUEST_ID);
        (entry.reason.to_owned(), render::tool_error_result(&err))
    });
    Value::Object(envelopes.collect())
}

/// `key` (the name, the URI) is the map's key; the errors `_meta` entry is pinned as `errors`.
fn strip(entry: &mut Value, key: &str) {
    let Some(object) = entry.as_object_mut() else { return };
    object.remove(key);
    if let Some(Value::Object(meta)) = object.get_mut("_meta") {
        meta.remove(ERRORS_META_KEY);
        if meta.is_empty() {
            object.remove("_meta");
        }
    }
}

/// Where a test's pin lives and what it found; built by
/// [`assert_contract_pinned!`](crate::assert_contract_pinned).
#[doc(hidden)]
#[derive(Debug)]
pub struct PinPlace {
    dir: PathBuf,
    name: String,
}

impl PinPlace {
    /// The directory of `file` (as `file!()` names it, from the workspace
    /// root) under `manifest_dir` or one of its ancestors, plus `snapshots`.
    pub fn new(manifest_dir: &str, file: &str, pin: &Pin) -> Self {
        let manifest = Path::new(manifest_dir);
        let source = manifest.ancestors().map(|root| root.join(file)).find(|path| path.exists());
        let dir = source.as_deref().and_then(Path::parent).unwrap_or(manifest).join("snapshots");
        let name: String = pin
            .server_name()
            .chars()
            .map(|ch| if ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' { ch } else { '_' })
            .collect();
        Self { dir, name: format!("{name}.contract") }
    }

    /// The snapshot's directory, for insta.
    pub fn dir(&self) -> PathBuf {
        self.dir.clone()
    }

    /// The snapshot's name, for insta.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The accepted pin, if the snapshot exists.
    pub fn accepted(&self) -> Option<Pin> {
        let text = std::fs::read_to_string(self.dir.join(format!("{}.snap", self.name))).ok()?;
        Pin::from_snapshot(&text)
    }

    /// Compare `pin` with the accepted one: print each change, and panic on
    /// a breaking one that the version does not announce.
    pub fn check(&self, pin: &Pin) {
        let Some(accepted) = self.accepted() else { return };
        let changes = pin.changes_since(&accepted);
        if changes.is_empty() {
            return;
        }
        let breaking: Vec<&ContractChange> = changes.iter().filter(|c| c.kind == ChangeKind::Breaking).collect();
        let (from, to) = (accepted.version(), pin.version());
        let report = changes.iter().map(|change| format!("  - {change}")).collect::<Vec<_>>().join("\n");
        // Printed for the test's output: the review reads it beside insta's diff.
        #[allow(clippy::print_stderr)]
        {
            eprintln!("the contract of `{}` changed since the accepted pin ({from}):\n{report}", pin.server_name());
        }
        if !breaking.is_empty() && !compat::announces_breaking(from, to) {
            let next = compat::next_breaking(from).unwrap_or_else(|| "a new major version".to_owned());
            panic!(
                "the contract of `{}` has {} breaking change(s) since the accepted pin, and its version {to} does not announce them (accepted: {from}):\n{report}\n\nAgents written against {from} may fail. Keep the old behaviour, or bump the server's version to {next} (semver: a major bump, a minor one under 0.x), then review the pin with `cargo insta review`.",
                pin.server_name(),
                breaking.len(),
            );
        }
    }
}

/// Pin the wire contract of `server` in an [insta](https://insta.rs)
/// snapshot beside the test (`snapshots/<server name>.contract.snap`), and
/// fail on a breaking change since the accepted one that the server's version
/// does not announce; review a change with `cargo insta review`. Use it in
/// an `async` test (feature `testing`):
///
/// ```no_run
/// # async fn museum() -> mcp_contract::server::Server { mcp_contract::server::Server::new("museum", "1.0.0") }
/// #[tokio::test]
/// async fn the_contract_is_pinned() {
///     mcp_contract::testing::assert_contract_pinned!(museum().await);
/// }
/// ```
///
/// What is breaking for the agents that call the server, and what is
/// additive, is [`compat`](crate::testing::compat)'s call.
#[macro_export]
macro_rules! assert_contract_pinned {
    ($server:expr $(,)?) => {{
        let pin = $crate::testing::Pin::read($server)
            .await
            .unwrap_or_else(|err| ::core::panic!("the server's contract cannot be read: {err}"));
        let place = $crate::testing::PinPlace::new(::core::env!("CARGO_MANIFEST_DIR"), ::core::file!(), &pin);
        place.check(&pin);
        $crate::testing::__insta::with_settings!({
            snapshot_path => place.dir(),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            $crate::testing::__insta::assert_snapshot!(place.name(), pin.text());
        });
    }};
}
