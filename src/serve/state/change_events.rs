//! The change events of acknowledged writes (a ring of the newest [`HISTORY`] events holding at
//! most [`HISTORY_BYTES`], as an oplog is capped by size) and the open change-stream cursors:
//! data only. Writes record events through `write_path::observe`; the
//! `$changeStream` stage and its `getMore` read them (`commands::aggregate::change_stream`).
//!
//! May import `query` and `reply`; nothing above `state`.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use bson::{Document, Timestamp, doc};

/// Events kept for resuming; older ones are dropped.
pub const HISTORY: usize = 100_000;
/// The bytes (BSON size) the kept events hold at most; past it the oldest are dropped, the
/// newest always kept — as the oplog, a capped collection sized in bytes (`oplogSizeMB`),
/// drops its oldest entries (`src/mongo/db/storage/wiredtiger/wiredtiger_record_store.cpp`,
/// oplog truncate markers). A stream resuming from a dropped event fails as on a server.
pub const HISTORY_BYTES: usize = 128 << 20;
pub struct Event {
    pub seq: u64,
    /// The namespace written (`db.coll`), or the database of a `dropDatabase`.
    pub ns: String,
    pub at: Timestamp,
    pub doc: Document,
    /// An `invalidate` event: it reaches only the streams opened on `ns` (a collection's after
    /// its `drop` or `rename`, a database's after its `dropDatabase`), and closes them.
    pub invalidate: bool,
}

impl Event {
    /// Whether a stream of `scope` sees this event (`change_stream_invalidate`: a cluster-wide
    /// stream is never invalidated, `document_source_change_stream_transform.cpp`).
    pub fn reaches(&self, scope: &Scope) -> bool {
        if !self.invalidate {
            return scope.covers(&self.ns);
        }
        match scope {
            Scope::Coll(c) => *c == self.ns,
            Scope::Db(db) => *db == self.ns,
            Scope::Cluster => false,
        }
    }
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
            Scope::Db(db) => ns == db || ns.split_once('.').is_some_and(|(d, _)| d == db),
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
    /// The session that opened it (the stream dies with it, as any cursor).
    pub session: Option<Vec<u8>>,
    /// When it was last read: an idle stream dies after the cursor timeout, as any cursor
    /// (`cursorTimeoutMillis`, src/mongo/db/cursor_server_params.idl).
    pub used: Instant,
    /// It returned its `invalidate` event: the cursor closes.
    pub invalidated: bool,
}

/// The event ring and the open change-stream cursors.
#[derive(Default)]
pub struct ChangeStreams {
    pub events: VecDeque<Event>,
    /// The BSON bytes of `events`.
    bytes: usize,
    /// The sequence number of the newest event (0: none yet).
    pub last_seq: u64,
    pub cursors: BTreeMap<i64, Stream>,
    pub next_id: i64,
}

pub fn token(seq: u64) -> Document {
    doc! { "_data": format!("{seq:016X}") }
}
impl ChangeStreams {
    /// Keeps `event`, dropping the oldest past [`HISTORY`] events or [`HISTORY_BYTES`].
    pub fn record(&mut self, event: Event) {
        self.bytes += crate::wire::document_len(&event.doc);
        self.events.push_back(event);
        while self.events.len() > HISTORY || (self.bytes > HISTORY_BYTES && self.events.len() > 1) {
            let Some(old) = self.events.pop_front() else {
                break;
            };
            self.bytes = self
                .bytes
                .saturating_sub(crate::wire::document_len(&old.doc));
        }
    }

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
            .any(|e| e.reaches(&s.scope))
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
        self.kill_where(|s| s.owner == owner)
    }

    /// Removes the streams of the sessions `ids`; how many.
    pub fn kill_of_sessions(&mut self, ids: &[Vec<u8>]) -> usize {
        self.kill_where(|s| s.session.as_ref().is_some_and(|id| ids.contains(id)))
    }

    /// Removes the streams unread for `timeout` at `now`; how many.
    pub fn expire(&mut self, now: Instant, timeout: Duration) -> usize {
        self.kill_where(|s| now.duration_since(s.used) >= timeout)
    }

    fn kill_where(&mut self, dead: impl Fn(&Stream) -> bool) -> usize {
        let before = self.cursors.len();
        self.cursors.retain(|_, s| !dead(s));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: u64, bytes: usize) -> Event {
        Event {
            seq,
            ns: "app.c".into(),
            at: Timestamp {
                time: 1,
                increment: seq as u32,
            },
            doc: doc! {"fullDocument": {"pad": "x".repeat(bytes)}},
            invalidate: false,
        }
    }

    /// Large events are capped by their bytes, like an oplog, not by their count; the newest
    /// is kept however large.
    #[test]
    fn events_are_capped_by_bytes() {
        let mut s = ChangeStreams::default();
        for seq in 1..=60 {
            s.record(event(seq, 15 << 20));
        }
        assert!(s.bytes <= HISTORY_BYTES, "{}", s.bytes);
        assert_eq!(s.events.len(), HISTORY_BYTES / (15 << 20));
        assert_eq!(s.events.back().map(|e| e.seq), Some(60));
        let held: usize = s
            .events
            .iter()
            .map(|e| crate::wire::document_len(&e.doc))
            .sum();
        assert_eq!(held, s.bytes);
        s.record(event(61, HISTORY_BYTES + 1));
        assert_eq!(s.events.len(), 1, "the newest is kept alone");
        for seq in 62..62 + HISTORY as u64 + 5 {
            s.record(event(seq, 1));
        }
        assert_eq!(s.events.len(), HISTORY);
    }

    fn stream(owner: i64, session: Option<&[u8]>, used: Instant) -> Stream {
        Stream {
            ns: "app.c".into(),
            scope: Scope::Coll("app.c".into()),
            position: 0,
            stages: Vec::new(),
            lookup: false,
            owner,
            session: session.map(<[u8]>::to_vec),
            used,
            invalidated: false,
        }
    }

    /// A stream whose client left without `killCursors` dies with its session, with its
    /// connection, or after the cursor timeout unread — as any cursor on a server.
    #[test]
    fn a_stream_dies_with_its_session_its_connection_or_the_cursor_timeout() {
        let start = Instant::now();
        let mut s = ChangeStreams::default();
        s.cursors.insert(1, stream(7, Some(b"a"), start));
        s.cursors.insert(2, stream(7, Some(b"b"), start));
        s.cursors
            .insert(3, stream(8, None, start + Duration::from_secs(4)));
        s.cursors.insert(4, stream(9, None, start));
        assert_eq!(s.kill_of_sessions(&[b"a".to_vec()]), 1);
        let timeout = Duration::from_secs(5);
        assert_eq!(
            s.expire(start + Duration::from_secs(6), timeout),
            2,
            "2 and 4 unread 6 s"
        );
        assert_eq!(s.cursors.keys().copied().collect::<Vec<_>>(), vec![3]);
        assert_eq!(s.kill_owned_by(8), 1);
        assert_eq!(s.open(), 0);
    }
}
