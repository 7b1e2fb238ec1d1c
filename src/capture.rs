//! A capture: one read-only poll of a live cluster kept as the conversation it was — each read
//! the poller sent and what the server answered (every document of a drained cursor, a command's
//! reply, or the error that refused it) — so that `open` can run the same poller over it offline,
//! `--anonymize` can rewrite it, and a mongosh script can write the same file.
//!
//! Owns: the capture's records and header. May not touch: the network, the terminal, the
//! simulator; it knows nothing of how a poll interprets the documents (that is `live`'s).

use std::sync::Mutex;

use bson::Document;

pub mod anonymize;
mod bounded_json;
mod fast_batch;
pub mod file;
mod file_reader;
pub mod once;
pub mod raw_documents;
pub mod replay;

/// The newest capture format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// One capture: a header and the reads in the order the poll made them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Capture {
    /// The format version of the file ([`FORMAT_VERSION`] when written by this build).
    pub format: u32,
    /// Milliseconds since the Unix epoch when the poll began (the capture's clock).
    pub captured_at_ms: u64,
    /// The hosts read, without user or password (`live::client::hosts`), or a pseudonym when
    /// anonymized.
    pub target: String,
    /// The mongos's `buildInfo.version`, when it answered.
    pub server_version: Option<String>,
    /// Whether names and shard-key values were replaced by stand-ins.
    pub anonymized: bool,
    /// The reads, in the order they were sent.
    pub reads: Vec<CapturedRead>,
}

/// One read and its outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct CapturedRead {
    /// The database the command was sent to.
    pub db: String,
    /// The command as sent (for a cursor: the first command; `getMore`s are not kept, their
    /// documents are in [`Outcome::Documents`]).
    pub command: Document,
    pub outcome: Outcome,
}

/// What the server answered to one read.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every document of a cursor (`find`, `aggregate`), in the order received.
    Documents(Vec<Document>),
    /// A command's whole reply (`hello`, `buildInfo`, `balancerStatus`, …).
    Reply(Document),
    /// The server's error, as it gave it.
    Error {
        code: Option<i32>,
        code_name: Option<String>,
        message: String,
    },
}

/// The reads of a poll as it makes them (`capture`): the client keeps each one here.
#[derive(Debug, Default)]
pub struct Recorder {
    reads: Mutex<Vec<CapturedRead>>,
}

impl Recorder {
    /// Keeps one read and its outcome.
    pub fn keep(&self, db: &str, command: Document, outcome: Outcome) {
        if let Ok(mut reads) = self.reads.lock() {
            reads.push(CapturedRead {
                db: db.to_string(),
                command,
                outcome,
            });
        }
    }

    /// How many reads are kept.
    pub fn len(&self) -> usize {
        self.reads.lock().map_or(0, |r| r.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The reads kept so far, in order (taken: the recorder is empty after).
    pub fn take(&self) -> Vec<CapturedRead> {
        self.reads
            .lock()
            .map(|mut r| std::mem::take(&mut *r))
            .unwrap_or_default()
    }
}
