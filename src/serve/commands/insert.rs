//! `insert`: every document gets an `_id` (an ObjectId) when it has none, is refused as
//! DuplicateKey (E11000) when a kept document has its `_id`, is routed by its shard key into the
//! simulator (counted per chunk and shard, so the TUI and the summary see the write), and is kept
//! in the [`crate::serve::state::store`] up to `--max-docs`. A collection that is not sharded is counted and
//! kept, not simulated. Every acknowledged insert is recorded for change streams.

use bson::oid::ObjectId;
use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::model::KeyValue;
use crate::model::extjson::from_bson;
use crate::serve::commands::change_stream;
use crate::serve::query::get_path;
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;
use crate::serve::state::store::duplicate_key;

pub fn field_value(d: &Document, path: &str) -> Result<KeyValue, String> {
    match get_path(d, path) {
        None => Ok(KeyValue::Null),
        Some(Bson::Array(_)) => Err(format!(
            "Shard key cannot contain an array value, found one at field '{path}'"
        )),
        Some(v) => Ok(from_bson(v)),
    }
}

/// Refuses writes to the generated `config` and `admin` databases.
pub fn refuse_generated(db: &str, coll: &str) -> Result<(), MongoError> {
    if db == "config" || db == "admin" {
        return Err(MongoError {
            code: 13,
            code_name: "Unauthorized",
            message: format!(
                "cannot write to '{db}.{coll}': the simulated cluster's {db} database is generated"
            ),
        });
    }
    Ok(())
}

/// A write error entry of a write command's reply.
pub fn write_error(index: usize, e: &MongoError) -> Bson {
    // `write_ops.cpp` (`WriteError::serialize`): index, code and errmsg, no codeName.
    let mut d = doc! { "index": index as i32, "code": e.code, "errmsg": e.message.clone() };
    if e.code == 11000 && e.message.contains(" index: _id_ ") {
        d.insert("keyPattern", doc! { "_id": 1 });
    }
    Bson::Document(d)
}

/// A write command's statements (`documents`, `updates`, `deletes`: from the body or an OP_MSG
/// document sequence), each given to `one` in order; `ordered` stops at the first error.
/// Returns the sum of what the statements counted and the write errors.
pub fn each_statement(
    state: &mut State,
    db: &str,
    cmd: &Document,
    (name, field): (&str, &str),
    mut one: impl FnMut(&mut State, &str, usize, &Document) -> Result<i32, MongoError>,
) -> Result<(i32, Vec<Bson>), MongoError> {
    let coll = reply::first_string(cmd, name)?;
    refuse_generated(db, &coll)?;
    let Some(Bson::Array(statements)) = cmd.get(field) else {
        return Err(reply::failed_to_parse(format!(
            "{name} needs a {field} array"
        )));
    };
    let ordered = !matches!(cmd.get("ordered"), Some(Bson::Boolean(false)));
    let ns = format!("{db}.{coll}");
    let mut n = 0i32;
    let mut errors = Vec::new();
    for (i, stmt) in statements.iter().enumerate() {
        let Bson::Document(stmt) = stmt else {
            return Err(reply::type_mismatch(format!("{field} must be objects")));
        };
        match one(state, &ns, i, stmt) {
            Ok(k) => n += k,
            Err(e) => {
                errors.push(write_error(i, &e));
                if ordered {
                    break;
                }
            }
        }
    }
    Ok((n, errors))
}

/// `{n, writeErrors?}`.
pub fn write_reply(n: i32, errors: Vec<Bson>) -> Document {
    let mut reply = doc! { "n": n };
    if !errors.is_empty() {
        reply.insert("writeErrors", errors);
    }
    ok(reply)
}

/// `insert` (`documents` from the body or an OP_MSG document sequence; `ordered` honoured).
pub fn insert(state: &mut State, db: &str, cmd: &Document) -> Answer {
    let (n, errors) = each_statement(state, db, cmd, ("insert", "documents"), |s, ns, _, d| {
        insert_one(s, ns, d.clone()).map(|_| 1)
    })?;
    Ok(write_reply(n, errors))
}

/// `d` with its `_id` first (a new ObjectId when it has none).
pub fn with_id(mut d: Document) -> Document {
    if d.keys().next().map(String::as_str) == Some("_id") {
        return d;
    }
    // As the server does, `_id` goes first (drivers that add it append it).
    let id = d
        .remove("_id")
        .unwrap_or_else(|| Bson::ObjectId(ObjectId::new()));
    let mut out = doc! { "_id": id };
    out.extend(d);
    out
}

/// Inserts one document into `ns` (insert, or an upsert's insert): `_id`, duplicate check,
/// routing into the simulator, the store, the change event. Returns the document as kept.
pub fn insert_one(state: &mut State, ns: &str, d: Document) -> Result<Document, MongoError> {
    let d = with_id(d);
    crate::serve::query::limits::check_insert(&d)?;
    let id = d.get("_id").cloned().unwrap_or(Bson::Null);
    if matches!(id, Bson::Array(_)) {
        return Err(MongoError::bad_value("can't use an array for _id"));
    }
    if state.store.has_id(ns, &id) {
        return Err(duplicate_key(ns, &id));
    }
    state.uniques.check(ns, None, &d)?;
    state.sessions.may_write(ns, &id)?;
    let bytes = crate::wire::document_len(&d) as u64;
    let c = state.sim.cluster.collection_index(ns);
    match c {
        Some(c) => route(state, c, &d, bytes).map_err(MongoError::bad_value)?,
        None => state.unsharded.entry(ns.to_string()).or_default().count += 1,
    }
    let (kept, first_dropped) = state.store.insert(ns, d.clone(), bytes)?;
    if let crate::serve::state::store::Kept::Yes(seq) = kept {
        state.uniques.record(ns, seq, None, Some(&d));
    }
    state.sessions.wrote(ns, &id, None);
    if first_dropped {
        crate::serve::state::log::line(
            state.log.as_deref(),
            &format!(
                "--max-docs {} reached: documents written to {ns} from now on are counted, not kept",
                state.store.max_docs()
            ),
        );
    }
    let paths = c
        .map(|c| change_stream::key_paths(state, c))
        .unwrap_or_default();
    change_stream::record_insert(state, ns, &paths, &d);
    Ok(d)
}

/// Routes and counts document `d` (of `bytes`) into sharded collection `c` (its kept fields
/// too, when the collection keeps them); a shard key holding an array is refused.
pub fn route(state: &mut State, c: usize, d: &Document, bytes: u64) -> Result<(), String> {
    let coll = &state.sim.cluster.collections[c];
    let values = coll
        .pattern
        .fields()
        .iter()
        .map(|f| field_value(d, &f.path))
        .collect::<Result<Vec<KeyValue>, String>>()?;
    let kept: Option<Vec<KeyValue>> = coll.docs.as_ref().map(|store| {
        store
            .fields
            .iter()
            .map(|f| field_value(d, f).unwrap_or(KeyValue::Null))
            .collect()
    });
    state.sim.insert(c, values, kept, bytes);
    Ok(())
}
