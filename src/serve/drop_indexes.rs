//! `dropIndexes`: by name, by key pattern, or `"*"` (every index but `_id_` and the shard key's),
//! on a sharded collection through the simulator (which keeps the shard key's last supporting
//! index) and on one `serve` keeps unsharded; answers `nIndexesWas`.
// 8.0 `db/catalog/drop_indexes.cpp` ("cannot drop _id index", "index not found with name [..]").

use bson::{Bson, Document, doc};

use super::handshake::index_name;
use super::reply::{self, Answer, ok};
use super::state::State;
use crate::cluster::MongoError;
use crate::model::KeyPattern;

/// Whether an index on `key` supports shard key `pattern` (the pattern is its prefix).
fn supports(pattern: &KeyPattern, key: &KeyPattern) -> bool {
    let (p, k) = (pattern.to_document(), key.to_document());
    p.len() <= k.len() && p.iter().zip(k.iter()).all(|(a, b)| a == b)
}

fn not_found(name: &str) -> MongoError {
    MongoError::index_not_found(format!("index not found with name [{name}]"))
}

fn id_index() -> MongoError {
    MongoError::invalid_options("cannot drop _id index")
}

/// `dropIndexes: coll, index: name | key | "*"`.
pub fn drop_indexes(state: &mut State, db: &str, cmd: &Document) -> Answer {
    let coll = reply::first_string(cmd, "dropIndexes")?;
    let ns = format!("{db}.{coll}");
    let was = super::sharding::index_count(state, &ns) as u64;
    let index = cmd.get("index").ok_or_else(|| MongoError {
        code: 40414,
        code_name: "Location40414",
        message: "BSON field 'dropIndexes.index' is missing but a required field".to_string(),
    })?;
    if state.sim.cluster.collection_index(&ns).is_some() {
        for key in sharded_targets(state, &ns, index)? {
            state.sim.drop_index(&ns, &key)?;
        }
    } else if let Some(u) = state.unsharded.get_mut(&ns) {
        drop_unsharded(&mut u.indexes, index)?;
    } else {
        return Err(MongoError::namespace_not_found(format!(
            "ns not found {ns}"
        )));
    }
    Ok(ok(doc! { "nIndexesWas": reply::number(was) }))
}

/// The key patterns `index` names on the sharded collection `ns`.
fn sharded_targets(state: &State, ns: &str, index: &Bson) -> Result<Vec<KeyPattern>, MongoError> {
    let Some(c) = state.sim.cluster.collection(ns) else {
        return Ok(Vec::new());
    };
    let id = doc! { "_id": 1 };
    match index {
        Bson::String(s) if s == "*" => Ok(c
            .indexes
            .iter()
            .filter(|i| i.key.to_document() != id && !supports(&c.pattern, &i.key))
            .map(|i| i.key.clone())
            .collect()),
        Bson::String(name) if name == "_id_" => Err(id_index()),
        Bson::String(name) => c
            .indexes
            .iter()
            .find(|i| index_name(&i.key.to_document()) == *name)
            .map(|i| vec![i.key.clone()])
            .ok_or_else(|| not_found(name)),
        Bson::Document(key) => Ok(vec![
            KeyPattern::parse(key).map_err(|e| MongoError::bad_value(e.0))?,
        ]),
        _ => Err(reply::type_mismatch(
            "BSON field 'dropIndexes.index' is the wrong type, expected a string or an object",
        )),
    }
}

fn drop_unsharded(indexes: &mut Vec<Document>, index: &Bson) -> Result<(), MongoError> {
    let name_of = |spec: &Document| spec.get_str("name").map(str::to_string).unwrap_or_default();
    match index {
        Bson::String(s) if s == "*" => indexes.clear(),
        Bson::String(name) if name == "_id_" => return Err(id_index()),
        Bson::String(name) => {
            let before = indexes.len();
            indexes.retain(|spec| name_of(spec) != *name);
            if indexes.len() == before {
                return Err(not_found(name));
            }
        }
        Bson::Document(key) => {
            if *key == doc! { "_id": 1 } {
                return Err(id_index());
            }
            let before = indexes.len();
            indexes.retain(|spec| spec.get_document("key").ok() != Some(key));
            if indexes.len() == before {
                return Err(MongoError::index_not_found(format!(
                    "can't find index with key: {key}"
                )));
            }
        }
        _ => {
            return Err(reply::type_mismatch(
                "BSON field 'dropIndexes.index' is the wrong type, expected a string or an object",
            ));
        }
    }
    Ok(())
}
