//! The lab's side-by-side frame: per candidate key, a compact shards pane (chunks, data, its
//! share of the new inserts), its key-space strip with the hot chunk, and its numbers so far.

use crate::cluster::Cluster;
use crate::model::ShardIdx;

/// Cells of each candidate's strip (the pane samples them to its width).
pub const STRIP_CELLS: usize = 240;

/// Every candidate, as the inserts have brought them so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabView {
    /// Documents taken so far, of all.
    pub documents: u64,
    pub total: u64,
    pub columns: Vec<LabColumn>,
}

/// One shard of one candidate.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabShard {
    pub id: String,
    pub chunks: u64,
    pub bytes: u64,
    /// Its share of the new inserts so far.
    pub share: f64,
    /// A hotspot of the new inserts by `cluster::hotspot`'s rule.
    pub hot: bool,
}

/// One candidate.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabColumn {
    /// The key as mongosh shows it.
    pub key: String,
    pub shards: Vec<LabShard>,
    /// Each cell's owner and whether it holds the hot chunk (the busiest of this balancer round).
    pub strip: Vec<(ShardIdx, bool)>,
    pub chunks: usize,
    pub jumbo: u64,
    pub new_inserts: u64,
    pub migrations: u64,
    pub max_share: f64,
    /// The traffic's operations that go to one shard under the chunks as they are, of all.
    pub single_shard: usize,
    pub operations: usize,
    /// Each operation (`find({…})`) and where it goes (`one shard`, `scatter-gather`, `range:
    /// 2 shards`).
    pub targets: Vec<(String, String)>,
    /// `numReadsByRange` / `numWritesByRange` over the documents so far as heat glyphs, one a
    /// range (empty: too few key values for the ranges).
    pub reads_by_range: String,
    pub writes_by_range: String,
}

/// The counts a column shows besides the cluster's own.
#[derive(Clone, Debug, Default)]
pub struct ColumnCounts {
    pub inserts_per_shard: Vec<u64>,
    pub new_inserts: u64,
    pub migrations: u64,
    pub hot_chunk: Option<usize>,
    pub single_shard: usize,
    pub operations: usize,
    /// Chunks over the chunk size with one key value (or flagged jumbo).
    pub jumbo: u64,
    pub targets: Vec<(String, String)>,
    pub reads_by_range: String,
    pub writes_by_range: String,
}

/// The column of `cluster`'s first collection.
pub fn column(key: String, cluster: &Cluster, counts: &ColumnCounts) -> LabColumn {
    let Some(coll) = cluster.collections.first() else {
        return LabColumn {
            key,
            ..LabColumn::default()
        };
    };
    let total = counts.new_inserts.max(1) as f64;
    let owning = (0..cluster.shards.len())
        .filter(|&i| coll.table.shard_totals(ShardIdx(i as u32)).chunks > 0)
        .count();
    let hot = crate::cluster::hotspot::hotspot(
        counts.inserts_per_shard.iter().copied().enumerate(),
        owning,
    )
    .map(|h| h.key);
    let shards: Vec<LabShard> = cluster
        .shards
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let t = coll.table.shard_totals(ShardIdx(i as u32));
            LabShard {
                id: s.shard.id.clone(),
                chunks: t.chunks,
                bytes: t.stats.bytes,
                share: counts.inserts_per_shard.get(i).copied().unwrap_or(0) as f64 / total,
                hot: hot == Some(i),
            }
        })
        .collect();
    let n = coll.table.len();
    let strip = (0..STRIP_CELLS)
        .map(|c| {
            let first = c * n / STRIP_CELLS;
            let last = ((c + 1) * n / STRIP_CELLS).max(first + 1);
            let hot = counts.hot_chunk.is_some_and(|h| (first..last).contains(&h));
            (coll.table.chunk(first.min(n - 1)).info.shard, hot)
        })
        .collect();
    let max_share = shards.iter().map(|s| s.share).fold(0.0, f64::max);
    LabColumn {
        key,
        jumbo: counts.jumbo,
        targets: counts.targets.clone(),
        reads_by_range: counts.reads_by_range.clone(),
        writes_by_range: counts.writes_by_range.clone(),
        shards,
        strip,
        chunks: n,
        new_inserts: counts.new_inserts,
        migrations: counts.migrations,
        max_share,
        single_shard: counts.single_shard,
        operations: counts.operations,
    }
}
