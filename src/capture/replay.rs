//! Answering a poll's reads from a capture (`open`): a read is matched by its database and its
//! command exactly as the poller builds it — the same fields in the same order with the same
//! BSON types — once the fields a driver or shell adds to what it sends are set aside (`lsid`,
//! `$db`, `$clusterTime`, `$readPreference`, `batchSize`). The poller of this build sends the same
//! commands for the same answers, so a capture it made answers every read of a replayed poll; a
//! read sent twice is answered in order, and again with its last answer. A read the capture does
//! not hold is noted (the client answers it with an error the poller degrades on).
//!
//! Owns: the matching of reads. May not touch: the network; what a read's answer means.

use std::collections::HashMap;
use std::sync::Mutex;

use bson::{Bson, Document};

use super::raw_documents::Documents;
use super::{Capture, Outcome};

/// Fields a driver or shell adds to a command, and `batchSize` (how the answer is cut into
/// batches, not what it holds): not part of a read's identity.
pub const SET_ASIDE: &[&str] = &[
    "lsid",
    "$db",
    "$clusterTime",
    "$readPreference",
    "batchSize",
];

/// A read's identity: its database and its command without [`SET_ASIDE`], as canonical Extended
/// JSON (order and BSON types count).
pub fn key(db: &str, command: &Document) -> String {
    let mut c = command.clone();
    for f in SET_ASIDE {
        c.remove(*f);
    }
    format!("{db}\u{0}{}", Bson::Document(c).into_canonical_extjson())
}

/// What the server answered to one read, as a replay holds it: an [`Outcome`] whose documents
/// are packed ([`Documents`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Documents(Documents),
    Reply(Document),
    Error {
        code: Option<i32>,
        code_name: Option<String>,
        message: String,
    },
}

impl From<Outcome> for Answer {
    fn from(o: Outcome) -> Self {
        match o {
            Outcome::Documents(d) => Self::Documents(Documents::of(d)),
            Outcome::Reply(d) => Self::Reply(d),
            Outcome::Error {
                code,
                code_name,
                message,
            } => Self::Error {
                code,
                code_name,
                message,
            },
        }
    }
}

/// A capture's reads, ready to answer.
#[derive(Debug)]
pub struct Replay {
    pub captured_at_ms: u64,
    pub target: String,
    pub server_version: Option<String>,
    outcomes: Vec<Answer>,
    /// Each read's identity → the captured reads with it, in order.
    by_key: HashMap<String, Vec<usize>>,
    /// How many answers of each identity were given.
    given: Mutex<HashMap<String, usize>>,
    /// The reads asked that the capture does not hold, in words, in order (each once).
    missing: Mutex<Vec<String>>,
}

impl Replay {
    pub fn new(capture: Capture) -> Self {
        let mut replay = Self::empty(
            capture.captured_at_ms,
            capture.target,
            capture.server_version,
        );
        for r in capture.reads {
            replay.push(&r.db, &r.command, r.outcome.into());
        }
        replay
    }

    /// A replay of no reads yet (the reads follow with [`Replay::push`]).
    pub fn empty(captured_at_ms: u64, target: String, server_version: Option<String>) -> Self {
        Self {
            captured_at_ms,
            target,
            server_version,
            outcomes: Vec::new(),
            by_key: HashMap::new(),
            given: Mutex::new(HashMap::new()),
            missing: Mutex::new(Vec::new()),
        }
    }

    /// Adds the next read of the capture and its answer.
    pub fn push(&mut self, db: &str, command: &Document, answer: Answer) {
        let i = self.outcomes.len();
        self.by_key.entry(key(db, command)).or_default().push(i);
        self.outcomes.push(answer);
    }

    /// The captured answer to `command` on `db`; `None` when the capture does not hold it.
    pub fn answer(&self, db: &str, command: &Document) -> Option<&Answer> {
        let k = key(db, command);
        let found = self.by_key.get(&k)?;
        let mut given = self.given.lock().ok()?;
        let n = given.entry(k).or_insert(0);
        let i = found[(*n).min(found.len() - 1)];
        *n += 1;
        self.outcomes.get(i)
    }

    /// Notes a read the capture does not hold (`what`: the read in words).
    pub fn note_missing(&self, what: String) {
        if let Ok(mut m) = self.missing.lock()
            && !m.contains(&what)
        {
            m.push(what);
        }
    }

    /// The reads asked that the capture does not hold, in order.
    pub fn missing(&self) -> Vec<String> {
        self.missing.lock().map(|m| m.clone()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::CapturedRead;
    use bson::doc;

    fn capture(reads: Vec<(&str, Document, Outcome)>) -> Capture {
        Capture {
            format: 1,
            reads: reads
                .into_iter()
                .map(|(db, command, outcome)| CapturedRead {
                    db: db.into(),
                    command,
                    outcome,
                })
                .collect(),
            ..Capture::default()
        }
    }

    #[test]
    fn a_read_matches_exactly_once_driver_fields_are_set_aside() {
        let reply = |n: i32| Answer::Reply(doc! {"n": n});
        let replay = Replay::new(capture(vec![
            (
                "admin",
                doc! {"balancerStatus": 1},
                Outcome::Reply(doc! {"n": 1}),
            ),
            (
                "config",
                doc! {"find": "shards", "filter": {}},
                Outcome::Reply(doc! {"n": 2}),
            ),
            (
                "config",
                doc! {"find": "shards", "filter": {}},
                Outcome::Reply(doc! {"n": 3}),
            ),
        ]));
        let lsid = doc! {"balancerStatus": 1, "lsid": {"id": 1}, "$db": "admin"};
        assert_eq!(replay.answer("admin", &lsid), Some(&reply(1)));
        // Another database, another number type, another field order: not the same read.
        assert_eq!(replay.answer("config", &doc! {"balancerStatus": 1}), None);
        assert_eq!(replay.answer("admin", &doc! {"balancerStatus": 1.0}), None);
        let swapped = doc! {"filter": {}, "find": "shards"};
        assert_eq!(replay.answer("config", &swapped), None);
        // Asked again: answered in order, then with the last answer.
        let find = doc! {"find": "shards", "filter": {}, "batchSize": 10_000};
        assert_eq!(replay.answer("config", &find), Some(&reply(2)));
        assert_eq!(replay.answer("config", &find), Some(&reply(3)));
        assert_eq!(replay.answer("config", &find), Some(&reply(3)));
        replay.note_missing("find config.tags".into());
        replay.note_missing("find config.tags".into());
        assert_eq!(replay.missing(), vec!["find config.tags".to_string()]);
    }
}
