//! The change events of acknowledged writes (a ring of the newest [`HISTORY`]) and the open
//! change-stream cursors: data only. Writes record events through `write_path::observe`; the
//! `$changeStream` stage and its `getMore` read them (`commands::aggregate::change_stream`).
//!
//! May import `query` and `reply`; nothing above `state`.

use std::collections::{BTreeMap, VecDeque};

use bson::{Document, Timestamp, doc};

/// Events kept for resuming; older ones are dropped.
pub const HISTORY: usize = 100_000;
pub struct Event {
    pub seq: u64,
    pub ns: String,
    pub at: Timestamp,
    pub doc: Document,
}

#[derive(Clone)]
pub enum Scope {
    Coll(String),
    Db(String),
    Cluster,
}

impl Scope {
    pub fn covers(&self, ns: &str) -> bool {
        match self {
            Scope::Coll(c) => c == ns,
            Scope::Db(db) => ns.split_once('.').is_some_and(|(d, _)| d == db),
            Scope::Cluster => true,
        }
    }
}

pub struct Stream {
    pub ns: String,
    pub scope: Scope,
    /// The sequence number of the last event looked at (events after it are still to come).
    pub position: u64,
    pub stages: Vec<Document>,
    /// `fullDocument: "updateLookup"`: update events carry the document as kept now.
    pub lookup: bool,
    /// The connection that opened it (the stream dies with it).
    pub owner: i64,
}

/// The event ring and the open change-stream cursors.
#[derive(Default)]
pub struct ChangeStreams {
    pub events: VecDeque<Event>,
    /// The sequence number of the newest event (0: none yet).
    pub last_seq: u64,
    pub cursors: BTreeMap<i64, Stream>,
    pub next_id: i64,
}

pub fn token(seq: u64) -> Document {
    doc! { "_data": format!("{seq:016X}") }
}
impl ChangeStreams {
    /// Index in the ring of the first event after `position`.
    pub fn start_of(&self, position: u64) -> usize {
        let oldest = self.events.front().map_or(self.last_seq + 1, |e| e.seq);
        position.saturating_add(1).saturating_sub(oldest) as usize
    }

    pub fn has_events(&self, id: i64) -> bool {
        let Some(s) = self.cursors.get(&id) else {
            return true;
        };
        self.events
            .range(self.start_of(s.position).min(self.events.len())..)
            .any(|e| s.scope.covers(&e.ns))
    }

    /// Removes cursor `id`; whether it was a change stream.
    pub fn kill(&mut self, id: i64) -> bool {
        self.cursors.remove(&id).is_some()
    }

    /// How many change streams are open.
    pub fn open(&self) -> usize {
        self.cursors.len()
    }

    /// Removes the streams of connection `owner`; how many.
    pub fn kill_owned_by(&mut self, owner: i64) -> usize {
        let before = self.cursors.len();
        self.cursors.retain(|_, s| s.owner != owner);
        before - self.cursors.len()
    }
}

/// What happened to a document.
#[derive(Clone, Debug)]
pub enum Change {
    Insert,
    /// An update by operators: the paths set (with their new values) and removed.
    Update {
        updated: Document,
        removed: Vec<String>,
    },
    Replace,
    Delete,
}
