//! What a server keeps of its sessions for rmcp to restore one: the client's
//! `initialize`, by session id. A hibernating session is only this (see
//! `dispatch::hibernation`). With replicas, the shared store keeps it too,
//! and this replica's copy still restores the sessions it put to sleep when
//! the shared store lost them (a Redis restarted without persistence) or
//! cannot be reached, as it would have served them awake.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::transport::streamable_http_server::session::store::{SessionState, SessionStore, SessionStoreError};

/// The sessions' `initialize`, each as its compact JSON: a few hundred bytes
/// a session, where the parsed form would take several times that.
#[derive(Default)]
pub(crate) struct MemorySessions {
    states: Mutex<HashMap<String, Box<[u8]>>>,
}

impl MemorySessions {
    /// Forget session `id` (it ended).
    pub(crate) fn remove(&self, id: &str) {
        self.states.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
    }
}

#[async_trait::async_trait]
impl SessionStore for MemorySessions {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let states = self.states.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(state) = states.get(session_id) else { return Ok(None) };
        Ok(Some(serde_json::from_slice(state)?))
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let state = serde_json::to_vec(state)?.into_boxed_slice();
        self.states.lock().unwrap_or_else(PoisonError::into_inner).insert(session_id.to_owned(), state);
        Ok(())
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        self.remove(session_id);
        Ok(())
    }
}

/// This replica's copies before the shared store's.
pub(crate) struct LayeredSessions {
    pub(crate) local: Arc<MemorySessions>,
    pub(crate) shared: Arc<dyn SessionStore>,
}

#[async_trait::async_trait]
impl SessionStore for LayeredSessions {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        if let Some(state) = self.local.load(session_id).await? {
            return Ok(Some(state));
        }
        let state = self.shared.load(session_id).await?;
        // A session another replica opened, restored here: it may sleep here too.
        if let Some(state) = &state {
            self.local.store(session_id, state).await?;
        }
        Ok(state)
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        self.local.store(session_id, state).await?;
        self.shared.store(session_id, state).await
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        self.local.remove(session_id);
        self.shared.delete(session_id).await
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{ClientCapabilities, Implementation, InitializeRequestParams};

    use super::*;

    #[tokio::test]
    async fn a_stored_initialize_loads_as_it_was_until_it_is_deleted() {
        let store = MemorySessions::default();
        let params = InitializeRequestParams::new(ClientCapabilities::default(), Implementation::new("client", "1.2"));
        store.store("s", &SessionState::new(params.clone())).await.unwrap();
        let loaded = store.load("s").await.unwrap().expect("stored");
        assert_eq!(serde_json::to_value(&loaded.initialize_params).unwrap(), serde_json::to_value(&params).unwrap());
        assert!(store.load("t").await.unwrap().is_none());
        store.delete("s").await.unwrap();
        assert!(store.load("s").await.unwrap().is_none());
    }

    #[tokio::test]
    async fn the_layered_store_keeps_a_copy_that_outlives_the_shared_one() {
        let shared = Arc::new(MemorySessions::default());
        let store = LayeredSessions { local: Arc::default(), shared: Arc::clone(&shared) as Arc<dyn SessionStore> };
        let params = InitializeRequestParams::new(ClientCapabilities::default(), Implementation::new("client", "1"));
        store.store("mine", &SessionState::new(params.clone())).await.unwrap();
        shared.remove("mine");
        assert!(store.load("mine").await.unwrap().is_some(), "the shared store lost it, this replica did not");
        shared.store("theirs", &SessionState::new(params)).await.unwrap();
        assert!(store.load("theirs").await.unwrap().is_some());
        shared.remove("theirs");
        assert!(store.load("theirs").await.unwrap().is_some(), "restored here once, kept here");
        store.delete("theirs").await.unwrap();
        assert!(store.load("theirs").await.unwrap().is_none());
    }
}
