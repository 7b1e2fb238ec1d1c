//! `autoSplitVector` with a limit of one split point, as a 6.0+ donor runs it to find the other
//! bound of a `moveRange` given only one bound (the balancer's moves, drains, zone moves and the
//! `moveRange` command): `computeOtherBound` in `db/s/migration_source_manager.cpp` calls
//! `autoSplitVector(…, maxChunkSizeBytes, limit 1, forward)` and takes the first split point, or
//! the chunk's own bound when there is none.
//!
//! The rule, from `db/s/auto_split_vector.cpp` (6.0-era and master copies read):
//! - nothing when the donor's collection (`dataSize`, orphans included) is under the chunk size,
//!   or the range holds one shard-key value;
//! - `maxDocsPerChunk` = chunk size ÷ (`dataSize` ÷ `numRecords`); the index is scanned (forwards
//!   from `min`, backwards from `max`) counting documents, and the key at which the count reaches
//!   `maxDocsPerChunk` is a split point (never a value already a split point); the scan stops at
//!   `limit + 1` points;
//! - when what follows the last point holds under 80 % of `maxDocsPerChunk`, the last point is
//!   dropped (the leftover is absorbed: a range up to about 1.33 chunks moves whole) or the last
//!   points (at most 3) are re-spread evenly over what they cover;
//! - the list is cut to `limit`.
//!
//! Owns: that computation over a collection's key index. May not touch: the routing table.

use super::engine::Simulator;
use crate::cluster::key_index::KeyCount;
use crate::model::{ShardIdx, ShardKey};

/// `kMaxSplitPointsToReposition` in `auto_split_vector.cpp`.
const MAX_SPLIT_POINTS_TO_REPOSITION: usize = 3;

/// What `autoSplitVector` reads from the donor's collection: `numRecords` and `dataSize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalCollection {
    pub docs: u64,
    pub bytes: u64,
}

/// The index scan's direction: forwards from `min` (a bound to find above), backwards from `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

/// `autoSplitVector(min, max, maxChunkSizeBytes, limit, forward)` over `entries`, the sorted
/// distinct values of `[min, max)` with their documents.
pub fn auto_split_vector(
    entries: &[(ShardKey, KeyCount)],
    local: LocalCollection,
    max_chunk_size_bytes: u64,
    limit: usize,
    direction: Direction,
) -> Vec<ShardKey> {
    if local.bytes < max_chunk_size_bytes || local.docs == 0 || entries.len() < 2 {
        return Vec::new();
    }
    let avg_doc_size = (local.bytes / local.docs).max(1);
    let per_chunk = max_chunk_size_bytes / avg_doc_size;
    let at = |i: usize| match direction {
        Direction::Forward => &entries[i],
        Direction::Backward => &entries[entries.len() - 1 - i],
    };
    let (mut splits, scanned) = first_pass(entries.len(), &at, per_chunk, limit);
    // "Avoid creating small chunks by fairly recalculating the last split points if the last
    // chunk would be too small (containing less than `80% maxDocsPerChunk` documents)."
    if (scanned as f64) < per_chunk as f64 * 0.8 && !splits.is_empty() {
        let n = splits.len().min(MAX_SPLIT_POINTS_TO_REPOSITION);
        let per_new_chunk = per_chunk - (per_chunk - scanned) / (n as u64 + 1);
        if scanned < per_chunk - per_new_chunk {
            splits.pop();
        } else {
            splits.truncate(splits.len() - n);
            let from = splits.last().copied().unwrap_or(0);
            splits.extend(reposition(entries.len(), &at, from, per_new_chunk, n));
        }
    }
    splits.truncate(limit);
    splits.into_iter().map(|i| at(i).0.clone()).collect()
}

/// The main scan: positions (in scan order) of the split points, and the documents counted after
/// the last one (0 when the scan stopped at `limit + 1` points, as the server resets its count).
fn first_pass<'a>(
    len: usize,
    at: &impl Fn(usize) -> &'a (ShardKey, KeyCount),
    per_chunk: u64,
    limit: usize,
) -> (Vec<usize>, u64) {
    // The first value's documents: its first one is counted before the loop, the others repeat
    // the "last split point" (the first key) and are only counted.
    let mut scanned = at(0).1.docs;
    let mut splits = Vec::new();
    for i in 1..len {
        let docs = at(i).1.docs;
        if scanned + docs < per_chunk {
            scanned += docs;
            continue;
        }
        // The document of this value at which the count reaches `maxDocsPerChunk`; the value's
        // later documents are counted towards the next piece.
        let reached_at = per_chunk.saturating_sub(scanned).max(1);
        splits.push(i);
        if splits.len() == limit + 1 {
            return (splits, 0);
        }
        scanned = docs - reached_at;
    }
    (splits, scanned)
}

/// The second scan, from position `from` (included, counted, never a split point itself): `n`
/// points each `per_new_chunk` documents apart.
fn reposition<'a>(
    len: usize,
    at: &impl Fn(usize) -> &'a (ShardKey, KeyCount),
    from: usize,
    per_new_chunk: u64,
    n: usize,
) -> Vec<usize> {
    let mut out = Vec::new();
    let mut scanned = at(from).1.docs;
    for i in from + 1..len {
        let docs = at(i).1.docs;
        if scanned + docs < per_new_chunk {
            scanned += docs;
            continue;
        }
        out.push(i);
        if out.len() == n {
            break;
        }
        scanned = docs - per_new_chunk.saturating_sub(scanned).max(1);
    }
    out
}

impl Simulator {
    /// What `autoSplitVector` reads on `shard` for collection `c`: its owned documents and the
    /// orphans still there (`numRecords` and `dataSize` count both).
    fn local_collection(&self, c: usize, shard: ShardIdx) -> LocalCollection {
        let coll = &self.cluster.collections[c];
        let owned = coll.table.shard_totals(shard).stats;
        let (orphan_docs, orphan_bytes) = coll.orphans_on(shard);
        LocalCollection {
            docs: owned.docs + orphan_docs,
            bytes: owned.bytes + orphan_bytes,
        }
    }

    /// The upper bound of the range a `moveRange` from `min` (to the chunk's end `max`, on
    /// `shard`) moves: `None` for the whole rest of the chunk.
    // 6.0+ `db/s/migration_source_manager.cpp` (`computeOtherBound`, needMaxBound),
    // `db/s/auto_split_vector.cpp`.
    pub(in crate::sim) fn other_bound_above(
        &self,
        c: usize,
        shard: ShardIdx,
        (min, max): (&ShardKey, &ShardKey),
    ) -> Option<ShardKey> {
        self.other_bound(c, shard, (min, max), Direction::Forward)
    }

    /// The lower bound of the range a `moveRange` given only `max` moves (scanning backwards
    /// from `max` down to the chunk's `min`): `None` for the whole chunk below `max`.
    // master `db/s/migration_source_manager.cpp` (`computeOtherBound`, !needMaxBound),
    // `db/s/auto_split_vector.cpp` (backwards scan).
    pub(in crate::sim) fn other_bound_below(
        &self,
        c: usize,
        shard: ShardIdx,
        (min, max): (&ShardKey, &ShardKey),
    ) -> Option<ShardKey> {
        self.other_bound(c, shard, (min, max), Direction::Backward)
    }

    /// `autoSplitVector` with limit 1 over the donor's keys of `[min, max)`, scanning in
    /// `direction`: the other bound, `None` for the whole range.
    fn other_bound(
        &self,
        c: usize,
        shard: ShardIdx,
        (min, max): (&ShardKey, &ShardKey),
        direction: Direction,
    ) -> Option<ShardKey> {
        let local = self.local_collection(c, shard);
        let size = self.cluster.chunk_size_of(c);
        let coll = &self.cluster.collections[c];
        coll.keys
            .with_range(min, max, |entries| {
                auto_split_vector(entries, local, size, 1, direction)
            })
            .pop()
    }
}

#[cfg(test)]
#[path = "auto_split_vector_tests.rs"]
mod tests;
