//! Retryable writes outside a transaction (`lsid` + `txnNumber`, no `autocommit`), as a shard's
//! `db/transaction/transaction_participant.cpp` runs them under a mongos:
//!
//! - a newer `txnNumber` runs the write and keeps its reply (`_beginOrContinueRetryableWrite`:
//!   "New retryable write");
//! - the same `txnNumber` again is a retry: answered with the first reply, the write not run again
//!   (the retryable-writes docs: a retried write "returns the result of the first execution");
//! - an older one is TransactionTooOld (225), "Retryable write with txnNumber N is prohibited on
//!   session S because a newer retryable write|transaction with txnNumber M has already started
//!   on this session." (`beginOrContinue`);
//! - the number of a transaction the session ran is IncompleteTransactionHistory (217), "Cannot
//!   retry a retryable write that has been converted into a transaction".
//!
//! The shard's error comes back through the mongos as it forwards a shard's failed batch: a
//! write error for each statement of the batch, `ok: 1`, `n: 0` (`s/write_ops/batch_write_op.cpp`,
//! `noteBatchResponse` → `noteBatchError`); `findAndModify` forwards it as its own error.
//!
//! Simplifications (docs/fidelity.md): the whole first reply is kept (a server keeps each
//! statement's result by `stmtId`, so a retry carrying more statements runs the new ones, and
//! from the lines with internal transactions the reply names `retriedStmtIds`); a transaction
//! begun with a number below a retryable write's is not refused here; the session id in the
//! message is rendered as `<id> - <uid>` with the uid of no user (SHA-256 of nothing), our reading
//! of `LogicalSessionId`'s text form, not confirmed on a server.

use std::fmt::Write as _;

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::serve::reply::raw_reply::Reply;
use crate::serve::state::State;
use crate::serve::state::sessions::Current;

/// The commands a driver retries as retryable writes (the retryable-writes specification's list,
/// `bulkWrite` aside: `serve` does not answer it).
pub fn is_retryable_write(name: &str) -> bool {
    matches!(
        name,
        "insert" | "update" | "delete" | "findAndModify" | "findandmodify"
    )
}

/// The session and number of a retryable write being answered.
pub struct Attempt {
    lsid: Vec<u8>,
    number: i64,
}

/// Before the handler: `Err` with the reply when the write must not run (a retry answered with
/// its first reply, or a refused number); `Ok(Some(attempt))` when it runs and its reply is to be
/// kept; `Ok(None)` when it is not a retryable write.
pub fn before(state: &State, name: &str, cmd: &Document) -> Result<Option<Attempt>, Box<Answered>> {
    if state.sessions.current != Current::Retryable || !is_retryable_write(name) {
        return Ok(None);
    }
    let (Some(lsid), Some(number)) = (
        crate::serve::state::sessions::session_id(cmd),
        txn_number(cmd),
    ) else {
        return Ok(None);
    };
    let write = state.retryable.get(&lsid);
    let txn = state.sessions.txn_number_of(&lsid);
    let (latest, what) = match (write.map(|w| w.txn_number), txn) {
        (Some(w), Some(t)) if t > w => (Some(t), "transaction"),
        (Some(w), _) => (Some(w), "retryable write"),
        (None, Some(t)) => (Some(t), "transaction"),
        (None, None) => (None, ""),
    };
    let Some(latest) = latest else {
        return Ok(Some(Attempt { lsid, number }));
    };
    if number < latest {
        let e = MongoError {
            code: 225,
            code_name: "TransactionTooOld",
            message: format!(
                "Retryable write with txnNumber {number} is prohibited on session {} because a \
                 newer {what} with txnNumber {latest} has already started on this session.",
                session_text(cmd)
            ),
        };
        return Err(Box::new(shard_error(name, cmd, e)));
    }
    if number == latest {
        if what == "transaction" {
            let e = MongoError {
                code: 217,
                code_name: "IncompleteTransactionHistory",
                message: "Cannot retry a retryable write that has been converted into a \
                          transaction"
                    .to_string(),
            };
            return Err(Box::new(shard_error(name, cmd, e)));
        }
        if let Some(reply) = write.and_then(|w| w.reply.clone()) {
            return Err(Box::new(Ok(Reply::Doc(reply))));
        }
    }
    Ok(Some(Attempt { lsid, number }))
}

/// A command's answer decided before its handler.
pub type Answered = Result<Reply, MongoError>;

/// After the handler: the reply of a retryable write is kept for its retries (a failed command is
/// kept as nothing, so that its retry runs).
pub fn after(state: &mut State, attempt: Option<Attempt>, result: &Result<Reply, MongoError>) {
    let Some(Attempt { lsid, number }) = attempt else {
        return;
    };
    // A write held behind an open transaction has not run yet: it runs again when the
    // transaction ends, and that is the answer to remember.
    if state.sessions.blocked.is_some() {
        return;
    }
    let reply = match result {
        Ok(Reply::Doc(d)) => Some(d.clone()),
        _ => None,
    };
    state.retryable.record(&lsid, number, reply);
}

fn txn_number(cmd: &Document) -> Option<i64> {
    match cmd.get("txnNumber")? {
        Bson::Int64(n) => Some(*n),
        Bson::Int32(n) => Some(i64::from(*n)),
        _ => None,
    }
}

/// The shard's error as the mongos answers it: a write error per statement of a write command
/// (`batch_write_op.cpp`), the command's error for `findAndModify`.
fn shard_error(name: &str, cmd: &Document, e: MongoError) -> Answered {
    let field = match name {
        "insert" => "documents",
        "update" => "updates",
        "delete" => "deletes",
        _ => return Err(e),
    };
    let statements = cmd.get_array(field).map_or(0, Vec::len);
    let errors: Vec<Bson> = (0..statements)
        .map(|i| crate::serve::write_path::statements::write_error(i, &e))
        .collect();
    let mut reply = doc! { "n": 0 };
    if !errors.is_empty() {
        reply.insert("writeErrors", errors);
    }
    Ok(Reply::Doc(crate::serve::reply::ok(reply)))
}

/// The SHA-256 of no bytes: the `uid` of a session without an authenticated user
/// (`db/logical_session_id_helpers.cpp`, `getLogicalSessionUserDigestForLoggedInUser`).
const NO_USER_UID: &str = "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855";

fn session_text(cmd: &Document) -> String {
    let id = match cmd.get_document("lsid").ok().and_then(|l| l.get("id")) {
        Some(Bson::Binary(b)) if b.bytes.len() == 16 => {
            let mut h = String::with_capacity(32);
            for x in &b.bytes {
                let _ = write!(h, "{x:02x}");
            }
            format!(
                "{}-{}-{}-{}-{}",
                &h[0..8],
                &h[8..12],
                &h[12..16],
                &h[16..20],
                &h[20..32]
            )
        }
        Some(other) => other.to_string(),
        None => String::new(),
    };
    format!("{id} - {NO_USER_UID}")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_retryable_writes_are_the_four_crud_writes() {
        assert!(is_retryable_write("insert"));
        assert!(is_retryable_write("findAndModify"));
        assert!(!is_retryable_write("find"));
        assert!(!is_retryable_write("aggregate"));
    }

    #[test]
    fn an_older_number_is_a_write_error_per_statement() {
        let cmd = doc! { "insert": "c", "documents": [{"a": 1}, {"a": 2}] };
        let e = MongoError {
            code: 225,
            code_name: "TransactionTooOld",
            message: "old".into(),
        };
        let Ok(Reply::Doc(d)) = shard_error("insert", &cmd, e.clone()) else {
            panic!("a reply document")
        };
        assert_eq!(d.get_i32("n").unwrap(), 0);
        assert_eq!(d.get_array("writeErrors").unwrap().len(), 2);
        assert!(shard_error("findAndModify", &cmd, e).is_err());
    }
}
