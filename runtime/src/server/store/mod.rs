//! What replicas of a server share, and where a single server keeps the same
//! in memory: the SSE events of resumable streams, the sessions and running
//! calls, the tasks, and their Redis backing (feature `redis`); and the
//! sessions' `initialize`, from which a hibernated session is restored.

pub(crate) mod events;
#[cfg(feature = "redis")]
pub(crate) mod redis;
pub(crate) mod sessions;
pub(crate) mod shared;
pub(crate) mod tasks;
