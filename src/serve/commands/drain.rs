//! Removing a shard through the wire: `removeShard` (started / ongoing / completed, with the
//! databases to move), `movePrimary`, and from 8.3 `startShardDraining`, `shardDrainingStatus`,
//! `stopShardDraining` and `commitShardRemoval`, worded as the config server words them.
// 7.0-era `db/s/config/configsvr_remove_shard_command.cpp` (the reply of each state); 8.0 adds
// `collectionsToMove` (the removeShard reference page); 8.3 / master
// `ShardingCatalogManager::appendShardDrainingStatus` and `topology_change_helpers.cpp` messages.

#![allow(clippy::unnecessary_wraps)]

use bson::{Bson, Document, doc};

use crate::cluster::ServerVersion;
use crate::serve::reply::{self, Answer, ok, string_arg};
use crate::serve::state::State;
use crate::sim::drain::RemoveShardState;

fn note(v: ServerVersion) -> &'static str {
    if v >= ServerVersion::V8_0 {
        "you need to call moveCollection for collectionsToMove and afterwards movePrimary for the dbsToMove"
    } else {
        "you need to drop or movePrimary these databases"
    }
}

fn names(dbs: &[String]) -> Vec<Bson> {
    dbs.iter().map(|d| Bson::String(d.clone())).collect()
}

/// `note`, `dbsToMove` and (8.0+) `collectionsToMove`.
fn to_move(d: &mut Document, v: ServerVersion, dbs: &[String], colls: &[String]) {
    d.insert("note", note(v));
    d.insert("dbsToMove", names(dbs));
    if v >= ServerVersion::V8_0 {
        d.insert("collectionsToMove", names(colls));
    }
}

fn remaining(v: ServerVersion, chunks: u64, jumbo: u64, dbs: usize, colls: usize) -> Document {
    let mut r = doc! {
        "chunks": chunks as i64, "dbs": dbs as i64, "jumboChunks": jumbo as i64,
    };
    if v >= ServerVersion::V8_0 {
        r.insert("collectionsToMove", colls as i64);
    }
    r
}

fn answer(state: &RemoveShardState, id: &str, v: ServerVersion) -> Document {
    match state {
        RemoveShardState::Started {
            dbs_to_move,
            collections_to_move,
        } => {
            let mut d = doc! {
                "msg": "draining started successfully", "state": "started", "shard": id,
            };
            to_move(&mut d, v, dbs_to_move, collections_to_move);
            d
        }
        RemoveShardState::Ongoing {
            chunks,
            jumbo,
            dbs_to_move,
            collections_to_move,
        } => {
            let mut d = doc! {
                "msg": "draining ongoing", "state": "ongoing",
                "remaining": remaining(v, *chunks, *jumbo, dbs_to_move.len(), collections_to_move.len()),
            };
            to_move(&mut d, v, dbs_to_move, collections_to_move);
            d
        }
        RemoveShardState::DrainingComplete => doc! {
            "msg": "draining completed successfully", "state": "drainingComplete", "shard": id,
        },
        RemoveShardState::Completed => doc! {
            "msg": "removeshard completed successfully", "state": "completed", "shard": id,
        },
    }
}

/// `removeShard`: started / ongoing (with what remains) / completed.
pub fn remove_shard(state: &mut State, cmd: &Document) -> Answer {
    let id = reply::first_string(cmd, "removeShard")?;
    let result = state.sim.remove_shard(&id)?;
    Ok(ok(answer(&result, &id, state.sim.cluster.version)))
}

/// `startShardDraining` (8.3+).
pub fn start_shard_draining(state: &mut State, cmd: &Document) -> Answer {
    let id = reply::first_string(cmd, "startShardDraining")?;
    state.sim.start_shard_draining(&id)?;
    Ok(ok(Document::new()))
}

/// `shardDrainingStatus` (8.3+).
pub fn shard_draining_status(state: &mut State, cmd: &Document) -> Answer {
    let id = reply::first_string(cmd, "shardDrainingStatus")?;
    let result = state.sim.shard_draining_status(&id)?;
    Ok(ok(answer(&result, &id, state.sim.cluster.version)))
}

/// `stopShardDraining` (8.3+).
pub fn stop_shard_draining(state: &mut State, cmd: &Document) -> Answer {
    let id = reply::first_string(cmd, "stopShardDraining")?;
    state.sim.stop_shard_draining(&id)?;
    Ok(ok(Document::new()))
}

/// `commitShardRemoval` (8.3+).
pub fn commit_shard_removal(state: &mut State, cmd: &Document) -> Answer {
    let id = reply::first_string(cmd, "commitShardRemoval")?;
    state.sim.commit_shard_removal(&id)?;
    Ok(ok(Document::new()))
}

/// `movePrimary: db, to: shard`.
pub fn move_primary(state: &mut State, cmd: &Document) -> Answer {
    let db = reply::first_string(cmd, "movePrimary")?;
    let to = string_arg(cmd, "to")?;
    state.sim.move_primary(&db, &to)?;
    Ok(ok(Document::new()))
}
