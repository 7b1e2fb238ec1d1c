//! Change streams: `aggregate` whose first stage is `$changeStream` opens a tailable cursor over
//! the change events of acknowledged writes (sharded and unsharded collections alike): `insert`
//! (inserts and inserting upserts, with `fullDocument`), `update` (with `updateDescription`),
//! `replace` (with `fullDocument`) and `delete`, each with `documentKey`, and `drop`, `rename`,
//! `dropDatabase` followed by the `invalidate` that closes the streams on what they removed (the shard-key fields
//! and `_id`). A shard-key update is one `update` (or `replace`) event, as the client issued it.
//! Events live in a bounded ring (the newest [`HISTORY`]); each has a sequence number, and its
//! resume token is that number in hex (`{_data: "000000000000002A"}`).
//!
//! Scopes: a collection (`aggregate: "coll"`), a database (`aggregate: 1`), the cluster
//! (`aggregate: 1` on admin with `allChangesForCluster: true`). Options: `resumeAfter` /
//! `startAfter` (a token of this server), `startAtOperationTime`, `fullDocument: "updateLookup"`
//! (an update event carries the document as kept when the event is read, null when it is gone);
//! other options are accepted and ignored. `$match` and `$project` may follow; other stages are
//! refused.
//!
//! A `getMore` with nothing to return is held by its connection (see [`wait_deadline`]) until an
//! event arrives or `maxTimeMS` (default 1000 ms) passes, as a server's awaitData does; the
//! drivers loop on empty batches, so answering at once would make them spin.

use std::time::{Duration, Instant};

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;
use crate::serve::state::change_events::{ChangeStreams, Scope, Stream, token};

/// How long an empty `getMore` is held without `maxTimeMS`.
const DEFAULT_AWAIT_MS: u64 = 1000;
/// The longest an empty `getMore` is held.
const MAX_AWAIT_MS: u64 = 60_000;
/// A first batch's default size.
const DEFAULT_BATCH: usize = 101;
/// A batch stops growing past this many bytes.
const BATCH_BYTES: usize = 8 << 20;

fn history_lost() -> MongoError {
    MongoError {
        code: 286,
        code_name: "ChangeStreamHistoryLost",
        message: "Resume of change stream was not possible, as the resume point may no longer \
                  be in the oplog."
            .into(),
    }
}

fn parse_token(v: &Bson) -> Result<u64, MongoError> {
    let Bson::Document(d) = v else {
        return Err(reply::type_mismatch("a resume token must be an object"));
    };
    match d.get("_data") {
        Some(Bson::String(s)) => u64::from_str_radix(s, 16).map_err(|_| {
            MongoError::bad_value(format!(
                "resume token {s:?} was not issued by this shardtop serve"
            ))
        }),
        _ => Err(MongoError::bad_value(
            "a resume token must hold a string _data",
        )),
    }
}

/// `aggregate` whose first stage is `$changeStream` (`spec`), followed by `rest`.
pub fn open(
    state: &mut State,
    db: &str,
    coll: Option<&str>,
    spec: &Bson,
    rest: Vec<Document>,
    cmd: &Document,
) -> Answer {
    let Bson::Document(spec) = spec else {
        return Err(reply::type_mismatch(
            "the $changeStream stage specification must be an object",
        ));
    };
    let all = reply::flag(spec, "allChangesForCluster");
    let scope = match coll {
        Some(_) if db == "admin" || db == "config" => {
            return Err(reply::invalid_namespace(format!(
                "$changeStream may not be opened on the internal {db} database"
            )));
        }
        Some(c) => Scope::Coll(format!("{db}.{c}")),
        None if all && db == "admin" => Scope::Cluster,
        None if all => {
            return Err(reply::invalid_namespace(
                "A $changeStream with 'allChangesForCluster:true' may only be opened on the \
                 'admin' database",
            ));
        }
        None if db == "admin" || db == "config" => {
            return Err(reply::invalid_namespace(format!(
                "$changeStream may not be opened on the internal {db} database"
            )));
        }
        None => Scope::Db(db.to_string()),
    };
    for stage in &rest {
        match stage.iter().next() {
            Some((name, Bson::Document(f))) if name == "$match" => {
                crate::serve::query::matches(&Document::new(), f)?;
            }
            Some((name, Bson::Document(_))) if name == "$project" => {}
            Some((name, _)) => {
                return Err(MongoError::illegal_operation(format!(
                    "{name} is not permitted in a $changeStream pipeline on shardtop serve \
                     (only $match and $project are applied)"
                )));
            }
            None => {}
        }
    }
    let streams = &state.streams;
    let oldest = streams
        .events
        .front()
        .map_or(streams.last_seq, |e| e.seq - 1);
    let position = match (
        spec.get("resumeAfter").or_else(|| spec.get("startAfter")),
        spec.get("startAtOperationTime"),
    ) {
        (Some(t), _) => {
            let seq = parse_token(t)?;
            if seq < oldest {
                return Err(history_lost());
            }
            seq
        }
        (None, Some(Bson::Timestamp(t))) => streams
            .events
            .iter()
            .find(|e| (e.at.time, e.at.increment) >= (t.time, t.increment))
            .map_or(streams.last_seq, |e| e.seq - 1),
        (None, Some(_)) => {
            return Err(reply::type_mismatch(
                "startAtOperationTime must be a Timestamp",
            ));
        }
        (None, None) => streams.last_seq,
    };
    let batch = match reply::opt_doc(cmd, "cursor")? {
        Some(c) => reply::opt_count(c, "batchSize")?.map_or(DEFAULT_BATCH, |n| n.max(0) as usize),
        None => {
            return Err(MongoError::bad_value("The 'cursor' option is required"));
        }
    };
    let ns = coll.map_or_else(|| format!("{db}.$cmd.aggregate"), |c| format!("{db}.{c}"));
    let mut stream = Stream {
        ns: ns.clone(),
        scope,
        position,
        stages: rest,
        lookup: matches!(spec.get("fullDocument"), Some(Bson::String(f)) if f == "updateLookup"),
        owner: state.connection,
        session: state.session.clone(),
        used: std::time::Instant::now(),
        invalidated: false,
    };
    let first = next_batch(&state.streams, &state.store, &mut stream, batch)?;
    let resume = token(stream.position);
    let id = keep(&mut state.streams, stream);
    Ok(ok(doc! { "cursor": {
        "firstBatch": first, "id": id, "ns": ns, "postBatchResumeToken": resume,
    } }))
}

/// Keeps `stream` open under a new cursor id, or closes it (id 0) when it was invalidated.
fn keep(streams: &mut ChangeStreams, stream: Stream) -> i64 {
    streams.next_id += 1;
    if stream.invalidated {
        return 0;
    }
    let id = 0x5EED_C500_0000 + streams.next_id;
    streams.cursors.insert(id, stream);
    id
}

/// The events after the stream's position in its scope, through its stages, at most `n`;
/// advances the position past every event looked at.
fn next_batch(
    streams: &ChangeStreams,
    store: &crate::serve::state::store::Store,
    s: &mut Stream,
    n: usize,
) -> Result<Vec<Bson>, MongoError> {
    let mut out = Vec::new();
    let mut bytes = 0;
    if streams
        .events
        .front()
        .is_some_and(|e| s.position.saturating_add(1) < e.seq)
    {
        // The cursor fell behind the ring: events it has not seen were dropped.
        return Err(history_lost());
    }
    let start = streams.start_of(s.position).min(streams.events.len());
    for e in streams.events.range(start..) {
        if out.len() >= n || bytes > BATCH_BYTES {
            break;
        }
        s.position = e.seq;
        if !e.reaches(&s.scope) {
            continue;
        }
        if e.invalidate {
            // The stream ends with its `invalidate`: the cursor closes (id 0).
            out.push(Bson::Document(e.doc.clone()));
            s.invalidated = true;
            break;
        }
        let mut event = e.doc.clone();
        if s.lookup && event.get_str("operationType") == Ok("update") {
            let id = event
                .get_document("documentKey")
                .ok()
                .and_then(|k| k.get("_id"))
                .cloned()
                .unwrap_or(Bson::Null);
            let now = store.by_id(&e.ns, &id).map(|(_, d)| d.doc.clone());
            event.insert("fullDocument", now.map_or(Bson::Null, Bson::Document));
        }
        let mut docs = vec![event];
        for stage in &s.stages {
            docs = crate::serve::query::pipeline::apply(stage, docs)?;
        }
        for d in docs {
            bytes += crate::wire::document_len(&d);
            out.push(Bson::Document(d));
        }
    }
    Ok(out)
}

/// `getMore` on change-stream cursor `id`; `None` when `id` is not one. The cursor stays open.
pub fn get_more(state: &mut State, id: i64, n: usize) -> Option<Answer> {
    let mut stream = state.streams.cursors.remove(&id)?;
    let batch = next_batch(&state.streams, &state.store, &mut stream, n);
    let ns = stream.ns.clone();
    let resume = token(stream.position);
    stream.used = std::time::Instant::now();
    let id = if stream.invalidated {
        0
    } else {
        state.streams.cursors.insert(id, stream);
        id
    };
    Some(batch.map(|b| {
        ok(doc! { "cursor": {
            "nextBatch": b, "id": id, "ns": ns, "postBatchResumeToken": resume,
        } })
    }))
}

/// When `cmd` is a `getMore` on a change stream with nothing to return: until when to hold it.
pub fn wait_deadline(state: &State, cmd: &Document) -> Option<Instant> {
    if cmd.keys().next().map(String::as_str) != Some("getMore") {
        return None;
    }
    let Some(Bson::Int64(id)) = cmd.get("getMore") else {
        return None;
    };
    if !state.streams.cursors.contains_key(id) || state.streams.has_events(*id) {
        return None;
    }
    let ms = match cmd.get("maxTimeMS") {
        Some(Bson::Int32(n)) if *n > 0 => *n as u64,
        Some(Bson::Int64(n)) if *n > 0 => *n as u64,
        _ => DEFAULT_AWAIT_MS,
    };
    Some(Instant::now() + Duration::from_millis(ms.min(MAX_AWAIT_MS)))
}

/// Whether a held `getMore` (`cmd`) can be answered: events arrived, its cursor is gone, or
/// `deadline` passed.
pub fn ready(state: &State, cmd: &Document, deadline: Instant) -> bool {
    Instant::now() >= deadline
        || match cmd.get("getMore") {
            Some(Bson::Int64(id)) => state.streams.has_events(*id),
            _ => true,
        }
}
