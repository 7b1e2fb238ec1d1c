//! `dropIndexes`: by name, by key pattern, a list of names, or `"*"` (every index but `_id_` and
//! those supporting the shard key), on sharded collections (the simulator keeps the shard key's
//! last supporting index) and unsharded ones; answers `nIndexesWas`.
// 8.0 `db/catalog/drop_indexes.cpp` ("cannot drop _id index", "index not found with name [..]").

use std::cmp::Ordering;

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::model::KeyPattern;
use crate::serve::catalog::indexes::{forget_spec, listing, modelled_key};
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;

fn not_found(name: &str) -> MongoError {
    MongoError::index_not_found(format!("index not found with name [{name}]"))
}

fn id_index() -> MongoError {
    MongoError::invalid_options("cannot drop _id index")
}

fn wrong_type() -> MongoError {
    reply::type_mismatch(
        "BSON field 'dropIndexes.index' is the wrong type, expected a string, an array of strings or an object",
    )
}

/// `dropIndexes: coll, index: name | [names] | key | "*"`.
pub fn drop_indexes(state: &mut State, db: &str, cmd: &Document) -> Answer {
    let coll = reply::first_string(cmd, "dropIndexes")?;
    let ns = format!("{db}.{coll}");
    let was = crate::serve::catalog::indexes::index_count(state, &ns) as u64;
    let index = cmd.get("index").ok_or_else(|| MongoError {
        code: 40414,
        code_name: "Location40414",
        message: "BSON field 'dropIndexes.index' is missing but a required field".to_string(),
    })?;
    let Some(list) = listing(state, &ns) else {
        return Err(MongoError::namespace_not_found(format!(
            "ns not found {ns}"
        )));
    };
    let pattern = state.sim.cluster.collection(&ns).map(|c| c.pattern.clone());
    for spec in targets(&list, pattern.as_ref(), index)? {
        if pattern.is_some()
            && let Some(key) = modelled_key(&spec)
        {
            state.sim.drop_index(&ns, &key)?;
        }
        forget_spec(state, &ns, spec.get_str("name").unwrap_or_default());
    }
    Ok(ok(doc! { "nIndexesWas": reply::number(was) }))
}

fn name_of(spec: &Document) -> &str {
    spec.get_str("name").unwrap_or_default()
}

/// The listed indexes `index` names.
fn targets(
    list: &[Document],
    pattern: Option<&KeyPattern>,
    index: &Bson,
) -> Result<Vec<Document>, MongoError> {
    match index {
        Bson::String(s) if s == "*" => Ok(list
            .iter()
            .filter(|s| name_of(s) != "_id_" && !supports_key(pattern, s))
            .cloned()
            .collect()),
        Bson::String(name) => by_name(list, name).map(|s| vec![s]),
        Bson::Array(names) => names
            .iter()
            .map(|n| match n {
                Bson::String(name) => by_name(list, name),
                _ => Err(wrong_type()),
            })
            .collect(),
        Bson::Document(key) => {
            if same_key(key, &doc! { "_id": 1 }) {
                return Err(id_index());
            }
            list.iter()
                .find(|s| s.get_document("key").is_ok_and(|k| same_key(k, key)))
                .cloned()
                .map(|s| vec![s])
                .ok_or_else(|| {
                    MongoError::index_not_found(format!(
                        "can't find index with key: {}",
                        crate::model::shell_text::document(key)
                    ))
                })
        }
        _ => Err(wrong_type()),
    }
}

fn by_name(list: &[Document], name: &str) -> Result<Document, MongoError> {
    if name == "_id_" {
        return Err(id_index());
    }
    list.iter()
        .find(|s| name_of(s) == name)
        .cloned()
        .ok_or_else(|| not_found(name))
}

/// Same fields in the same order, values equal as numbers (`1` and `1.0`).
fn same_key(a: &Document, b: &Document) -> bool {
    a.len() == b.len()
        && a.iter().zip(b.iter()).all(|((ka, va), (kb, vb))| {
            ka == kb && crate::serve::query::compare(va, vb) == Ordering::Equal
        })
}

/// Whether the listed index supports shard key `pattern` (the pattern is its prefix).
fn supports_key(pattern: Option<&KeyPattern>, spec: &Document) -> bool {
    let (Some(pattern), Some(key)) = (pattern, modelled_key(spec)) else {
        return false;
    };
    let (p, k) = (pattern.to_document(), key.to_document());
    p.len() <= k.len() && p.iter().zip(k.iter()).all(|(a, b)| a == b)
}
