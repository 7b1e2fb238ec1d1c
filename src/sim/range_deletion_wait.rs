//! A migration onto a shard that still holds orphans of an overlapping range (a range deletion
//! not yet run): before it copies anything the recipient waits for the range deleter, up to
//! `receiveChunkWaitForRangeDeleterTimeoutMS` (10 s); past that the migration fails. So a range
//! is never owned by a shard and orphaned on it at once.
//!
//! Owns: that wait and the failure it ends in. May not touch the balancer's policy, I/O or the
//! wall clock.
// `db/s/migration_destination_manager.cpp` (`_migrateDriver`, step 1: while
// `checkForConflictingDeletions`, `waitForClean` up to the deadline, then
// `sleepFor(Milliseconds(1000))` and look again); `db/s/sharding_runtime_d_params.idl`
// (`receiveChunkWaitForRangeDeleterTimeoutMS`, default 10,000; on 4.4 binaries too,
// SERVER-62761). The mongos's answer is OperationFailed with the donor's "Data transfer error",
// in an 8.0 server's words (a real 8.0 `moveRange` back onto a shard with that range's orphans);
// earlier lines' words were not read.

use crate::cluster::balancer::Migration;
use crate::cluster::error::MongoError;
use crate::cluster::event::{EventKind, MigrationReason};
use crate::model::{ShardIdx, ShardKey};
use crate::sim::engine::Simulator;

/// `receiveChunkWaitForRangeDeleterTimeoutMS`.
pub const RECEIVE_CHUNK_WAIT_FOR_RANGE_DELETER_TIMEOUT_MS: u64 = 10_000;
/// The recipient's pause before it looks for overlapping range deletions again.
const RECHECK_MS: u64 = 1_000;

/// What the recipient's wait for the range deleter does to a migration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecipientWait {
    /// No overlapping range deletion: the copy starts now.
    Clear,
    /// The range deleter runs in time: the copy starts at this instant (ms).
    Until(u64),
    /// It does not: the migration fails at this instant (ms).
    Fails(u64),
}

/// The recipient's failure after waiting in vain.
pub fn range_deletion_timeout() -> MongoError {
    MongoError::location(
        96,
        "OperationFailed",
        "Command request failed on source shard. :: caused by :: Data transfer error: migrate \
         failed: ExceededTimeLimit: Migration failed because the orphans cleanup routine didn't \
         clear yet a portion of the range being migrated that was previously owned by the \
         recipient shard.",
    )
}

impl Simulator {
    /// How a migration of `[min, max)` of collection `c` onto `to` waits for `to`'s overlapping
    /// range deletions, starting now.
    pub fn recipient_wait(
        &self,
        c: usize,
        to: ShardIdx,
        min: &ShardKey,
        max: &ShardKey,
    ) -> RecipientWait {
        let now = self.cluster.now_ms;
        let due = self.cluster.collections[c]
            .range_deletions
            .on(to)
            .filter(|r| r.min < *max && *min < r.max)
            .map(|r| r.due_ms)
            .max();
        match due {
            None => RecipientWait::Clear,
            Some(d) if d < now + RECEIVE_CHUNK_WAIT_FOR_RANGE_DELETER_TIMEOUT_MS => {
                RecipientWait::Until(d.max(now) + RECHECK_MS)
            }
            Some(_) => RecipientWait::Fails(now + RECEIVE_CHUNK_WAIT_FOR_RANGE_DELETER_TIMEOUT_MS),
        }
    }

    /// When migration `id` (copying for `millis`) ends: its commit, or its failure after the
    /// recipient's wait, which is then remembered.
    pub(super) fn schedule_copy(
        &mut self,
        (c, id, to): (usize, u64, ShardIdx),
        (min, max): (&ShardKey, &ShardKey),
        millis: u64,
    ) -> u64 {
        match self.recipient_wait(c, to, min, max) {
            RecipientWait::Clear => self.cluster.now_ms + millis,
            RecipientWait::Until(t) => t + millis,
            RecipientWait::Fails(t) => {
                self.failing_migrations.insert(id, range_deletion_timeout());
                t
            }
        }
    }

    /// Remembers which migrations in flight in a state read elsewhere (a trace, a poll) end in
    /// the recipient's vain wait: decided at their start, as [`Simulator::schedule_copy`]
    /// decides it (a deletion overlapping the range pending on the recipient past the wait), so
    /// a fork of that state fails them as the simulator would.
    pub(super) fn recall_failing_migrations(&mut self) {
        let cl = &self.cluster;
        let failing: Vec<u64> = (cl.balancer.in_flight.iter())
            .filter(|m| {
                let Some(coll) = cl.collection(&m.ns) else {
                    return false;
                };
                let end = m.end.as_ref().unwrap_or(&m.max);
                (coll.range_deletions.on(m.to))
                    .filter(|r| r.min < *end && m.min < r.max)
                    .map(|r| r.due_ms)
                    .max()
                    .is_some_and(|due| {
                        due >= m.started_ms + RECEIVE_CHUNK_WAIT_FOR_RANGE_DELETER_TIMEOUT_MS
                    })
            })
            .map(|m| m.id)
            .collect();
        for id in failing {
            self.failing_migrations.insert(id, range_deletion_timeout());
        }
    }

    /// Fails `m` at its end if the recipient's wait ran out; whether it did.
    pub(super) fn fail_if_waited_in_vain(&mut self, m: &Migration) -> bool {
        let Some(error) = self.failing_migrations.remove(&m.id) else {
            return false;
        };
        self.cluster.balancer.failed += 1;
        if let Some(r) = self.cluster.balancer.round.as_mut()
            && r.migration_ids.contains(&m.id)
        {
            r.failed += 1;
        }
        if m.reason == MigrationReason::Defragmentation {
            self.give_up_defragmentation_move(&m.ns, &m.min);
        }
        self.emit(EventKind::MigrationFailed {
            range: m.range(),
            error,
        });
        true
    }
}
