//! Per-shard data sizes: what each shard owns of each collection (`$shardedDataDistribution` from
//! 6.0, `$collStats` before), spread evenly over that shard's chunks, since a mongos does not know
//! the size of a chunk.

use std::collections::HashMap;

use bson::{Bson, Document, doc};

use super::client::{LiveClient, LiveError};
use crate::cluster::orphans::RangeDeletion;
use crate::cluster::{Cluster, ServerVersion};
use crate::model::{ChunkStats, ShardIdx};

/// What one shard holds of one collection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ShardSize {
    pub ns: String,
    pub shard: String,
    pub docs: u64,
    pub bytes: u64,
    /// Orphans (`$shardedDataDistribution` only: before 6.0 a mongos cannot tell).
    pub orphaned_docs: u64,
    pub orphaned_bytes: u64,
}

/// Per-shard owned (and orphaned) documents and bytes of the collections `names`:
/// `$shardedDataDistribution` (6.0.3+), else `$collStats` per collection.
pub(super) async fn data_sizes(
    client: &LiveClient,
    version: ServerVersion,
    names: Vec<String>,
) -> Result<Vec<ShardSize>, LiveError> {
    let mut per: Vec<ShardSize> = Vec::new();
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
                per.push(ShardSize {
                    ns: ns.clone(),
                    shard: s.get_str("shardName").unwrap_or_default().to_string(),
                    docs: number(s, "numOwnedDocuments"),
                    bytes: number(s, "ownedSizeBytes"),
                    orphaned_docs: number(s, "numOrphanedDocs"),
                    orphaned_bytes: number(s, "orphanedSizeBytes"),
                });
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
                per.push(ShardSize {
                    ns: ns.clone(),
                    shard: r.get_str("shard").unwrap_or_default().to_string(),
                    docs: number(&stats, "count"),
                    bytes: number(&stats, "size"),
                    orphaned_docs: 0,
                    orphaned_bytes: 0,
                });
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

/// The `(ns, shard)` pairs whose owned size was read.
pub(super) fn sized(sizes: &[ShardSize]) -> std::collections::HashSet<(String, String)> {
    sizes
        .iter()
        .map(|z| (z.ns.clone(), z.shard.clone()))
        .collect()
}

/// Spreads each shard's owned documents and bytes evenly over its chunks of each collection
/// (a shard not listed owns nothing; writes restart at zero).
/// A shard's orphans are known only as totals: they are kept as one range over the whole key
/// space, never due (a mongos does not say which ranges, nor when they go).
pub(super) fn spread(cluster: &mut Cluster, sizes: &[ShardSize]) {
    let mut owned: HashMap<&str, Vec<(ShardIdx, ChunkStats)>> = HashMap::new();
    let mut orphans: HashMap<&str, Vec<(ShardIdx, u64, u64)>> = HashMap::new();
    for z in sizes {
        if let Some(s) = cluster.shard_index(&z.shard) {
            owned
                .entry(z.ns.as_str())
                .or_default()
                .push((s, ChunkStats::new(z.docs, z.bytes, 0)));
            if z.orphaned_docs > 0 {
                orphans.entry(z.ns.as_str()).or_default().push((
                    s,
                    z.orphaned_docs,
                    z.orphaned_bytes,
                ));
            }
        }
    }
    for c in &mut cluster.collections {
        let mine = owned
            .get(c.ns.as_str())
            .map(Vec::as_slice)
            .unwrap_or_default();
        c.table.spread_owned(mine);
        c.range_deletions = orphans
            .get(c.ns.as_str())
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|&(shard, docs, bytes)| RangeDeletion {
                shard,
                min: c.pattern.global_min(),
                max: c.pattern.global_max(),
                docs,
                bytes,
                due_ms: u64::MAX,
            })
            .collect();
    }
}
