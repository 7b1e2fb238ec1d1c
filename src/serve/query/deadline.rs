//! `maxTimeMS`: the time limit of the command being answered, checked by the loops that can run
//! long (reads over the kept documents, pipeline stages, multi-document writes). Past it the
//! command fails with MaxTimeMSExpired (50) "operation exceeded time limit", as a server's
//! `OperationContext::checkForInterrupt` does (src/mongo/db/operation_context.cpp).
//!
//! The limit is thread-local for the span of one command ([`Limit::of`]): commands are answered
//! one at a time on the thread that holds the state's lock.

use std::cell::Cell;
use std::time::{Duration, Instant};

use bson::{Bson, Document};

use crate::cluster::MongoError;

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// The limit of one command, lifted when dropped.
pub struct Limit(Option<Instant>);

/// When `cmd`'s `maxTimeMS` (counted from `from`) runs out; none when absent or 0.
pub fn at(cmd: &Document, from: Instant) -> Option<Instant> {
    let ms = match cmd.get("maxTimeMS") {
        Some(Bson::Int32(n)) => i64::from(*n),
        Some(Bson::Int64(n)) => *n,
        Some(Bson::Double(d)) if d.is_finite() => *d as i64,
        _ => 0,
    };
    (ms > 0).then(|| from + Duration::from_millis(ms.unsigned_abs()))
}

impl Limit {
    /// The limit `cmd`'s `maxTimeMS` sets (none when absent or 0).
    pub fn of(cmd: &Document) -> Self {
        let at = at(cmd, Instant::now());
        Self(DEADLINE.with(|d| d.replace(at)))
    }
}

impl Drop for Limit {
    fn drop(&mut self) {
        DEADLINE.with(|d| d.set(self.0));
    }
}

/// The error once the command's time limit has passed.
pub fn check() -> Result<(), MongoError> {
    match DEADLINE.with(Cell::get) {
        Some(at) if Instant::now() >= at => Err(expired()),
        _ => Ok(()),
    }
}

/// Checks every 256th call of a loop (`i` its counter).
pub fn check_every(i: usize) -> Result<(), MongoError> {
    if i.is_multiple_of(256) {
        check()
    } else {
        Ok(())
    }
}

/// MaxTimeMSExpired (50).
pub fn expired() -> MongoError {
    MongoError {
        code: 50,
        code_name: "MaxTimeMSExpired",
        message: "operation exceeded time limit".into(),
    }
}
