//! `moveCollection` and `unshardCollection` (8.0) through the simulator. A collection `serve` keeps
//! unsharded (written to, never sharded) enters the simulator first as an untracked unsharded
//! collection with its kept documents, as the router has the collection tracked before it moves.
//! A sharded collection's documents are handed to the simulator for the resharding to `{_id: 1}`,
//! as they are for `refineCollectionShardKey` and `reshardCollection` on collections built
//! through `serve`.
// 8.0 `s/commands/cluster_move_collection_cmd.cpp`, `cluster_unshard_collection_cmd.cpp`.

use bson::{Bson, Document};

use crate::cluster::{MongoError, Placement};
use crate::model::KeyPattern;
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;
use crate::serve::write_path::hand_over::{hand_documents, kept_values};

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
    crate::serve::write_path::completion::wait_for_resharding(state, &ns);
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
        && state.sim.cluster.version >= crate::cluster::ServerVersion::V8_0
    {
        hand_documents(state, c, &id_key()?)?;
    }
    state.sim.unshard_collection(&ns, to.as_deref())?;
    crate::serve::write_path::completion::wait_for_resharding(state, &ns);
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

/// A collection `serve` keeps unsharded enters the simulator, with its documents and indexes.
fn adopt_unsharded(state: &mut State, ns: &str) -> Result<(), MongoError> {
    let Some(entry) = state.unsharded.get(ns).cloned() else {
        return Ok(());
    };
    let fields = vec!["_id".to_string()];
    let docs = kept_values(state, ns, &fields)?;
    state.sim.adopt_unsharded(ns, fields, docs)?;
    crate::serve::catalog::indexes::adopt_specs(state, ns, entry.indexes)?;
    state.unsharded.remove(ns);
    Ok(())
}

fn id_key() -> Result<KeyPattern, MongoError> {
    KeyPattern::parse_json(r#"{"_id": 1}"#).map_err(|e| MongoError::bad_value(e.0))
}
