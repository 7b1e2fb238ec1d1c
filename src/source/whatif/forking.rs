//! A what-if fork being made on a thread of its own: the source hands it the state at "now"
//! and goes on (publishing views, reading the UI's commands), looks for the fork at each frame,
//! and says how far it got meanwhile. Dropping it (Esc, `W`, a new fork, the TUI quitting) sets
//! its cancellation flag, which the making checks between two shards added: nothing waits for a
//! fork nobody wants, however many shards it adds.
//!
//! Owns: that thread and its flag. May not touch: the terminal, the rules (`sim`), the source.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use super::{Fork, ForkPoint, checked};
use crate::sim::whatif::Watch;

/// A fork asked for and not made yet.
pub struct Forking {
    made: Receiver<Result<Fork, String>>,
    watch: Arc<Watch>,
    /// The shards it adds.
    to_add: u32,
}

impl Forking {
    /// Starts making the fork of `point` with the prompt's `text` (a reshard is of collection
    /// `collection`); a text that cannot be read is an error at once.
    pub fn start(point: ForkPoint, text: &str, collection: usize) -> Result<Self, String> {
        let ids: Vec<&str> = (point.sim.cluster.shards.iter())
            .filter(|s| !s.removed)
            .map(|s| s.shard.id.as_str())
            .collect();
        let to_add = checked(text, &ids)?.add_shards;
        let (tx, made) = channel();
        let watch = Arc::new(Watch::default());
        let seen = Arc::clone(&watch);
        let text = text.to_string();
        std::thread::Builder::new()
            .name("whatif-fork".into())
            .spawn(move || {
                // Dropped before it is made: nobody is waiting for it.
                let _ = tx.send(Fork::new_watched(point, &text, collection, &seen));
            })
            .map_err(|e| format!("the fork could not start: {e}"))?;
        Ok(Self {
            made,
            watch,
            to_add,
        })
    }

    /// The fork once it is made (or why it could not be); `None` while it is being made.
    pub fn take(&mut self) -> Option<Result<Fork, String>> {
        match self.made.try_recv() {
            Ok(made) => Some(made),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err("the fork ended without a state".into())),
        }
    }

    /// How far it got, for the screen: the shards added so far, or that it is being prepared.
    pub fn progress(&self) -> String {
        let added = self.watch.added.load(std::sync::atomic::Ordering::Relaxed);
        if self.to_add == 0 || added == 0 {
            return "preparing the fork".into();
        }
        format!("{added} of {} shards added", self.to_add)
    }
}

/// A fork dropped before it is made stops being made.
impl Drop for Forking {
    fn drop(&mut self) {
        self.watch.cancel();
    }
}

/// Looks for the fork being made in `slot`: the fork once made (the slot emptied then), or why
/// it could not be; `None` while it is still being made, or when none is.
pub fn arrived(slot: &mut Option<Forking>) -> Option<Result<Fork, String>> {
    let made = slot.as_mut()?.take()?;
    *slot = None;
    Some(made)
}

/// [`arrived`] for a source whose fork runs on a clock of its own (a capture, a live cluster):
/// the fork made goes into `fork`, started paused or not as `paused` says; the notice when it
/// could not be made.
pub fn arrived_on_own_clock(
    slot: &mut Option<Forking>,
    fork: &mut Option<Box<super::OwnClock>>,
    paused: bool,
) -> Option<String> {
    match arrived(slot)? {
        Ok(f) => {
            *fork = Some(Box::new(super::OwnClock::new(f, paused)));
            None
        }
        Err(e) => Some(format!("what if: {e}")),
    }
}
