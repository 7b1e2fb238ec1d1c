//! A collection or database going away or changing its name, everywhere `serve` holds it: the
//! simulator's catalog (`config.collections`, `config.chunks`, `config.tags`), the unsharded
//! collections, index specs and unique indexes, the kept documents, and the change events (`drop`,
//! `rename`, `dropDatabase`, each followed by the `invalidate` of the streams on what it removed).
//! The command handlers (`commands::collections`, `commands::rename_collection`) decide whether
//! a client may do it; this is what it does.
//!
//! Simplified (docs/fidelity.md): cursors open on a dropped collection keep their documents (a
//! server kills them), a transaction holding a document of it does not delay the drop.
//!
//! May import `catalog`, `state`, `query` and `reply`.

use crate::cluster::MongoError;
use crate::serve::state::State;
use crate::serve::write_path::observe::{Ddl, record_ddl};

/// Whether `ns` exists: in the simulator's catalog (sharded or tracked) or written, created or
/// indexed through `serve`.
pub fn exists(state: &State, ns: &str) -> bool {
    state.sim.cluster.collection_index(ns).is_some() || state.unsharded.contains_key(ns)
}

/// The collections of database `db`, by namespace, in order.
pub fn of_database(state: &State, db: &str) -> Vec<String> {
    let prefix = format!("{db}.");
    let mut out: Vec<String> = state
        .sim
        .cluster
        .collections
        .iter()
        .map(|c| c.ns.as_str())
        .chain(state.unsharded.keys().map(String::as_str))
        .chain(state.store.namespaces())
        .filter(|ns| ns.starts_with(&prefix))
        .map(str::to_string)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Drops collection `ns` from everything `serve` holds, and records its `drop` event.
pub fn drop_collection(state: &mut State, ns: &str) -> Result<(), MongoError> {
    if state.sim.cluster.collection_index(ns).is_some() {
        state.sim.drop_collection(ns)?;
    }
    state.unsharded.remove(ns);
    state.coll_options.remove(ns);
    state.extra_indexes.remove(ns);
    state.uniques.drop(ns, None);
    state.store.drop_namespace(ns);
    record_ddl(state, &Ddl::Drop(ns));
    Ok(())
}

/// Drops every collection of `db`, then `db` itself from `config.databases` (with the zone ranges
/// defined for its collections before they were sharded), and records the `dropDatabase` event.
pub fn drop_database(state: &mut State, db: &str) -> Result<(), MongoError> {
    for ns in of_database(state, db) {
        drop_collection(state, &ns)?;
    }
    let prefix = format!("{db}.");
    let cluster = &mut state.sim.cluster;
    cluster.pending_zones.retain(|r| !r.ns.starts_with(&prefix));
    cluster.databases.remove(db);
    record_ddl(state, &Ddl::DropDatabase(db));
    Ok(())
}

/// Renames unsharded collection `from` to `to` (which holds nothing now): its documents,
/// options, index specs and unique indexes follow it; records the `rename` event.
pub fn rename_collection(state: &mut State, from: &str, to: &str) {
    if let Some(entry) = state.unsharded.remove(from) {
        state.unsharded.insert(to.to_string(), entry);
    }
    if let Some(options) = state.coll_options.remove(from) {
        state.coll_options.insert(to.to_string(), options);
    }
    if let Some(specs) = state.extra_indexes.remove(from) {
        state.extra_indexes.insert(to.to_string(), specs);
    }
    state.uniques.rename(from, to);
    state.store.rename(from, to);
    let db = to.split_once('.').map_or(to, |(d, _)| d);
    state.sim.cluster.ensure_database(db);
    record_ddl(state, &Ddl::Rename(from, to));
}
