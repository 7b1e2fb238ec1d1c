//! `insert`: every document is routed by its shard key into the simulator (counted per chunk and
//! shard, so the TUI and the summary see the write). Documents are not kept: the simulator keeps
//! shard-key statistics (and, for a collection set to keep them, the key fields' values).
//! A write to a collection that is not sharded is acknowledged and counted, nothing more. Every
//! acknowledged insert is recorded for change streams.

use bson::{Bson, Document, doc};

use super::change_stream;
use super::query::get_path;
use super::reply::{self, Answer, ok};
use super::state::State;
use crate::model::KeyValue;
use crate::model::extjson::from_bson;

pub fn field_value(d: &Document, path: &str) -> Result<KeyValue, String> {
    match get_path(d, path) {
        None => Ok(KeyValue::Null),
        Some(Bson::Array(_)) => Err(format!(
            "Shard key cannot contain an array value, found one at field '{path}'"
        )),
        Some(v) => Ok(from_bson(v)),
    }
}

/// `insert` (`documents` from the body or an OP_MSG document sequence; `ordered` honoured).
pub fn insert(state: &mut State, db: &str, cmd: &Document) -> Answer {
    let coll = reply::first_string(cmd, "insert")?;
    if db == "config" || db == "admin" {
        return Err(crate::sim::SimError {
            code: 13,
            code_name: "Unauthorized",
            message: format!(
                "cannot write to '{db}.{coll}': the simulated cluster's {db} database is generated"
            ),
        });
    }
    let Some(Bson::Array(docs)) = cmd.get("documents") else {
        return Err(reply::failed_to_parse("insert needs a documents array"));
    };
    let ordered = !matches!(cmd.get("ordered"), Some(Bson::Boolean(false)));
    let ns = format!("{db}.{coll}");
    let c = state.sim.cluster.collection_index(&ns);
    let mut n = 0i32;
    let mut errors = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let Bson::Document(d) = d else {
            return Err(reply::type_mismatch("documents must be objects"));
        };
        let Some(c) = c else {
            state.unsharded.entry(ns.clone()).or_default().inserted += 1;
            change_stream::record_insert(state, &ns, &[], d);
            n += 1;
            continue;
        };
        match route(state, c, d) {
            Ok(()) => {
                let paths = change_stream::key_paths(state, c);
                change_stream::record_insert(state, &ns, &paths, d);
                n += 1;
            }
            Err(message) => {
                errors.push(Bson::Document(
                    doc! { "index": i as i32, "code": 2, "codeName": "BadValue", "errmsg": message },
                ));
                if ordered {
                    break;
                }
            }
        }
    }
    let mut reply = doc! { "n": n };
    if !errors.is_empty() {
        reply.insert("writeErrors", errors);
    }
    Ok(ok(reply))
}

/// Routes and counts document `d` into sharded collection `c` (its kept fields too, when the
/// collection keeps documents); a shard key holding an array is refused.
pub fn route(state: &mut State, c: usize, d: &Document) -> Result<(), String> {
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
    let bytes = crate::wire::document_len(d) as u64;
    state.sim.insert(c, values, kept, bytes);
    Ok(())
}
