//! The balancer: rounds while enabled and inside its window — 10 virtual seconds after an idle
//! round, 1 s after a busy one ([`crate::cluster::ServerVersion::round_pause_ms`]); per
//! collection it picks migrations by MongoDB's policy of the selected version — chunk counts
//! before 6.0, data size from 6.0 (threshold 3 × chunk size; from 7.0 the donor must be above
//! the average) — with every shard in at most one migration at a time. Migrations take virtual
//! time: a fixed cost plus their bytes at a rate (the settings', or in a calibrated what-if fork
//! their donor's own, [`MigrationCost`]); one that is too big fails with ChunkTooBig and the
//! chunk is split or marked jumbo. Jumbo chunks are never picked.
//!
//! The balancer group: the policy of each release line (`policy`), per-collection balancing
//! settings (`collection_balancing`) and the auto-splitter and jumbo chunks (`splitter`). Builds on
//! the engine, `cluster` and `model`; may not touch the terminal, I/O or the wall clock.

pub mod collection_balancing;
mod collection_order;
pub mod explain;
pub mod policy;
pub mod round_now;
pub mod splitter;

use super::engine::{ROUND_INTERVAL_MS, Simulator};
use crate::cluster::balancer::{Migration, RoundInProgress};
use crate::cluster::error::MongoError;
use crate::cluster::event::{EventKind, MigrationRange, MigrationReason};
use crate::model::{ShardIdx, ShardKey};

/// `firstComplianceViolation` of `balancerCollectionStatus`, in MongoDB's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Violation {
    Draining,
    ZoneViolation,
    ChunksImbalance,
    DefragmentingChunks,
}

impl Violation {
    /// `kBalancerPolicyStatus*` of `balancer.cpp`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draining => "draining",
            Self::ZoneViolation => "zoneViolation",
            Self::ChunksImbalance => "chunksImbalance",
            Self::DefragmentingChunks => "defragmentingChunks",
        }
    }
}

/// A cost model of migrations: a fixed cost plus the bytes at a rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MigrationCost {
    pub overhead_ms: u64,
    pub bytes_per_sec: u64,
}

impl Simulator {
    /// How long a migration of `bytes` from `donor` takes: its donor's cost model where the
    /// fork has one, else the settings' (`migration_overhead_ms` + bytes ÷
    /// `migration_bytes_per_sec`). The time is the donor's part, what `moveChunk.from` measures
    /// (`src/mongo/db/s/move_timing_helper.cpp`); a cost model per donor is our calibration
    /// of a fork from the changelog, not a MongoDB rule.
    pub(super) fn migration_ms(&self, donor: ShardIdx, bytes: u64) -> u64 {
        let set = &self.cluster.settings;
        let cost = (self.migration_cost_by_donor)
            .get(self.cluster.shard_id(donor))
            .copied()
            .unwrap_or(MigrationCost {
                overhead_ms: set.migration_overhead_ms,
                bytes_per_sec: set.migration_bytes_per_sec,
            });
        cost.overhead_ms + bytes * 1000 / cost.bytes_per_sec.max(1)
    }

    /// Shards taking part in a migration now.
    pub(super) fn busy_shards(&self) -> Vec<bool> {
        let mut busy = vec![false; self.cluster.shards.len()];
        for m in &self.cluster.balancer.in_flight {
            busy[m.from.index()] = true;
            busy[m.to.index()] = true;
        }
        busy
    }

    pub(super) fn balancer_tick(&mut self) {
        if let Some(round) = &self.cluster.balancer.round {
            let running = round
                .migration_ids
                .iter()
                .any(|id| self.cluster.balancer.in_flight.iter().any(|m| m.id == *id));
            if !running {
                self.end_round();
            }
            return;
        }
        if self.cluster.now_ms < self.cluster.balancer.next_round_ms {
            return;
        }
        self.cluster.balancer.next_round_ms = self.cluster.now_ms + ROUND_INTERVAL_MS;
        if !self.cluster.settings.balancer_enabled {
            self.set_idle("the balancer is stopped");
            return;
        }
        // The config server cannot load the balancer document: the round is skipped
        // (`src/mongo/db/s/balancer/balancer.cpp`, a failed `refreshAndCheck` ends the round).
        if let Some(why) = self.cluster.settings.window_rejected.clone() {
            self.set_idle(&crate::cluster::rejected_settings_text(&why));
            return;
        }
        if self
            .cluster
            .settings
            .active_window
            .is_some_and(|w| !w.contains(self.cluster.now_ms))
        {
            self.set_idle("outside the balancer's active window");
            return;
        }
        self.start_round();
    }

    fn set_idle(&mut self, why: &str) {
        if self.cluster.balancer.why_not != [why] {
            self.cluster.balancer.why_not = vec![why.to_string()];
            self.emit(EventKind::BalancerIdle {
                why_not: self.cluster.balancer.why_not.clone(),
            });
        }
    }

    /// Whether collection `c` is balanced as `balancerCollectionStatus` answers it, and if not its
    /// first compliance violation: a defragmentation in progress first, then a chunk straddling a
    /// zone boundary (the round's first step would split it), then the reason of the first
    /// migration the policy picks with every shard free (draining, then zone violations, then
    /// imbalance; jumbo chunks and chunks in a migration are never picked). A collection the
    /// balancer skips (`noBalance`, `permitMigrations: false`) is compliant, as MongoDB says.
    // 8.0 `src/mongo/db/s/balancer/balancer.cpp` `getBalancerStatusForNs`:
    // `getDefragmentCollection()`, then `selectChunksToSplit`, then `selectChunksToMove`'s reason.
    pub fn balancer_compliance(&self, c: usize) -> Option<Violation> {
        if self.cluster.collections[c].defragmentation.is_some() {
            return Some(Violation::DefragmentingChunks);
        }
        if self.zone_split_pending(c) {
            return Some(Violation::ZoneViolation);
        }
        let mut busy = vec![false; self.cluster.shards.len()];
        let (mut out, mut why_not) = (Vec::new(), Vec::new());
        self.select(c, &mut busy, &mut out, &mut why_not);
        out.first().map(|cand| match cand.reason {
            MigrationReason::Drain => Violation::Draining,
            MigrationReason::ZoneViolation => Violation::ZoneViolation,
            _ => Violation::ChunksImbalance,
        })
    }

    /// Runs a balancer round now, whatever the schedule (used by benchmarks and step-by-step
    /// demos); its migrations complete in virtual time as usual.
    pub fn balancer_round_now(&mut self) {
        if self.cluster.balancer.round.is_none() {
            self.start_round();
        }
    }

    fn start_round(&mut self) {
        self.split_at_zone_boundaries();
        self.cluster.balancer.rounds += 1;
        let mut busy = self.busy_shards();
        let (defrag_ids, defrag_failed) = self.start_defragmentation_moves(&mut busy);
        let (candidates, why_not) =
            self.select_in_round_order(self.cluster.balancer.rounds, &mut busy);
        let mut round = RoundInProgress {
            number: self.cluster.balancer.rounds,
            started_ms: self.cluster.now_ms,
            candidates: candidates.len() + defrag_ids.len() + defrag_failed,
            migration_ids: defrag_ids,
            moved: 0,
            failed: defrag_failed,
        };
        self.round_too_big = 0;
        for cand in candidates {
            match self.start_migration(
                cand.coll,
                cand.chunk,
                cand.end.as_ref(),
                cand.to,
                cand.reason,
            ) {
                Ok(()) => round.migration_ids.push(self.cluster.next_migration_id - 1),
                Err(e) => {
                    round.failed += 1;
                    if e.code_name == "ChunkTooBig" {
                        self.round_too_big += 1;
                    }
                }
            }
        }
        self.cluster.balancer.why_not.clone_from(&why_not);
        self.emit(EventKind::BalancerRoundStarted {
            round: self.cluster.balancer.rounds,
            candidates: round.candidates,
            why_not,
        });
        self.cluster.balancer.round = Some(round);
        self.end_round_if_idle();
    }

    fn end_round_if_idle(&mut self) {
        if self
            .cluster
            .balancer
            .round
            .as_ref()
            .is_some_and(|r| r.migration_ids.is_empty())
        {
            self.end_round();
        }
    }

    fn end_round(&mut self) {
        let Some(round) = self.cluster.balancer.round.take() else {
            return;
        };
        let v = self.cluster.version;
        let pause = match self.cluster.settings.balancer_migrations_throttling_ms {
            Some(ms) if v >= crate::cluster::ServerVersion::V6_0 && round.candidates > 0 => ms,
            _ => v.round_pause_ms(round.candidates, round.moved + self.round_too_big),
        };
        self.cluster.balancer.next_round_ms = self.cluster.now_ms + pause;
        self.emit(EventKind::BalancerRound {
            round: round.number,
            candidates: round.candidates,
            moved: round.moved,
            failed: round.failed,
            millis: self.cluster.now_ms - round.started_ms,
            why_not: self.cluster.balancer.why_not.clone(),
        });
    }

    /// Starts moving `[chunk min, end)` (whole chunk when `end` is `None`) of collection `c` to `to`.
    /// A range over the size limit (1.3 × chunk size in 4.4, 2 × from 5.0) fails with
    /// ChunkTooBig and the chunk is split or marked jumbo, unless the move is forced (`forceJumbo`,
    /// and a drain's moves, which the balancer issues with `kForceBalancer`).
    pub(super) fn start_migration(
        &mut self,
        c: usize,
        i: usize,
        end: Option<&ShardKey>,
        to: ShardIdx,
        reason: MigrationReason,
    ) -> Result<(), MongoError> {
        let coll = &self.cluster.collections[c];
        if coll.balancing.migrations_blocked {
            // 8.0 `db/s/config/sharding_catalog_manager_chunk_operations.cpp`
            // (`commitChunkMigration`); refused here at the start rather than at the commit.
            return Err(MongoError::conflicting_operation(
                "Collection is undergoing changes and chunks cannot be moved",
            ));
        }
        let chunk = coll.table.chunk(i);
        let (min, from) = (chunk.min.clone(), chunk.info.shard);
        let max = end
            .filter(|e| *e > chunk.min && *e < chunk.max)
            .unwrap_or(chunk.max)
            .clone();
        let stats = if max == *chunk.max {
            chunk.info.stats
        } else {
            coll.keys.stats(&min, &max)
        };
        let chunk_size = self.cluster.chunk_size_of(c);
        let donor = coll.table.shard_totals(from).stats;
        // 4.4.6 and 8.0.10 `db/s/balancer/balancer_policy.cpp`: with `attemptToBalanceJumboChunks`
        // the zone-violation and imbalance moves carry `kForceBalancer` too.
        let forced = reason.is_forced()
            || (self.cluster.settings.attempt_to_balance_jumbo_chunks
                && matches!(
                    reason,
                    MigrationReason::ChunksImbalance | MigrationReason::ZoneViolation
                ));
        let too_big = (!forced)
            .then(|| chunk_too_big(chunk_size, donor.bytes, donor.docs, stats.docs))
            .flatten();
        let id = self.cluster.next_migration_id;
        self.cluster.next_migration_id += 1;
        let range = MigrationRange {
            id,
            ns: coll.ns.clone(),
            min,
            max,
            from,
            to,
        };
        self.emit(EventKind::MigrationStarted {
            range: range.clone(),
            reason,
            bytes: stats.bytes,
        });
        if let Some(limit) = too_big {
            let error = MongoError::chunk_too_big(format!(
                "Cannot move chunk: the maximum number of documents for a chunk is {}, the maximum chunk size is {chunk_size}, average document size is {}. Found {} documents in chunk  ns: {} {} -> {}",
                limit.max_docs,
                limit.avg_doc_bytes,
                stats.docs,
                range.ns,
                self.cluster.bound_server_text(&range.ns, &range.min),
                self.cluster.bound_server_text(&range.ns, &range.max),
            ));
            self.cluster.balancer.failed += 1;
            self.emit(EventKind::MigrationFailed {
                range,
                error: error.clone(),
            });
            if !matches!(
                reason,
                MigrationReason::Manual | MigrationReason::Defragmentation
            ) {
                self.split_or_mark_jumbo(c, i);
            }
            return Err(error);
        }
        let millis = self.migration_ms(range.from, stats.bytes);
        let MigrationRange {
            id,
            ns,
            min,
            max,
            from,
            to,
        } = range;
        let end = (max != *self.cluster.collections[c].table.chunk(i).max).then(|| max.clone());
        let finish_ms = self.schedule_copy((c, id, to), (&min, &max), millis);
        self.cluster.balancer.in_flight.push(Migration {
            id,
            ns,
            min,
            end,
            max,
            from,
            to,
            started_ms: self.cluster.now_ms,
            finish_ms,
            bytes: Some(stats.bytes),
            bytes_estimated: false,
            reason,
        });
        Ok(())
    }

    /// Commits the migrations whose time has come (moveChunk.commit).
    pub(super) fn commit_due_migrations(&mut self) {
        let now = self.cluster.now_ms;
        let (due, rest): (Vec<Migration>, Vec<Migration>) =
            std::mem::take(&mut self.cluster.balancer.in_flight)
                .into_iter()
                .partition(|m| m.finish_ms <= now);
        self.cluster.balancer.in_flight = rest;
        for m in due {
            if !self.fail_if_waited_in_vain(&m) {
                self.commit(&m);
            }
        }
    }

    fn commit(&mut self, m: &Migration) {
        let Some(c) = self.cluster.collection_index(&m.ns) else {
            return;
        };
        let now_secs = self.cluster.now_ms / 1000;
        let Some(i) = self.cluster.collections[c].table.find_by_min(&m.min) else {
            return;
        };
        self.flush_writes(c);
        let coll = &mut self.cluster.collections[c];
        let chunk = coll.table.chunk(i);
        let mut moved = match &m.end {
            Some(end) => coll.keys.stats(&m.min, end),
            None => chunk.info.stats,
        };
        if m.end.is_some() {
            let docs = chunk.info.stats.docs.max(1);
            moved.writes = chunk.info.stats.writes * moved.docs / docs;
        }
        let result = coll
            .table
            .move_range(i, m.end.as_ref(), moved, m.to, now_secs);
        let in_round = self
            .cluster
            .balancer
            .round
            .as_ref()
            .is_some_and(|r| r.migration_ids.contains(&m.id));
        match result {
            Ok(()) => {
                if m.reason == MigrationReason::ManualForce {
                    self.cluster.collections[c].table.set_jumbo(i, false);
                }
                let now = self.cluster.now_ms;
                self.cluster
                    .leave_orphans(c, (m.from, &m.min, &m.max), moved, now);
                self.cluster.balancer.completed += 1;
                if in_round && let Some(r) = self.cluster.balancer.round.as_mut() {
                    r.moved += 1;
                }
                let millis = self.cluster.now_ms - m.started_ms;
                self.emit(EventKind::MigrationCommitted {
                    range: m.range(),
                    moved,
                    millis,
                });
            }
            Err(e) => {
                self.cluster.balancer.failed += 1;
                if in_round && let Some(r) = self.cluster.balancer.round.as_mut() {
                    r.failed += 1;
                }
                let error = MongoError::illegal_operation(e.to_string());
                self.emit(EventKind::MigrationFailed {
                    range: m.range(),
                    error,
                });
            }
        }
    }
}

/// The donor's limit on a range's documents, when the range is over it.
struct TooBig {
    max_docs: u64,
    avg_doc_bytes: u64,
}

/// Whether a range of `docs` documents is too big to move: more than 2 × the documents a full chunk
/// holds at the collection's average document size on the donor (`donor_bytes / donor_docs`).
// 3.6 onwards to 8.0.10 `db/s/migration_chunk_cloner_source{_legacy}.cpp`, `_storeCurrentRecordId`:
// `maxRecsWhenFull = 2 * maxRecsWhenFull; // pad some slack` (1.3 × was 3.4 and earlier).
fn chunk_too_big(chunk_size: u64, donor_bytes: u64, donor_docs: u64, docs: u64) -> Option<TooBig> {
    let limit = move_limit(chunk_size, donor_bytes, donor_docs);
    (docs > limit.max_docs).then_some(limit)
}

/// The donor's limit on a range's documents (whether or not a range is over it).
fn move_limit(chunk_size: u64, donor_bytes: u64, donor_docs: u64) -> TooBig {
    const MAX_OBJECTS_PER_CHUNK: u64 = 250_000;
    let (max_docs, avg_doc_bytes) = match donor_bytes.checked_div(donor_docs) {
        Some(avg) if donor_docs > 0 => (2 * (chunk_size / avg.max(5)).max(1), avg),
        _ => (MAX_OBJECTS_PER_CHUNK + 1, 0),
    };
    TooBig {
        max_docs,
        avg_doc_bytes,
    }
}

#[cfg(test)]
#[path = "balancer/cost_tests.rs"]
mod cost_tests;
