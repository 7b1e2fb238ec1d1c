//! The index catalog: every index of a namespace as `listIndexes` lists it (the simulator's
//! modelled indexes and the specs clients gave), MongoDB's default index names, and the specs
//! a collection carries when it becomes sharded.
//!
//! May import `state`, `query` and `reply`.

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::model::KeyPattern;
use crate::serve::reply;
use crate::serve::state::State;

/// The key pattern the simulator keeps for `spec`, when its rules look at this index.
pub fn modelled_key(spec: &Document) -> Option<KeyPattern> {
    if spec.contains_key("partialFilterExpression") || reply::flag(spec, "sparse") {
        return None;
    }
    KeyPattern::parse(spec.get_document("key").ok()?).ok()
}
/// Forgets the spec named `name` of `ns` (and its unique values).
pub fn forget_spec(state: &mut State, ns: &str, name: &str) {
    if let Some(specs) = state.extra_indexes.get_mut(ns) {
        specs.retain(|s| s.get_str("name").ok() != Some(name));
    }
    if let Some(u) = state.unsharded.get_mut(ns) {
        u.indexes.retain(|s| s.get_str("name").ok() != Some(name));
    }
    state.uniques.drop(ns, Some(name));
}

/// Every index of `ns` as `listIndexes` lists it, `_id_` first; `None` when `ns` has none.
pub fn listing(state: &State, ns: &str) -> Option<Vec<Document>> {
    let id = doc! { "v": 2, "key": { "_id": 1 }, "name": "_id_" };
    if let Some(c) = state.sim.cluster.collection(ns) {
        let specs = state.extra_indexes.get(ns).map_or(&[][..], Vec::as_slice);
        let mut out = vec![id];
        for i in &c.indexes {
            let key = i.key.to_document();
            if key == doc! { "_id": 1 }
                || specs
                    .iter()
                    .any(|s| modelled_key(s).as_ref() == Some(&i.key))
            {
                continue;
            }
            let mut d = doc! { "v": 2, "key": key.clone(), "name": index_name(&key) };
            if i.unique {
                d.insert("unique", true);
            }
            out.push(d);
        }
        // Specs in the order they were created; a modelled one only while the simulator has it.
        out.extend(
            specs
                .iter()
                .filter(|s| modelled_key(s).is_none_or(|k| c.indexes.iter().any(|i| i.key == k)))
                .cloned(),
        );
        return Some(out);
    }
    state.unsharded.get(ns).map(|u| {
        let mut out = vec![id];
        out.extend(u.indexes.iter().cloned());
        out
    })
}

/// An unsharded collection becomes sharded: its index specs move to the sharded catalog.
pub fn adopt_specs(state: &mut State, ns: &str, specs: Vec<Document>) -> Result<(), MongoError> {
    for spec in specs {
        if let Some(k) = modelled_key(&spec) {
            state
                .sim
                .create_index(ns, k, reply::flag(&spec, "unique"))?;
        }
        state
            .extra_indexes
            .entry(ns.to_string())
            .or_default()
            .push(spec);
    }
    Ok(())
}

/// Whether `specs` hold an index that can support shard key `key` (the key's fields and values
/// are its prefix; not sparse, no partial filter), as `shardCollection` of a non-empty
/// collection needs (`shard_key_index_util.cpp`, `isCompatibleWithShardKey`).
pub fn supports_shard_key(specs: &[Document], key: &KeyPattern) -> bool {
    let want = key.to_document();
    want == doc! { "_id": 1 }
        || specs.iter().any(|s| {
            let Ok(have) = s.get_document("key") else {
                return false;
            };
            !s.contains_key("partialFilterExpression")
                && !reply::flag(s, "sparse")
                && want.len() <= have.len()
                && want.iter().zip(have.iter()).all(|((ka, va), (kb, vb))| {
                    ka == kb && crate::serve::query::compare(va, vb) == std::cmp::Ordering::Equal
                })
        })
}

/// MongoDB's default index name: `field_1_other_-1`, `field_hashed`.
pub fn index_name(key: &Document) -> String {
    key.iter()
        .map(|(k, v)| match v {
            Bson::String(s) => format!("{k}_{s}"),
            Bson::Int32(n) => format!("{k}_{n}"),
            Bson::Int64(n) => format!("{k}_{n}"),
            Bson::Double(d) => format!("{k}_{d}"),
            other => format!("{k}_{other}"),
        })
        .collect::<Vec<_>>()
        .join("_")
}

/// Indexes of `ns`, `_id_` included (1 for a collection without any).
pub fn index_count(state: &State, ns: &str) -> usize {
    listing(state, ns).map_or(1, |l| l.len())
}
