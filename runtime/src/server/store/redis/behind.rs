//! Events written behind their sending ([`RedisStore::write_behind`]): the
//! store names each event's entry itself, from this replica's clock, and
//! hands the write to one writer, so the event goes out at once and the
//! stream's entries land in the order they were named.

use std::sync::{Arc, Mutex, Weak};

use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use super::{Inner, RedisStore, lock, now_millis};

/// How many bytes of writes may wait for the writer: past that, an event
/// waits for room (within the store's timeout), as if it were stored before
/// it is sent.
const QUEUED_BYTES: usize = 64 << 20;

/// What a write takes of that room besides its event: its key, its
/// entry, and the commands after it.
const WRITE_BYTES: usize = 512;

/// At most this many writes go in one round trip.
const BATCH: usize = 256;

/// The commands of one event's write.
type Write = Vec<redis::Cmd>;

/// A write queued, with the room its bytes take until it is written.
type Queued = (Write, OwnedSemaphorePermit);

pub(super) struct Writer {
    queue: mpsc::UnboundedSender<Queued>,
    /// The bytes the queue may still take: its bound.
    room: Arc<Semaphore>,
    /// The last entry named, `(ms, seq)`: the next is above it, so the
    /// entries of a stream this replica writes grow even if its clock steps back.
    last: Mutex<(u64, u64)>,
}

impl RedisStore {
    /// Queue the write `write(entry)` makes for an entry named now, of an
    /// event of `bytes`, and give the entry; `None` when no room came within
    /// the store's timeout, or the writer is gone (its runtime stopped).
    pub(super) async fn write_behind_as(&self, bytes: usize, write: impl FnOnce(&str) -> Write) -> Option<String> {
        let writer = self.inner.behind.get_or_init(|| {
            let (queue, writes) = mpsc::unbounded_channel();
            tokio::spawn(write_in_order(Arc::downgrade(&self.inner), writes));
            Writer { queue, room: Arc::new(Semaphore::new(QUEUED_BYTES)), last: Mutex::new((0, 0)) }
        });
        let bytes = u32::try_from((bytes + WRITE_BYTES).min(QUEUED_BYTES)).unwrap_or(u32::MAX);
        let room = Arc::clone(&writer.room).acquire_many_owned(bytes);
        let Ok(Ok(room)) = tokio::time::timeout(self.inner.settings.timeout, room).await else { return None };
        // Named and queued under one lock: the queue's order is the entries'.
        let mut last = lock(&writer.last);
        let now = now_millis();
        *last = if now > last.0 { (now, 0) } else { (last.0, last.1 + 1) };
        let entry = format!("{}-{}", last.0, last.1);
        writer.queue.send((write(&entry), room)).ok()?;
        Some(entry)
    }

    /// Wait until every write queued behind its sending is done or failed:
    /// the room of all their bytes is back. Bounded by twice the store's
    /// timeout, each round trip's bound, as a write queued behind another
    /// waits for it.
    pub(super) async fn written_behind(&self) {
        let Some(writer) = self.inner.behind.get() else { return };
        let everything = u32::try_from(QUEUED_BYTES).unwrap_or(u32::MAX);
        let bound = 2 * self.inner.settings.timeout;
        if tokio::time::timeout(bound, writer.room.acquire_many(everything)).await.is_err() {
            tracing::warn!("stopping: events written behind their sending were still queued for Redis after {bound:?}");
        }
    }
}

/// The writer of a store: what queued while the last round trip ran goes in
/// the next, in one `MULTI`. It ends with the store (its last handle dropped).
async fn write_in_order(store: Weak<Inner>, mut writes: mpsc::UnboundedReceiver<Queued>) {
    let mut batch = Vec::with_capacity(BATCH);
    while writes.recv_many(&mut batch, BATCH).await > 0 {
        let Some(inner) = store.upgrade() else { return };
        let store = RedisStore { inner };
        let mut pipe = redis::pipe();
        pipe.atomic();
        // The room of the batch's bytes is given back once they are written.
        let mut room = Vec::with_capacity(batch.len());
        for (write, bytes) in batch.drain(..) {
            for command in write {
                pipe.add_command(command).ignore();
            }
            room.push(bytes);
        }
        // A failed write leaves its events with their clients only (a
        // resumption after one reads on from what Redis has); `query` takes
        // the store for down, so the next events go out unstored until it answers.
        let _ = store.query::<()>(&pipe).await;
        drop(room);
    }
}
