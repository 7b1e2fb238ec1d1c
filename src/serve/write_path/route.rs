//! Routing a write by shard key: a document's shard-key value ([`field_value`]), its `_id`
//! (`query::paths::with_id`), counting it into the simulator's chunk ([`route`]) and inserting one document
//! into the kept documents with its change event ([`insert_one`]).
//!
//! May import `state`, `query` and `reply`, and the write path's `observe`.

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::model::KeyValue;
use crate::model::extjson::from_bson;
use crate::serve::query::get_path;
use crate::serve::query::paths::with_id;
use crate::serve::state::State;
use crate::serve::state::store::duplicate_key;
use crate::serve::write_path::observe as change_stream;

pub fn field_value(d: &Document, path: &str) -> Result<KeyValue, String> {
    match get_path(d, path) {
        None => Ok(KeyValue::Null),
        Some(Bson::Array(_)) => Err(format!(
            "Shard key cannot contain an array value, found one at field '{path}'"
        )),
        Some(v) => Ok(from_bson(v)),
    }
}

/// Inserts one document into `ns` (insert, or an upsert's insert): `_id`, duplicate check,
/// routing into the simulator, the store, the change event. Returns the document as kept.
pub fn insert_one(state: &mut State, ns: &str, d: Document) -> Result<Document, MongoError> {
    let d = with_id(d);
    crate::serve::query::limits::check_insert(&d)?;
    // 4.4 `db/ops/insert.cpp` (`fixDocumentForInsert`): no top-level field name may start with
    // `$`; 5.0 stores them (`$`-prefixed field names are allowed from 5.0).
    if state.sim.cluster.version < crate::cluster::ServerVersion::V5_0
        && let Some(name) = d.keys().find(|k| k.starts_with('$'))
    {
        return Err(MongoError::bad_value(format!(
            "Document can't have $ prefixed field names: {name}"
        )));
    }
    let id = d.get("_id").cloned().unwrap_or(Bson::Null);
    if matches!(id, Bson::Array(_)) {
        return Err(MongoError::bad_value("can't use an array for _id"));
    }
    if state.store.has_id(ns, &id) {
        return Err(duplicate_key(ns, &id));
    }
    validate(state, ns, &d, None)?;
    state.uniques.check(ns, None, &d)?;
    state.sessions.may_write(ns, &id)?;
    let bytes = crate::wire::document_len(&d) as u64;
    if !state.sessions.restoring {
        // An aborted transaction's documents are put back whatever the room: a rollback never
        // fails.
        state.store.check_room(&d, None)?;
    }
    let c = state.sim.cluster.collection_index(ns);
    if let Some(c) = c {
        route(state, c, &d, bytes).map_err(MongoError::bad_value)?;
    } else {
        // An insert into a new database creates it in `config.databases`.
        state
            .sim
            .cluster
            .ensure_database(ns.split_once('.').map_or(ns, |(d, _)| d));
        state.unsharded.entry(ns.to_string()).or_default().count += 1;
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
    trim_capped(state, ns);
    Ok(d)
}

/// A capped collection keeps its newest documents: past `max` documents or `size` bytes (BSON
/// sizes) the oldest are removed, as `cappedDeleteUntilBelowConfiguredMaximum`
/// (`db/catalog/capped_collection_maintenance.cpp`) removes them. Simplified (docs/fidelity.md):
/// the removals are not change events (from 5.0 a server writes them to the oplog as deletes),
/// and the collection's bytes are summed at each insert.
fn trim_capped(state: &mut State, ns: &str) {
    let Some(options) = state.coll_options.get(ns) else {
        return;
    };
    if options.get_bool("capped") != Ok(true) {
        return;
    }
    let limit = |k: &str| match options.get(k) {
        Some(Bson::Int32(n)) if *n > 0 => Some(i64::from(*n) as u64),
        Some(Bson::Int64(n)) if *n > 0 => Some(*n as u64),
        _ => None,
    };
    let (max, size) = (limit("max"), limit("size"));
    let mut bytes: u64 = state
        .store
        .iter(ns)
        .map(|(_, s)| crate::wire::document_len(&s.doc) as u64)
        .sum();
    while state.store.len(ns) > 1
        && (max.is_some_and(|m| state.store.len(ns) > m) || size.is_some_and(|s| bytes > s))
    {
        let Some(oldest) = state.store.iter(ns).next().map(|(seq, _)| seq) else {
            break;
        };
        let Some(gone) = state.store.remove(ns, oldest) else {
            break;
        };
        bytes = bytes.saturating_sub(crate::wire::document_len(&gone.doc) as u64);
        state.uniques.record(ns, oldest, Some(&gone.doc), None);
        if let Some(u) = state.unsharded.get_mut(ns) {
            u.count = u.count.saturating_sub(1);
        }
    }
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

/// Checks `new` (replacing `old`) against the validator of `ns` (`state::validation`); an
/// aborted transaction's documents are put back unchecked. A failure let through by
/// `validationAction: "warn"` is logged, as a server logs it.
pub fn validate(
    state: &State,
    ns: &str,
    new: &Document,
    old: Option<&Document>,
) -> Result<(), MongoError> {
    let Some(options) = state.coll_options.get(ns) else {
        return Ok(());
    };
    if state.sessions.restoring {
        return Ok(());
    }
    let v = state.sim.cluster.version;
    if !crate::serve::state::validation::check(v, options, new, old)? {
        crate::serve::state::log::line(
            state.log.as_deref(),
            &format!("Document would fail validation on {ns} (validationAction: warn)"),
        );
    }
    Ok(())
}
