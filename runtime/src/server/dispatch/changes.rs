//! What changes while a server runs, announced to the clients that want to
//! know: `notifications/resources/updated` to the sessions subscribed to a
//! URI (`resources/subscribe`, protocol 2025-x), and the `list_changed`
//! notifications of tools, resources and prompts when one is enabled or
//! disabled at run time, to every session and every `subscriptions/listen`
//! stream (protocol 2026-07-28) that asked for them.
//!
//! [`Changes`] is the handle: register it with
//! [`Server::changes`](crate::server::builder::Server::changes), keep a clone (in a handler's
//! `State<Changes>`, in a background task) and call it when something changed.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use rmcp::model::{ResourceUpdatedNotificationParam, ServerCapabilities, SubscriptionFilter};
use rmcp::service::SubscriptionSink;
use rmcp::{Peer, RoleServer};

use crate::define::PrimitiveKind;

/// How many URIs one session may be subscribed to at once, by default.
pub const DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION: usize = 256;

/// How long one notification may wait for a session's outgoing queue, by
/// default: a session that does not drain its stream misses the notification
/// instead of holding up the announcement to every other session.
pub const DEFAULT_SEND_TIMEOUT: Duration = Duration::from_secs(2);

/// The handle through which a running server announces changes.
///
/// Cloning is cheap; every clone announces to the same sessions. A server
/// given one with [`Server::changes`](crate::server::builder::Server::changes) advertises the
/// `resources.subscribe` capability and `listChanged` for tools, resources and
/// prompts, answers `resources/subscribe` and `resources/unsubscribe`, and
/// shares the handle as state, so a handler takes `State<Changes>`.
///
/// ```
/// use mcp_contract::server::{Changes, Server};
///
/// let changes = Changes::new();
/// let server = Server::new("museum", "1.0.0").changes(changes.clone()).build().unwrap();
/// assert_eq!(server.config().capabilities.tools.as_ref().and_then(|t| t.list_changed), Some(true));
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// // Later, from a handler or a background task: nobody is subscribed yet.
/// assert_eq!(changes.resource_updated("museum://exhibitions/current").await, 0);
/// changes.disable_tool("book_tour").await;
/// assert!(!changes.is_enabled(mcp_contract::server::PrimitiveKind::Tool, "book_tour"));
/// # });
/// ```
#[derive(Clone)]
pub struct Changes {
    inner: Arc<Inner>,
}

struct Inner {
    next_id: AtomicU64,
    max_subscriptions: usize,
    send_timeout: Duration,
    /// Sessions (2025-x) that sent `notifications/initialized` or subscribed,
    /// by the id of their server copy.
    sessions: Mutex<HashMap<u64, Session>>,
    /// Open `subscriptions/listen` streams (2026-07-28), by a listen id.
    listeners: Mutex<HashMap<u64, SubscriptionSink>>,
    /// What is disabled, by kind and name.
    disabled: RwLock<HashSet<(PrimitiveKind, String)>>,
}

struct Session {
    peer: Peer<RoleServer>,
    subscribed: HashSet<String>,
}

/// Why `resources/subscribe` was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TooManySubscriptions {
    pub(crate) max: usize,
}

impl Default for Changes {
    fn default() -> Self {
        Self::new()
    }
}

impl Changes {
    /// A handle with the default bounds: [`DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION`]
    /// and [`DEFAULT_SEND_TIMEOUT`].
    #[must_use]
    pub fn new() -> Self {
        Self::with_limits(DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION, DEFAULT_SEND_TIMEOUT)
    }

    /// A handle that lets one session subscribe to at most `max_subscriptions`
    /// URIs (one more gets -32602), and gives up on one session's
    /// notification after `send_timeout`.
    #[must_use]
    pub fn with_limits(max_subscriptions: usize, send_timeout: Duration) -> Self {
        Self {
            inner: Arc::new(Inner {
                next_id: AtomicU64::new(1),
                max_subscriptions,
                send_timeout,
                sessions: Mutex::default(),
                listeners: Mutex::default(),
                disabled: RwLock::default(),
            }),
        }
    }

    /// Announce that the resource at `uri` changed: `notifications/resources/updated`
    /// to every session subscribed to exactly this URI. Returns how many
    /// sessions it reached; a session whose connection is gone is forgotten.
    pub async fn resource_updated(&self, uri: &str) -> usize {
        let peers: Vec<(u64, Peer<RoleServer>)> = lock(&self.inner.sessions)
            .iter()
            .filter(|(_, session)| session.subscribed.contains(uri))
            .map(|(&id, session)| (id, session.peer.clone()))
            .collect();
        let mut reached = 0;
        for (id, peer) in peers {
            let sent = peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri));
            if self.bounded(id, sent).await {
                reached += 1;
            }
        }
        let sinks = self.listening(|filter| {
            filter.resource_subscriptions.as_ref().is_some_and(|uris| uris.iter().any(|u| u == uri))
        });
        for (id, sink) in sinks {
            if self.bounded_listener(id, sink.notify_resource_updated(uri)).await {
                reached += 1;
            }
        }
        reached
    }

    /// Announce that the list of `kind` changed (for a reason of the
    /// application's own; enabling and disabling announce themselves):
    /// `notifications/{tools,resources,prompts}/list_changed` to every session
    /// and every listen stream that asked for it. Returns how many it reached.
    pub async fn list_changed(&self, kind: PrimitiveKind) -> usize {
        let peers: Vec<(u64, Peer<RoleServer>)> =
            lock(&self.inner.sessions).iter().map(|(&id, session)| (id, session.peer.clone())).collect();
        let mut reached = 0;
        for (id, peer) in peers {
            let delivered = match kind {
                PrimitiveKind::Tool => self.bounded(id, peer.notify_tool_list_changed()).await,
                PrimitiveKind::Resource => self.bounded(id, peer.notify_resource_list_changed()).await,
                PrimitiveKind::Prompt => self.bounded(id, peer.notify_prompt_list_changed()).await,
            };
            if delivered {
                reached += 1;
            }
        }
        let sinks = self.listening(|filter| {
            let wanted = match kind {
                PrimitiveKind::Tool => filter.tools_list_changed,
                PrimitiveKind::Resource => filter.resources_list_changed,
                PrimitiveKind::Prompt => filter.prompts_list_changed,
            };
            wanted == Some(true)
        });
        for (id, sink) in sinks {
            let delivered = match kind {
                PrimitiveKind::Tool => self.bounded_listener(id, sink.notify_tool_list_changed()).await,
                PrimitiveKind::Resource => self.bounded_listener(id, sink.notify_resource_list_changed()).await,
                PrimitiveKind::Prompt => self.bounded_listener(id, sink.notify_prompt_list_changed()).await,
            };
            if delivered {
                reached += 1;
            }
        }
        reached
    }

    /// Hide the tool `name` from `tools/list` and refuse its calls (as a tool
    /// no server has), then announce the change when it is one.
    pub async fn disable_tool(&self, name: &str) {
        self.set_enabled(PrimitiveKind::Tool, name, false).await;
    }

    /// Serve the tool `name` again, and announce the change when it is one.
    pub async fn enable_tool(&self, name: &str) {
        self.set_enabled(PrimitiveKind::Tool, name, true).await;
    }

    /// Hide the resource (or resource template) `name` from the lists and
    /// refuse its reads, then announce the change when it is one.
    pub async fn disable_resource(&self, name: &str) {
        self.set_enabled(PrimitiveKind::Resource, name, false).await;
    }

    /// Serve the resource `name` again, and announce the change when it is one.
    pub async fn enable_resource(&self, name: &str) {
        self.set_enabled(PrimitiveKind::Resource, name, true).await;
    }

    /// Hide the prompt `name` from `prompts/list` and refuse `prompts/get` and
    /// completions of it, then announce the change when it is one.
    pub async fn disable_prompt(&self, name: &str) {
        self.set_enabled(PrimitiveKind::Prompt, name, false).await;
    }

    /// Serve the prompt `name` again, and announce the change when it is one.
    pub async fn enable_prompt(&self, name: &str) {
        self.set_enabled(PrimitiveKind::Prompt, name, true).await;
    }

    /// Whether the `kind` named `name` is served (every one is, until disabled).
    #[must_use]
    pub fn is_enabled(&self, kind: PrimitiveKind, name: &str) -> bool {
        let disabled = self.inner.disabled.read().unwrap_or_else(PoisonError::into_inner);
        disabled.is_empty() || !disabled.contains(&(kind, name.to_owned()))
    }

    /// How many sessions are known (initialized or subscribed) and not yet closed.
    #[must_use]
    pub fn sessions(&self) -> usize {
        lock(&self.inner.sessions).len()
    }

    /// How many URIs the sessions are subscribed to, counted per session.
    #[must_use]
    pub fn subscriptions(&self) -> usize {
        lock(&self.inner.sessions).values().map(|session| session.subscribed.len()).sum()
    }

    /// How many `subscriptions/listen` streams (2026-07-28) are open: one
    /// ends when its client cancels it or stops reading, or the server stops.
    #[must_use]
    pub fn listen_streams(&self) -> usize {
        lock(&self.inner.listeners).len()
    }

    async fn set_enabled(&self, kind: PrimitiveKind, name: &str, enabled: bool) {
        let changed = {
            let mut disabled = self.inner.disabled.write().unwrap_or_else(PoisonError::into_inner);
            if enabled { disabled.remove(&(kind, name.to_owned())) } else { disabled.insert((kind, name.to_owned())) }
        };
        if changed {
            self.list_changed(kind).await;
        }
    }

    /// The most URIs one session (or one listen stream) may follow.
    pub(crate) fn max_subscriptions(&self) -> usize {
        self.inner.max_subscriptions
    }

    /// A fresh id for a session's server copy or a listen stream.
    pub(crate) fn next_id(&self) -> u64 {
        self.inner.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Remember the session `id` talks through `peer`, so list changes reach it.
    pub(crate) fn register(&self, id: u64, peer: &Peer<RoleServer>) {
        lock(&self.inner.sessions)
            .entry(id)
            .or_insert_with(|| Session { peer: peer.clone(), subscribed: HashSet::new() });
    }

    /// `resources/subscribe` of the session `id`; subscribing twice is one subscription.
    pub(crate) fn subscribe(&self, id: u64, peer: &Peer<RoleServer>, uri: &str) -> Result<(), TooManySubscriptions> {
        let mut sessions = lock(&self.inner.sessions);
        let session = sessions.entry(id).or_insert_with(|| Session { peer: peer.clone(), subscribed: HashSet::new() });
        if !session.subscribed.contains(uri) && session.subscribed.len() >= self.inner.max_subscriptions {
            return Err(TooManySubscriptions { max: self.inner.max_subscriptions });
        }
        session.subscribed.insert(uri.to_owned());
        Ok(())
    }

    /// `resources/unsubscribe` of the session `id`; a URI it never subscribed to is no error.
    pub(crate) fn unsubscribe(&self, id: u64, uri: &str) {
        if let Some(session) = lock(&self.inner.sessions).get_mut(&id) {
            session.subscribed.remove(uri);
        }
    }

    /// The session `id` closed: forget it and its subscriptions.
    pub(crate) fn forget(&self, id: u64) {
        lock(&self.inner.sessions).remove(&id);
    }

    /// A `subscriptions/listen` stream opened; [`Self::stop_listening`] when it ends.
    pub(crate) fn listen(&self, id: u64, sink: SubscriptionSink) {
        lock(&self.inner.listeners).insert(id, sink);
    }

    pub(crate) fn stop_listening(&self, id: u64) {
        lock(&self.inner.listeners).remove(&id);
    }

    fn listening(&self, wants: impl Fn(&SubscriptionFilter) -> bool) -> Vec<(u64, SubscriptionSink)> {
        lock(&self.inner.listeners)
            .iter()
            .filter(|(_, sink)| wants(sink.accepted()))
            .map(|(&id, sink)| (id, sink.clone()))
            .collect()
    }

    /// Send one notification to the session `id` within the send timeout; a
    /// session whose transport is gone is forgotten.
    async fn bounded<E: fmt::Display>(&self, id: u64, sent: impl Future<Output = Result<(), E>>) -> bool {
        match tokio::time::timeout(self.inner.send_timeout, sent).await {
            Ok(Ok(())) => true,
            Ok(Err(err)) => {
                tracing::debug!(session = id, %err, "a session is gone; forgetting it");
                self.forget(id);
                false
            }
            Err(_) => {
                tracing::debug!(session = id, "a session did not take a notification in time");
                false
            }
        }
    }

    async fn bounded_listener<E: fmt::Display>(&self, id: u64, sent: impl Future<Output = Result<(), E>>) -> bool {
        match tokio::time::timeout(self.inner.send_timeout, sent).await {
            Ok(Ok(())) => true,
            Ok(Err(err)) => {
                tracing::debug!(listen = id, %err, "a listen stream is gone; forgetting it");
                self.stop_listening(id);
                false
            }
            Err(_) => false,
        }
    }
}

impl fmt::Debug for Changes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Changes")
            .field("sessions", &self.sessions())
            .field("subscriptions", &self.subscriptions())
            .field("listeners", &lock(&self.inner.listeners).len())
            .finish_non_exhaustive()
    }
}

/// Declare what a server with [`Changes`] announces: `listChanged` for each
/// kind it serves, and `resources.subscribe` when it has resources.
pub(crate) fn advertise(capabilities: &mut ServerCapabilities) {
    if let Some(tools) = capabilities.tools.as_mut() {
        tools.list_changed = Some(true);
    }
    if let Some(resources) = capabilities.resources.as_mut() {
        resources.list_changed = Some(true);
        resources.subscribe = Some(true);
    }
    if let Some(prompts) = capabilities.prompts.as_mut() {
        prompts.list_changed = Some(true);
    }
}

/// What one server copy (one session) holds of the [`Changes`]: its id, so
/// its subscriptions are forgotten when the copy, and with it the session, is
/// dropped.
pub(crate) struct SessionChanges {
    pub(crate) changes: Changes,
    pub(crate) id: u64,
}

impl SessionChanges {
    pub(crate) fn new(changes: Changes) -> Self {
        let id = changes.next_id();
        Self { changes, id }
    }
}

impl Drop for SessionChanges {
    fn drop(&mut self) {
        self.changes.forget(self.id);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
