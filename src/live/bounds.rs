//! How much one read may bring, and what the client is waiting for. A server that misbehaves —
//! a cursor whose `getMore` never ends, a reply larger than any mongos sends, silence — must
//! cost a bounded amount of memory and time, and the error must name the read.
//!
//! Owns: the limits of a read (documents, bytes, `getMore`s), the largest message accepted, and
//! the read in flight. May not touch: what the reads mean (`poller`, the readers).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::client::LiveError;

/// The largest message a real mongos or mongod sends, whatever its `hello` says (mongo
/// `src/mongo/rpc/message.h`: `MaxMessageSizeBytes = 48 * 1000 * 1000`; `hello` reports it as
/// `maxMessageSizeBytes`, `src/mongo/s/commands/cluster_hello_cmd.cpp`). The driver reads replies
/// up to what the server's `hello` advertises, so a server advertising more is refused.
pub const MAX_MESSAGE_SIZE_BYTES: i64 = 48_000_000;

/// The most a single read (one `find` or `aggregate` and its `getMore`s) may bring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub documents: u64,
    /// BSON bytes of the documents of a read parsed as they arrive (`config.chunks`).
    pub bytes: u64,
    /// BSON bytes of the documents of a read kept whole in memory (every other read).
    pub held_bytes: u64,
    pub get_mores: u64,
}

impl Default for Bounds {
    /// 2,000,000 documents: twice a million-chunk collection, the largest `config.chunks` read.
    /// 1,000,000,000 bytes: a million chunk documents of 1,000 bytes (a compound string key with
    /// its `history`); a typical one is 200–400. 256,000,000 bytes held: the other reads are
    /// one document per shard, collection, database or zone range (100,000 collections of
    /// 1,000 bytes fit twice). 10,000 `getMore`s: a mongos fills a batch up to 16 MiB (or the
    /// 10,000 documents `watch` asks for), so a real read of these sizes needs a few hundred.
    fn default() -> Self {
        Self {
            documents: 2_000_000,
            bytes: 1_000_000_000,
            held_bytes: 256_000_000,
            get_mores: 10_000,
        }
    }
}

impl Bounds {
    /// What `watch --heat changestream` reads of one collection's change stream at one poll:
    /// 50,000 events, 64,000,000 bytes of events and 64 `getMore`s (a mongos's batches of up to
    /// 16 MiB need a handful); the rest stays in the stream for the next poll.
    pub const CHANGE_EVENTS_PER_POLL: Self = Self {
        documents: 50_000,
        bytes: 64_000_000,
        held_bytes: 64_000_000,
        get_mores: 64,
    };
}

fn stopped(message: String) -> LiveError {
    LiveError {
        message,
        input: false,
        unauthorized: false,
        code: None,
    }
}

/// What one read has brought so far; an error naming the read once past a bound.
pub struct Tally {
    read: String,
    bounds: Bounds,
    /// The byte bound that applies: `bytes` or `held_bytes`.
    max_bytes: u64,
    documents: u64,
    bytes: u64,
    get_mores: u64,
}

impl Tally {
    /// The tally of a read whose documents are parsed as they arrive.
    pub fn new(read: String, bounds: Bounds) -> Self {
        Self {
            read,
            bounds,
            max_bytes: bounds.bytes,
            documents: 0,
            bytes: 0,
            get_mores: 0,
        }
    }

    /// The tally of a read whose documents are all kept in memory.
    pub fn held(read: String, bounds: Bounds) -> Self {
        Self {
            max_bytes: bounds.held_bytes,
            ..Self::new(read, bounds)
        }
    }

    /// Counts one document of `bytes` BSON bytes.
    pub fn document(&mut self, bytes: usize) -> Result<(), LiveError> {
        self.documents += 1;
        self.bytes += bytes as u64;
        if self.documents > self.bounds.documents {
            return Err(stopped(format!(
                "{}: more than {} documents — stopped (a read is bounded; see docs/watch.md)",
                self.read,
                crate::units::grouped(self.bounds.documents)
            )));
        }
        if self.bytes > self.max_bytes {
            return Err(stopped(format!(
                "{}: more than {} bytes — stopped (a read is bounded; see docs/watch.md)",
                self.read,
                crate::units::grouped(self.max_bytes)
            )));
        }
        Ok(())
    }

    /// Counts one `getMore` about to be sent.
    pub fn get_more(&mut self) -> Result<(), LiveError> {
        self.get_mores += 1;
        if self.get_mores > self.bounds.get_mores {
            return Err(stopped(format!(
                "{}: more than {} getMores — stopped (a cursor that does not end; a read is bounded, see docs/watch.md)",
                self.read,
                crate::units::grouped(self.bounds.get_mores)
            )));
        }
        Ok(())
    }
}

/// A `hello` reply's `maxMessageSizeBytes`, refused when larger than a real server's.
pub fn check_hello(target: &str, hello: &bson::Document) -> Result<(), LiveError> {
    let advertised = match hello.get("maxMessageSizeBytes") {
        Some(bson::Bson::Int32(n)) => i64::from(*n),
        Some(bson::Bson::Int64(n)) => *n,
        Some(bson::Bson::Double(n)) => *n as i64,
        _ => return Ok(()),
    };
    if advertised > MAX_MESSAGE_SIZE_BYTES {
        return Err(stopped(format!(
            "{target} advertises maxMessageSizeBytes {} in hello, more than the {} a real mongos sends — refused (replies are never accepted above {})",
            crate::units::grouped(advertised.max(0) as u64),
            crate::units::grouped(MAX_MESSAGE_SIZE_BYTES as u64),
            crate::units::grouped(MAX_MESSAGE_SIZE_BYTES as u64),
        )));
    }
    Ok(())
}

/// The read the client is waiting for, and since when (shared by the client's clones).
#[derive(Clone, Debug, Default)]
pub struct InFlight(Arc<Mutex<Option<(String, Instant)>>>);

impl InFlight {
    /// Marks `read` as waited for until the guard is dropped.
    pub fn begin(&self, read: String) -> InFlightGuard {
        if let Ok(mut w) = self.0.lock() {
            *w = Some((read, Instant::now()));
        }
        InFlightGuard(self.clone())
    }

    /// The read waited for and for how long, if any.
    pub fn now(&self) -> Option<(String, Duration)> {
        let w = self.0.lock().ok()?;
        w.as_ref().map(|(r, at)| (r.clone(), at.elapsed()))
    }
}

/// Clears the read in flight when dropped (the reply came, or the wait was given up).
pub struct InFlightGuard(InFlight);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        if let Ok(mut w) = (self.0).0.lock() {
            *w = None;
        }
    }
}

/// How a command names its read: `find config.chunks`, `aggregate admin ($currentOp)`,
/// `getMore config.chunks`.
pub fn read_name(db: &str, cmd: &bson::Document) -> String {
    let Some((name, value)) = cmd.iter().next() else {
        return db.to_string();
    };
    let target = match (name.as_str(), value) {
        ("getMore", _) => cmd
            .get_str("collection")
            .map_or(db.to_string(), |c| format!("{db}.{c}")),
        (_, bson::Bson::String(c)) => format!("{db}.{c}"),
        _ => db.to_string(),
    };
    let stage = cmd
        .get_array("pipeline")
        .ok()
        .and_then(|p| p.first())
        .and_then(bson::Bson::as_document)
        .and_then(|s| s.keys().next().cloned());
    match stage {
        Some(s) if target == db => format!("{name} {target} ({s})"),
        _ => format!("{name} {target}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn a_read_past_its_bounds_is_named() {
        let b = Bounds {
            documents: 2,
            bytes: 1_000,
            held_bytes: 500,
            get_mores: 1,
        };
        let mut t = Tally::new("find config.chunks".into(), b);
        t.document(10).expect("one");
        t.document(10).expect("two");
        let e = t.document(10).expect_err("three");
        assert_eq!(
            e.message,
            "find config.chunks: more than 2 documents — stopped (a read is bounded; see docs/watch.md)"
        );
        let mut t = Tally::new("aggregate shop.orders".into(), b);
        let e = t.document(1_001).expect_err("bytes");
        assert!(
            e.message
                .starts_with("aggregate shop.orders: more than 1,000 bytes")
        );
        let mut t = Tally::new("find config.shards".into(), b);
        t.get_more().expect("one getMore");
        assert!(
            t.get_more()
                .expect_err("two")
                .message
                .contains("more than 1 getMores")
        );
    }

    #[test]
    fn hello_advertising_more_than_a_mongos_is_refused() {
        let real = doc! {"maxMessageSizeBytes": 48_000_000};
        assert!(check_hello("mongodb://h", &real).is_ok());
        let big = doc! {"maxMessageSizeBytes": 200_000_000};
        let e = check_hello("mongodb://h", &big).expect_err("refused");
        assert!(
            e.message.contains("maxMessageSizeBytes 200,000,000")
                && e.message.contains("48,000,000"),
            "{}",
            e.message
        );
    }

    #[test]
    fn reads_are_named_by_command_and_namespace() {
        let find = doc! {"find": "chunks", "filter": {}};
        assert_eq!(read_name("config", &find), "find config.chunks");
        let more = doc! {"getMore": 7_i64, "collection": "chunks"};
        assert_eq!(read_name("config", &more), "getMore config.chunks");
        let agg = doc! {"aggregate": 1, "pipeline": [{"$currentOp": {}}]};
        assert_eq!(read_name("admin", &agg), "aggregate admin ($currentOp)");
    }

    #[test]
    fn the_read_in_flight_is_cleared_with_its_guard() {
        let f = InFlight::default();
        let g = f.begin("find config.shards".into());
        assert_eq!(
            f.now().map(|(r, _)| r).as_deref(),
            Some("find config.shards")
        );
        drop(g);
        assert!(f.now().is_none());
    }
}
