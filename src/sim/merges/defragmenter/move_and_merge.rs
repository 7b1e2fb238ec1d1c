//! `moveAndMergeChunks`: each balancer round, every free shard (largest share of the collection
//! first) offers its smallest small chunk; the chunk goes to the shard of the neighbour it ranks
//! best — already on its shard, then "convenient" (the chunk is the smaller), then a merge that
//! solves two small chunks, then one — among the neighbours of its zone on a shard that is not
//! draining; ties go to the shard with less data. The merge follows the move. A chunk with no such
//! neighbour, or whose move fails, is given up.
// 8.0 `db/s/balancer/balancer_defragmentation_policy.cpp` (`MoveAndMergeChunksPhase`:
// `popCandidate`, `_rankMergeableSibling`, `kNoMoveRequired`, `kConvenientMove`,
// `kMergeSolvesTwoPendingChunks`, `kMergeSolvesOnePendingChunk`; the chunk moves to
// `chunkToMergeWith->shard`; `ChunkTooBig` → never tried again).

use super::{CollectionState, DefragmentationPhase, Simulator};
use crate::cluster::event::MigrationReason;
use crate::model::{ShardIdx, ShardKey};

/// A chosen pair: the small chunk and the neighbour it joins.
struct Pick {
    chunk: usize,
    sibling: usize,
}

impl Simulator {
    /// Small chunks of collection `c` (estimate ≤ threshold) not given up, by index.
    pub(super) fn small_chunks(&self, c: usize) -> Vec<usize> {
        let threshold = self.small_chunk_bytes(c);
        let coll = &self.cluster.collections[c];
        let Some(st) = self.defragmenter.states.get(&coll.ns) else {
            return Vec::new();
        };
        coll.table
            .iter()
            .enumerate()
            .filter(|(_, ch)| !st.given_up.contains(ch.min))
            .filter(|(_, ch)| st.estimates.get(ch.min).is_some_and(|&e| e <= threshold))
            .map(|(i, _)| i)
            .collect()
    }

    /// The balancer round's part: starts the moves (and queues the merges) of every collection in
    /// `moveAndMergeChunks`, marking the shards it uses. Returns the migrations started and how
    /// many failed to start.
    pub(in crate::sim) fn start_defragmentation_moves(
        &mut self,
        busy: &mut [bool],
    ) -> (Vec<u64>, usize) {
        let (mut started, mut failed) = (Vec::new(), 0);
        for c in 0..self.cluster.collections.len() {
            let coll = &self.cluster.collections[c];
            if coll.defragmentation != Some(DefragmentationPhase::MoveAndMergeChunks)
                || coll.resharding.is_some()
            {
                continue;
            }
            for s in self.shards_by_collection_bytes(c) {
                if busy[s.index()] {
                    continue;
                }
                let Some(pick) = self.pick_small_chunk(c, s, busy) else {
                    continue;
                };
                let coll = &self.cluster.collections[c];
                let (min, to) = (coll.table.chunk(pick.chunk).min.clone(), {
                    coll.table.chunk(pick.sibling).info.shard
                });
                let sibling_min = coll.table.chunk(pick.sibling).min.clone();
                let ns = coll.ns.clone();
                busy[s.index()] = true;
                busy[to.index()] = true;
                if to != s {
                    let moved = self.start_migration(
                        c,
                        pick.chunk,
                        None,
                        to,
                        MigrationReason::Defragmentation,
                    );
                    if moved.is_err() {
                        self.defragmenter.state(&ns).given_up.insert(min);
                        failed += 1;
                        continue;
                    }
                    started.push(self.cluster.next_migration_id - 1);
                }
                self.defragmenter
                    .state(&ns)
                    .pending_merges
                    .push((min, sibling_min));
            }
        }
        (started, failed)
    }

    fn shards_by_collection_bytes(&self, c: usize) -> Vec<ShardIdx> {
        let table = &self.cluster.collections[c].table;
        let mut shards: Vec<(u64, ShardIdx)> = (0..self.cluster.shards.len())
            .filter(|&s| !self.cluster.shards[s].removed)
            .map(|s| ShardIdx(s as u32))
            .map(|s| (table.shard_totals(s).stats.bytes, s))
            .collect();
        shards.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        shards.into_iter().map(|(_, s)| s).collect()
    }

    /// Shard `s`'s smallest small chunk with a free neighbour to join; chunks with no eligible
    /// neighbour at all are given up.
    fn pick_small_chunk(&mut self, c: usize, s: ShardIdx, busy: &[bool]) -> Option<Pick> {
        let ns = self.cluster.collections[c].ns.clone();
        let mut small: Vec<(u64, usize)> = self
            .small_chunks(c)
            .into_iter()
            .filter(|&i| self.cluster.collections[c].table.chunk(i).info.shard == s)
            .map(|i| (self.estimate(c, i), i))
            .collect();
        small.sort_unstable();
        for (_, i) in small {
            if self.in_pending(c, i) || self.chunk_migrating(c, i) {
                continue;
            }
            let siblings = self.eligible_siblings(c, i);
            if siblings.is_empty() {
                let min = self.cluster.collections[c].table.chunk(i).min.clone();
                self.defragmenter.state(&ns).given_up.insert(min);
                continue;
            }
            let free = siblings.into_iter().filter(|&j| {
                let to = self.cluster.collections[c].table.chunk(j).info.shard;
                (to == s || !busy[to.index()])
                    && !self.in_pending(c, j)
                    && !self.chunk_migrating(c, j)
            });
            if let Some(j) = free.max_by(|&a, &b| self.compare_siblings(c, i, a, b)) {
                return Some(Pick {
                    chunk: i,
                    sibling: j,
                });
            }
        }
        None
    }

    fn estimate(&self, c: usize, i: usize) -> u64 {
        let coll = &self.cluster.collections[c];
        self.defragmenter
            .states
            .get(&coll.ns)
            .and_then(|st| st.estimates.get(coll.table.chunk(i).min).copied())
            .unwrap_or(u64::MAX)
    }

    fn in_pending(&self, c: usize, i: usize) -> bool {
        let coll = &self.cluster.collections[c];
        let min = coll.table.chunk(i).min;
        self.defragmenter
            .states
            .get(&coll.ns)
            .is_some_and(|st| st.pending_merges.iter().any(|(a, b)| a == min || b == min))
    }

    fn chunk_migrating(&self, c: usize, i: usize) -> bool {
        let coll = &self.cluster.collections[c];
        self.cluster
            .balancer
            .migrating(&coll.ns, coll.table.chunk(i).min)
    }

    /// The neighbours of chunk `i` in its zone whose shard is not draining (or is its own).
    fn eligible_siblings(&self, c: usize, i: usize) -> Vec<usize> {
        let coll = &self.cluster.collections[c];
        let zone_of = |k: usize| {
            let ch = coll.table.chunk(k);
            coll.zones.zone_of_chunk(ch.min, ch.max)
        };
        let own = coll.table.chunk(i).info.shard;
        [
            i.checked_sub(1),
            Some(i + 1).filter(|&j| j < coll.table.len()),
        ]
        .into_iter()
        .flatten()
        .filter(|&j| zone_of(j) == zone_of(i))
        .filter(|&j| {
            let to = coll.table.chunk(j).info.shard;
            to == own || !self.cluster.shards[to.index()].shard.draining
        })
        .collect()
    }

    /// Orders two neighbours `a`, `b` of small chunk `i` by rank, then by their shard's data
    /// (less is better).
    fn compare_siblings(&self, c: usize, i: usize, a: usize, b: usize) -> std::cmp::Ordering {
        let table = &self.cluster.collections[c].table;
        let bytes_of = |j: usize| table.shard_totals(table.chunk(j).info.shard).stats.bytes;
        self.sibling_rank(c, i, a)
            .cmp(&self.sibling_rank(c, i, b))
            .then(bytes_of(b).cmp(&bytes_of(a)))
    }

    /// `_rankMergeableSibling`.
    fn sibling_rank(&self, c: usize, i: usize, j: usize) -> u32 {
        const NO_MOVE_REQUIRED: u32 = 1 << 4;
        const CONVENIENT_MOVE: u32 = 1 << 3;
        const MERGE_SOLVES_TWO: u32 = 1 << 2;
        const MERGE_SOLVES_ONE: u32 = 1 << 1;
        let table = &self.cluster.collections[c].table;
        let (size_i, size_j) = (self.estimate(c, i), self.estimate(c, j));
        let threshold = self.small_chunk_bytes(c);
        let mut rank = 0;
        if table.chunk(i).info.shard == table.chunk(j).info.shard {
            rank += NO_MOVE_REQUIRED;
        } else if size_i < size_j {
            rank += CONVENIENT_MOVE;
        }
        if size_i.saturating_add(size_j) > threshold {
            rank += if size_j < threshold {
                MERGE_SOLVES_TWO
            } else {
                MERGE_SOLVES_ONE
            };
        }
        rank
    }

    /// The stream's part: merges each moved chunk with its neighbour once the move is done; ends
    /// the phase when no small chunk is left to handle.
    pub(super) fn merge_after_moves(&mut self, c: usize) {
        let ns = self.cluster.collections[c].ns.clone();
        let pending = std::mem::take(&mut self.defragmenter.state(&ns).pending_merges);
        let mut keep = Vec::new();
        for (moved, sibling) in pending {
            if self.cluster.balancer.migrating(&ns, &moved) || !self.take_throttle() {
                keep.push((moved, sibling));
                continue;
            }
            self.merge_pair(c, &moved, &sibling);
        }
        let st = self.defragmenter.state(&ns);
        st.pending_merges = keep;
        if !st.pending_merges.is_empty() || self.migrating_for_defragmentation(&ns) {
            return;
        }
        let unmeasured = self.cluster.collections[c].table.iter().any(|ch| {
            !self
                .defragmenter
                .states
                .get(&ns)
                .is_some_and(|s: &CollectionState| s.estimates.contains_key(ch.min))
        });
        if unmeasured {
            self.set_defragmentation_phase(c, Some(DefragmentationPhase::MergeAndMeasureChunks));
        } else if self.small_chunks(c).is_empty() {
            self.set_defragmentation_phase(c, Some(DefragmentationPhase::MergeChunks));
        }
    }

    /// Merges the two adjacent chunks starting at `a` and `b` when they now share a shard.
    fn merge_pair(&mut self, c: usize, a: &ShardKey, b: &ShardKey) {
        let table = &self.cluster.collections[c].table;
        let (Some(i), Some(j)) = (table.find_by_min(a), table.find_by_min(b)) else {
            return;
        };
        let (lo, hi) = (i.min(j), i.max(j));
        if hi != lo + 1 || table.chunk(lo).info.shard != table.chunk(hi).info.shard {
            return;
        }
        let merged = self.estimate(c, lo).saturating_add(self.estimate(c, hi));
        self.defragmentation_merge(c, lo..hi + 1, Some(merged));
    }
}
