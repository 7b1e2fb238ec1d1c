//! `drop`, `dropDatabase` and `renameCollection` as a mongos answers them; what they change is
//! `write_path::namespaces`'.
//!
//! - `drop` of a collection that does not exist is ok on every release line a mongos answers:
//!   4.4 asks the config server, which treats a missing collection as dropped
//!   (`db/s/config/configsvr_drop_collection_command.cpp`, "If the DB isn't in the sharding catalog
//!   either, consider the drop a success"); from 5.0 `s/commands/cluster_drop_collection_cmd.cpp`
//!   catches NamespaceNotFound of a missing database and answers `info: "database does not
//!   exist"`. The `config` and `admin` databases are refused (IllegalOperation).
//! - `dropDatabase` answers `dropped: <db>`, or `info: "database does not exist"`
//!   (`s/commands/cluster_drop_database_cmd.cpp`).
//! - `renameCollection` (on `admin`): 4.4 refuses a sharded source or target (13138, 13139,
//!   `s/commands/cluster_rename_collection_cmd.cpp`); from 5.0 a mongos renames a sharded
//!   collection too, which `serve` does not (refused, docs/fidelity.md). Source and target must
//!   have the same primary shard (13137); an existing target needs `dropTarget: true`
//!   (NamespaceExists, `db/catalog/rename_collection.cpp`).

use bson::{Bson, Document, doc};

use crate::cluster::{MongoError, Placement, ServerVersion};
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;
use crate::serve::write_path::namespaces;

/// A database that is not in `config.databases` and holds no collection.
fn database_exists(state: &State, db: &str) -> bool {
    state.sim.cluster.databases.contains_key(db) || !namespaces::of_database(state, db).is_empty()
}

/// `drop: coll`.
pub fn drop(state: &mut State, db: &str, cmd: &Document) -> Answer {
    let coll = reply::first_string(cmd, "drop")?;
    if db == "config" || db == "admin" {
        return Err(MongoError::illegal_operation(format!(
            "Cannot drop collection in '{db}' database in sharded cluster"
        )));
    }
    if !database_exists(state, db) {
        let mut reply = Document::new();
        if state.sim.cluster.version >= ServerVersion::V5_0 {
            reply.insert("info", "database does not exist");
        }
        return Ok(ok(reply));
    }
    let ns = format!("{db}.{coll}");
    if namespaces::exists(state, &ns) || state.store.len(&ns) > 0 {
        namespaces::drop_collection(state, &ns)?;
    }
    Ok(ok(Document::new()))
}

/// `dropDatabase: 1`.
pub fn drop_database(state: &mut State, db: &str) -> Answer {
    if db == "config" || db == "admin" || db == "local" {
        return Err(MongoError::illegal_operation(format!(
            "Cannot drop the {db} database"
        )));
    }
    if !database_exists(state, db) {
        return Ok(ok(doc! { "info": "database does not exist" }));
    }
    namespaces::drop_database(state, db)?;
    Ok(ok(doc! { "dropped": db }))
}

/// Whether `ns` is sharded (in the catalog, not an unsplittable or untracked collection).
fn sharded(state: &State, ns: &str) -> bool {
    state
        .sim
        .cluster
        .collection(ns)
        .is_some_and(|c| c.placement == Placement::Sharded)
}

/// `renameCollection: "db.from", to: "db.to", dropTarget?`.
pub fn rename_collection(state: &mut State, cmd: &Document) -> Answer {
    let from = reply::first_string(cmd, "renameCollection")?;
    let to = match cmd.get("to") {
        Some(Bson::String(s)) => s.clone(),
        Some(_) => return Err(reply::type_mismatch("'to' must be of type String")),
        None => return Err(reply::invalid_namespace("Invalid target namespace: ")),
    };
    for ns in [&from, &to] {
        let valid = ns
            .split_once('.')
            .is_some_and(|(d, c)| !d.is_empty() && !c.is_empty() && !c.contains('$'));
        if !valid {
            return Err(reply::invalid_namespace(format!(
                "Invalid namespace specified '{ns}'"
            )));
        }
    }
    let (from_db, to_db) = (db_of(&from), db_of(&to));
    for db in [from_db, to_db] {
        crate::serve::write_path::statements::refuse_generated(db, "")?;
    }
    refuse_sharded(state, &from, &to)?;
    if !namespaces::exists(state, &from) {
        return Err(MongoError::namespace_not_found(
            "source namespace does not exist",
        ));
    }
    let primary = |db: &str| state.sim.cluster.databases.get(db).copied();
    if from_db != to_db && primary(to_db).is_some_and(|p| Some(p) != primary(from_db)) {
        return Err(MongoError::location(
            13137,
            "Location13137",
            "Source and destination collections must be on same shard",
        ));
    }
    if from == to {
        return Err(MongoError::illegal_operation(
            "Can't rename a collection to itself",
        ));
    }
    if namespaces::exists(state, &to) || state.store.len(&to) > 0 {
        if !reply::flag(cmd, "dropTarget") {
            return Err(MongoError::namespace_exists("target namespace exists"));
        }
        namespaces::drop_collection(state, &to)?;
    }
    namespaces::rename_collection(state, &from, &to);
    Ok(ok(Document::new()))
}

fn db_of(ns: &str) -> &str {
    ns.split_once('.').map_or(ns, |(d, _)| d)
}

/// 4.4 refuses a sharded source or target (13138, 13139); later lines rename them, `serve` does
/// not.
fn refuse_sharded(state: &State, from: &str, to: &str) -> Result<(), MongoError> {
    let old = state.sim.cluster.version < ServerVersion::V5_0;
    for (ns, code, words) in [
        (from, 13138, "You can't rename a sharded collection"),
        (to, 13139, "You can't rename to a sharded collection"),
    ] {
        if !sharded(state, ns) {
            continue;
        }
        if old {
            let name = if code == 13138 {
                "Location13138"
            } else {
                "Location13139"
            };
            return Err(MongoError::location(code, name, words));
        }
        return Err(MongoError::command_not_supported(format!(
            "shardtop serve renames unsharded collections only: {ns} is sharded (a {} mongos \
             renames it)",
            state.sim.cluster.version
        )));
    }
    Ok(())
}
