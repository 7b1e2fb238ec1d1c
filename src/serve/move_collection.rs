//! `moveCollection` and `unshardCollection` (8.0) through the simulator. A collection `serve` keeps
//! unsharded (written to, never sharded) enters the simulator first as an untracked unsharded
//! collection with its kept documents, as the router has the collection tracked before it moves.
//! A sharded collection's documents are handed to the simulator for the resharding to `{_id: 1}`.
// 8.0 `s/commands/cluster_move_collection_cmd.cpp`, `cluster_unshard_collection_cmd.cpp`.

use bson::{Bson, Document};

use super::reply::{self, Answer, ok};
use super::state::State;
use crate::cluster::{MongoError, Placement};
use crate::model::KeyValue;
use crate::model::extjson::from_bson;

/// `moveCollection: ns, toShard`.
pub fn move_collection(state: &mut State, cmd: &Document) -> Answer {
    let ns = reply::first_string(cmd, "moveCollection")?;
    let to = required_string(cmd, "moveCollection", "toShard")?;
    if state.sim.cluster.collection_index(&ns).is_none()
        && state.sim.cluster.version >= crate::cluster::ServerVersion::V8_0
    {
        adopt_unsharded(state, &ns)?;
    }
    state.sim.move_collection(&ns, &to)?;
    Ok(ok(Document::new()))
}

/// `unshardCollection: ns, toShard?`.
pub fn unshard_collection(state: &mut State, cmd: &Document) -> Answer {
    let ns = reply::first_string(cmd, "unshardCollection")?;
    let to = match cmd.get("toShard") {
        None => None,
        Some(Bson::String(s)) => Some(s.clone()),
        Some(_) => {
            return Err(reply::type_mismatch(
                "BSON field 'unshardCollection.toShard' is the wrong type, expected type 'string'",
            ));
        }
    };
    if let Some(c) = state.sim.cluster.collection_index(&ns)
        && state.sim.cluster.collections[c].placement == Placement::Sharded
        && state.sim.cluster.collections[c].docs.is_none()
        && state.sim.cluster.version >= crate::cluster::ServerVersion::V8_0
    {
        let docs = kept_ids(state, &ns)?;
        state
            .sim
            .keep_existing_documents(c, vec!["_id".to_string()], docs)?;
    }
    state.sim.unshard_collection(&ns, to.as_deref())?;
    Ok(ok(Document::new()))
}

fn required_string(cmd: &Document, command: &str, field: &str) -> Result<String, MongoError> {
    match cmd.get(field) {
        Some(Bson::String(s)) => Ok(s.clone()),
        Some(_) => Err(reply::type_mismatch(format!(
            "BSON field '{command}.{field}' is the wrong type, expected type 'string'"
        ))),
        None => Err(MongoError {
            code: 40414,
            code_name: "Location40414",
            message: format!("BSON field '{command}.{field}' is missing but a required field"),
        }),
    }
}

/// Every kept document of `ns` as (`_id`, bytes), refused when some were not kept.
fn kept_ids(state: &State, ns: &str) -> Result<Vec<(Vec<KeyValue>, u64)>, MongoError> {
    if state.store.dropped(ns) > 0 {
        return Err(MongoError::illegal_operation(format!(
            "serve did not keep every document of {ns} (--max-docs), so it cannot move them"
        )));
    }
    Ok(state
        .store
        .iter(ns)
        .map(|(_, s)| {
            let id = s.doc.get("_id").map_or(KeyValue::Null, from_bson);
            (vec![id], s.bytes)
        })
        .collect())
}

/// A collection `serve` keeps unsharded enters the simulator, with its documents and indexes.
fn adopt_unsharded(state: &mut State, ns: &str) -> Result<(), MongoError> {
    let Some(entry) = state.unsharded.get(ns).cloned() else {
        return Ok(());
    };
    let docs = kept_ids(state, ns)?;
    state
        .sim
        .adopt_unsharded(ns, vec!["_id".to_string()], docs)?;
    for spec in &entry.indexes {
        let Ok(key) = spec.get_document("key") else {
            continue;
        };
        let Ok(key) = crate::model::KeyPattern::parse(key) else {
            continue;
        };
        let unique = reply::flag(spec, "unique");
        state.sim.create_index(ns, key, unique)?;
    }
    state.unsharded.remove(ns);
    Ok(())
}
