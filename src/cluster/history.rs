//! Each collection's data, chunks and writes per shard over time, kept in a ring of at most
//! `keep` samples, so a long run costs a bounded amount.

use std::collections::{BTreeMap, VecDeque};

use serde_json::{Value, json};

use super::Cluster;
use crate::model::ShardIdx;

/// Each collection's data, chunks and writes per shard over time.
#[derive(Clone, Debug)]
pub struct History {
    keep: usize,
    times: VecDeque<u64>,
    /// Each series' slot in a sample, by (namespace, shard id).
    slots: BTreeMap<(String, String), usize>,
    /// Per sample (oldest first), per slot: KiB of data and chunks (`u32`, saturating), and the
    /// writes counted since sampling began (`u32`, wrapping: the writes between two samples are
    /// the difference), so an hour at one a second on 1,000 shards stays near 43 MB and a
    /// column's writes are read from two samples, not summed over all of them.
    samples: VecDeque<Vec<[u32; 3]>>,
    /// The writes counted per slot at the newest sample, and at the newest sample dropped from
    /// the ring (the baseline of the oldest one kept).
    counted: Vec<u32>,
    dropped: Vec<u32>,
    /// Writes per slot at the previous sample (`None`: not known, after the clock went back).
    last_writes: Vec<Option<u64>>,
    /// Draining shards (by id): when the drain was first seen, and what the shard held then.
    drains: BTreeMap<String, Drain>,
    /// Collections being resharded: `(at_ms, the estimated share of the clone done)`.
    resharding: BTreeMap<String, VecDeque<(u64, f32)>>,
}

/// A drain as first seen: when, and the shard's chunks and bytes (every collection) then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Drain {
    pub since_ms: u64,
    pub chunks: u64,
    pub bytes: u64,
}

/// Samples kept when no bound is given: an hour at one a second.
pub const HISTORY_KEEP: usize = 3600;

impl History {
    pub fn new(keep: usize) -> Self {
        Self {
            keep: keep.max(1),
            times: VecDeque::new(),
            slots: BTreeMap::new(),
            samples: VecDeque::new(),
            counted: Vec::new(),
            dropped: Vec::new(),
            last_writes: Vec::new(),
            drains: BTreeMap::new(),
            resharding: BTreeMap::new(),
        }
    }

    /// The sample times, oldest first.
    pub fn times(&self) -> &VecDeque<u64> {
        &self.times
    }

    /// The shards with series in `ns`, by id, and their slots.
    pub fn shards<'a>(&'a self, ns: &'a str) -> impl Iterator<Item = (&'a str, usize)> + 'a {
        self.slots
            .range((ns.to_string(), String::new())..)
            .take_while(move |((n, _), _)| n == ns)
            .map(|((_, id), &slot)| (id.as_str(), slot))
    }

    /// Sample `i`'s values of `slot`: KiB of data, chunks, writes since the sample before.
    pub fn value(&self, i: usize, slot: usize) -> [u32; 3] {
        let [kib, chunks, _] = self.raw(i, slot);
        [kib, chunks, self.writes_between(i..i + 1, slot)]
    }

    fn raw(&self, i: usize, slot: usize) -> [u32; 3] {
        self.samples
            .get(i)
            .and_then(|s| s.get(slot))
            .copied()
            .unwrap_or_default()
    }

    /// The writes of `slot` in samples `range` (each sample's: since the one before).
    pub fn writes_between(&self, range: std::ops::Range<usize>, slot: usize) -> u32 {
        if range.is_empty() {
            return 0;
        }
        let before = match range.start.checked_sub(1) {
            Some(i) => self.raw(i, slot)[2],
            None => self.dropped.get(slot).copied().unwrap_or(0),
        };
        self.raw(range.end - 1, slot)[2].wrapping_sub(before)
    }

    /// Forgets the samples after `t_ms` (the clock went back).
    pub fn truncate_after(&mut self, t_ms: u64) {
        let keep = self.times.partition_point(|&t| t <= t_ms);
        self.times.truncate(keep);
        self.samples.truncate(keep);
        for (slot, c) in self.counted.iter_mut().enumerate() {
            *c = match self.samples.back() {
                Some(newest) => newest.get(slot).map_or(0, |v| v[2]),
                None => self.dropped.get(slot).copied().unwrap_or(0),
            };
        }
        for s in self.resharding.values_mut() {
            let keep = s.partition_point(|(t, _)| *t <= t_ms);
            s.truncate(keep);
        }
        self.drains.retain(|_, d| d.since_ms <= t_ms);
        // The writes since the last sample are counted from the next one on.
        self.last_writes.fill(None);
    }

    /// The drain of shard `id`, while it drains.
    pub fn drain(&self, id: &str) -> Option<Drain> {
        self.drains.get(id).copied()
    }

    /// The clone's progress of `ns`'s resharding over time, while one runs.
    pub fn resharding(&self, ns: &str) -> Option<&VecDeque<(u64, f32)>> {
        self.resharding.get(ns)
    }

    /// Samples the cluster as it is now.
    pub fn sample(&mut self, cluster: &Cluster) {
        if self.times.len() == self.keep {
            self.times.pop_front();
            if let Some(oldest) = self.samples.pop_front() {
                self.dropped = oldest.iter().map(|v| v[2]).collect();
            }
        }
        self.times.push_back(cluster.now_ms);
        // A shard not sampled (removed) keeps its count: no writes in between.
        let mut row: Vec<[u32; 3]> = self.counted.iter().map(|&c| [0, 0, c]).collect();
        let narrow = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        for c in &cluster.collections {
            for (i, shard) in cluster
                .shards
                .iter()
                .enumerate()
                .filter(|(_, s)| !s.removed)
            {
                let idx = ShardIdx(i as u32);
                let t = c.table.shard_totals(idx);
                let next = self.slots.len();
                let slot = *self
                    .slots
                    .entry((c.ns.clone(), shard.shard.id.clone()))
                    .or_insert(next);
                if slot >= row.len() {
                    row.resize(slot + 1, [0; 3]);
                    self.last_writes.resize(slot + 1, Some(0));
                    self.counted.resize(slot + 1, 0);
                }
                let writes = c.writes_to(idx);
                let before = self.last_writes[slot].replace(writes);
                row[slot] = [
                    narrow(t.stats.bytes.div_ceil(1024)),
                    narrow(t.chunks),
                    self.counted[slot]
                        .wrapping_add(narrow(before.map_or(0, |b| writes.saturating_sub(b)))),
                ];
            }
        }
        for (slot, v) in row.iter().enumerate() {
            if let Some(c) = self.counted.get_mut(slot) {
                *c = v[2];
            }
        }
        self.samples.push_back(row);
        self.sample_drains(cluster);
        self.sample_resharding(cluster);
    }

    fn sample_drains(&mut self, cluster: &Cluster) {
        for (i, s) in cluster.shards.iter().enumerate() {
            if !s.shard.draining || s.removed {
                self.drains.remove(&s.shard.id);
                continue;
            }
            let (chunks, bytes) = shard_holds(cluster, ShardIdx(i as u32));
            self.drains.entry(s.shard.id.clone()).or_insert(Drain {
                since_ms: cluster.now_ms,
                chunks,
                bytes,
            });
        }
    }

    fn sample_resharding(&mut self, cluster: &Cluster) {
        self.resharding.retain(|ns, _| {
            cluster
                .collection(ns)
                .is_some_and(|c| c.resharding.is_some())
        });
        for c in &cluster.collections {
            if let Some(r) = &c.resharding {
                let done = clone_done(r, cluster.now_ms);
                let series = self.resharding.entry(c.ns.clone()).or_default();
                if series.len() == self.keep {
                    series.pop_front();
                }
                series.push_back((cluster.now_ms, done as f32));
            }
        }
    }

    /// `{times: [t…], shards: [{shard, bytes: […], chunks: […], writes: […]}]}` of `ns`; bytes
    /// to the KiB above.
    pub fn json(&self, ns: &str) -> Value {
        let shards: Vec<Value> = self
            .shards(ns)
            .map(|(id, slot)| {
                let series = |k: usize, scale: u64| -> Vec<u64> {
                    (0..self.samples.len())
                        .map(|i| u64::from(self.value(i, slot)[k]) * scale)
                        .collect()
                };
                json!({"shard": id, "bytes": series(0, 1024), "chunks": series(1, 1), "writes": series(2, 1)})
            })
            .collect();
        let times: Vec<f64> = self.times.iter().map(|t| *t as f64 / 1000.0).collect();
        json!({"times": times, "shards": shards})
    }
}

/// The chunks and bytes shard `shard` holds over every collection.
pub fn shard_holds(cluster: &Cluster, shard: ShardIdx) -> (u64, u64) {
    cluster.collections.iter().fold((0, 0), |(c, b), coll| {
        let t = coll.table.shard_totals(shard);
        (c + t.chunks, b + t.stats.bytes)
    })
}

/// The share of a resharding's clone done at `now_ms`, as the simulator models it: the clone
/// takes from the start to `ready_ms` at an even pace.
pub fn clone_done(r: &super::resharding::Resharding, now_ms: u64) -> f64 {
    let span = r.ready_ms.saturating_sub(r.started_ms).max(1);
    (now_ms.saturating_sub(r.started_ms) as f64 / span as f64).min(1.0)
}
