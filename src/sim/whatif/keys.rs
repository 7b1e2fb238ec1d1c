//! The key distribution of a fork that read only chunk totals (a live poll, a capture, a trace):
//! each chunk's documents spread evenly over its range, so that the balancer's moves of part of
//! a chunk (`moveRange` from 6.0, split points of `splitVector`) find bounds as they would in the
//! data. Only for a single-field key whose chunk bounds are Int64 (a hashed key's, or an Int64
//! key's) or MinKey/MaxKey; any other key is left without one, said in the assumptions.
//!
//! Owns: that estimate. May not touch: a collection whose keys are known (the simulator's own).

use crate::cluster::key_index::KeyCount;
use crate::model::{KeyValue, ShardKey};
use crate::sim::engine::Simulator;

/// Estimated keys per chunk at most.
const MAX_KEYS_PER_CHUNK: u64 = 256;

/// Whether the estimate was made (`false`: the keys were known, no chunk holds documents, or the
/// key is not one it spreads).
pub fn spread_evenly(sim: &mut Simulator, c: usize) -> bool {
    let chunk_size = sim.cluster.chunk_size_of(c);
    let coll = &mut sim.cluster.collections[c];
    if coll.keys.distinct() > 0 || coll.pattern.fields().len() != 1 {
        return false;
    }
    let bound = |k: &ShardKey, low: bool| match k.get(0) {
        Some(KeyValue::Int64(v)) => Some(i128::from(*v)),
        Some(KeyValue::MinKey) if low => Some(i128::from(i64::MIN)),
        Some(KeyValue::MaxKey) if !low => Some(i128::from(i64::MAX)),
        _ => None,
    };
    let mut plan = Vec::new();
    for ch in coll.table.iter() {
        let stats = ch.info.stats;
        if stats.docs == 0 {
            continue;
        }
        let (Some(lo), Some(hi)) = (bound(ch.min, true), bound(ch.max, false)) else {
            return false;
        };
        let n = (stats.bytes / (chunk_size / 8).max(1))
            .clamp(1, MAX_KEYS_PER_CHUNK)
            .min(stats.docs);
        plan.push((lo, hi, n, stats.docs, stats.bytes));
    }
    let made = !plan.is_empty();
    for (lo, hi, n, docs, bytes) in plan {
        let span = hi - lo;
        for j in 0..n {
            let at = lo + span * i128::from(2 * j + 1) / i128::from(2 * n);
            let share = |total: u64| total / n + u64::from(j < total % n);
            let key = ShardKey::single(KeyValue::Int64(at as i64));
            coll.keys.insert_count(
                key,
                KeyCount {
                    docs: share(docs),
                    bytes: share(bytes),
                },
            );
        }
    }
    made
}
