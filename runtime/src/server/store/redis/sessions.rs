//! rmcp's [`SessionStore`] on Redis: a session's `initialize` in a hash.

use rmcp::transport::streamable_http_server::session::{SessionState, SessionStore, SessionStoreError};

use crate::server::store::shared::{SESSION_OWNER, UNAVAILABLE};

use super::{RedisStore, lock, millis, records};

/// The session's hash: `state` (its `initialize`, as rmcp stores it) and,
/// with auth on, `owner`.
#[async_trait::async_trait]
impl SessionStore for RedisStore {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let key = self.key("session", session_id);
        let mut pipe = redis::pipe();
        pipe.cmd("HGET")
            .arg(&key)
            .arg("state")
            .cmd("PEXPIRE")
            .arg(&key)
            .arg(millis(self.inner.settings.session_idle))
            .ignore();
        let (state,): (Option<String>,) = self.query(&pipe).await.map_err(|_| UNAVAILABLE)?;
        match state {
            Some(state) => Ok(Some(records::session_state(&state)?)),
            None => Ok(None),
        }
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let key = self.key("session", session_id);
        let owner = SESSION_OWNER.try_with(Clone::clone).ok().flatten();
        let mut pipe = redis::pipe();
        pipe.atomic().cmd("HSET").arg(&key).arg("state").arg(serde_json::to_string(state)?);
        if let Some(owner) = owner {
            pipe.arg("owner").arg(owner);
        }
        pipe.ignore().cmd("PEXPIRE").arg(&key).arg(millis(self.inner.settings.session_idle)).ignore();
        if self.query::<()>(&pipe).await.is_err() {
            // rmcp only logs this; the guard refuses the `initialize` (503)
            // rather than open a session the other replicas cannot find.
            lock(&self.inner.store_failures).insert(session_id.to_owned());
            return Err(UNAVAILABLE.into());
        }
        Ok(())
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        let mut pipe = redis::pipe();
        pipe.cmd("DEL").arg(self.key("session", session_id)).ignore();
        lock(&self.inner.touched).remove(session_id);
        self.query::<()>(&pipe).await.map_err(|_| UNAVAILABLE.into())
    }
}
