//! The entries of `config.changelog` and `config.actionlog` as read: each one's log, time,
//! `what`, `ns`, logging shard and `details`, in the order they happened (`time`, then the order
//! read). An entry without a `time` or a `what` is not used, and counted.

use bson::{Bson, Document};

/// Which collection an entry was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Log {
    Changelog,
    Actionlog,
}

impl Log {
    pub fn name(self) -> &'static str {
        match self {
            Self::Changelog => "config.changelog",
            Self::Actionlog => "config.actionlog",
        }
    }
}

/// One entry of either log.
#[derive(Clone, Debug)]
pub struct Entry {
    pub log: Log,
    /// Milliseconds since the Unix epoch.
    pub time_ms: i64,
    pub what: String,
    pub ns: String,
    pub details: Document,
}

impl Entry {
    /// A number of `details` (Int32, Int64 or Double), `None` when absent or not a number.
    pub fn number(&self, key: &str) -> Option<i64> {
        number(&self.details, key)
    }

    /// A string of `details`.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.details.get_str(key).ok()
    }
}

/// A number of `d` (Int32, Int64 or Double).
pub fn number(d: &Document, key: &str) -> Option<i64> {
    match d.get(key)? {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        Bson::Double(x) if x.is_finite() => Some(*x as i64),
        _ => None,
    }
}

/// Both logs' entries in time order.
#[derive(Clone, Debug, Default)]
pub struct Diary {
    pub entries: Vec<Entry>,
    /// Entries left out: no `time` or no `what`.
    pub unreadable: u64,
    /// Whether a read stopped at its bound (in documents, bytes or time) before the oldest
    /// entry it asked for: the diary's older part was not read.
    pub cut_short: bool,
}

impl Diary {
    /// The entries of both logs, oldest first (ties keep the order read).
    pub fn of(changelog: &[Document], actionlog: &[Document]) -> Self {
        let mut d = Self::default();
        for (log, docs) in [(Log::Changelog, changelog), (Log::Actionlog, actionlog)] {
            for doc in docs {
                match entry(log, doc) {
                    Some(e) => d.entries.push(e),
                    None => d.unreadable += 1,
                }
            }
        }
        d.entries.sort_by_key(|e| e.time_ms);
        d
    }

    /// The oldest and newest entry times, `None` when empty.
    pub fn span_ms(&self) -> Option<(i64, i64)> {
        Some((self.entries.first()?.time_ms, self.entries.last()?.time_ms))
    }

    /// The changelog's entries only.
    pub fn changes(&self) -> impl DoubleEndedIterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.log == Log::Changelog)
    }
}

fn entry(log: Log, d: &Document) -> Option<Entry> {
    let time_ms = d.get_datetime("time").ok()?.timestamp_millis();
    Some(Entry {
        log,
        time_ms,
        what: d.get_str("what").ok()?.to_string(),
        ns: d.get_str("ns").unwrap_or_default().to_string(),
        details: d.get_document("details").cloned().unwrap_or_default(),
    })
}
