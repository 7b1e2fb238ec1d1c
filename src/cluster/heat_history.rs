//! Time you can see, as numbers: the writes of each collection per key range and interval (the
//! key visualizer's heatmap), and each collection's data, chunks and writes per shard over time
//! (history).
//!
//! A heatmap's rows are fixed ranges of shard-key values, the same in every column: cut at equal
//! shares of the keys seen written and of the chunk bounds at the end, MinKey first. A chunk's
//! writes of one interval count in the range of the first key written to it in that interval
//! (the `writes` event's sample) — the simulator does not report every key.
//!
//! History is kept in a ring of at most `keep` samples, so a long run costs a bounded amount.

use std::collections::{BTreeMap, VecDeque};

use serde_json::{Value, json};

use super::{Cluster, Event, EventKind};
use crate::model::{ShardIdx, ShardKey};

/// The writes seen, per collection: `(at_ms, the key written, writes)`, in time order.
#[derive(Clone, Debug, Default)]
pub struct HeatLog {
    by_ns: BTreeMap<String, Vec<(u64, ShardKey, u64)>>,
    /// Writes older than this behind the newest are dropped (`None`: all are kept).
    keep_ms: Option<u64>,
}

/// A heatmap's numbers: the cut points between its key ranges and, per time bucket, the writes
/// per range (MinKey first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    pub cuts: Vec<ShardKey>,
    pub writes: Vec<Vec<u64>>,
}

impl HeatLog {
    /// A log that keeps only the newest `keep_ms` of writes (the TUI's bounded history).
    pub fn keeping(keep_ms: u64) -> Self {
        Self {
            keep_ms: Some(keep_ms),
            ..Self::default()
        }
    }

    /// Takes the writes of `events`.
    pub fn observe(&mut self, events: &[Event]) {
        for e in events {
            if let EventKind::Writes { ns, chunks } = &e.kind {
                let list = self.by_ns.entry(ns.clone()).or_default();
                list.extend(
                    chunks
                        .iter()
                        .filter(|w| w.stats.writes > 0)
                        .map(|w| (e.at_ms, w.sample.clone(), w.stats.writes)),
                );
                if let (Some(keep), Some(newest)) = (self.keep_ms, list.last().map(|l| l.0)) {
                    let old = list.partition_point(|l| l.0 + keep < newest);
                    if old > list.len() / 2 {
                        list.drain(..old);
                    }
                }
            }
        }
    }

    /// Forgets the writes after `t_ms` (the clock went back).
    pub fn truncate_after(&mut self, t_ms: u64) {
        for list in self.by_ns.values_mut() {
            let keep = list.partition_point(|l| l.0 <= t_ms);
            list.truncate(keep);
        }
    }

    /// The writes of collection `ns` over `[from_ms, to_ms)` in `cols` intervals by at most
    /// `rows` key ranges.
    pub fn grid(
        &self,
        cluster: &Cluster,
        ns: &str,
        (cols, rows): (usize, usize),
        (from_ms, to_ms): (u64, u64),
    ) -> Option<Grid> {
        let c = cluster.collection(ns)?;
        let seen = self.by_ns.get(ns).map_or(&[][..], Vec::as_slice);
        let first = seen.partition_point(|l| l.0 < from_ms);
        let end = seen.partition_point(|l| l.0 < to_ms);
        let seen = &seen[first..end.max(first)];
        let cuts = cuts(seen, &c.table, rows.max(1));
        let cols = cols.max(1);
        let span = u128::from(to_ms.saturating_sub(from_ms).max(1));
        let mut writes = vec![vec![0u64; cuts.len() + 1]; cols];
        for (t, key, w) in seen {
            let offset = u128::from(t - from_ms);
            let col = (offset * cols as u128 / span).min(cols as u128 - 1) as usize;
            writes[col][cuts.partition_point(|cut| cut <= key)] += w;
        }
        Some(Grid { cuts, writes })
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
        let (Some(c), Some(Grid { cuts, writes })) = (
            cluster.collection(ns),
            self.grid(cluster, ns, (cols, rows), (0, span + 1)),
        ) else {
            return Value::Null;
        };
        let cols = cols.max(1);
        let first = c.table.chunk(0).min;
        let last = c.table.chunk(c.table.len() - 1).max;
        let bounds: Vec<&ShardKey> = std::iter::once(first)
            .chain(cuts.iter())
            .chain(std::iter::once(last))
            .collect();
        let key_buckets: Vec<Value> = bounds
            .windows(2)
            .map(|b| json!([c.pattern.bound_to_json(b[0]), c.pattern.bound_to_json(b[1])]))
            .collect();
        let time_buckets: Vec<f64> = (0..cols)
            .map(|i| (i as u128 * u128::from(span) / cols as u128) as f64 / 1000.0)
            .collect();
        json!({"timeBuckets": time_buckets, "keyBuckets": key_buckets, "writes": writes})
    }
}

/// Candidates per row taken from each source: the keys seen and the chunk bounds are sampled
/// evenly (both are in order already: time, and key), so a frame costs the same whatever the
/// chunk count or the writes kept.
const SAMPLES_PER_ROW: usize = 64;

/// At most `rows - 1` cut points at equal shares of the keys seen and the chunk bounds.
fn cuts(
    seen: &[(u64, ShardKey, u64)],
    table: &crate::model::RoutingTable,
    rows: usize,
) -> Vec<ShardKey> {
    let want = rows * SAMPLES_PER_ROW;
    let every = |n: usize| (n / want).max(1);
    let mut keys: Vec<&ShardKey> = seen
        .iter()
        .step_by(every(seen.len()))
        .map(|(_, k, _)| k)
        .collect();
    keys.extend(
        (1..table.len())
            .step_by(every(table.len()))
            .map(|i| table.chunk(i).min),
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

/// Each collection's data, chunks and writes per shard over time.
#[derive(Clone, Debug)]
pub struct History {
    keep: usize,
    times: VecDeque<u64>,
    /// Per (namespace, shard id): KiB of data, chunks, writes since the previous sample — as
    /// `u32` (saturating), so an hour at one a second on 1,000 shards stays near 43 MB.
    series: BTreeMap<(String, String), [VecDeque<u32>; 3]>,
    /// Writes per (namespace, shard id) at the previous sample.
    last_writes: BTreeMap<(String, String), u64>,
}

/// Samples kept when no bound is given: an hour at one a second.
pub const HISTORY_KEEP: usize = 3600;

impl History {
    pub fn new(keep: usize) -> Self {
        Self {
            keep: keep.max(1),
            times: VecDeque::new(),
            series: BTreeMap::new(),
            last_writes: BTreeMap::new(),
        }
    }

    /// Samples the cluster as it is now.
    pub fn sample(&mut self, cluster: &Cluster) {
        if self.times.len() == self.keep {
            self.times.pop_front();
            for s in self.series.values_mut().flat_map(|s| s.iter_mut()) {
                s.pop_front();
            }
        }
        let (past, keep) = (self.times.len(), self.keep);
        self.times.push_back(cluster.now_ms);
        for c in &cluster.collections {
            for (i, shard) in cluster
                .shards
                .iter()
                .enumerate()
                .filter(|(_, s)| !s.removed)
            {
                let idx = ShardIdx(i as u32);
                let t = c.table.shard_totals(idx);
                let key = (c.ns.clone(), shard.shard.id.clone());
                let writes = c.writes_to(idx);
                let before = self.last_writes.insert(key.clone(), writes).unwrap_or(0);
                let series = self.series.entry(key).or_insert_with(|| {
                    let zeros = || {
                        let mut z = VecDeque::with_capacity(keep);
                        z.extend(std::iter::repeat_n(0, past));
                        z
                    };
                    [zeros(), zeros(), zeros()]
                });
                let narrow = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
                series[0].push_back(narrow(t.stats.bytes.div_ceil(1024)));
                series[1].push_back(narrow(t.chunks));
                series[2].push_back(narrow(writes.saturating_sub(before)));
            }
        }
        for s in self.series.values_mut().flat_map(|s| s.iter_mut()) {
            while s.len() < self.times.len() {
                s.push_back(0);
            }
        }
    }

    /// `{times: [t…], shards: [{shard, bytes: […], chunks: […], writes: […]}]}` of `ns`; bytes
    /// to the KiB above.
    pub fn json(&self, ns: &str) -> Value {
        let shards: Vec<Value> = self
            .series
            .iter()
            .filter(|((n, _), _)| n == ns)
            .map(|((_, id), [k, c, w])| {
                let bytes: Vec<u64> = k.iter().map(|k| u64::from(*k) * 1024).collect();
                json!({"shard": id, "bytes": bytes, "chunks": c, "writes": w})
            })
            .collect();
        let times: Vec<f64> = self.times.iter().map(|t| *t as f64 / 1000.0).collect();
        json!({"times": times, "shards": shards})
    }
}
