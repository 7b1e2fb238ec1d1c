//! Removing a shard through the wire: `removeShard` (started / ongoing / completed, with the
//! databases to move), `movePrimary`, and from 8.3 `startShardDraining`, `shardDrainingStatus`,
//! `stopShardDraining` and `commitShardRemoval`, worded as the config server words them.
// 7.0-era `db/s/config/configsvr_remove_shard_command.cpp` (the reply of each state); 8.0 adds
// `collectionsToMove` (the removeShard reference page); 8.3 / master
// `ShardingCatalogManager::appendShardDrainingStatus` and `topology_change_helpers.cpp` messages.

#![allow(clippy::unnecessary_wraps)]

use bson::{Bson, Document, doc};

use crate::cluster::ServerVersion;
use crate::model::ShardIdx;
use crate::serve::reply::{self, Answer, ok, string_arg};
use crate::serve::state::State;
use crate::sim::drains::RemoveShardState;

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

fn remaining(
    v: ServerVersion,
    (chunks, jumbo, dbs, colls): (u64, u64, usize, usize),
    bytes: u64,
) -> Document {
    let mut r = doc! {
        "chunks": chunks as i64, "dbs": dbs as i64, "jumboChunks": jumbo as i64,
    };
    if v >= ServerVersion::V8_0 {
        r.insert("collectionsToMove", colls as i64);
    }
    // 8.3 (FCV 8.3): the bytes still on the draining shard (MongoDB's 8.3-era jstests of
    // `removeShard` and `shardDrainingStatus`: above 0 while documents remain there).
    if v >= ServerVersion::V8_3 {
        r.insert("estimatedRemainingBytes", bytes as i64);
    }
    r
}

/// The bytes still on shard `id`: the documents its chunks own in every tracked collection, and
/// `serve`'s own untracked collections of the databases whose primary it is.
fn bytes_on(state: &State, id: &str) -> u64 {
    let cluster = &state.sim.cluster;
    let Some(shard) = cluster.shard_index(id) else {
        return 0;
    };
    let tracked: u64 = cluster
        .collections
        .iter()
        .map(|c| c.table.shard_totals(shard).stats.bytes)
        .sum();
    let untracked: u64 = untracked_of(state, shard)
        .flat_map(|ns| state.store.iter(ns))
        .map(|(_, s)| crate::wire::document_len(&s.doc) as u64)
        .sum();
    tracked + untracked
}

fn answer(state: &RemoveShardState, id: &str, v: ServerVersion, bytes: u64) -> Document {
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
                "remaining": remaining(
                    v,
                    (*chunks, *jumbo, dbs_to_move.len(), collections_to_move.len()),
                    bytes,
                ),
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

/// The collections `serve` keeps outside the simulator (created by a plain write, never sharded
/// nor moved) on shard `id`: an untracked unsharded collection lives on its database's primary.
/// From 8.0 a drain lists them in `collectionsToMove` as it lists tracked ones: MongoDB's 8.0-era
/// jstest of a drain blocked by unsharded collections expects `db1.collUnsharded`
/// (`createCollection`, untracked on 8.0) there, and the 8.3-era `shardDrainingStatus` jstest
/// `TestDB.CollUnsharded`, made by a plain `insert`.
fn untracked_on(state: &State, id: &str) -> Vec<String> {
    let cluster = &state.sim.cluster;
    let Some(shard) = cluster.shard_index(id) else {
        return Vec::new();
    };
    if cluster.version < ServerVersion::V8_0 {
        return Vec::new();
    }
    untracked_of(state, shard).cloned().collect()
}

/// The simulator's answer with `serve`'s own unsharded collections on the shard added to
/// `collectionsToMove`, in name order.
fn with_untracked(state: &State, id: &str, mut result: RemoveShardState) -> RemoveShardState {
    let extra = untracked_on(state, id);
    if extra.is_empty() {
        return result;
    }
    if let RemoveShardState::Started {
        collections_to_move,
        ..
    }
    | RemoveShardState::Ongoing {
        collections_to_move,
        ..
    } = &mut result
    {
        collections_to_move.extend(extra);
        collections_to_move.sort();
        collections_to_move.dedup();
    }
    result
}

/// `removeShard`: started / ongoing (with what remains) / completed.
pub fn remove_shard(state: &mut State, cmd: &Document) -> Answer {
    let id = reply::first_string(cmd, "removeShard")?;
    let result = state.sim.remove_shard(&id)?;
    let result = with_untracked(state, &id, result);
    let bytes = bytes_on(state, &id);
    Ok(ok(answer(&result, &id, state.sim.cluster.version, bytes)))
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
    let result = with_untracked(state, &id, result);
    let bytes = bytes_on(state, &id);
    let mut reply = answer(&result, &id, state.sim.cluster.version, bytes);
    // The reply names the draining shard in every state (the `shardDrainingStatus` reference
    // page's output table: msg, state, shard, remaining, …), after `state`.
    if !reply.contains_key("shard") {
        let mut named = Document::new();
        for (k, v) in reply {
            named.insert(k.clone(), v);
            if k == "state" {
                named.insert("shard", id.clone());
            }
        }
        reply = named;
    }
    Ok(ok(reply))
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

/// The namespaces of `serve`'s untracked collections on `shard`: kept outside the simulator, they
/// live on their database's primary shard.
fn untracked_of(state: &State, shard: ShardIdx) -> impl Iterator<Item = &String> {
    let cluster = &state.sim.cluster;
    (state.unsharded.keys())
        .filter(|ns| cluster.collection(ns).is_none())
        .filter(move |ns| {
            ns.split_once('.')
                .and_then(|(db, _)| cluster.databases.get(db))
                .is_some_and(|p| *p == shard)
        })
}
