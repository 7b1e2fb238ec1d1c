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
