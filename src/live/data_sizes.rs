//! Per-shard data sizes: what each shard owns of each collection (`$shardedDataDistribution` from
//! 6.0, `$collStats` before), spread evenly over that shard's chunks, since a mongos does not know
//! the size of a chunk.

use std::collections::HashMap;

use bson::{Bson, Document, doc};

use super::client::{LiveClient, LiveError};
use super::privileges;
use super::refusals::Refusals;
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
    /// The fields whose value no server reports (negative, NaN, infinite, beyond any disk):
    /// the row's sizes are then unknown, never shown as fact.
    pub invalid: Vec<&'static str>,
}

/// The largest count or size a shard can report of one collection: an exbibyte, beyond any
/// disk a shard has (a larger value is a corrupt or foreign reply, not a size).
pub const MAX_PLAUSIBLE: u64 = 1 << 60;

/// A count or size field: `Ok(0)` when missing, `Err(field)` when it holds what no server
/// reports (negative, NaN, infinite, above [`MAX_PLAUSIBLE`], not a number).
pub fn checked(d: &Document, key: &'static str) -> Result<u64, &'static str> {
    let n = match d.get(key) {
        None | Some(Bson::Null) => return Ok(0),
        Some(Bson::Int32(n)) => i128::from(*n),
        Some(Bson::Int64(n)) => i128::from(*n),
        Some(Bson::Double(f)) if f.is_finite() && *f >= 0.0 && *f <= MAX_PLAUSIBLE as f64 => {
            return Ok(*f as u64);
        }
        Some(_) => return Err(key),
    };
    if (0..=i128::from(MAX_PLAUSIBLE)).contains(&n) {
        Ok(n as u64)
    } else {
        Err(key)
    }
}

/// One size row read with [`checked`]: the values, and the fields that were not valid.
pub(super) fn row(ns: &str, shard: &str, d: &Document, keys: [&'static str; 4]) -> ShardSize {
    let mut invalid = Vec::new();
    let mut get = |k: &'static str| {
        if k.is_empty() {
            return 0;
        }
        checked(d, k).unwrap_or_else(|field| {
            invalid.push(field);
            0
        })
    };
    let (docs, bytes, orphaned_docs, orphaned_bytes) =
        (get(keys[0]), get(keys[1]), get(keys[2]), get(keys[3]));
    ShardSize {
        ns: ns.to_string(),
        shard: shard.to_string(),
        docs,
        bytes,
        orphaned_docs,
        orphaned_bytes,
        invalid,
    }
}

/// What a poll reads of the sizes: `$shardedDataDistribution` where the mongos has it (`sdd`),
/// else `$collStats` per collection; a mongos that answers 40324 ("Unrecognized pipeline stage
/// name": 6.0.0–6.0.2, or a vendor build without it) is asked `$collStats` from then on. Any
/// other refusal leaves the sizes unknown and says why (the shards pane).
pub(super) async fn read(
    client: &LiveClient,
    sdd: &mut bool,
    names: Vec<String>,
    refused: &mut Refusals,
) -> Result<Vec<ShardSize>, LiveError> {
    let per_collection =
        || privileges::coll_stats(names.first().map_or("each collection", String::as_str));
    if *sdd {
        match data_sizes(client, true, names.clone()).await {
            Err(e) if e.code == Some(40324) => *sdd = false,
            other => return refused.optional(other, &privileges::sharded_data_distribution()),
        }
    }
    let read = per_collection();
    refused.optional(data_sizes(client, false, names).await, &read)
}

/// Per-shard owned (and orphaned) documents and bytes of the collections `names`:
/// `$shardedDataDistribution` (`sdd`), else `$collStats` per collection.
pub(super) async fn data_sizes(
    client: &LiveClient,
    sdd: bool,
    names: Vec<String>,
) -> Result<Vec<ShardSize>, LiveError> {
    let mut per: Vec<ShardSize> = Vec::new();
    if sdd {
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
                let shard = s.get_str("shardName").unwrap_or_default();
                let keys = [
                    "numOwnedDocuments",
                    "ownedSizeBytes",
                    "numOrphanedDocs",
                    "orphanedSizeBytes",
                ];
                per.push(row(&ns, shard, s, keys));
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
                let shard = r.get_str("shard").unwrap_or_default();
                per.push(row(&ns, shard, &stats, ["count", "size", "", ""]));
            }
        }
    }
    Ok(per)
}

/// Whether a mongos of this version string (`buildInfo.version`) has `$shardedDataDistribution`:
/// from 6.0.3 (6.0.0–6.0.2 answer 40324 "Unrecognized pipeline stage name"; mongo
/// `src/mongo/db/pipeline/document_source_sharded_data_distribution.cpp` is in r6.0.3, not in
/// r6.0.2). A string that does not parse is taken as a recent server.
pub fn has_sharded_data_distribution(version: &str) -> bool {
    let Ok(line) = version.parse::<ServerVersion>() else {
        return true;
    };
    let patch = version
        .split(['-', '+'])
        .next()
        .and_then(|v| v.split('.').nth(2))
        .and_then(|p| p.parse::<u32>().ok());
    line > ServerVersion::V6_0 || (line == ServerVersion::V6_0 && patch.is_none_or(|p| p >= 3))
}

pub(super) fn number(d: &Document, key: &str) -> u64 {
    match d.get(key) {
        Some(Bson::Int32(n)) => (*n).max(0) as u64,
        Some(Bson::Int64(n)) => (*n).max(0) as u64,
        Some(Bson::Double(n)) if *n > 0.0 => *n as u64,
        _ => 0,
    }
}

/// The `(ns, shard)` pairs whose owned size was read (and valid).
pub(super) fn sized(sizes: &[ShardSize]) -> std::collections::HashSet<(String, String)> {
    sizes
        .iter()
        .filter(|z| z.invalid.is_empty())
        .map(|z| (z.ns.clone(), z.shard.clone()))
        .collect()
}

/// A warning per size row holding a value no server reports, naming the collection, the shard
/// and the fields (the pane the sizes feed shows it; `--once` prints it on stderr).
pub(super) fn invalid_notes(
    sizes: &[ShardSize],
    version: ServerVersion,
) -> Vec<crate::cluster::privileges::RefusedRead> {
    let source = if version >= ServerVersion::V6_0 {
        "$shardedDataDistribution"
    } else {
        "$collStats"
    };
    sizes
        .iter()
        .filter(|z| !z.invalid.is_empty())
        .map(|z| crate::cluster::privileges::RefusedRead {
            feeds: crate::cluster::privileges::Feeds::Shards,
            text: format!(
                "invalid: {source} of {} on shard {}: {} out of what a server reports; its sizes are shown as invalid",
                z.ns,
                z.shard,
                z.invalid.join(", ")
            ),
        })
        .collect()
}

/// Spreads each shard's owned documents and bytes evenly over its chunks of each collection
/// (a shard not listed owns nothing; writes restart at zero).
/// A shard's orphans are known only as totals: they are kept as one range over the whole key
/// space, never due (a mongos does not say which ranges, nor when they go).
pub(super) fn spread(cluster: &mut Cluster, sizes: &[ShardSize]) {
    let mut owned: HashMap<&str, Vec<(ShardIdx, ChunkStats)>> = HashMap::new();
    let mut orphans: HashMap<&str, Vec<(ShardIdx, u64, u64)>> = HashMap::new();
    let mut invalid: HashMap<&str, Vec<ShardIdx>> = HashMap::new();
    for z in sizes {
        if let Some(s) = cluster.shard_index(&z.shard) {
            if !z.invalid.is_empty() {
                invalid.entry(z.ns.as_str()).or_default().push(s);
            }
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
        c.invalid_sizes = invalid.remove(c.ns.as_str()).unwrap_or_default();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sharded_data_distribution_came_in_6_0_3() {
        for (v, has) in [
            ("5.0.14", false),
            ("6.0.0", false),
            ("6.0.2", false),
            ("6.0.3", true),
            ("6.0.1-rc0", false),
            ("7.0.40-22", true),
            ("8.0.32", true),
        ] {
            assert_eq!(has_sharded_data_distribution(v), has, "{v}");
        }
    }
}
