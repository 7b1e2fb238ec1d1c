//! The AutoMerger (7.0+): while the balancer is on, inside its window, and `config.settings`
//! `automerge` is not disabled, it merges the contiguous chunks of one shard that are mergeable —
//! not jumbo, and on their shard since before the snapshot-history window (max of
//! `minSnapshotHistoryWindowInSeconds` 300 and `transactionLifetimeLimitSeconds` 60) — one
//! `mergeAllChunksOnShard` per shard and collection, at most 1,000 chunks per command,
//! `autoMergerThrottlingMS` (15,000) between shards. A pass visits the collections that gained an
//! old-enough chunk since the previous pass (never those with `enableAutoMerge: false`); the next
//! pass starts `autoMergerIntervalSecs` (3,600) after the previous one began. It starts a pass as
//! soon as it is enabled, and stopping the balancer (or leaving its window) disables it.
// 7.0-era `db/s/balancer/auto_merger_policy.cpp` (`_init`, `_checkInternalUpdatesWithLock`, the
// `onCurrentShardSince` window `$gte _maxHistoryTimePreviousRound`), `auto_merger_policy.h`
// (`MAX_NUMBER_OF_CHUNKS_TO_MERGE = 1000`), `balancer.cpp` (`applyThrottling`),
// `sharding_catalog_manager_chunk_operations.cpp` (`commitMergeAllChunksOnShard`, one `merge`
// changelog entry per merged range), `sharding_ddl_util.cpp` (`getHistoryWindowInSeconds`).
// Runs are cut at zone bounds as master's `advanceZoneIfNeeded` does (not verified for 7.0/8.0).

use std::collections::{BTreeMap, VecDeque};

use crate::cluster::ServerVersion;
use crate::cluster::event::EventKind;
use crate::model::{ShardIdx, ShardKey};
use crate::sim::engine::Simulator;

/// max(`minSnapshotHistoryWindowInSeconds` 300, `transactionLifetimeLimitSeconds` 60, 10).
pub const HISTORY_WINDOW_SECS: u64 = 300;
/// `AutoMergerPolicy::MAX_NUMBER_OF_CHUNKS_TO_MERGE`.
pub const MAX_CHUNKS_TO_MERGE: usize = 1000;

/// The AutoMerger's server parameters and where its current pass stands.
#[derive(Clone, Debug)]
pub struct AutoMerger {
    /// `autoMergerIntervalSecs`.
    pub interval_secs: u64,
    /// `autoMergerThrottlingMS`.
    pub throttling_ms: u64,
    pass_started_ms: Option<u64>,
    /// Shards still to visit in this pass, with the collections to merge on each.
    queue: VecDeque<(ShardIdx, Vec<String>)>,
    prev_cutoff_s: u64,
    cur_cutoff_s: u64,
    last_action_ms: Option<u64>,
}

impl Default for AutoMerger {
    fn default() -> Self {
        Self {
            interval_secs: 3_600,
            throttling_ms: 15_000,
            pass_started_ms: None,
            queue: VecDeque::new(),
            prev_cutoff_s: 0,
            cur_cutoff_s: 0,
            last_action_ms: None,
        }
    }
}

impl AutoMerger {
    /// Stops: nothing pending, and the next enable re-scans everything at once.
    fn disable(&mut self) {
        self.pass_started_ms = None;
        self.queue.clear();
        self.prev_cutoff_s = 0;
        self.cur_cutoff_s = 0;
    }

    /// When the next pass is due, if the AutoMerger is running.
    pub fn next_pass_ms(&self) -> Option<u64> {
        self.pass_started_ms.map(|t| t + self.interval_secs * 1000)
    }
}

impl Simulator {
    pub(in crate::sim) fn auto_merger_on(&self) -> bool {
        let s = &self.cluster.settings;
        self.cluster.version >= ServerVersion::V7_0
            && s.balancer_enabled
            && s.auto_merge
            && s.active_window
                .is_none_or(|w| w.contains(self.cluster.now_ms))
    }

    /// One tick of the AutoMerger.
    pub(in crate::sim) fn auto_merger_tick(&mut self) {
        if !self.auto_merger_on() {
            self.auto_merger.disable();
            return;
        }
        let now = self.cluster.now_ms;
        let Some(started) = self.auto_merger.pass_started_ms else {
            self.start_merge_pass();
            return;
        };
        if self.auto_merger.queue.is_empty() {
            if now > started + self.auto_merger.interval_secs * 1000 {
                self.start_merge_pass();
            }
            return;
        }
        let throttle = self.auto_merger.throttling_ms;
        if self
            .auto_merger
            .last_action_ms
            .is_some_and(|t| now < t + throttle)
        {
            return;
        }
        if let Some((shard, namespaces)) = self.auto_merger.queue.pop_front() {
            for ns in namespaces {
                self.merge_all_chunks_on_shard(&ns, shard);
            }
            self.auto_merger.last_action_ms = Some(now);
        }
    }

    /// The AutoMerger's next action now, whatever its schedule (benchmarks, step-by-step demos):
    /// starts a pass if none is under way, then merges on the next shard of the pass.
    pub fn auto_merger_round_now(&mut self) {
        if self.auto_merger.queue.is_empty() {
            self.start_merge_pass();
        }
        if let Some((shard, namespaces)) = self.auto_merger.queue.pop_front() {
            for ns in namespaces {
                self.merge_all_chunks_on_shard(&ns, shard);
            }
            self.auto_merger.last_action_ms = Some(self.cluster.now_ms);
        }
    }

    /// `_init`: the shards and collections with a chunk that became old enough since last pass.
    fn start_merge_pass(&mut self) {
        let now = self.cluster.now_ms;
        let am = &mut self.auto_merger;
        am.pass_started_ms = Some(now);
        am.prev_cutoff_s = am.cur_cutoff_s;
        am.cur_cutoff_s = (now / 1000).saturating_sub(HISTORY_WINDOW_SECS);
        let (prev, cur) = (am.prev_cutoff_s, am.cur_cutoff_s);
        let mut per_shard: BTreeMap<ShardIdx, Vec<String>> = BTreeMap::new();
        let n = self.cluster.shards.len();
        for coll in &self.cluster.collections {
            if coll.balancing.auto_merge == Some(false) || coll.resharding.is_some() {
                continue;
            }
            let mut seen = vec![false; n];
            for ch in coll.table.iter() {
                let s = ch.info.shard.index();
                if !seen[s] && ch.info.since >= prev && ch.info.since < cur {
                    seen[s] = true;
                    per_shard
                        .entry(ch.info.shard)
                        .or_default()
                        .push(coll.ns.clone());
                }
            }
        }
        self.auto_merger.queue = per_shard.into_iter().collect();
    }

    /// `mergeAllChunksOnShard`: merges every run of two or more contiguous mergeable chunks of
    /// `ns` on `shard`, up to 1,000 chunks in all.
    pub fn merge_all_chunks_on_shard(&mut self, ns: &str, shard: ShardIdx) {
        let Some(c) = self.cluster.collection_index(ns) else {
            return;
        };
        let runs = self.mergeable_runs(c, shard);
        if runs.is_empty() {
            return;
        }
        self.flush_writes(c);
        let mut merged: Vec<(ShardKey, ShardKey, usize)> = Vec::new();
        let coll = &mut self.cluster.collections[c];
        for run in runs.iter().rev() {
            let min = coll.table.chunk(run.start).min.clone();
            let max = coll.table.chunk(run.end - 1).max.clone();
            if coll.table.merge(run.clone()).is_ok() {
                merged.push((min, max, run.len()));
            }
        }
        let ns = coll.ns.clone();
        for (min, max, chunks) in merged.into_iter().rev() {
            self.emit(EventKind::Merge {
                ns: ns.clone(),
                min,
                max,
                shard,
                chunks,
                auto: true,
            });
        }
    }

    /// The runs (index ranges) the AutoMerger would merge now.
    pub(in crate::sim) fn mergeable_runs(
        &self,
        c: usize,
        shard: ShardIdx,
    ) -> Vec<std::ops::Range<usize>> {
        let coll = &self.cluster.collections[c];
        let cutoff = (self.cluster.now_ms / 1000).saturating_sub(HISTORY_WINDOW_SECS);
        let in_flight = self.cluster.balancer.migrating_in(&coll.ns);
        let zoned = !coll.zones.is_empty();
        let mergeable = |i: usize| {
            let ch = coll.table.chunk(i);
            ch.info.shard == shard
                && !ch.info.jumbo
                && ch.info.since < cutoff
                && !(in_flight && self.cluster.balancer.migrating(&coll.ns, ch.min))
        };
        let zone_of = |i: usize| {
            let ch = coll.table.chunk(i);
            zoned.then(|| coll.zones.zone_of_chunk(ch.min, ch.max))
        };
        let mut runs = Vec::new();
        let mut budget = MAX_CHUNKS_TO_MERGE;
        let mut i = 0;
        let len = coll.table.len();
        while i < len && budget >= 2 {
            if !mergeable(i) {
                i += 1;
                continue;
            }
            let zone = zone_of(i);
            let mut end = i + 1;
            while end < len && end - i < budget && mergeable(end) && zone_of(end) == zone {
                end += 1;
            }
            if end - i >= 2 {
                budget -= end - i;
                runs.push(i..end);
            }
            i = end;
        }
        runs
    }
}
