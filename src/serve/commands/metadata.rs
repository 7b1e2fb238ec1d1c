//! Commands on a collection's sharding metadata: `setAllowMigrations`, `abortReshardCollection`,
//! `commitReshardCollection` and `checkMetadataConsistency` (7.0+), which checks what a config
//! server checks of the simulator's catalog: every sharded collection's routing table covers
//! MinKey to MaxKey without gaps or overlaps, and an index supports its shard key.
// 8.0 `s/commands/cluster_set_allow_migrations_cmd.cpp`, `cluster_abort_reshard_collection_cmd.cpp`,
// `cluster_commit_reshard_collection_cmd.cpp`, `db/s/metadata_consistency_util.cpp` and
// `metadata_consistency_types.idl` (the inconsistency types and descriptions).

use bson::{Bson, Document, doc};

use crate::cluster::{MongoError, Placement, ServerVersion};
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;

/// `setAllowMigrations: ns, allowMigrations: bool`.
pub fn set_allow_migrations(state: &mut State, cmd: &Document) -> Answer {
    let ns = reply::first_string(cmd, "setAllowMigrations")?;
    let Some(Bson::Boolean(allow)) = cmd.get("allowMigrations") else {
        return Err(MongoError {
            code: 40414,
            code_name: "Location40414",
            message:
                "BSON field 'setAllowMigrations.allowMigrations' is missing but a required field"
                    .to_string(),
        });
    };
    state.sim.set_allow_migrations(&ns, *allow)?;
    Ok(ok(Document::new()))
}

/// `abortReshardCollection: ns`: answered once the old layout is back.
pub fn abort_reshard(state: &mut State, cmd: &Document) -> Answer {
    let ns = reply::first_string(cmd, "abortReshardCollection")?;
    state.sim.abort_reshard_collection(&ns)?;
    Ok(ok(Document::new()))
}

/// `commitReshardCollection: ns`: answered once the resharding commits (or aborts).
pub fn commit_reshard(state: &mut State, cmd: &Document) -> Answer {
    let ns = reply::first_string(cmd, "commitReshardCollection")?;
    state.sim.commit_reshard_collection(&ns)?;
    crate::serve::write_path::completion::wait_for_resharding(state, &ns);
    Ok(ok(Document::new()))
}

/// `checkMetadataConsistency: 1` (on admin: the cluster; on a database: its collections) or
/// `checkMetadataConsistency: "coll"`.
pub fn check_metadata_consistency(state: &State, db: &str, cmd: &Document) -> Answer {
    if state.sim.cluster.version < ServerVersion::V7_0 {
        return Err(MongoError::command_not_found(
            "no such command: 'checkMetadataConsistency'",
        ));
    }
    let only = match cmd.get("checkMetadataConsistency") {
        Some(Bson::String(c)) => Some(format!("{db}.{c}")),
        _ => None,
    };
    let mut found = Vec::new();
    for c in &state.sim.cluster.collections {
        let in_scope = match &only {
            Some(ns) => c.ns == *ns,
            None => db == "admin" || c.ns.split_once('.').is_some_and(|(d, _)| d == db),
        };
        if !in_scope || c.placement != Placement::Sharded {
            continue;
        }
        if let Err(e) = c.table.check_invariants() {
            found.push(inconsistency(
                "RoutingTableRangeGap",
                "Found a gap or an overlap between two consecutive chunks",
                doc! { "namespace": &c.ns, "collectionUUID": crate::serve::catalog::ids::collection_uuid(&c.ns, c.incarnation), "reason": e },
            ));
        }
        let fields: Vec<&str> = c.pattern.fields().iter().map(|f| &*f.path).collect();
        let supported = c.indexes.iter().any(|i| {
            let names: Vec<&str> = i.key.fields().iter().map(|f| &*f.path).collect();
            names.starts_with(&fields)
        });
        if !supported {
            found.push(inconsistency(
                "MissingShardKeyIndex",
                "Found sharded collection without a shard key index",
                doc! { "namespace": &c.ns, "shardKeyPattern": c.pattern.to_document() },
            ));
        }
    }
    let ns = format!("{db}.$cmd.checkMetadataConsistency");
    Ok(ok(
        doc! { "cursor": { "id": 0_i64, "ns": ns, "firstBatch": found } },
    ))
}

fn inconsistency(kind: &str, description: &str, details: Document) -> Bson {
    Bson::Document(doc! { "type": kind, "description": description, "details": details })
}
