//! The order in which a balancer round visits the collections: MongoDB shuffles them every round
//! (`std::shuffle` in `selectChunksToMove`), so which collection gets a pair of free shards first
//! varies from round to round. Its random source is seeded at random on every line —
//! `BalancerRandomSource` (`std::minstd_rand`) seeded from `std::random_device` up to 6.0, the
//! client's PRNG from 7.0 — so no run can be reproduced exactly; the simulator shuffles with its
//! own generator, seeded from the scenario's seed and the round's number, so the same scenario and
//! seed give the same rounds.
// 4.4.6 `db/s/balancer/balancer.cpp` (`_random(std::random_device{}())`), `balancer_random.h`,
// `balancer_chunk_selection_policy_impl.cpp` (`std::shuffle(collections…, _random)`); 8.0.10
// `balancer_chunk_selection_policy.cpp` (`std::shuffle(…, client->getPrng().urbg())`, of the
// collections left after the imbalanced-collections cache, then of each batch of 100).
//
// Simplified: from 7.0 the collections that had candidates in the previous round (at most 75)
// go in the first batch of 100 before the others; with 100 collections or fewer the batch's own
// shuffle makes that moot, and beyond 100 the simulator does not keep that cache.

use super::policy::Candidate;
use crate::sim::engine::Simulator;
use crate::sim::rng::Rng;

/// Labels the balancer's stream among the generators forked from the scenario's seed.
const ORDER_STREAM: u64 = 0xBA1A_0C0E;

impl Simulator {
    /// The collections in this round's order: a Fisher–Yates shuffle drawn from the scenario's
    /// seed and `round`.
    pub fn round_order(&self, round: u64) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.cluster.collections.len()).collect();
        let mut rng = Rng::fork(self.seed, ORDER_STREAM ^ round.wrapping_mul(0x9E37_79B9));
        for i in (1..order.len()).rev() {
            let j = rng.range_u64(0, i as u64) as usize;
            order.swap(i, j);
        }
        order
    }

    /// The round's candidates, the collections visited in [`Self::round_order`]; the reasons for
    /// doing no more are listed in namespace order (they are shardtop's, not MongoDB's).
    pub(in crate::sim) fn select_in_round_order(
        &self,
        round: u64,
        busy: &mut [bool],
    ) -> (Vec<Candidate>, Vec<String>) {
        let mut candidates = Vec::new();
        let mut reasons: Vec<Vec<String>> = vec![Vec::new(); self.cluster.collections.len()];
        for c in self.round_order(round) {
            self.select(c, busy, &mut candidates, &mut reasons[c]);
        }
        (candidates, reasons.into_iter().flatten().collect())
    }
}
