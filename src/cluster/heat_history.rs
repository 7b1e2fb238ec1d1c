//! Time you can see, as numbers: the writes of each collection per key range and interval (the
//! key visualizer's heatmap), and who owned each range at each interval.
//!
//! A heatmap's rows are fixed ranges of shard-key values, the same in every column: cut at equal
//! shares of the keys seen written and of the chunk bounds at the end, MinKey first (or within a
//! zoomed key range). A chunk's writes of one interval count in the range of the first key
//! written to it in that interval (the `writes` event's sample) — the simulator does not report
//! every key. Owners in the past are today's owners with the committed migrations since undone.
//!
//! A new shard key (`shardCollection`, `reshardCollection`, `refineCollectionShardKey`) starts a
//! collection's log afresh: keys of two patterns do not share one axis.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Cluster, Event, EventKind};
use crate::model::{RoutingTable, ShardIdx, ShardKey};

/// The writes seen, per collection: `(at_ms, the key written, writes)`, in time order; and the
/// committed migrations.
#[derive(Clone, Debug, Default)]
pub struct HeatLog {
    by_ns: BTreeMap<String, Vec<(u64, ShardKey, u64)>>,
    moves: BTreeMap<String, Vec<Move>>,
    /// Writes older than this behind the newest are dropped (`None`: all are kept).
    keep_ms: Option<u64>,
}

/// A committed migration: `[min, max)` left shard `from` at `at_ms`.
#[derive(Clone, Debug)]
struct Move {
    at_ms: u64,
    min: ShardKey,
    max: ShardKey,
    from: usize,
}

/// A heatmap's numbers: its key ranges' bounds (one more than the ranges, lowest first), per
/// time bucket the writes per range, and per time bucket each range's owning shard (by index)
/// at the bucket's end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    pub bounds: Vec<ShardKey>,
    pub writes: Vec<Vec<u64>>,
    pub owners: Vec<Vec<usize>>,
}

/// What part of the key space a heatmap shows: `[low, high)` (`None`: all of it).
pub type KeyRange<'a> = Option<(&'a ShardKey, &'a ShardKey)>;

impl HeatLog {
    /// A log that keeps only the newest `keep_ms` of writes (the TUI's bounded history).
    pub fn keeping(keep_ms: u64) -> Self {
        Self {
            keep_ms: Some(keep_ms),
            ..Self::default()
        }
    }

    /// Takes the writes and migrations of `events`.
    pub fn observe(&mut self, events: &[Event]) {
        for e in events {
            match &e.kind {
                EventKind::Writes { ns, chunks } => self.writes(
                    ns,
                    chunks
                        .iter()
                        .filter(|w| w.stats.writes > 0)
                        .map(|w| (e.at_ms, w.sample.clone(), w.stats.writes)),
                ),
                EventKind::MigrationCommitted { range, .. } => self.moved(
                    &range.ns,
                    e.at_ms,
                    (range.min.clone(), range.max.clone()),
                    range.from,
                ),
                EventKind::CollectionSharded { ns, .. }
                | EventKind::ReshardingCommitted { ns, .. }
                | EventKind::KeyRefined { ns, .. }
                | EventKind::CollectionDropped { ns } => {
                    self.by_ns.remove(ns);
                    self.moves.remove(ns);
                }
                _ => {}
            }
        }
    }

    /// Takes writes counted elsewhere (a live cluster's change streams or sampled queries):
    /// `(at_ms, a key written, writes)` in time order.
    pub fn writes(&mut self, ns: &str, seen: impl Iterator<Item = (u64, ShardKey, u64)>) {
        let list = self.by_ns.entry(ns.to_string()).or_default();
        list.extend(seen);
        if let (Some(keep), Some(newest)) = (self.keep_ms, list.last().map(|l| l.0)) {
            trim(list, |l| l.0 + keep < newest);
        }
    }

    /// Takes a migration read elsewhere (a live cluster's changelog): `[min, max)` of `ns` left
    /// shard `from` at `at_ms`.
    pub fn moved(
        &mut self,
        ns: &str,
        at_ms: u64,
        (min, max): (ShardKey, ShardKey),
        from: ShardIdx,
    ) {
        let moves = self.moves.entry(ns.to_string()).or_default();
        moves.push(Move {
            at_ms,
            min,
            max,
            from: from.index(),
        });
        if let Some(keep) = self.keep_ms {
            trim(moves, |m| m.at_ms + keep < at_ms);
        }
    }

    /// Forgets the writes and migrations after `t_ms` (the clock went back).
    pub fn truncate_after(&mut self, t_ms: u64) {
        for list in self.by_ns.values_mut() {
            let keep = list.partition_point(|l| l.0 <= t_ms);
            list.truncate(keep);
        }
        for list in self.moves.values_mut() {
            let keep = list.partition_point(|m| m.at_ms <= t_ms);
            list.truncate(keep);
        }
    }

    /// The writes of collection `ns` over `[from_ms, to_ms)` in `cols` intervals by at most
    /// `rows` key ranges of `keys`.
    pub fn grid(
        &self,
        cluster: &Cluster,
        ns: &str,
        (cols, rows): (usize, usize),
        (from_ms, to_ms): (u64, u64),
        keys: KeyRange<'_>,
    ) -> Option<Grid> {
        let c = cluster.collection(ns)?;
        let (low, high) =
            keys.unwrap_or((c.table.chunk(0).min, c.table.chunk(c.table.len() - 1).max));
        let seen = self.by_ns.get(ns).map_or(&[][..], Vec::as_slice);
        let first = seen.partition_point(|l| l.0 < from_ms);
        let end = seen.partition_point(|l| l.0 < to_ms);
        let seen = &seen[first..end.max(first)];
        let inside = |k: &ShardKey| low <= k && k < high;
        let mut bounds = vec![low.clone()];
        bounds.extend(cuts(seen, &c.table, (low, high), rows.max(1)));
        bounds.push(high.clone());
        let cuts = &bounds[1..bounds.len() - 1];
        let cols = cols.max(1);
        let span = u128::from(to_ms.saturating_sub(from_ms).max(1));
        let mut writes = vec![vec![0u64; cuts.len() + 1]; cols];
        for (t, key, w) in seen.iter().filter(|(_, k, _)| inside(k)) {
            let offset = u128::from(t - from_ms);
            let col = (offset * cols as u128 / span).min(cols as u128 - 1) as usize;
            writes[col][cuts.partition_point(|cut| cut <= key)] += w;
        }
        let ends: Vec<u64> = (1..=cols)
            .map(|i| from_ms + (i as u128 * span / cols as u128) as u64)
            .collect();
        let owners = self.owners(cluster, ns, &bounds[..bounds.len() - 1], &ends);
        Some(Grid {
            bounds,
            writes,
            owners,
        })
    }

    /// Each range's owner (by its lower bound) at each of `ends`: today's owners, with the
    /// migrations committed after each end undone, newest first.
    fn owners(
        &self,
        cluster: &Cluster,
        ns: &str,
        lows: &[ShardKey],
        ends: &[u64],
    ) -> Vec<Vec<usize>> {
        let Some(c) = cluster.collection(ns) else {
            return Vec::new();
        };
        let mut owner: Vec<usize> = lows
            .iter()
            .map(|k| c.table.chunk(c.table.route(k)).info.shard.index())
            .collect();
        let moves = self.moves.get(ns).map_or(&[][..], Vec::as_slice);
        let mut undone = moves.len();
        let mut out = vec![Vec::new(); ends.len()];
        for (col, &end) in ends.iter().enumerate().rev() {
            while undone > 0 && moves[undone - 1].at_ms >= end {
                undone -= 1;
                let m = &moves[undone];
                let first = lows.partition_point(|k| k < &m.min);
                let last = lows.partition_point(|k| k < &m.max);
                owner[first..last].fill(m.from);
            }
            out[col].clone_from(&owner);
        }
        out
    }

    /// The heatmap of collection `ns` over `[0, end_ms]`: `cols` intervals by at most `rows` key
    /// ranges, as the JSON summary gives it.
    pub fn heatmap(
        &self,
        cluster: &Cluster,
        ns: &str,
        cols: usize,
        rows: usize,
        end_ms: u64,
    ) -> Value {
        let span = end_ms.max(1);
        let (Some(c), Some(Grid { bounds, writes, .. })) = (
            cluster.collection(ns),
            self.grid(cluster, ns, (cols, rows), (0, span + 1), None),
        ) else {
            return Value::Null;
        };
        let cols = cols.max(1);
        let key_buckets: Vec<Value> = bounds
            .windows(2)
            .map(|b| {
                json!([
                    c.pattern.bound_to_json(&b[0]),
                    c.pattern.bound_to_json(&b[1])
                ])
            })
            .collect();
        let time_buckets: Vec<f64> = (0..cols)
            .map(|i| (i as u128 * u128::from(span) / cols as u128) as f64 / 1000.0)
            .collect();
        json!({"timeBuckets": time_buckets, "keyBuckets": key_buckets, "writes": writes})
    }
}

/// Drops the leading entries `old` says are past keeping, once they are half the list (so the
/// cost is amortised).
fn trim<T>(list: &mut Vec<T>, old: impl Fn(&T) -> bool) {
    let n = list.partition_point(old);
    if n > list.len() / 2 {
        list.drain(..n);
    }
}

/// Candidates per row taken from each source: the keys seen and the chunk bounds are sampled
/// evenly (both are in order already: time, and key), so a frame costs the same whatever the
/// chunk count or the writes kept.
const SAMPLES_PER_ROW: usize = 64;

/// At most `rows - 1` cut points inside `(low, high)` at equal shares of the keys seen and the
/// chunk bounds there.
fn cuts(
    seen: &[(u64, ShardKey, u64)],
    table: &RoutingTable,
    (low, high): (&ShardKey, &ShardKey),
    rows: usize,
) -> Vec<ShardKey> {
    let want = rows * SAMPLES_PER_ROW;
    let every = |n: usize| (n / want).max(1);
    let inside = |k: &&ShardKey| low < *k && *k < high;
    let mut keys: Vec<&ShardKey> = seen
        .iter()
        .step_by(every(seen.len()))
        .map(|(_, k, _)| k)
        .filter(inside)
        .collect();
    let (first, last) = (table.route(low) + 1, table.route(high).min(table.len() - 1));
    keys.extend(
        (first..=last)
            .step_by(every(last.saturating_sub(first) + 1))
            .map(|i| table.chunk(i).min)
            .filter(inside),
    );
    keys.sort();
    keys.dedup();
    let n = keys.len();
    let mut out: Vec<ShardKey> = (1..rows)
        .filter_map(|j| keys.get(j * n / rows).map(|k| (*k).clone()))
        .collect();
    out.dedup();
    out
}
