//! The writes of a fork measured from a trace: the growth of the collection's documents between
//! an earlier state and the fork's, per range of the key space, applied in the fork as inserts
//! at that rate and in those shares (`Simulator`'s workloads, as a scenario's). Updates and
//! deletes that leave the size alone are invisible to it; growth is taken as inserts.
//!
//! The ranges are those whose bounds are chunk bounds in both states (a chunk split or merged
//! between them is inside one range), so a range's growth is the difference of its chunks'
//! documents. A range's inserts get keys spread within it (`keys::estimate`); a hashed key's
//! inserts are spread over the hashed values, as hashing spreads them. Only single-field keys.
//!
//! Owns: the measure and the workload made of it. May not touch: I/O, the source.

use super::keys::estimate;
use crate::cluster::Collection;
use crate::model::{KeyValue, ShardKey};
use crate::sim::engine::{Simulator, WorkloadRun};
use crate::sim::scenario::keygen::KeyGen;

/// Keys drawn per range of the key space.
const KEYS_PER_RANGE: u64 = 16;

/// How the documents grew between two states of one collection.
#[derive(Clone, Debug, PartialEq)]
pub struct Growth {
    pub span_ms: u64,
    /// Documents and bytes, fork minus earlier (negative: it shrank).
    pub docs: i64,
    pub bytes: i64,
    /// The ranges of the key space that grew, and by how many documents.
    pub ranges: Vec<(ShardKey, ShardKey, u64)>,
}

/// Ranges of `table` closed at the bounds `other` also has: `(min, max, docs)` each.
fn ranges(
    table: &crate::model::RoutingTable,
    other: &std::collections::BTreeSet<ShardKey>,
) -> Vec<(ShardKey, ShardKey, u64)> {
    let mut out = Vec::new();
    let mut open: Option<(ShardKey, u64)> = None;
    let last = table.len().saturating_sub(1);
    for (i, ch) in table.iter().enumerate() {
        let (min, docs) = open.take().unwrap_or_else(|| (ch.min.clone(), 0));
        let docs = docs + ch.info.stats.docs;
        if i == last || other.contains(ch.max) {
            out.push((min, ch.max.clone(), docs));
        } else {
            open = Some((min, docs));
        }
    }
    out
}

fn bounds(table: &crate::model::RoutingTable) -> std::collections::BTreeSet<ShardKey> {
    table.iter().map(|ch| ch.max.clone()).collect()
}

/// The growth of `after` since `before` (the same collection `span_ms` earlier).
pub fn growth(before: &Collection, after: &Collection, span_ms: u64) -> Growth {
    let now = ranges(&after.table, &bounds(&before.table));
    let then = ranges(&before.table, &bounds(&after.table));
    let total = |c: &Collection| {
        (c.table.iter()).fold((0i64, 0i64), |(d, b), ch| {
            let s = ch.info.stats;
            (d + s.docs as i64, b + s.bytes as i64)
        })
    };
    let ((d1, b1), (d0, b0)) = (total(after), total(before));
    let ranges = (now.into_iter().zip(then))
        .filter(|(n, t)| n.0 == t.0 && n.1 == t.1 && n.2 > t.2)
        .map(|(n, t)| (n.0, n.1, n.2 - t.2))
        .collect();
    Growth {
        span_ms,
        docs: d1 - d0,
        bytes: b1 - b0,
        ranges,
    }
}

/// The inserts of `g` as a workload of collection `c` from now on, or why not.
pub fn apply(sim: &mut Simulator, c: usize, g: &Growth) -> Result<(), &'static str> {
    let coll = &sim.cluster.collections[c];
    let fields = coll.pattern.fields();
    if fields.len() != 1 {
        return Err("a compound shard key's inserts are not spread (single-field keys only)");
    }
    let name = fields[0].path.to_string();
    let generator = if coll.pattern.hashed_field().is_some() {
        KeyGen::UniformInt {
            min: i64::MIN,
            max: i64::MAX,
        }
    } else {
        let (mut values, mut weights) = (Vec::new(), Vec::new());
        for (min, max, docs) in &g.ranges {
            let keys = estimate(min, max, KEYS_PER_RANGE)
                .ok_or("a range's bounds are of a type the key estimate does not interpolate")?;
            for k in &keys {
                values.push(k.get(0).cloned().unwrap_or(KeyValue::Null));
                weights.push(*docs as f64 / keys.len() as f64);
            }
        }
        let total: f64 = weights.iter().sum();
        if values.is_empty() || total <= 0.0 {
            return Err("no range of the key space grew");
        }
        let mut acc = 0.0;
        let cumulative = (weights.iter())
            .map(|w| {
                acc += w / total;
                acc
            })
            .collect();
        KeyGen::Choice { values, cumulative }
    };
    let avg = u64::try_from(g.bytes / g.docs.max(1)).unwrap_or(0).max(1);
    let fields = vec![(name, generator)];
    let key_sources = crate::sim::scenario::setup::key_sources(&coll.pattern, &fields);
    let run = WorkloadRun {
        coll_ns: coll.ns.clone(),
        fields,
        key_sources,
        rate_per_sec: g.docs as f64 * 1000.0 / g.span_ms.max(1) as f64,
        remaining: None,
        start_ms: sim.now_ms(),
        stop_ms: None,
        doc_bytes: (avg, avg),
        carry: 0.0,
        rng: crate::sim::rng::Rng::new(0x9e37_79b9 ^ c as u64),
    };
    sim.workloads.push(run);
    Ok(())
}

#[cfg(test)]
#[path = "growth_tests.rs"]
mod tests;
