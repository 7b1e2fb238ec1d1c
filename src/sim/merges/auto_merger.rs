//! The AutoMerger (7.0+): while the balancer is on, inside its window, and `config.settings`
//! `automerge` is not disabled, it merges the contiguous chunks of one shard that are mergeable —
//! not jumbo, and on their shard since before the snapshot-history window (max of
//! `minSnapshotHistoryWindowInSeconds` 300 and `transactionLifetimeLimitSeconds` 60) — with
//! `mergeAllChunksOnShard` per shard and collection, `autoMergerThrottlingMS` (15,000) between
//! shards. A pass visits every collection with a chunk older than the window (never those with
//! `enableAutoMerge: false` or being defragmented); the next pass starts `autoMergerIntervalSecs`
//! (3,600) after the previous one began. It starts a pass as soon as it is enabled, and stopping
//! the balancer (or leaving its window) disables it.
//!
//! Per release line: 7.0 sends one command per shard and collection in a pass, at most 1,000
//! chunks each (the rest wait for the next pass); 8.0 to 8.2 send it again while it merged
//! something; 8.3 and 9.0 do too, at most `autoMergerMaxChunksToMerge` (100) chunks each.
//!
//! Owns: the AutoMerger's schedule and `mergeAllChunksOnShard`. May not touch the balancer's
//! policy, I/O or the wall clock.
// 7.0-era `db/s/balancer/auto_merger_policy.{h,cpp}` (`_init`, `_checkInternalUpdatesWithLock`,
// `_getNamespacesWithMergeableChunksPerShard`: `enableAutoMerge $ne false`,
// `defragmentCollection $ne true`, `onCurrentShardSince {$lt: current, $gte: previous}` where
// `current` is a local that shadows the member `_maxHistoryTimeCurrentRound`, so the member and
// with it `_maxHistoryTimePreviousRound` stay Timestamp(0, 0): every pass revisits every
// collection with a chunk older than the window, as `jstests/sharding/auto_merger.js`'s chunks
// set to old `onCurrentShardSince` values rely on); the 7.0-era copy has no rescheduling. 8.0-era
// copy (`MAX_NUMBER_OF_CHUNKS_TO_MERGE = 1000`, `_rescheduledCollectionsToMergePerShard`:
// `applyActionResult` re-queues a <shard, nss> whose merge merged chunks; `unsplittable $ne
// true`); master `auto_merger_policy.h` and `db/sharding_environment/
// sharding_config_server_parameters.idl` (`autoMergerMaxChunksToMerge`, default 100);
// `balancer.cpp` (`applyThrottling`), `sharding_catalog_manager_chunk_operations.cpp`
// (`commitMergeAllChunksOnShard`, one `merge` changelog entry per merged range),
// `sharding_ddl_util.cpp` (`getHistoryWindowInSeconds`). Runs are cut at zone bounds as master's
// `advanceZoneIfNeeded` does (not verified for 7.0/8.0). The line on which the 100 replaced the
// 1,000 was not read on a release tag: 8.3 (the newest line whose rules are master's here).

use std::collections::{BTreeMap, VecDeque};

use crate::cluster::event::EventKind;
use crate::cluster::{Placement, ServerVersion};
use crate::model::{ShardIdx, ShardKey};
use crate::sim::engine::Simulator;

/// max(`minSnapshotHistoryWindowInSeconds` 300, `transactionLifetimeLimitSeconds` 60, 10).
pub const HISTORY_WINDOW_SECS: u64 = 300;
/// `AutoMergerPolicy::MAX_NUMBER_OF_CHUNKS_TO_MERGE` (7.0 to 8.2).
pub const MAX_CHUNKS_TO_MERGE: usize = 1000;
/// `autoMergerMaxChunksToMerge`'s default (8.3 and later).
pub const AUTO_MERGER_MAX_CHUNKS_TO_MERGE: usize = 100;

/// At most how many chunks one `mergeAllChunksOnShard` of the AutoMerger merges on `version`.
pub fn max_chunks_per_command(version: ServerVersion) -> usize {
    if version >= ServerVersion::V8_3 {
        AUTO_MERGER_MAX_CHUNKS_TO_MERGE
    } else {
        MAX_CHUNKS_TO_MERGE
    }
}

/// Whether the AutoMerger sends a <shard, collection> command again while it merged something
/// (8.0+), rather than once per pass (7.0).
pub fn reschedules(version: ServerVersion) -> bool {
    version >= ServerVersion::V8_0
}

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
    /// `_rescheduledCollectionsToMergePerShard` (8.0+): visited again when `queue` is empty.
    rescheduled: BTreeMap<ShardIdx, Vec<String>>,
    last_action_ms: Option<u64>,
}

impl Default for AutoMerger {
    fn default() -> Self {
        Self {
            interval_secs: 3_600,
            throttling_ms: 15_000,
            pass_started_ms: None,
            queue: VecDeque::new(),
            rescheduled: BTreeMap::new(),
            last_action_ms: None,
        }
    }
}

impl AutoMerger {
    /// Stops: nothing pending of the pass (`disable` clears `_collectionsToMergePerShard`, not
    /// the rescheduled ones), and the next enable starts a pass at once.
    fn disable(&mut self) {
        self.pass_started_ms = None;
        self.queue.clear();
    }

    /// When the next pass is due, if the AutoMerger is running.
    pub fn next_pass_ms(&self) -> Option<u64> {
        self.pass_started_ms.map(|t| t + self.interval_secs * 1000)
    }

    /// The next <shard, collections> to merge: this pass's, then the rescheduled ones.
    fn next_action(&mut self) -> Option<(ShardIdx, Vec<String>)> {
        if self.queue.is_empty() {
            self.queue = std::mem::take(&mut self.rescheduled).into_iter().collect();
        }
        self.queue.pop_front()
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
        if self.auto_merger.queue.is_empty() && self.auto_merger.rescheduled.is_empty() {
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
        self.auto_merger_action();
    }

    /// The AutoMerger's next action now, whatever its schedule (benchmarks, step-by-step demos):
    /// starts a pass if none is under way, then merges on the next shard of the pass.
    pub fn auto_merger_round_now(&mut self) {
        if self.auto_merger.queue.is_empty() && self.auto_merger.rescheduled.is_empty() {
            self.start_merge_pass();
        }
        self.auto_merger_action();
    }

    /// Merges on the next shard, every collection of its list (MongoDB sends them without
    /// throttling, up to 10 at once), and reschedules those that merged something (8.0+).
    fn auto_merger_action(&mut self) {
        let Some((shard, namespaces)) = self.auto_merger.next_action() else {
            return;
        };
        let again = reschedules(self.cluster.version);
        for ns in namespaces {
            if self.merge_all_chunks_on_shard(&ns, shard) > 0 && again {
                self.auto_merger
                    .rescheduled
                    .entry(shard)
                    .or_default()
                    .push(ns);
            }
        }
        self.auto_merger.last_action_ms = Some(self.cluster.now_ms);
    }

    /// `_init` and the first action's discovery: the shards and collections with a chunk older
    /// than the history window (the lower bound, shadowed in MongoDB, stays 0).
    fn start_merge_pass(&mut self) {
        let now = self.cluster.now_ms;
        self.auto_merger.pass_started_ms = Some(now);
        let cutoff = (now / 1000).saturating_sub(HISTORY_WINDOW_SECS);
        let mut per_shard: BTreeMap<ShardIdx, Vec<String>> = BTreeMap::new();
        let n = self.cluster.shards.len();
        for coll in &self.cluster.collections {
            if coll.balancing.auto_merge == Some(false)
                || coll.defragmentation.is_some()
                || coll.placement != Placement::Sharded
                || coll.resharding.is_some()
            {
                continue;
            }
            let mut seen = vec![false; n];
            for ch in coll.table.iter() {
                let s = ch.info.shard.index();
                if s < n && !seen[s] && ch.info.since < cutoff {
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
    /// `ns` on `shard`, up to the line's limit of chunks in all. Returns how many chunks it
    /// merged (`numMergedChunks`).
    pub fn merge_all_chunks_on_shard(&mut self, ns: &str, shard: ShardIdx) -> usize {
        let Some(c) = self.cluster.collection_index(ns) else {
            return 0;
        };
        let runs = self.mergeable_runs(c, shard, max_chunks_per_command(self.cluster.version));
        if runs.is_empty() {
            return 0;
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
        let total = merged.iter().map(|m| m.2).sum();
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
        total
    }

    /// The runs (index ranges) the AutoMerger would merge now.
    pub(in crate::sim) fn mergeable_runs(
        &self,
        c: usize,
        shard: ShardIdx,
        limit: usize,
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
        let mut budget = limit;
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::cluster::defragmentation::DefragmentationPhase;

    /// Two shards, two chunks on each, clock past the history window.
    fn sim(version: &str) -> Simulator {
        let text = format!(
            r#"{{"name": "t", "description": "t", "seedPassage": "t", "serverVersion": "{version}",
            "shards": 2, "collections": [{{"ns": "a.b", "key": {{"x": 1}}, "initialLayout": {{
                "splitPoints": [{{"x": 1}}, {{"x": 2}}, {{"x": 3}}],
                "shards": ["shard0000", "shard0000", "shard0001", "shard0001"]}}}}],
            "until": 1}}"#
        );
        let sc = crate::sim::scenario::parse(&text).unwrap();
        let mut s = Simulator::from_scenario(&sc, 1, None).unwrap();
        s.cluster.now_ms = 1_000_000;
        s
    }

    #[test]
    fn a_collection_being_defragmented_is_not_visited() {
        let mut s = sim("8.0");
        s.cluster.collections[0].defragmentation = Some(DefragmentationPhase::MergeChunks);
        s.start_merge_pass();
        assert!(s.auto_merger.queue.is_empty());
        s.cluster.collections[0].defragmentation = None;
        s.start_merge_pass();
        assert_eq!(s.auto_merger.queue.len(), 2, "both shards");
    }

    #[test]
    fn every_pass_revisits_chunks_older_than_the_window_not_only_new_ones() {
        let mut s = sim("7.0");
        s.start_merge_pass();
        assert_eq!(s.auto_merger.queue.len(), 2);
        s.auto_merger.queue.clear();
        // An hour later nothing changed, and the same chunks are candidates again.
        s.cluster.now_ms += 3_600_000;
        s.start_merge_pass();
        assert_eq!(s.auto_merger.queue.len(), 2);
    }

    #[test]
    fn the_limit_and_the_rescheduling_follow_the_release_line() {
        let v = |s: &str| s.parse::<ServerVersion>().unwrap();
        assert_eq!(max_chunks_per_command(v("7.0")), 1000);
        assert_eq!(max_chunks_per_command(v("8.2")), 1000);
        assert_eq!(max_chunks_per_command(v("8.3")), 100);
        assert_eq!(max_chunks_per_command(v("9.0")), 100);
        assert!(!reschedules(v("7.0")));
        assert!(reschedules(v("8.0")));
        assert!(reschedules(v("9.0")));
    }
}
