//! The client's side of a capture: keeping each read and its answer as the poll makes it
//! (`capture`), and answering the reads of a poll from a capture instead of a cluster (`open`) —
//! the same answers, so the same poller makes the same state, and the same refusals, so it
//! degrades as it did. A read the capture does not hold is answered with an error the poller
//! degrades on, saying "not in the capture".
//!
//! Owns: the backend of a client (the network or a capture) and how an answer is kept and given
//! back. May not touch: what the poller makes of the answers.

use std::sync::Arc;

use bson::{Document, RawDocument, RawDocumentBuf, doc};
use mongodb::Client;
use mongodb::error::ErrorKind;

use super::{LiveClient, LiveError, command_error, hosts};
use crate::capture::raw_documents::Documents;
use crate::capture::replay::{Answer, Replay};
use crate::capture::{Outcome, Recorder};
use crate::live::bounds::{Bounds, InFlight, Tally, read_name};

/// The `code` of the error that answers a read a capture does not hold. Not a server's code (no
/// MongoDB error code is negative): it marks the read for the poller, which degrades on it as on
/// a refusal and says "not in the capture".
pub const NOT_IN_CAPTURE: i32 = -1;

/// Where a client's reads go.
#[derive(Clone, Debug)]
pub(super) enum Backend {
    Network(Client),
    /// A capture answers them (`open`): nothing leaves the process.
    Capture(Arc<Replay>),
}

/// What a capture keeps of one command sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Keep {
    /// Its reply or its refusal.
    Whole,
    /// Its refusal only (a cursor's first command: `drain_batches` keeps the documents).
    Refusal,
    Nothing,
}

/// A failed command as a capture keeps it: the server's code, code name and message when the
/// server refused it; else the failure in shardtop's words.
pub(super) fn refusal(e: &mongodb::error::Error, live: &LiveError) -> Outcome {
    match &*e.kind {
        ErrorKind::Command(c) => Outcome::Error {
            code: Some(c.code),
            code_name: Some(c.code_name.clone()),
            message: c.message.clone(),
        },
        _ => failed(live),
    }
}

/// A read that failed after it began (a `getMore` refused, a bound passed), as a capture keeps
/// it: its code, if any, and shardtop's words.
pub(super) fn failed(e: &LiveError) -> Outcome {
    Outcome::Error {
        code: e.code,
        code_name: None,
        message: e.message.clone(),
    }
}

/// The command a capture keeps for a scan: the `find` it is.
pub(super) fn scan_command(coll: &str, filter: Document) -> Document {
    doc! {"find": coll, "filter": filter}
}

/// A raw document of a scan, owned for the capture.
pub(super) fn owned(raw: &RawDocument) -> Result<Document, LiveError> {
    Document::try_from(raw).map_err(|e| LiveError {
        message: format!("a document that cannot be kept in the capture: {e}"),
        input: false,
        unauthorized: false,
        code: None,
    })
}

pub(super) fn no_network() -> (Outcome, LiveError) {
    let e = LiveError {
        message: "a capture's reads are answered from it, not from a cluster".into(),
        input: false,
        unauthorized: false,
        code: None,
    };
    (failed(&e), e)
}

impl LiveClient {
    /// A client whose reads the capture answers (`open`): no connection is made.
    pub fn replaying(replay: Arc<Replay>) -> Self {
        Self {
            uri: replay.target.clone(),
            backend: Backend::Capture(replay),
            recorder: None,
            bounds: Bounds::default(),
            in_flight: InFlight::default(),
            hello: Arc::default(),
        }
    }

    /// The same client keeping every read and its answer in the recorder returned (`capture`).
    #[must_use]
    pub fn recording(mut self) -> (Self, Arc<Recorder>) {
        let recorder = Arc::new(Recorder::default());
        self.recorder = Some(recorder.clone());
        (self, recorder)
    }

    /// The capture answering this client's reads, if it replays one.
    pub fn replay(&self) -> Option<&Arc<Replay>> {
        match &self.backend {
            Backend::Capture(r) => Some(r),
            Backend::Network(_) => None,
        }
    }

    /// The captured answer to a read, or the error saying it is not in the capture.
    fn answer<'r>(replay: &'r Replay, db: &str, cmd: &Document) -> Result<&'r Answer, LiveError> {
        replay.answer(db, cmd).ok_or_else(|| {
            let read = read_name(db, cmd);
            replay.note_missing(read.clone());
            LiveError {
                message: format!("{read}: not in the capture"),
                input: false,
                unauthorized: false,
                code: Some(NOT_IN_CAPTURE),
            }
        })
    }

    /// A captured error as the poll saw it.
    fn error_of(&self, code: Option<i32>, code_name: Option<&str>, message: &str) -> LiveError {
        match (code, code_name) {
            (Some(code), Some(name)) => command_error(&hosts(&self.uri), code, name, message),
            _ => LiveError {
                message: message.to_string(),
                input: false,
                unauthorized: code == Some(13),
                code,
            },
        }
    }

    fn wrong(read: &str, held: &str) -> LiveError {
        LiveError {
            message: format!("{read}: the capture holds {held} for it"),
            input: false,
            unauthorized: false,
            code: None,
        }
    }

    /// A command's reply from the capture.
    pub(super) fn replayed_reply(
        &self,
        replay: &Replay,
        db: &str,
        cmd: &Document,
    ) -> Result<Document, LiveError> {
        match Self::answer(replay, db, cmd)? {
            Answer::Reply(d) => Ok(d.clone()),
            Answer::Error {
                code,
                code_name,
                message,
            } => Err(self.error_of(*code, code_name.as_deref(), message)),
            Answer::Documents(_) => Err(Self::wrong(
                &read_name(db, cmd),
                "a cursor's documents, not a reply,",
            )),
        }
    }

    /// A cursor's documents from the capture.
    pub(super) fn replayed_documents(
        &self,
        replay: &Replay,
        db: &str,
        cmd: &Document,
    ) -> Result<Vec<Document>, LiveError> {
        self.replayed_packed(replay, db, cmd).map(Documents::to_vec)
    }

    /// A cursor's documents from the capture, as it holds them.
    fn replayed_packed<'r>(
        &self,
        replay: &'r Replay,
        db: &str,
        cmd: &Document,
    ) -> Result<&'r Documents, LiveError> {
        match Self::answer(replay, db, cmd)? {
            Answer::Documents(d) => Ok(d),
            Answer::Error {
                code,
                code_name,
                message,
            } => Err(self.error_of(*code, code_name.as_deref(), message)),
            Answer::Reply(_) => Err(Self::wrong(
                &read_name(db, cmd),
                "a reply, not a cursor's documents,",
            )),
        }
    }

    /// A scan's documents from the capture, each handed to `each` raw, within the bounds.
    pub(super) fn replayed_scan(
        &self,
        replay: &Replay,
        (db, coll): (&str, &str),
        filter: Document,
        mut each: impl FnMut(&RawDocument) -> Result<(), LiveError>,
    ) -> Result<usize, LiveError> {
        let cmd = scan_command(coll, filter);
        let docs = self.replayed_packed(replay, db, &cmd)?;
        let mut tally = Tally::new(read_name(db, &cmd), self.bounds);
        match docs {
            // Handed over as they are held: no document is built.
            Documents::Packed(p) => {
                for raw in p.iter() {
                    tally.document(raw.as_bytes().len())?;
                    each(raw)?;
                }
            }
            Documents::Kept(kept) => {
                for d in kept {
                    let raw = RawDocumentBuf::from_document(d).map_err(|e| LiveError {
                        message: format!("{}: {e}", read_name(db, &cmd)),
                        input: false,
                        unauthorized: false,
                        code: None,
                    })?;
                    tally.document(raw.as_bytes().len())?;
                    each(&raw)?;
                }
            }
        }
        Ok(docs.len())
    }
}
