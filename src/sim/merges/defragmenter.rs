//! Chunk defragmentation (`configureCollectionBalancing {defragmentCollection: true}`, 5.3+): the
//! balancer's action stream takes a collection through `mergeAndMeasureChunks` (merge every run of
//! contiguous chunks of one shard and zone, measure each chunk), `moveAndMergeChunks` (move each
//! small chunk, ≤ 25 % of the chunk size, to a neighbour's shard and merge the two; these moves
//! are the balancer round's) and `mergeChunks` (merge the runs the moves left), then — before 6.0,
//! while the auto-splitter exists — `splitChunks` (split what is above the chunk size). Merges
//! and splits wait `chunkDefragmentationThrottlingMS` (1,000) between them; measuring does not.
//! The balancer does not balance the collection meanwhile and the auto-splitter leaves it alone.
//! It runs while the balancer is on; `defragmentCollection: false` ends it (before 6.0 through
//! `splitChunks`).
// 6.0–8.0 `db/s/balancer/balancer_defragmentation_policy{_impl}.cpp` (`MergeAndMeasureChunksPhase`,
// `MoveAndMergeChunksPhase`, `MergeChunksPhase`, `SplitChunksPhase` before `gNoMoreAutoSplitter`,
// `kSmallChunkSizeThresholdPctg = 25`, `_clearDefragmentationState`, `userAbort`),
// `balancer.cpp` (`applyThrottling` before merges and splits, `kMaxOutstandingStreamingOperations
// = 50`), `balancer_policy_utils` / `balancer_chunk_selection_policy_impl.cpp`
// (`canBalanceCollection`: not while `getDefragmentCollection()`).
//
// Simplified: measuring is instant (a `dataSize` per chunk, 50 per tick); the merge that follows a
// move runs at the next tick after the move commits (throttled like the others); splits cut at the
// chunk size.

mod move_and_merge;

use std::collections::{BTreeMap, BTreeSet};

use crate::cluster::ServerVersion;
use crate::cluster::defragmentation::DefragmentationPhase;
use crate::cluster::event::{EventKind, SplitCause};
use crate::model::{ShardIdx, ShardKey};
use crate::sim::engine::Simulator;

/// `chunkDefragmentationThrottlingMS`.
pub const THROTTLING_MS: u64 = 1_000;
/// `kSmallChunkSizeThresholdPctg`.
pub const SMALL_CHUNK_PCT: u64 = 25;
/// `kMaxOutstandingStreamingOperations`: measurements taken per tick.
const MAX_OUTSTANDING: usize = 50;
/// `kBigChunkMarker`: from 7.0 `dataSize` stops at the small-chunk threshold.
const BIG_CHUNK_MARKER: u64 = i64::MAX as u64;

/// The defragmentation policy's working state: per collection, the chunk sizes measured
/// (`estimatedSizeBytes`), the move-then-merge pairs waiting for their merge, the chunks given up.
#[derive(Clone, Debug, Default)]
pub struct Defragmenter {
    states: BTreeMap<String, CollectionState>,
    last_throttled_ms: Option<u64>,
}

#[derive(Clone, Debug, Default)]
struct CollectionState {
    estimates: BTreeMap<ShardKey, u64>,
    /// (moved chunk's min, its sibling's min), merged once the move has committed.
    pending_merges: Vec<(ShardKey, ShardKey)>,
    given_up: BTreeSet<ShardKey>,
    next_shard: usize,
    stopping: bool,
}

impl Defragmenter {
    fn state(&mut self, ns: &str) -> &mut CollectionState {
        self.states.entry(ns.to_string()).or_default()
    }
}

impl Simulator {
    /// `defragmentCollection: true` (starts, unless running) or `false` (ends it).
    pub(in crate::sim) fn set_defragmentation(&mut self, c: usize, on: bool) {
        let running = self.cluster.collections[c].defragmentation;
        let ns = self.cluster.collections[c].ns.clone();
        match (on, running) {
            (true, None) => {
                self.defragmenter
                    .states
                    .insert(ns, CollectionState::default());
                self.set_defragmentation_phase(
                    c,
                    Some(DefragmentationPhase::MergeAndMeasureChunks),
                );
            }
            (false, Some(_)) => self.defragmenter.state(&ns).stopping = true,
            _ => {}
        }
    }

    fn set_defragmentation_phase(&mut self, c: usize, phase: Option<DefragmentationPhase>) {
        let coll = &mut self.cluster.collections[c];
        coll.defragmentation = phase;
        let ns = coll.ns.clone();
        if phase.is_none() {
            self.defragmenter.states.remove(&ns);
        }
        self.emit(EventKind::DefragmentationPhaseSet { ns, phase });
    }

    /// The small-chunk threshold of collection `c`: 25 % of its chunk size.
    fn small_chunk_bytes(&self, c: usize) -> u64 {
        self.cluster.chunk_size_of(c) / 100 * SMALL_CHUNK_PCT
    }

    /// `reportProgressOn`: the phase and `remainingChunksToProcess`.
    pub fn defragmentation_progress(&self, c: usize) -> Option<(DefragmentationPhase, u64)> {
        let coll = &self.cluster.collections[c];
        let phase = coll.defragmentation?;
        let remaining = match phase {
            DefragmentationPhase::MergeAndMeasureChunks => {
                let st = self.defragmenter.states.get(&coll.ns);
                let unmeasured = coll
                    .table
                    .iter()
                    .filter(|ch| st.is_none_or(|s| !s.estimates.contains_key(ch.min)))
                    .count();
                self.mergeable_runs_all(c).len() + unmeasured
            }
            DefragmentationPhase::MoveAndMergeChunks => self.small_chunks(c).len(),
            DefragmentationPhase::MergeChunks => self.mergeable_runs_all(c).len(),
            DefragmentationPhase::SplitChunks => self.oversized_chunks(c).len(),
        };
        Some((phase, remaining as u64))
    }

    /// One tick of the action stream, for every collection being defragmented.
    pub(in crate::sim) fn defragmenter_tick(&mut self) {
        if !self.cluster.settings.balancer_enabled {
            return;
        }
        for c in 0..self.cluster.collections.len() {
            let Some(phase) = self.cluster.collections[c].defragmentation else {
                continue;
            };
            if self.cluster.collections[c].resharding.is_some() {
                continue;
            }
            let ns = self.cluster.collections[c].ns.clone();
            if self.defragmenter.state(&ns).stopping && !self.migrating_for_defragmentation(&ns) {
                let next = (phase != DefragmentationPhase::SplitChunks && self.has_auto_splitter())
                    .then_some(DefragmentationPhase::SplitChunks);
                self.defragmenter.state(&ns).stopping = false;
                self.set_defragmentation_phase(c, next);
                continue;
            }
            match phase {
                DefragmentationPhase::MergeAndMeasureChunks => self.merge_and_measure(c),
                DefragmentationPhase::MoveAndMergeChunks => self.merge_after_moves(c),
                DefragmentationPhase::MergeChunks => self.merge_chunks_phase(c),
                DefragmentationPhase::SplitChunks => self.split_chunks_phase(c),
            }
        }
    }

    /// A defragmentation move that failed at its end (the recipient waited for the range
    /// deleter in vain): its chunk is given up, as one whose move fails to start.
    pub(in crate::sim) fn give_up_defragmentation_move(&mut self, ns: &str, min: &ShardKey) {
        self.defragmenter.state(ns).given_up.insert(min.clone());
    }

    fn has_auto_splitter(&self) -> bool {
        self.cluster.version < ServerVersion::V6_0
    }

    fn migrating_for_defragmentation(&self, ns: &str) -> bool {
        self.cluster.balancer.in_flight.iter().any(|m| {
            m.ns == ns && m.reason == crate::cluster::event::MigrationReason::Defragmentation
        })
    }

    /// Whether a throttled action (merge, split) may run now; if so, it is counted as run.
    fn take_throttle(&mut self) -> bool {
        let now = self.cluster.now_ms;
        if self
            .defragmenter
            .last_throttled_ms
            .is_some_and(|t| now < t + THROTTLING_MS)
        {
            return false;
        }
        self.defragmenter.last_throttled_ms = Some(now);
        true
    }

    fn merge_and_measure(&mut self, c: usize) {
        self.measure_chunks(c);
        let runs = self.mergeable_runs_all(c);
        if runs.is_empty() {
            if self
                .defragmentation_progress(c)
                .is_some_and(|(_, n)| n == 0)
            {
                self.set_defragmentation_phase(c, Some(DefragmentationPhase::MoveAndMergeChunks));
            }
            return;
        }
        if self.take_throttle() {
            let run = self.next_run_round_robin(c, &runs);
            self.defragmentation_merge(c, run, None);
        }
    }

    /// `dataSize` for the chunks without an estimate that no merge is about to replace.
    fn measure_chunks(&mut self, c: usize) {
        let in_runs: BTreeSet<usize> = self.mergeable_runs_all(c).into_iter().flatten().collect();
        let threshold = self.small_chunk_bytes(c);
        let estimate_capped = self.cluster.version >= ServerVersion::V7_0;
        let coll = &self.cluster.collections[c];
        let st = self.defragmenter.states.entry(coll.ns.clone()).or_default();
        let mut taken = 0;
        for (i, ch) in coll.table.iter().enumerate() {
            if taken == MAX_OUTSTANDING {
                break;
            }
            if in_runs.contains(&i) || st.estimates.contains_key(ch.min) {
                continue;
            }
            let bytes = ch.info.stats.bytes;
            let estimate = if estimate_capped && bytes > threshold {
                BIG_CHUNK_MARKER
            } else {
                bytes
            };
            st.estimates.insert(ch.min.clone(), estimate);
            taken += 1;
        }
    }

    /// Every run of two or more contiguous chunks of one shard and zone (`areMergeable`).
    fn mergeable_runs_all(&self, c: usize) -> Vec<std::ops::Range<usize>> {
        let coll = &self.cluster.collections[c];
        let zoned = !coll.zones.is_empty();
        let key = |i: usize| {
            let ch = coll.table.chunk(i);
            let zone = zoned.then(|| coll.zones.zone_of_chunk(ch.min, ch.max));
            (ch.info.shard, zone)
        };
        let busy = |i: usize| {
            let ch = coll.table.chunk(i);
            self.cluster.balancer.migrating(&coll.ns, ch.min)
        };
        let mut runs = Vec::new();
        let mut i = 0;
        while i < coll.table.len() {
            let mut end = i + 1;
            while end < coll.table.len() && key(end) == key(i) && !busy(end) && !busy(i) {
                end += 1;
            }
            if end - i >= 2 {
                runs.push(i..end);
            }
            i = end;
        }
        runs
    }

    /// The lowest run on the next shard in turn (shards are served round-robin).
    fn next_run_round_robin(
        &mut self,
        c: usize,
        runs: &[std::ops::Range<usize>],
    ) -> std::ops::Range<usize> {
        let n = self.cluster.shards.len().max(1);
        let coll = &self.cluster.collections[c];
        let st = self.defragmenter.states.entry(coll.ns.clone()).or_default();
        let shard_of = |r: &std::ops::Range<usize>| coll.table.chunk(r.start).info.shard.index();
        let pick = (0..n)
            .map(|k| (st.next_shard + k) % n)
            .find_map(|s| runs.iter().find(|r| shard_of(r) == s).cloned())
            .unwrap_or_else(|| runs[0].clone());
        st.next_shard = (shard_of(&pick) + 1) % n;
        pick
    }

    /// Merges `run` (a `merge` changelog entry); the merged chunk's estimate is `estimate`, or
    /// none (to be measured again).
    fn defragmentation_merge(
        &mut self,
        c: usize,
        run: std::ops::Range<usize>,
        estimate: Option<u64>,
    ) {
        self.flush_writes(c);
        let coll = &mut self.cluster.collections[c];
        let min = coll.table.chunk(run.start).min.clone();
        let max = coll.table.chunk(run.end - 1).max.clone();
        let shard: ShardIdx = coll.table.chunk(run.start).info.shard;
        let mins: Vec<ShardKey> = run
            .clone()
            .map(|i| coll.table.chunk(i).min.clone())
            .collect();
        if coll.table.merge(run.clone()).is_err() {
            return;
        }
        let ns = coll.ns.clone();
        let st = self.defragmenter.state(&ns);
        for m in &mins {
            st.estimates.remove(m);
        }
        if let Some(e) = estimate {
            st.estimates.insert(min.clone(), e);
        }
        self.emit(EventKind::Merge {
            ns,
            min,
            max,
            shard,
            chunks: run.len(),
            auto: false,
        });
    }

    fn merge_chunks_phase(&mut self, c: usize) {
        let runs = self.mergeable_runs_all(c);
        if runs.is_empty() {
            let next = self
                .has_auto_splitter()
                .then_some(DefragmentationPhase::SplitChunks);
            self.set_defragmentation_phase(c, next);
            return;
        }
        if self.take_throttle() {
            let run = self.next_run_round_robin(c, &runs);
            self.defragmentation_merge(c, run, None);
        }
    }

    /// The chunks above the chunk size (not jumbo, not found unsplittable), by index.
    fn oversized_chunks(&self, c: usize) -> Vec<usize> {
        let size = self.cluster.chunk_size_of(c);
        let coll = &self.cluster.collections[c];
        let st = self.defragmenter.states.get(&coll.ns);
        coll.table
            .iter()
            .enumerate()
            .filter(|(_, ch)| ch.info.stats.bytes > size && !ch.info.jumbo)
            .filter(|(_, ch)| st.is_none_or(|s| !s.given_up.contains(ch.min)))
            .map(|(i, _)| i)
            .collect()
    }

    fn split_chunks_phase(&mut self, c: usize) {
        let size = self.cluster.chunk_size_of(c);
        let oversized = self.oversized_chunks(c);
        let Some(&i) = oversized.first() else {
            self.set_defragmentation_phase(c, None);
            return;
        };
        if !self.take_throttle() {
            return;
        }
        let coll = &self.cluster.collections[c];
        let ch = coll.table.chunk(i);
        let (min, points) = (ch.min.clone(), coll.keys.split_points(ch.min, ch.max, size));
        let ns = coll.ns.clone();
        if points.is_empty() || self.split_chunk(c, i, points, SplitCause::Command).is_err() {
            self.defragmenter.state(&ns).given_up.insert(min);
        }
    }
}
