//! Shard drains on a live cluster: for each shard `config.shards` marks `draining: true`,
//! `shardDrainingStatus` on 8.2+ (what remains: chunks, jumbo chunks, the databases and unsharded
//! collections to move), else — before 8.2, or when the command is refused or fails — the same
//! counts derived from the catalog the poll read, said to be derived; and an estimate of the time
//! left from the chunk rate observed since watching began.
//!
//! `shardDrainingStatus` only reads (mongo `src/mongo/s/commands/cluster_shard_draining_status_cmd.cpp`
//! forwards `_configsvrShardDrainingStatus`, whose `typedRun` counts `config.shards`,
//! `checkDrainingProgress` and `appendShardDrainingStatus` — reads of `config.chunks`,
//! `config.databases` and the catalog; `supportsWriteConcern() == false`); it needs the
//! `removeShard` action on the cluster, which `clusterManager` grants and `clusterMonitor` does not.
//!
//! Owns: that read, its parsing, the derivation and the rate. May not touch: the routing refresh,
//! the model's other state, any command outside the client's allowlist.

use std::collections::HashMap;

use bson::{Bson, Document, doc};

use super::client::LiveClient;
use super::refusals::Refusals;
use crate::cluster::drain::{DrainSource, DrainStatus, eta_secs};
use crate::cluster::{Cluster, Placement, ServerVersion};
use crate::model::ShardIdx;

/// The first count seen of each draining shard: the start of its observed rate.
#[derive(Default)]
pub struct DrainWatch {
    first: HashMap<String, (u64, u64)>,
}

fn strings(d: &Document, key: &str) -> Vec<String> {
    d.get_array(key)
        .map(|a| {
            a.iter()
                .filter_map(Bson::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn count(d: &Document, key: &str) -> Option<u64> {
    match d.get(key)? {
        Bson::Int32(n) => u64::try_from(*n).ok(),
        Bson::Int64(n) => u64::try_from(*n).ok(),
        Bson::Double(n) if n.is_finite() && *n >= 0.0 => Some(*n as u64),
        _ => None,
    }
}

/// A `shardDrainingStatus` reply (the `removeShard` reply's shape: `state`, `remaining:
/// {chunks, dbs, jumboChunks, collectionsToMove}`, `dbsToMove`, `collectionsToMove`,
/// `truncated`), or `None` when it does not have it.
pub fn parse_reply(shard: &str, reply: &Document) -> Option<DrainStatus> {
    let state = reply.get_str("state").ok()?.to_string();
    let remaining = reply.get_document("remaining").ok();
    let chunks = match remaining {
        Some(r) => count(r, "chunks")?,
        None if state == "ongoing" => return None,
        None => 0,
    };
    Some(DrainStatus {
        shard: shard.to_string(),
        source: DrainSource::Reported,
        state: Some(state),
        chunks,
        jumbo_chunks: remaining.and_then(|r| count(r, "jumboChunks")).unwrap_or(0),
        dbs_to_move: strings(reply, "dbsToMove"),
        collections_to_move: strings(reply, "collectionsToMove"),
        truncated: reply.get_bool("truncated").unwrap_or(false),
        eta_secs: None,
        rate_over_secs: 0,
    })
}

/// What remains on shard `idx` as the catalog shows it: the sharded collections' chunks, the
/// tracked unsharded collections, the databases it is primary of.
pub fn derive(cluster: &Cluster, idx: ShardIdx) -> DrainStatus {
    let mut out = DrainStatus {
        shard: cluster.shard_id(idx).to_string(),
        source: DrainSource::Derived,
        state: None,
        chunks: 0,
        jumbo_chunks: 0,
        dbs_to_move: Vec::new(),
        collections_to_move: Vec::new(),
        truncated: false,
        eta_secs: None,
        rate_over_secs: 0,
    };
    for c in &cluster.collections {
        let t = c.table.shard_totals(idx);
        match c.placement {
            Placement::Sharded => {
                out.chunks += t.chunks;
                out.jumbo_chunks += t.jumbo;
            }
            _ if t.chunks > 0 => out.collections_to_move.push(c.ns.clone()),
            _ => {}
        }
    }
    out.dbs_to_move = cluster
        .databases
        .iter()
        .filter(|(db, p)| **p == idx && db.as_str() != "config" && db.as_str() != "admin")
        .map(|(db, _)| db.clone())
        .collect();
    out
}

/// What the catalog shows of every draining shard (computed before any read is awaited).
pub fn derive_all(cluster: &Cluster) -> Vec<DrainStatus> {
    (0..cluster.shards.len())
        .filter(|&i| cluster.shards[i].shard.draining && !cluster.shards[i].removed)
        .map(|i| derive(cluster, ShardIdx(i as u32)))
        .collect()
}

impl DrainWatch {
    /// The drains of the draining shards (`derived`: what the catalog shows of each), each with
    /// its estimate.
    pub(super) async fn read(
        &mut self,
        client: &LiveClient,
        version: ServerVersion,
        derived: Vec<DrainStatus>,
        refused: &mut Refusals,
        now_ms: u64,
    ) -> Vec<DrainStatus> {
        let mut ask = version >= ServerVersion::V8_2;
        let mut out = Vec::new();
        for from_catalog in derived {
            let id = from_catalog.shard.clone();
            let mut status = None;
            if ask {
                match client
                    .command("admin", doc! {"shardDrainingStatus": id.as_str()})
                    .await
                {
                    Ok(reply) => status = parse_reply(&id, &reply),
                    Err(e) if e.unauthorized => {
                        refused.note(&super::privileges::shard_draining_status(&id));
                        ask = false;
                    }
                    Err(_) => {}
                }
            }
            let mut status = status.unwrap_or(from_catalog);
            let first = *self.first.entry(id).or_insert((status.chunks, now_ms));
            status.eta_secs = eta_secs(first, (status.chunks, now_ms));
            status.rate_over_secs = now_ms.saturating_sub(first.1) / 1000;
            out.push(status);
        }
        self.first
            .retain(|id, _| out.iter().any(|d| d.shard == *id));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `shardDrainingStatus` reply mongo's own test expects (jstests
    /// `sharding/shard_draining_status.js`: `state: "ongoing"`, `msg: "draining ongoing"`,
    /// `dbsToMove: ["TestDB"]`, `collectionsToMove: ["TestDB.CollUnsharded"]`, the `note`), with
    /// `remaining` as `RemoveShardProgress` serializes it.
    #[test]
    fn the_servers_reply_is_read_as_it_words_it() {
        let reply = doc! {
            "note": "you need to call moveCollection for collectionsToMove and afterwards movePrimary for the dbsToMove",
            "dbsToMove": ["TestDB"],
            "collectionsToMove": ["TestDB.CollUnsharded"],
            "msg": "draining ongoing",
            "state": "ongoing",
            "remaining": {"chunks": 1_i64, "dbs": 1_i64, "jumboChunks": 0_i64, "collectionsToMove": 1_i64},
            "ok": 1.0,
        };
        let d = parse_reply("shard1", &reply).expect("parsed");
        assert_eq!(d.chunks, 1);
        assert_eq!(d.dbs_to_move, vec!["TestDB".to_string()]);
        assert_eq!(
            d.collections_to_move,
            vec!["TestDB.CollUnsharded".to_string()]
        );
        assert_eq!(d.source, DrainSource::Reported);
        let done = doc! {"msg": "draining completed successfully", "state": "drainingComplete", "shard": "shard1", "ok": 1.0};
        assert_eq!(parse_reply("shard1", &done).map(|d| d.chunks), Some(0));
        let odd = doc! {"state": "ongoing"};
        assert!(
            parse_reply("shard1", &odd).is_none(),
            "no invented remainder"
        );
    }
}
