//! Per-shard data sizes: what each shard owns of each collection (`$shardedDataDistribution` from
//! 6.0, `$collStats` before), spread evenly over that shard's chunks, since a mongos does not know
//! the size of a chunk.

use std::collections::HashMap;

use bson::{Bson, Document, doc};

use super::client::{LiveClient, LiveError};
use crate::cluster::{Cluster, ServerVersion};
use crate::model::{ChunkStats, ShardIdx};

/// Per-shard owned documents and bytes of the collections `names`:
/// `$shardedDataDistribution` (6.0.3+), else `$collStats` per collection; as (namespace,
/// shard, documents, bytes).
pub(super) async fn data_sizes(
    client: &LiveClient,
    version: ServerVersion,
    names: Vec<String>,
) -> Result<Vec<(String, String, u64, u64)>, LiveError> {
    let mut per: Vec<(String, String, u64, u64)> = Vec::new();
    if version >= ServerVersion::V6_0 {
        let rows = client
            .drain(
                "admin",
                doc! {"aggregate": 1, "pipeline": [{"$shardedDataDistribution": {}}], "cursor": {}},
            )
            .await?;
        for r in rows {
            let ns = r.get_str("ns").unwrap_or_default().to_string();
            for s in r.get_array("shards").map(Vec::as_slice).unwrap_or_default() {
                let Some(s) = s.as_document() else { continue };
                per.push((
                    ns.clone(),
                    s.get_str("shardName").unwrap_or_default().to_string(),
                    number(s, "numOwnedDocuments"),
                    number(s, "ownedSizeBytes"),
                ));
            }
        }
    } else {
        for ns in names {
            let (db, coll) = ns.split_once('.').unwrap_or((ns.as_str(), ""));
            let rows = client
                .drain(db, doc! {"aggregate": coll, "pipeline": [{"$collStats": {"storageStats": {}}}], "cursor": {}})
                .await?;
            for r in rows {
                let stats = r.get_document("storageStats").cloned().unwrap_or_default();
                per.push((
                    ns.clone(),
                    r.get_str("shard").unwrap_or_default().to_string(),
                    number(&stats, "count"),
                    number(&stats, "size"),
                ));
            }
        }
    }
    Ok(per)
}

pub(super) fn number(d: &Document, key: &str) -> u64 {
    match d.get(key) {
        Some(Bson::Int32(n)) => (*n).max(0) as u64,
        Some(Bson::Int64(n)) => (*n).max(0) as u64,
        Some(Bson::Double(n)) if *n > 0.0 => *n as u64,
        _ => 0,
    }
}

/// Spreads each shard's owned documents and bytes evenly over its chunks of each collection
/// (a shard not listed owns nothing; writes restart at zero).
pub(super) fn spread(cluster: &mut Cluster, sizes: &[(String, String, u64, u64)]) {
    let mut owned: HashMap<&str, Vec<(ShardIdx, ChunkStats)>> = HashMap::new();
    for (ns, shard, docs, bytes) in sizes {
        if let Some(s) = cluster.shard_index(shard) {
            owned
                .entry(ns.as_str())
                .or_default()
                .push((s, ChunkStats::new(*docs, *bytes, 0)));
        }
    }
    for c in &mut cluster.collections {
        let mine = owned
            .get(c.ns.as_str())
            .map(Vec::as_slice)
            .unwrap_or_default();
        c.table.spread_owned(mine);
    }
}
