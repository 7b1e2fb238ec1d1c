//! Handing the documents `serve` kept to the simulator, with the fields a new shard key needs,
//! when a collection is re-keyed (`refineCollectionShardKey`, `reshardCollection`,
//! `moveCollection`, `unshardCollection`).
//!
//! May import `state`, `query` and `reply`, and the write path's `route`.

use crate::cluster::MongoError;
use crate::model::{KeyPattern, KeyValue};
use crate::serve::state::State;
use crate::serve::write_path::route::field_value;

/// Every kept document of `ns` as the values of `fields` and its bytes, refused when some were
/// not kept.
pub fn kept_values(
    state: &State,
    ns: &str,
    fields: &[String],
) -> Result<Vec<(Vec<KeyValue>, u64)>, MongoError> {
    if state.store.dropped(ns) > 0 {
        return Err(MongoError::illegal_operation(format!(
            "serve did not keep every document of {ns} (--max-docs), so it cannot re-place them"
        )));
    }
    Ok(state
        .store
        .iter(ns)
        .map(|(_, s)| {
            let values = fields
                .iter()
                .map(|f| field_value(&s.doc, f).unwrap_or(KeyValue::Null))
                .collect();
            (values, s.bytes)
        })
        .collect())
}

/// Hands sharded collection `c` the documents `serve` kept, with the fields of `key`, when the
/// simulator's copy lacks them: what a refine or a resharding re-keys. Refused when `serve` did
/// not keep as many documents as the chunks hold.
pub fn hand_documents(state: &mut State, c: usize, key: &KeyPattern) -> Result<(), MongoError> {
    let coll = &state.sim.cluster.collections[c];
    let mut fields: Vec<String> = coll
        .docs
        .as_ref()
        .map_or_else(Vec::new, |d| d.fields.clone());
    let missing: Vec<String> = key
        .fields()
        .iter()
        .map(|f| f.path.to_string())
        .filter(|f| !fields.contains(f))
        .collect();
    if coll.docs.is_some() && missing.is_empty() {
        return Ok(());
    }
    fields.extend(missing);
    let ns = coll.ns.clone();
    let docs = kept_values(state, &ns, &fields)?;
    state.sim.keep_existing_documents(c, fields, docs)
}
