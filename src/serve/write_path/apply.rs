//! Changing kept documents, the way a mongos and its shards do it: which documents a query
//! matches, the routing rules for single-document writes on a sharded collection, and carrying
//! out an update or a delete — in the store, in the simulator (a write on the owning chunk's
//! shard, a move when the shard key changes, a delete taking the document out of its chunk) and
//! in the change events.

use bson::{Bson, Document};

use crate::cluster::{MongoError, ServerVersion};
use crate::model::target;
use crate::serve::query;
use crate::serve::query::update::Applied;
use crate::serve::state::State;
use crate::serve::state::change_events::Change;
use crate::serve::write_path::observe as change_stream;

/// The insertion numbers of the kept documents of `ns` that match `q`, in natural order.
pub fn matching(state: &State, ns: &str, q: &Document) -> Result<Vec<u64>, MongoError> {
    query::matches(&Document::new(), q)?;
    // What this reader sees instead of the store (a transaction's snapshot, others' locks).
    let view = state.sessions.view(ns);
    let seen = |d: &'_ Document| -> Option<Document> {
        let v = view.as_ref()?;
        let id = crate::model::extjson::from_bson(d.get("_id").unwrap_or(&Bson::Null));
        v.get(&id).map(|x| x.clone().unwrap_or_default())
    };
    let test = |d: &Document| -> Result<bool, MongoError> {
        match seen(d) {
            Some(s) if s.is_empty() => Ok(false),
            Some(s) => query::matches(&s, q),
            None => query::matches(d, q),
        }
    };
    if let Some(id) =
        equality(q, "_id").filter(|_| !matches!(q.get("_id"), Some(Bson::Document(_))))
    {
        // An exact `_id` goes through the `_id` index, as on a server.
        return Ok(match state.store.by_id(ns, id) {
            Some((seq, s)) if test(&s.doc)? => vec![seq],
            _ => Vec::new(),
        });
    }
    crate::serve::query::in_sets::prepared(q, || {
        let mut out = Vec::new();
        for (i, (seq, s)) in state.store.iter(ns).enumerate() {
            crate::serve::query::deadline::check_every(i)?;
            if test(&s.doc)? {
                out.push(seq);
            }
        }
        Ok(out)
    })
}

/// Like [`matching`], ordered by `sort` (natural order breaks ties).
pub fn matching_sorted(
    state: &State,
    ns: &str,
    q: &Document,
    sort: Option<&Document>,
) -> Result<Vec<u64>, MongoError> {
    let seqs = matching(state, ns, q)?;
    let Some(sort) = sort.filter(|s| !s.is_empty()) else {
        return Ok(seqs);
    };
    let mut docs: Vec<Document> = seqs
        .iter()
        .filter_map(|s| {
            let mut d = state.store.get(ns, *s)?.doc.clone();
            d.insert("$shardtopSeq", *s as i64);
            Some(d)
        })
        .collect();
    query::sort(&mut docs, sort)?;
    Ok(docs
        .iter()
        .filter_map(|d| d.get_i64("$shardtopSeq").ok().map(|s| s as u64))
        .collect())
}

/// `q`'s equality value at `path` (a literal dotted field or a nested one), if a plain value.
pub fn equality<'a>(q: &'a Document, path: &str) -> Option<&'a Bson> {
    let v = q.get(path).or_else(|| query::get_path(q, path))?;
    match v {
        Bson::Document(d) if d.keys().any(|k| k.starts_with('$')) => match d.get("$eq") {
            Some(inner) if d.len() == 1 => Some(inner),
            _ => None,
        },
        Bson::Array(_) | Bson::RegularExpression(_) => None,
        v => Some(v),
    }
}

/// The shard-key paths of `ns` when it is sharded.
fn key_paths(state: &State, ns: &str) -> Option<Vec<String>> {
    let c = state.sim.cluster.collection_index(ns)?;
    (state.sim.cluster.collections[c].placement == crate::cluster::Placement::Sharded)
        .then(|| change_stream::key_paths(state, c))
}

/// Whether `q` names every shard-key field of `ns` by equality (true when not sharded).
pub fn has_full_key(state: &State, ns: &str, q: &Document) -> bool {
    key_paths(state, ns).is_none_or(|paths| paths.iter().all(|p| equality(q, p).is_some()))
}

/// Before 7.0 a single-document update or delete on a sharded collection must target one shard
/// (by its shard key) or match an exact `_id`; from 7.0 any query is accepted.
pub fn targets_one(state: &State, ns: &str, q: &Document) -> bool {
    let cluster = &state.sim.cluster;
    if cluster.version >= ServerVersion::V7_0 {
        return true;
    }
    let Some(coll) = cluster.collection(ns) else {
        return true;
    };
    (equality(q, "_id").is_some() && !matches!(q.get("_id"), Some(Bson::Document(_))))
        || target(&coll.pattern, &coll.table, q).shards.len() == 1
}

/// The shard key pattern of `ns` as a document (for error messages).
pub fn key_pattern(state: &State, ns: &str) -> Document {
    state
        .sim
        .cluster
        .collection(ns)
        .map(|c| c.pattern.to_document())
        .unwrap_or_default()
}

/// The shard key pattern of `ns` as the server prints it in messages.
pub fn key_pattern_text(state: &State, ns: &str) -> String {
    crate::model::shell_text::document(&key_pattern(state, ns))
}

/// An upsert on a sharded collection must name the whole shard key by equality (in the query,
/// or — for a replacement — in the replacement document).
pub fn check_upsert_key(
    state: &State,
    ns: &str,
    q: &Document,
    replacement: Option<&Document>,
) -> Result<(), MongoError> {
    let Some(paths) = key_paths(state, ns) else {
        return Ok(());
    };
    let named = |p: &String| {
        equality(q, p).is_some() || replacement.is_some_and(|r| query::get_path(r, p).is_some())
    };
    if paths.iter().all(named) {
        return Ok(());
    }
    Err(MongoError {
        code: 61,
        code_name: "ShardKeyNotFound",
        message: format!(
            "Failed to target upsert by query :: could not extract exact shard key from {} for \
             shard key pattern {}",
            crate::model::shell_text::document(q),
            key_pattern_text(state, ns)
        ),
    })
}

/// Carries out `applied` on the kept document `seq` of `ns` (nothing when it changed nothing):
/// the simulator counts a write on the owning chunk (or moves the document when its shard key
/// changed), the store takes the new document, a change event is recorded. `replace` for a
/// replacement. Returns whether the document moved to another chunk's key.
pub fn modify(
    state: &mut State,
    ns: &str,
    seq: u64,
    applied: &Applied,
    replace: bool,
) -> Result<bool, MongoError> {
    if !applied.changed() {
        return Ok(false);
    }
    let Some(old) = state.store.get(ns, seq).cloned() else {
        return Ok(false);
    };
    crate::serve::write_path::route::validate(state, ns, &applied.doc, Some(&old.doc))?;
    state.uniques.check(ns, Some(seq), &applied.doc)?;
    if !state.sessions.restoring {
        state.store.check_room(&applied.doc, Some(&old.doc))?;
    }
    let id = old.doc.get("_id").cloned().unwrap_or(Bson::Null);
    state.sessions.may_write(ns, &id)?;
    let moved = match state.sim.cluster.collection_index(ns) {
        Some(c) => {
            check_key_change(state, c, &old.doc, &applied.doc)?;
            state
                .sim
                .update_document(c, &old.doc, &applied.doc, old.bytes)?
        }
        None => false,
    };
    state.sessions.wrote(ns, &id, Some(&old.doc));
    state.store.replace(ns, seq, applied.doc.clone());
    state
        .uniques
        .record(ns, seq, Some(&old.doc), Some(&applied.doc));
    let paths = key_paths(state, ns).unwrap_or_default();
    let change = if replace {
        Change::Replace
    } else {
        Change::Update {
            updated: applied.updated.clone(),
            removed: applied.removed.clone(),
        }
    };
    change_stream::record(state, ns, &paths, &applied.doc, change);
    Ok(moved)
}

/// Deletes the kept document `seq` of `ns`: out of the store, out of its chunk's counts, a
/// delete event. Returns the document.
pub fn remove(state: &mut State, ns: &str, seq: u64) -> Result<Option<Document>, MongoError> {
    let Some(old) = state.store.get(ns, seq).cloned() else {
        return Ok(None);
    };
    let id = old.doc.get("_id").cloned().unwrap_or(Bson::Null);
    state.sessions.may_write(ns, &id)?;
    state.sessions.wrote(ns, &id, Some(&old.doc));
    match state.sim.cluster.collection_index(ns) {
        Some(c) => state.sim.delete_document(c, &old.doc, old.bytes)?,
        None => {
            if let Some(u) = state.unsharded.get_mut(ns) {
                u.count = u.count.saturating_sub(1);
            }
        }
    }
    state.store.remove(ns, seq);
    state.uniques.record(ns, seq, Some(&old.doc), None);
    let paths = key_paths(state, ns).unwrap_or_default();
    change_stream::record(state, ns, &paths, &old.doc, Change::Delete);
    Ok(Some(old.doc))
}

/// A change of a document's shard key value must be a retryable write or run in a transaction
/// (8.0 `db/query/write_ops/update_stage.cpp`, `checkUpdateChangesShardKeyFields`); from 8.0 the
/// shard's plan executor adds its context to the message.
fn check_key_change(
    state: &State,
    c: usize,
    old: &Document,
    new: &Document,
) -> Result<(), MongoError> {
    if state.sessions.has_txn_number()
        || state.sessions.restoring
        || state.sim.cluster.collections[c].placement != crate::cluster::Placement::Sharded
    {
        return Ok(());
    }
    if state.sim.shard_key_of(c, old).ok() == state.sim.shard_key_of(c, new).ok() {
        return Ok(());
    }
    let reason = "Must run update to shard key field in a multi-statement transaction or with \
                  retryWrites: true.";
    let message = if state.sim.cluster.version >= ServerVersion::V8_0 {
        let during = match state.sessions.command.as_str() {
            "findAndModify" | "findandmodify" => "findAndModify",
            _ => "update",
        };
        format!("Plan executor error during {during} :: caused by :: {reason}")
    } else {
        reason.to_string()
    };
    Err(MongoError::illegal_operation(message))
}
