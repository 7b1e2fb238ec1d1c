//! Orphaned documents: after a migration commits, the donor still holds the moved documents until
//! the range deleter removes them, `orphanCleanupDelaySecs` later (900 s; 3,600 s from 8.2).
//! Balancing ignores them (it reads owned sizes); `$shardedDataDistribution` reports them.
// 8.0.10 `db/s/range_deleter_service.cpp`, `db/s/range_deletion_util.cpp`;
// `sharding_runtime_d_params.idl` (`orphanCleanupDelaySecs` 900, 3600 on master; the release of
// the change is not pinned: 8.2 here, as the audit reads it). `rangeDeleterBatchSize` is INT_MAX,
// so a range goes in one batch.

mod queue;
pub use queue::RangeDeletions;

use super::{Cluster, Collection};
use crate::model::{ChunkStats, ShardIdx, ShardKey};

/// A range a migration left on its donor, waiting for the range deleter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeDeletion {
    pub shard: ShardIdx,
    pub min: ShardKey,
    pub max: ShardKey,
    pub docs: u64,
    pub bytes: u64,
    /// When the range deleter removes it.
    pub due_ms: u64,
}

impl Collection {
    /// Orphaned documents and bytes on `shard`.
    pub fn orphans_on(&self, shard: ShardIdx) -> (u64, u64) {
        self.range_deletions
            .on(shard)
            .fold((0, 0), |(d, b), r| (d + r.docs, b + r.bytes))
    }

    /// The ranges whose cleanup delay has passed at `now_ms`, taken out.
    pub fn take_due_deletions(&mut self, now_ms: u64) -> Vec<RangeDeletion> {
        self.range_deletions.take_due(now_ms)
    }

    /// Removes the pending deletion of `[min, max)` on `shard` (the range deleter ran).
    pub fn finish_deletion(&mut self, shard: ShardIdx, min: &ShardKey, max: &ShardKey) -> bool {
        let before = self.range_deletions.len();
        self.range_deletions
            .retain(|r| !(r.shard == shard && r.min == *min && r.max == *max));
        self.range_deletions.len() != before
    }
}

impl Cluster {
    /// A migration of `[min, max)` from `from` committed at `at_ms`: its documents stay on the
    /// donor as orphans until the range deleter's delay has passed.
    pub fn leave_orphans(
        &mut self,
        c: usize,
        (from, min, max): (ShardIdx, &ShardKey, &ShardKey),
        moved: ChunkStats,
        at_ms: u64,
    ) {
        let delay = self
            .settings
            .orphan_cleanup_delay_secs
            .unwrap_or_else(|| self.version.orphan_cleanup_delay_secs());
        let due_ms = at_ms + delay * 1000;
        if moved.docs == 0 && moved.bytes == 0 {
            return;
        }
        self.collections[c].range_deletions.push(RangeDeletion {
            shard: from,
            min: min.clone(),
            max: max.clone(),
            docs: moved.docs,
            bytes: moved.bytes,
            due_ms,
        });
    }
}
