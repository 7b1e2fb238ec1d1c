//! The draining loop of the balancer policy: what a draining shard gives up this round, and to
//! whom.

use super::Candidate;
use crate::cluster::event::MigrationReason;
use crate::cluster::version::BalancingMetric;
use crate::model::ShardIdx;
use crate::sim::engine::Simulator;

impl Simulator {
    /// Draining shards first: each moves its first chunk that is not jumbo and has a recipient,
    /// by force (a chunk over the size limit still moves; only chunks already marked jumbo stay,
    /// and block completion), to the least loaded shard that may hold it (of the chunk's zone, if
    /// it has one): the one with the fewest chunks before 6.0, the least data from 6.0. A chunk
    /// with no recipient (its zone's shards all draining, or busy this round) is skipped and the
    /// next one tried. From 7.0 it moves the range `autoSplitVector` cuts from the chunk's lower
    /// bound (moveRange without max), not the whole chunk.
    // 4.4.6, 7.0 and 8.0.10 `db/s/balancer/balancer_policy.cpp`, the draining loop of `balance()`:
    // "Chunk is on a draining shard, but no appropriate recipient found" → `continue`.
    pub(super) fn drain(
        &self,
        c: usize,
        busy: &mut [bool],
        out: &mut Vec<Candidate>,
        why_not: &mut Vec<String>,
    ) {
        let coll = &self.cluster.collections[c];
        for s in (0..self.cluster.shards.len()).filter(|&s| self.cluster.shards[s].shard.draining) {
            let shard = ShardIdx(s as u32);
            if busy[s] || coll.table.first_on(shard).is_none() {
                continue;
            }
            let Some(first) = self.first_movable_on(c, shard) else {
                if coll.table.shard_totals(shard).jumbo > 0 {
                    why_not.push(format!(
                        "{}: {} is draining but only jumbo chunks are left on it: move them with forceJumbo or clear their flag with clearJumboFlag",
                        coll.ns,
                        self.cluster.shard_id(shard)
                    ));
                }
                continue;
            };
            match self.drain_move(c, shard, first, busy) {
                Some(candidate) => {
                    busy[s] = true;
                    busy[candidate.to.index()] = true;
                    out.push(candidate);
                }
                None => why_not.push(format!(
                    "{}: {} is draining but no shard can receive its chunks now (Chunk is on a draining shard, but no appropriate recipient found)",
                    coll.ns,
                    self.cluster.shard_id(shard)
                )),
            }
        }
    }

    /// The first chunk of draining shard `s` from chunk `k` on that has a recipient, and its move.
    fn drain_move(&self, c: usize, s: ShardIdx, k: usize, busy: &[bool]) -> Option<Candidate> {
        let coll = &self.cluster.collections[c];
        let in_flight = self.cluster.balancer.migrating_in(&coll.ns);
        let load = |r: usize| {
            let t = coll.table.shard_totals(ShardIdx(r as u32));
            match self.cluster.balancing_metric() {
                BalancingMetric::ChunkCount => t.chunks,
                BalancingMetric::DataSize => t.stats.bytes,
            }
        };
        let mut k = k;
        loop {
            let chunk = coll.table.chunk(k);
            let migrating = in_flight && self.cluster.balancer.migrating(&coll.ns, chunk.min);
            if !(chunk.info.jumbo || migrating) {
                let zone = coll.zones.zone_of_chunk(chunk.min, chunk.max);
                let to = (0..self.cluster.shards.len())
                    .filter(|&r| {
                        self.receives(r) && !busy[r] && zone.is_none_or(|z| self.carries(r, z))
                    })
                    .min_by_key(|&r| (load(r), r));
                if let Some(to) = to {
                    // 6.0+ `db/s/migration_source_manager.cpp` (`computeOtherBound`): the donor
                    // picks the range's end with `autoSplitVector`, limit 1.
                    let end = if self.cluster.version.moves_chunk_size_ranges_everywhere() {
                        self.other_bound_above(c, s, (chunk.min, chunk.max))
                    } else {
                        None
                    };
                    return Some(Candidate {
                        coll: c,
                        chunk: chunk.index,
                        end,
                        to: ShardIdx(to as u32),
                        reason: MigrationReason::Drain,
                    });
                }
            }
            k = coll.table.next_on(s, k + 1)?;
        }
    }
}
