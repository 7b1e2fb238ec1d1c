//! `update`, `delete` and `findAndModify` over the kept documents (see [`crate::serve::write_path::apply`] for how a
//! change reaches the simulator and the change events), with a mongos' rules for sharded
//! collections:
//!
//! * before 7.0 a single-document update or delete (`multi: false`, `limit: 1`) must target one
//!   shard by its shard key or match an exact `_id` — InvalidOptions (72) for an update,
//!   ShardKeyNotFound (61) for a delete — and `findAndModify` must name the whole shard key by
//!   equality (ShardKeyNotFound); from 7.0 any query is accepted;
//! * an upsert must name the whole shard key by equality (ShardKeyNotFound);
//! * an update that changes the shard key moves the document; it is refused in a multi update
//!   (InvalidOptions) and, before 7.0, when the query does not name the whole shard key by
//!   equality (31025).
//!
//! Documents that were not kept (past `--max-docs`, or written by the scenario's workload) are
//! not seen by these commands.

use bson::{Bson, Document, doc};

use crate::cluster::{MongoError, ServerVersion};
use crate::serve::query::Projection;
use crate::serve::query::update::{self, Update};
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;
use crate::serve::write_path::apply::{self, has_full_key, matching, matching_sorted, targets_one};
use crate::serve::write_path::route::insert_one;
use crate::serve::write_path::statements::{each_statement, refuse_generated, write_reply};

/// What one update statement did.
#[derive(Default)]
struct Outcome {
    n: i32,
    modified: i32,
    upserted: Option<Document>,
    /// The matched document before and after (findAndModify).
    before: Option<Document>,
    after: Option<Document>,
}

/// `update` with `updates` from the body or a document sequence; `ordered` honoured.
pub fn update(state: &mut State, db: &str, cmd: &Document) -> Answer {
    let mut modified = 0i32;
    let mut upserted = Vec::new();
    let (n, errors) = each_statement(
        state,
        db,
        cmd,
        ("update", "updates"),
        |state, ns, i, stmt| {
            let o = reply::doc_arg(stmt, "q").and_then(|q| {
            let u = update::parse(stmt.get("u"))?;
            let (multi, upsert) = (reply::flag(stmt, "multi"), reply::flag(stmt, "upsert"));
            if upsert {
                // mongos targets an upsert by its exact shard key first.
                let replacement = match &u {
                    Update::Replace(r) => Some(r),
                    Update::Ops(_) => None,
                };
                apply::check_upsert_key(state, ns, q, replacement)?;
            }
            if !multi && !targets_one(state, ns, q) {
                return Err(MongoError::invalid_options(format!(
                    "A {{multi:false}} update on a sharded collection must contain an exact match \
                     on _id (and have the collection default collation) or contain the shard key \
                     (and have the simple collation). Update request: {}, shard key pattern: {}",
                    crate::model::shell_text::document(stmt),
                    apply::key_pattern_text(state, ns)
                )));
            }
            apply(state, ns, q, &u, multi, upsert, None)
        })?;
            modified += o.modified;
            if let Some(d) = o.upserted {
                let id = d.get("_id").cloned().unwrap_or(Bson::Null);
                upserted.push(Bson::Document(doc! { "index": i as i32, "_id": id }));
            }
            Ok(o.n)
        },
    )?;
    let mut reply = doc! { "n": n, "nModified": modified };
    if !upserted.is_empty() {
        reply.insert("upserted", upserted);
    }
    if !errors.is_empty() {
        reply.insert("writeErrors", errors);
    }
    Ok(ok(reply))
}

/// One update statement: the matching documents (the first only unless `multi`; the first by
/// `sort` when given), or with `upsert` and no match, an insert.
fn apply(
    state: &mut State,
    ns: &str,
    q: &Document,
    u: &Update,
    multi: bool,
    upsert: bool,
    sort: Option<&Document>,
) -> Result<Outcome, MongoError> {
    if multi && matches!(u, Update::Replace(_)) {
        return Err(reply::failed_to_parse(
            "multi update is not supported for replacement-style update",
        ));
    }
    let replacement = match u {
        Update::Replace(r) => Some(r),
        Update::Ops(_) => None,
    };
    if upsert {
        apply::check_upsert_key(state, ns, q, replacement)?;
    }
    let mut seqs = matching_sorted(state, ns, q, sort)?;
    if !multi {
        seqs.truncate(1);
    }
    let mut out = Outcome::default();
    if seqs.is_empty() {
        if !upsert {
            return Ok(out);
        }
        let base = crate::serve::query::paths::upsert_base(q)?;
        let applied = update::apply(&base, u, true)?;
        let d = insert_one(state, ns, applied.doc)?;
        out.n = 1;
        out.after = Some(d.clone());
        out.upserted = Some(d);
        return Ok(out);
    }
    let key_paths = state
        .sim
        .cluster
        .collection_index(ns)
        .map(|c| crate::serve::write_path::observe::key_paths(state, c))
        .unwrap_or_default();
    for seq in seqs {
        let Some(old) = state.store.get(ns, seq).map(|s| s.doc.clone()) else {
            continue;
        };
        let applied = update::apply(&old, u, false)?;
        let key_changed = key_paths.iter().any(|p| {
            crate::serve::query::get_path(&old, p) != crate::serve::query::get_path(&applied.doc, p)
        });
        if key_changed {
            if multi {
                return Err(MongoError::invalid_options(
                    "Multi-update operations are not allowed when updating the shard key field.",
                ));
            }
            if state.sim.cluster.version < ServerVersion::V7_0 && !has_full_key(state, ns, q) {
                return Err(MongoError {
                    code: 31025,
                    code_name: "Location31025",
                    message: "Shard key update is not allowed without specifying the full shard \
                              key in the query"
                        .into(),
                });
            }
        }
        apply::modify(state, ns, seq, &applied, replacement.is_some())?;
        out.n += 1;
        out.modified += i32::from(applied.changed());
        out.before = Some(old);
        out.after = Some(applied.doc);
    }
    Ok(out)
}

/// `delete` with `deletes: [{q, limit}]` (`limit` 0: every match, 1: the first).
pub fn delete(state: &mut State, db: &str, cmd: &Document) -> Answer {
    let (n, errors) = each_statement(state, db, cmd, ("delete", "deletes"), |s, ns, _, stmt| {
        delete_one_stmt(s, ns, stmt)
    })?;
    Ok(write_reply(n, errors))
}

fn delete_one_stmt(state: &mut State, ns: &str, stmt: &Document) -> Result<i32, MongoError> {
    let q = reply::doc_arg(stmt, "q")?;
    let limit = match reply::opt_count(stmt, "limit")? {
        None | Some(0) => 0,
        Some(1) => 1,
        Some(other) => {
            return Err(reply::failed_to_parse(format!(
                "The limit field in delete objects must be 0 or 1. Got {other}"
            )));
        }
    };
    if limit == 1 && !targets_one(state, ns, q) {
        return Err(MongoError {
            code: 61,
            code_name: "ShardKeyNotFound",
            message: format!(
                "A single delete on a sharded collection must contain an exact match on _id (and \
                 have the collection default collation) or contain the shard key (and have the \
                 simple collation). Delete request: {}, shard key pattern: {}",
                crate::model::shell_text::document(stmt),
                apply::key_pattern_text(state, ns)
            ),
        });
    }
    let mut seqs = matching(state, ns, q)?;
    if limit == 1 {
        seqs.truncate(1);
    }
    let mut n = 0;
    for seq in seqs {
        if apply::remove(state, ns, seq)?.is_some() {
            n += 1;
        }
    }
    Ok(n)
}

/// `findAndModify`: `query`, `sort`, `remove` or `update` (+ `upsert`, `new`), `fields`.
pub fn find_and_modify(state: &mut State, db: &str, cmd: &Document) -> Answer {
    let name = cmd.keys().next().cloned().unwrap_or_default();
    let coll = reply::first_string(cmd, &name)?;
    refuse_generated(db, &coll)?;
    let ns = format!("{db}.{coll}");
    let empty = Document::new();
    let q = reply::opt_doc(cmd, "query")?.unwrap_or(&empty);
    let sort = reply::opt_doc(cmd, "sort")?;
    let fields = reply::opt_doc(cmd, "fields")?
        .map(Projection::parse)
        .transpose()?;
    let remove = reply::flag(cmd, "remove");
    if remove == cmd.contains_key("update") {
        return Err(reply::failed_to_parse(
            "Either an update or remove=true must be specified",
        ));
    }
    let sharded = state.sim.cluster.collection_index(&ns).is_some();
    if sharded && state.sim.cluster.version < ServerVersion::V7_0 && !has_full_key(state, &ns, q) {
        return Err(MongoError {
            code: 61,
            code_name: "ShardKeyNotFound",
            message: "Query for sharded findAndModify must contain the shard key".into(),
        });
    }
    let project = |d: Option<Document>| match (d, &fields) {
        (Some(d), Some(p)) => Bson::Document(p.apply(&d)),
        (Some(d), None) => Bson::Document(d),
        (None, _) => Bson::Null,
    };
    if remove {
        let seq = matching_sorted(state, &ns, q, sort)?.first().copied();
        let removed = match seq {
            Some(seq) => apply::remove(state, &ns, seq)?,
            None => None,
        };
        let n = i32::from(removed.is_some());
        return Ok(ok(doc! {
            "lastErrorObject": { "n": n },
            "value": project(removed),
        }));
    }
    let u = update::parse(cmd.get("update"))?;
    let o = apply(state, &ns, q, &u, false, reply::flag(cmd, "upsert"), sort)?;
    let mut last = doc! { "n": o.n, "updatedExisting": o.before.is_some() };
    if let Some(d) = &o.upserted {
        last.insert("upserted", d.get("_id").cloned().unwrap_or(Bson::Null));
    }
    let value = if reply::flag(cmd, "new") {
        o.after
    } else {
        o.before
    };
    Ok(ok(
        doc! { "lastErrorObject": last, "value": project(value) },
    ))
}
