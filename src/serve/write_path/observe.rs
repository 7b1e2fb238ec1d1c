//! Observing writes for change streams: every acknowledged insert, update, replacement and delete
//! becomes a change event in [`crate::serve::state::change_events`] (held by the transaction
//! until it commits).
//!
//! May import `state`, `query` and `reply`.

use bson::{Bson, DateTime, Document, Timestamp, doc};

use crate::serve::query::get_path;
use crate::serve::state::State;
use crate::serve::state::change_events::{Change, Event, token};

/// Records the insert of `d` into `ns`, whose shard key has `key_paths` (none when unsharded).
pub fn record_insert(state: &mut State, ns: &str, key_paths: &[String], d: &Document) {
    let full = crate::serve::query::paths::with_id(d.clone());
    record(state, ns, key_paths, &full, Change::Insert);
}

/// Records `change` of document `d` (its new version; for a delete, the one deleted) in `ns`.
/// `documentKey` is the shard-key fields and `_id`; an insert and a replace carry the document
/// as `fullDocument`, an update its `updateDescription`.
pub fn record(state: &mut State, ns: &str, key_paths: &[String], d: &Document, change: Change) {
    if state.sessions.restoring {
        return;
    }
    if let Some(held) = state.sessions.holding() {
        held.push(crate::serve::state::sessions::HeldEvent {
            ns: ns.to_string(),
            key_paths: key_paths.to_vec(),
            doc: d.clone(),
            change,
        });
        return;
    }
    let mut key = Document::new();
    for p in key_paths {
        key.insert(p.clone(), get_path(d, p).cloned().unwrap_or(Bson::Null));
    }
    if !key.contains_key("_id") {
        key.insert("_id", d.get("_id").cloned().unwrap_or(Bson::Null));
    }
    let now = state.now_millis();
    let streams = &mut state.streams;
    streams.last_seq += 1;
    let seq = streams.last_seq;
    let at = Timestamp {
        time: (now / 1000) as u32,
        increment: seq as u32,
    };
    let (db, coll) = ns.split_once('.').unwrap_or((ns, ""));
    let op = match change {
        Change::Insert => "insert",
        Change::Update { .. } => "update",
        Change::Replace => "replace",
        Change::Delete => "delete",
    };
    let mut event = doc! {
        "_id": token(seq),
        "operationType": op,
        "clusterTime": at,
        "wallTime": DateTime::from_millis(now),
        "ns": { "db": db, "coll": coll },
        "documentKey": key,
    };
    match change {
        Change::Insert | Change::Replace => {
            event.insert("fullDocument", d.clone());
        }
        Change::Update { updated, removed } => {
            event.insert(
                "updateDescription",
                doc! { "updatedFields": updated, "removedFields": removed, "truncatedArrays": [] },
            );
        }
        Change::Delete => {}
    }
    streams.record(Event {
        seq,
        ns: ns.to_string(),
        at,
        doc: event,
        invalidate: false,
    });
}

/// What a collection or database operation does, as its change event says it.
pub enum Ddl<'a> {
    /// `drop` of collection `db.coll`.
    Drop(&'a str),
    /// `renameCollection` from the first namespace to the second.
    Rename(&'a str, &'a str),
    /// `dropDatabase` of a database.
    DropDatabase(&'a str),
}

/// Records the change event of `ddl` and the `invalidate` that follows it for the streams opened
/// on what it removed (`db/pipeline/change_stream_event_transform.cpp`: `drop`, `rename`,
/// `dropDatabase`; `document_source_change_stream_check_invalidate.cpp`: a collection's stream
/// is invalidated by its drop or rename, a database's by its drop).
pub fn record_ddl(state: &mut State, ddl: &Ddl<'_>) {
    let split = |ns: &str| {
        let (db, coll) = ns.split_once('.').unwrap_or((ns, ""));
        doc! { "db": db, "coll": coll }
    };
    let (op, target, mut fields) = match ddl {
        Ddl::Drop(ns) => ("drop", *ns, doc! { "ns": split(ns) }),
        Ddl::Rename(from, to) => ("rename", *from, doc! { "ns": split(from), "to": split(to) }),
        Ddl::DropDatabase(db) => ("dropDatabase", *db, doc! { "ns": { "db": *db } }),
    };
    fields.insert("operationType", op);
    push(state, target, fields, false);
    push(state, target, doc! { "operationType": "invalidate" }, true);
}

/// Keeps an event of `fields` (its `_id`, `clusterTime` and `wallTime` added) on `ns`.
fn push(state: &mut State, ns: &str, fields: Document, invalidate: bool) {
    let now = state.now_millis();
    let streams = &mut state.streams;
    streams.last_seq += 1;
    let seq = streams.last_seq;
    let at = Timestamp {
        time: (now / 1000) as u32,
        increment: seq as u32,
    };
    let mut event = doc! {
        "_id": token(seq),
        "operationType": fields.get("operationType").cloned().unwrap_or(Bson::Null),
        "clusterTime": at,
        "wallTime": DateTime::from_millis(now),
    };
    for (k, v) in fields {
        if k != "operationType" {
            event.insert(k, v);
        }
    }
    streams.record(Event {
        seq,
        ns: ns.to_string(),
        at,
        doc: event,
        invalidate,
    });
}

/// The shard-key paths of sharded collection `c`.
pub fn key_paths(state: &State, c: usize) -> Vec<String> {
    state.sim.cluster.collections[c]
        .pattern
        .fields()
        .iter()
        .map(|f| f.path.to_string())
        .collect()
}
