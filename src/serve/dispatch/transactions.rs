//! The transaction commands and what a command in a transaction does around its handler:
//! `commitTransaction` and `abortTransaction`, an error inside a transaction aborting it, and
//! the `TransientTransactionError` label on the errors a driver retries (`db/error_labels.cpp`).
//! The sessions themselves are `txn`.

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::model::extjson::to_bson;
use crate::serve::query::update::Applied;
use crate::serve::reply::raw_reply::Reply;
use crate::serve::reply::{Answer, ok};
use crate::serve::state::State;
use crate::serve::state::sessions::{Current, TxnState, write_conflict};

fn current_lsid(state: &State) -> Result<Vec<u8>, MongoError> {
    match &state.sessions.current {
        Current::Txn(l) => Ok(l.clone()),
        _ => Err(MongoError::invalid_options(
            "commitTransaction can only be run within a session",
        )),
    }
}

/// `commitTransaction`: the transaction's writes stay, its change events are published.
pub fn commit(state: &mut State) -> Answer {
    let lsid = current_lsid(state)?;
    let done = state.sessions.finish(&lsid, true);
    state.sessions.current = Current::None;
    for e in done.events {
        crate::serve::write_path::observe::record(state, &e.ns, &e.key_paths, &e.doc, e.change);
    }
    Ok(ok(Document::new()))
}

/// `abortTransaction`: every document the transaction wrote goes back to its version before.
pub fn abort_command(state: &mut State) -> Answer {
    let lsid = current_lsid(state).map_err(|_| {
        MongoError::invalid_options("abortTransaction can only be run within a session")
    })?;
    abort(state, &lsid)?;
    Ok(ok(Document::new()))
}

/// Aborts the session's open transaction, writing back what it changed.
pub fn abort(state: &mut State, lsid: &[u8]) -> Result<(), MongoError> {
    let done = state.sessions.finish(lsid, false);
    let current = std::mem::take(&mut state.sessions.current);
    state.sessions.restoring = true;
    let result = restore(state, done.restore);
    state.sessions.restoring = false;
    state.sessions.current = current;
    result
}

fn restore(
    state: &mut State,
    versions: Vec<(String, crate::model::KeyValue, Option<Document>)>,
) -> Result<(), MongoError> {
    for (ns, id, before) in versions {
        let now = state.store.by_id(&ns, &to_bson(&id)).map(|(seq, _)| seq);
        match (now, before) {
            (Some(seq), None) => {
                crate::serve::write_path::apply::remove(state, &ns, seq)?;
            }
            (Some(seq), Some(doc)) => {
                let applied = Applied {
                    updated: doc.clone(),
                    doc,
                    removed: Vec::new(),
                };
                crate::serve::write_path::apply::modify(state, &ns, seq, &applied, true)?;
            }
            (None, Some(doc)) => {
                crate::serve::write_path::route::insert_one(state, &ns, doc)?;
            }
            (None, None) => {}
        }
    }
    Ok(())
}

/// Begins the command's session work: the server's errors for bad session fields; a
/// transaction a newer one replaces is aborted first.
pub fn begin(
    state: &mut State,
    name: &str,
    cmd: &Document,
    in_transaction: bool,
) -> Result<(), MongoError> {
    if let Some(old) = state.sessions.begin_command(name, cmd, in_transaction)? {
        let number = cmd.get_i64("txnNumber").unwrap_or_default();
        state.sessions.current = Current::None;
        abort(state, &old)?;
        state.sessions.start(&old, number);
        state.sessions.current = Current::Txn(old);
    }
    Ok(())
}

/// After a command of a transaction: an error (or a write error) aborts the transaction; a
/// WriteConflict becomes the command's error, labelled for the driver's retry.
pub fn end(
    state: &mut State,
    name: &str,
    result: Result<Reply, MongoError>,
) -> Result<Reply, MongoError> {
    let Current::Txn(lsid) = state.sessions.current.clone() else {
        return result;
    };
    if matches!(name, "commitTransaction" | "abortTransaction") {
        return result;
    }
    let conflict = match &result {
        Err(_) => true,
        Ok(Reply::Doc(d)) => d.get_array("writeErrors").is_ok_and(|e| !e.is_empty()),
        Ok(_) => false,
    };
    if !conflict || state.sessions.state_of(&lsid) != Some(TxnState::Active) {
        return result;
    }
    abort(state, &lsid)?;
    match result {
        Ok(Reply::Doc(d)) if first_write_error_code(&d) == Some(112) => Err(write_conflict()),
        other => other,
    }
}

fn first_write_error_code(d: &Document) -> Option<i32> {
    let first = d.get_array("writeErrors").ok()?.first()?.as_document()?;
    first.get_i32("code").ok()
}

/// The error reply, labelled `TransientTransactionError` where a driver should retry the
/// whole transaction (`isTransientTransactionError`).
pub fn labelled(mut reply: Document, e: &MongoError, in_txn: bool) -> Document {
    if in_txn && matches!(e.code, 112 | 251 | 24) {
        reply.insert(
            "errorLabels",
            Bson::Array(vec![Bson::String("TransientTransactionError".into())]),
        );
    }
    reply
}

/// Whether a reply to `cmd` comes from a transaction (for the labels).
pub fn in_txn(cmd: &Document) -> bool {
    cmd.get("autocommit").is_some()
}
