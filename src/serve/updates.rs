//! `update`, `delete` and `findAndModify`, as far as they can be answered honestly without
//! documents. A statement is carried out only when its query names the whole shard key by
//! equality (it is routed to one chunk) and:
//!
//! * the collection keeps its documents' key fields (scenario `keepDocuments`, or after a refine)
//!   and one matches: a `$set` that changes shard-key fields moves it with
//!   [`crate::sim::Simulator::update_shard_key`] (a delete on the old chunk's shard, an insert on
//!   the new one); one that sets the key to the values it has modifies nothing; none matches:
//!   `n: 0`, or with `upsert` an insert;
//! * the collection keeps no documents and the statement is an `upsert`: it is taken as an insert
//!   (routed and counted by [`super::writes::route`]) — the server cannot know whether the
//!   document exists.
//!
//! Everything else — deletes, multi updates, queries on other fields, updates of fields that are
//! not kept, `findAndModify` that must return a stored document — is refused with
//! CommandNotSupported (115) and a message saying why, never a made-up success.

use bson::oid::ObjectId;
use bson::{Bson, Document, doc};

use super::reply::{self, Answer, ok};
use super::state::State;
use super::writes::route;
use crate::sim::SimError;

/// The message every refusal starts with.
const NO_DOCS: &str = "shardtop serve keeps no documents";

/// What one update statement did.
enum Outcome {
    /// The matching document, found among the kept ones; `moved` when its shard key changed.
    Matched { moved: bool },
    /// Nothing matched (kept documents say so) and there was no upsert.
    NoMatch,
    /// An upsert inserted this document.
    Inserted(Document),
}

fn not_supported(why: impl std::fmt::Display) -> SimError {
    SimError::command_not_supported(format!("{NO_DOCS}: {why}"))
}

fn refuse_generated(db: &str, coll: &str) -> Result<(), SimError> {
    if db == "config" || db == "admin" {
        return Err(SimError {
            code: 13,
            code_name: "Unauthorized",
            message: format!(
                "cannot write to '{db}.{coll}': the simulated cluster's {db} database is generated"
            ),
        });
    }
    Ok(())
}

/// `update` with `updates` from the body or a document sequence; `ordered` honoured.
pub fn update(state: &mut State, db: &str, cmd: &Document) -> Answer {
    let coll = reply::first_string(cmd, "update")?;
    refuse_generated(db, &coll)?;
    let Some(Bson::Array(updates)) = cmd.get("updates") else {
        return Err(reply::failed_to_parse("update needs an updates array"));
    };
    let ordered = !matches!(cmd.get("ordered"), Some(Bson::Boolean(false)));
    let ns = format!("{db}.{coll}");
    let (mut n, mut modified) = (0i32, 0i32);
    let (mut upserted, mut errors) = (Vec::new(), Vec::new());
    for (i, stmt) in updates.iter().enumerate() {
        let Bson::Document(stmt) = stmt else {
            return Err(reply::type_mismatch("updates must be objects"));
        };
        let q = reply::doc_arg(stmt, "q")?;
        let multi = reply::flag(stmt, "multi");
        let result = if multi {
            Err(not_supported(
                "a multi update needs the documents it matches",
            ))
        } else {
            apply(state, &ns, q, stmt.get("u"), reply::flag(stmt, "upsert"))
        };
        match result {
            Ok(Outcome::Matched { moved }) => {
                n += 1;
                modified += i32::from(moved);
            }
            Ok(Outcome::NoMatch) => {}
            Ok(Outcome::Inserted(d)) => {
                n += 1;
                let id = d.get("_id").cloned().unwrap_or(Bson::Null);
                upserted.push(Bson::Document(doc! { "index": i as i32, "_id": id }));
            }
            Err(e) => {
                errors.push(Bson::Document(doc! {
                    "index": i as i32, "code": e.code, "codeName": e.code_name, "errmsg": e.message,
                }));
                if ordered {
                    break;
                }
            }
        }
    }
    let mut reply = doc! { "n": n, "nModified": modified };
    if !upserted.is_empty() {
        reply.insert("upserted", upserted);
    }
    if !errors.is_empty() {
        reply.insert("writeErrors", errors);
    }
    Ok(ok(reply))
}

/// `delete`: refused — which documents match, and so what leaves which chunk, is not known.
pub fn delete(_state: &mut State, db: &str, cmd: &Document) -> Answer {
    let coll = reply::first_string(cmd, "delete")?;
    refuse_generated(db, &coll)?;
    Err(not_supported(
        "delete cannot know which documents match, so it is not carried out",
    ))
}

/// `findAndModify` with `update` and `upsert` where the upsert inserts (the reply's `value` is
/// the inserted document with `new: true`, null otherwise) or nothing matches among the kept
/// documents; anything that must return a stored document is refused.
pub fn find_and_modify(state: &mut State, db: &str, cmd: &Document) -> Answer {
    let name = cmd.keys().next().cloned().unwrap_or_default();
    let coll = reply::first_string(cmd, &name)?;
    refuse_generated(db, &coll)?;
    if reply::flag(cmd, "remove") {
        return Err(not_supported(
            "findAndModify with remove cannot return or remove a document",
        ));
    }
    let empty = Document::new();
    let q = reply::opt_doc(cmd, "query")?.unwrap_or(&empty);
    let ns = format!("{db}.{coll}");
    match apply(state, &ns, q, cmd.get("update"), reply::flag(cmd, "upsert"))? {
        Outcome::Matched { .. } => Err(not_supported(
            "findAndModify must return the matching document, whose other fields are not kept",
        )),
        Outcome::NoMatch => Ok(ok(doc! {
            "lastErrorObject": { "n": 0, "updatedExisting": false },
            "value": Bson::Null,
        })),
        Outcome::Inserted(d) => {
            let id = d.get("_id").cloned().unwrap_or(Bson::Null);
            let value = if reply::flag(cmd, "new") {
                Bson::Document(d)
            } else {
                Bson::Null
            };
            Ok(ok(doc! {
                "lastErrorObject": { "n": 1, "updatedExisting": false, "upserted": id },
                "value": value,
            }))
        }
    }
}

/// The changes of `u`: `$set`'s fields, or a replacement document's; pipelines and other
/// operators are refused.
fn changes(u: Option<&Bson>) -> Result<Document, SimError> {
    match u {
        Some(Bson::Document(u)) if u.keys().all(|k| !k.starts_with('$')) => Ok(u.clone()),
        Some(Bson::Document(u)) => {
            if let Some(op) = u.keys().find(|k| *k != "$set") {
                return Err(not_supported(format!(
                    "{op} needs the stored document; only $set (or a replacement) is carried out"
                )));
            }
            Ok(reply::doc_arg(u, "$set")?.clone())
        }
        Some(Bson::Array(_)) => Err(not_supported("a pipeline update needs the stored document")),
        _ => Err(reply::failed_to_parse("the update must be a document")),
    }
}

/// `q`'s equality value at `path` (a literal dotted field or a nested one), if a plain value.
fn equality<'a>(q: &'a Document, path: &str) -> Option<&'a Bson> {
    let v = q.get(path).or_else(|| super::query::get_path(q, path))?;
    match v {
        Bson::Document(d) if d.keys().any(|k| k.starts_with('$')) => match d.get("$eq") {
            Some(inner) if d.len() == 1 => Some(inner),
            _ => None,
        },
        Bson::Array(_) | Bson::RegularExpression(_) => None,
        v => Some(v),
    }
}

/// Carries out one single-document update of `ns` (see the module docs for what is possible).
fn apply(
    state: &mut State,
    ns: &str,
    q: &Document,
    u: Option<&Bson>,
    upsert: bool,
) -> Result<Outcome, SimError> {
    let set = changes(u)?;
    let Some(c) = state.sim.cluster.collection_index(ns) else {
        return Err(not_supported(format!(
            "{ns} is not sharded, and updates need its documents"
        )));
    };
    let coll = &state.sim.cluster.collections[c];
    let key_paths: Vec<String> = coll
        .pattern
        .fields()
        .iter()
        .map(|f| f.path.to_string())
        .collect();
    if let Some(missing) = key_paths.iter().find(|p| equality(q, p).is_none()) {
        return Err(not_supported(format!(
            "the query must name the whole shard key by equality (no equality on '{missing}')"
        )));
    }
    let Some(store) = coll.docs.as_ref() else {
        if upsert {
            return insert(state, c, q, &set);
        }
        return Err(not_supported(format!(
            "an update of {ns} needs to know whether a document matches; only upserts are carried \
             out (as inserts)"
        )));
    };
    let fields = store.fields.clone();
    if let Some(other) = q.keys().find(|k| !fields.contains(k)) {
        return Err(not_supported(format!(
            "only the fields {fields:?} are kept, so '{other}' cannot be matched"
        )));
    }
    let wanted: Vec<(usize, crate::model::KeyValue)> = q
        .iter()
        .filter_map(|(k, _)| {
            let at = fields.iter().position(|f| f == k)?;
            equality(q, k).map(|v| (at, crate::model::extjson::from_bson(v)))
        })
        .collect();
    let found = store.docs.iter().find(|(values, _)| {
        wanted.len() == q.len() && wanted.iter().all(|(k, v)| values[*k] == *v)
    });
    let Some((values, _)) = found else {
        return if upsert {
            insert(state, c, q, &set)
        } else {
            Ok(Outcome::NoMatch)
        };
    };
    if let Some(other) = set.keys().find(|k| !fields.contains(k) && *k != "_id") {
        return Err(not_supported(format!(
            "only the fields {fields:?} are kept, so '{other}' cannot be updated"
        )));
    }
    let kept_set: Document = set
        .iter()
        .filter(|(k, _)| fields.contains(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let changed = kept_set.iter().any(|(k, v)| {
        fields
            .iter()
            .position(|f| f == k)
            .is_some_and(|at| values[at] != crate::model::extjson::from_bson(v))
    });
    if !changed {
        return Ok(Outcome::Matched { moved: false });
    }
    let find: Document = q
        .keys()
        .filter_map(|k| equality(q, k).map(|v| (k.clone(), v.clone())))
        .collect();
    state.sim.update_shard_key(ns, &find, &kept_set)?;
    Ok(Outcome::Matched { moved: true })
}

/// An upsert's insert: `q`'s equality fields, then `set`'s (or the replacement's) fields; an
/// `_id` is generated when neither names one.
fn insert(state: &mut State, c: usize, q: &Document, set: &Document) -> Result<Outcome, SimError> {
    let mut d = Document::new();
    for (k, _) in q {
        if let Some(v) = equality(q, k) {
            d.insert(k.clone(), v.clone());
        }
    }
    for (k, v) in set {
        d.insert(k.clone(), v.clone());
    }
    if !d.contains_key("_id") {
        let mut with_id = doc! { "_id": ObjectId::new() };
        with_id.extend(d);
        d = with_id;
    }
    route(state, c, &d).map_err(SimError::bad_value)?;
    let paths = super::change_stream::key_paths(state, c);
    let ns = state.sim.cluster.collections[c].ns.clone();
    super::change_stream::record_insert(state, &ns, &paths, &d);
    Ok(Outcome::Inserted(d))
}
