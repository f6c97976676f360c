//! What replicas of a server share, and where a single server keeps the same
//! in memory: the SSE events of resumable streams, the sessions and running
//! calls, the tasks, and their Redis backing (feature `redis`).

pub(crate) mod events;
#[cfg(feature = "redis")]
pub(crate) mod redis;
pub(crate) mod shared;
pub(crate) mod tasks;
