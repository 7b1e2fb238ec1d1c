//! Who holds the connection slots, and which of them has waited longest for a whole message: a
//! connection that has not sent one whole message since it was accepted, or that is part-way
//! through one, is waiting; one that has sent its messages and waits for the next is not. When
//! every slot is taken and a new connection arrives, the connection waiting longest — over
//! [`GRACE`] — is told to close and its slot goes to the newcomer: a slow client (slowloris: a
//! byte every few seconds) never keeps a new one out, while a client's pool of idle connections,
//! which has sent whole messages, keeps its slots.
//!
//! Owns: that registry. May not touch: sockets (the connection closes itself when told).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, OwnedSemaphorePermit, oneshot};

/// Where a connection told to close hands its slot to the newcomer.
pub type Handoff = oneshot::Receiver<OwnedSemaphorePermit>;

/// How long a connection may wait for a whole message before a newcomer may take its slot: a
/// client that is not slow sends a whole message within milliseconds.
pub const GRACE: Duration = Duration::from_secs(1);

/// One connection's place in the registry.
#[derive(Default)]
pub struct Slot {
    /// Since when it has waited for a whole message (`None`: it is not waiting for one).
    waiting_since: Mutex<Option<Instant>>,
    /// Told when its slot is taken for a newcomer.
    pub evicted: Notify,
    /// The newcomer its slot goes to once it has closed.
    handoff: Mutex<Option<oneshot::Sender<OwnedSemaphorePermit>>>,
}

impl Slot {
    /// The first byte of a message arrived (a connection that never sent a whole message keeps
    /// its older time: it has waited since it was accepted).
    pub fn message_started(&self) {
        let mut w = self
            .waiting_since
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        w.get_or_insert_with(Instant::now);
    }

    /// A whole message arrived.
    pub fn message_whole(&self) {
        *self
            .waiting_since
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// The connection closed: its slot goes to the newcomer it was closed for, if any (else it
    /// is freed).
    pub fn give_up(&self, permit: OwnedSemaphorePermit) {
        let to = self
            .handoff
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(to) = to {
            // A newcomer that stopped waiting: the slot is freed.
            let _ = to.send(permit);
        }
    }

    fn waited(&self, now: Instant) -> Option<Duration> {
        let w = self
            .waiting_since
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        w.map(|since| now.saturating_duration_since(since))
    }
}

/// The connections holding a slot.
#[derive(Default)]
pub struct Registry {
    slots: Mutex<HashMap<i64, Arc<Slot>>>,
}

impl Registry {
    /// Connection `id` accepted: it waits for its first whole message from now.
    pub fn join(&self, id: i64) -> Arc<Slot> {
        let slot = Arc::new(Slot::default());
        slot.message_started();
        (self.slots.lock().unwrap_or_else(PoisonError::into_inner)).insert(id, Arc::clone(&slot));
        slot
    }

    /// Connection `id` closed.
    pub fn leave(&self, id: i64) {
        (self.slots.lock().unwrap_or_else(PoisonError::into_inner)).remove(&id);
    }

    /// Tells the connection that has waited longest for a whole message, over [`GRACE`], to
    /// close and hand its slot over; where the slot comes, or `None` when no connection has
    /// waited that long.
    pub fn evict_slowest(&self) -> Option<Handoff> {
        let now = Instant::now();
        let slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let (slot, _) = (slots.values())
            .filter_map(|s| s.waited(now).map(|w| (s, w)))
            .filter(|(_, w)| *w >= GRACE)
            .max_by_key(|(_, w)| *w)?;
        let (tx, rx) = oneshot::channel();
        *slot.handoff.lock().unwrap_or_else(PoisonError::into_inner) = Some(tx);
        // Told once: it is not chosen again while it closes.
        slot.message_whole();
        slot.evicted.notify_one();
        Some(rx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connection_waiting_longest_for_a_whole_message_is_evicted_after_the_grace() {
        let r = Registry::default();
        let proven = r.join(1);
        proven.message_whole();
        let _slow = r.join(2);
        assert!(r.evict_slowest().is_none(), "within the grace");
        std::thread::sleep(GRACE);
        let fresh = r.join(3);
        let handoff = r.evict_slowest();
        assert!(handoff.is_some(), "the slow one");
        assert!(r.evict_slowest().is_none(), "told once");
        fresh.message_whole();
        r.leave(2);
        assert!(
            r.evict_slowest().is_none(),
            "the proven and the fresh are not waiting"
        );
    }
}
