//! What a single server keeps of its sessions for rmcp to restore one: the
//! client's `initialize`, by session id. A hibernating session is only this
//! (see `dispatch::hibernation`); with replicas, the shared store keeps it
//! instead.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

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
}
