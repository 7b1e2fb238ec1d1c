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
//! A live session keeps less than a trace: each collection's documents and bytes per shard at an
//! earlier poll ([`Totals`], as a mongos reports them: it does not know a chunk's size). Its
//! growth is the difference of the totals, and where it went is the heat source's writes per
//! chunk when the session has any (change streams, sampled queries), else each shard's growth
//! spread evenly over its chunks ([`growth_by_shard`]).
//!
//! Owns: the measure and the workload made of it. May not touch: I/O, the source.

use std::collections::BTreeMap;

use super::keys::estimate;
use crate::cluster::{Cluster, Collection};
use crate::model::{KeyValue, ShardIdx, ShardKey};
use crate::sim::engine::{Simulator, WorkloadRun};
use crate::sim::scenario::keygen::KeyGen;

/// Keys drawn per range of the key space, at most.
const KEYS_PER_RANGE: u64 = 16;
/// Keys drawn over all the ranges, at most (fewer per range when there are many ranges).
const MAX_KEYS: u64 = 65_536;
/// Ranges a fork's inserts are spread over, at most: more are merged with their neighbours.
const MAX_RANGES: usize = 65_536;

/// How the documents grew between two states of one collection.
#[derive(Clone, Debug, PartialEq)]
pub struct Growth {
    pub span_ms: u64,
    /// Documents and bytes, fork minus earlier (negative: it shrank).
    pub docs: i64,
    pub bytes: i64,
    /// The ranges of the key space that grew, and by how many documents (or their share of
    /// the growth, where it is spread).
    pub ranges: Vec<(ShardKey, ShardKey, f64)>,
}

/// Where a live session's growth was placed in the key space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placed {
    /// In the shares of the heat source's writes per chunk.
    ByHeat,
    /// Each shard's growth spread evenly over its chunks.
    ByShard,
}

/// Each collection's documents and bytes per shard (by shard id) at one instant of the source's
/// clock: what a live session keeps of an earlier poll.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub at_ms: u64,
    pub by_ns: BTreeMap<String, Vec<(String, u64, u64)>>,
}

impl Totals {
    /// The totals of `cluster` now.
    pub fn of(cluster: &Cluster) -> Self {
        let by_ns = (cluster.collections.iter())
            .map(|c| {
                let per = (cluster.shards.iter().enumerate())
                    .map(|(i, s)| {
                        let t = c.table.shard_totals(ShardIdx(i as u32)).stats;
                        (s.shard.id.clone(), t.docs, t.bytes)
                    })
                    .collect();
                (c.ns.clone(), per)
            })
            .collect();
        Self {
            at_ms: cluster.now_ms,
            by_ns,
        }
    }
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
        .map(|(n, t)| (n.0, n.1, (n.2 - t.2) as f64))
        .collect();
    Growth {
        span_ms,
        docs: d1 - d0,
        bytes: b1 - b0,
        ranges,
    }
}

/// The growth of `after` (collection `ns` of `cluster`, at the fork) since `then`, its totals
/// per shard `span_ms` before: the documents and bytes, placed by the heat window's writes per
/// chunk when it holds any, else by each shard's growth spread evenly over its chunks.
/// A migration within the span shows as growth of its recipient in that spread (the totals do
/// not say which documents moved); the totals are right.
pub fn growth_by_shard(
    then: &[(String, u64, u64)],
    cluster: &Cluster,
    after: &Collection,
    span_ms: u64,
) -> (Growth, Placed) {
    let mut grew = vec![0.0f64; cluster.shards.len()];
    let (mut docs, mut bytes) = (0i64, 0i64);
    for (i, s) in cluster.shards.iter().enumerate() {
        let now = after.table.shard_totals(ShardIdx(i as u32)).stats;
        let (d0, b0) = (then.iter())
            .find(|t| t.0 == s.shard.id)
            .map_or((0, 0), |t| (t.1, t.2));
        let d = now.docs as i64 - d0 as i64;
        docs += d;
        bytes += now.bytes as i64 - b0 as i64;
        grew[i] = d.max(0) as f64;
    }
    let by_chunk = after.window.by_chunk(&after.table, cluster.now_ms);
    let (ranges, placed) = if by_chunk.values().any(|&n| n > 0) {
        let ranges = (by_chunk.into_iter())
            .filter(|&(_, n)| n > 0)
            .map(|(i, n)| {
                let ch = after.table.chunk(i);
                (ch.min.clone(), ch.max.clone(), n as f64)
            })
            .collect();
        (ranges, Placed::ByHeat)
    } else {
        (spread_by_shard(after, &grew), Placed::ByShard)
    };
    let g = Growth {
        span_ms,
        docs,
        bytes,
        ranges: merged(ranges),
    };
    (g, placed)
}

/// Each shard's growth (`grew`, by shard index) spread evenly over its chunks: one range per run
/// of neighbouring chunks of a shard that grew.
fn spread_by_shard(after: &Collection, grew: &[f64]) -> Vec<(ShardKey, ShardKey, f64)> {
    let chunks = |i: usize| {
        let n = after.table.shard_totals(ShardIdx(i as u32)).chunks;
        n.max(1) as f64
    };
    let mut out: Vec<(ShardKey, ShardKey, f64)> = Vec::new();
    let mut last_shard = None;
    for ch in after.table.iter() {
        let i = ch.info.shard.index();
        let share = grew.get(i).copied().unwrap_or(0.0) / chunks(i);
        if share <= 0.0 {
            last_shard = None;
            continue;
        }
        match out.last_mut() {
            Some(run) if last_shard == Some(i) => {
                run.1 = ch.max.clone();
                run.2 += share;
            }
            _ => out.push((ch.min.clone(), ch.max.clone(), share)),
        }
        last_shard = Some(i);
    }
    out
}

/// `ranges` (ascending), neighbours merged until at most [`MAX_RANGES`] remain.
fn merged(ranges: Vec<(ShardKey, ShardKey, f64)>) -> Vec<(ShardKey, ShardKey, f64)> {
    if ranges.len() <= MAX_RANGES {
        return ranges;
    }
    let per = ranges.len().div_ceil(MAX_RANGES);
    let mut out: Vec<(ShardKey, ShardKey, f64)> = Vec::with_capacity(MAX_RANGES);
    for (i, r) in ranges.into_iter().enumerate() {
        match out.last_mut() {
            Some(last) if i % per != 0 => {
                last.1 = r.1;
                last.2 += r.2;
            }
            _ => out.push(r),
        }
    }
    out
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
        let per_range = (MAX_KEYS / g.ranges.len().max(1) as u64).clamp(1, KEYS_PER_RANGE);
        for (min, max, docs) in &g.ranges {
            let keys = estimate(min, max, per_range)
                .ok_or("a range's bounds are of a type the key estimate does not interpolate")?;
            for k in &keys {
                values.push(k.get(0).cloned().unwrap_or(KeyValue::Null));
                weights.push(*docs / keys.len() as f64);
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
