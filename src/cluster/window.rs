//! Recent writes of a collection: counts by chunk and by shard over the last
//! [`WINDOW_MS`](super::hotspot::WINDOW_MS) of the source's clock, which yield each shard's share
//! of recent writes, the most-written chunk and — through [`hotspot`](super::hotspot::hotspot) —
//! whether a shard or a chunk is a hotspot. Writes older than the window no longer count, so a
//! share fades when writes stop.

use std::collections::{BTreeMap, VecDeque};

pub use super::hotspot::WINDOW_MS;
use super::hotspot::{Hotspot, hotspot};
use crate::model::{RoutingTable, ShardIdx, ShardKey};

/// The writes of one second (the simulator's ticks of that second merged; one poll of a live
/// cluster).
#[derive(Clone, Debug, Default)]
struct Tick {
    /// When: the start of the first tick merged into it (ms of the source's clock).
    at_ms: u64,
    /// Writes per chunk, by a key written to it.
    by_chunk: Vec<(ShardKey, u64)>,
    /// Writes per shard (by shard index).
    by_shard: Vec<u64>,
    /// While the tick is open: the lower bound of each chunk of `by_chunk`, to merge the writes
    /// of one chunk into one entry.
    open: BTreeMap<ShardKey, usize>,
}

/// Empty buffers for a tick's writes per chunk and per shard.
pub type TickBuffers = (Vec<(ShardKey, u64)>, Vec<u64>);

/// The writes of the last [`WINDOW_MS`] that had any, one entry a second.
#[derive(Clone, Debug, Default)]
pub struct WriteWindow {
    ticks: VecDeque<Tick>,
}

/// The most-written chunk of the window.
#[derive(Clone, Debug, PartialEq)]
pub struct Hottest {
    pub chunk: usize,
    pub share: f64,
    /// Whether it is a hotspot by [`hotspot`]'s rule (the key space's `▲`).
    pub hot: bool,
}

fn recent(at_ms: u64, now_ms: u64) -> bool {
    at_ms.saturating_add(WINDOW_MS) > now_ms
}

impl WriteWindow {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the writes of the tick starting at `at_ms` (routed through `table` to merge a chunk's
    /// writes of one second); ticks without writes are not kept, writes older than the window are
    /// dropped. Gives back the buffers of the tick, emptied, for the next tick.
    pub fn push(
        &mut self,
        at_ms: u64,
        by_chunk: Vec<(ShardKey, u64)>,
        by_shard: Vec<u64>,
        table: &RoutingTable,
    ) -> TickBuffers {
        let (mut by_chunk, mut by_shard) = (by_chunk, by_shard);
        if by_shard.iter().any(|&n| n != 0) {
            self.forget_before(at_ms);
            let second = at_ms / 1000;
            if self.ticks.back().is_none_or(|t| t.at_ms / 1000 != second) {
                if let Some(last) = self.ticks.back_mut() {
                    last.open = BTreeMap::new();
                }
                self.ticks.push_back(Tick {
                    at_ms,
                    ..Tick::default()
                });
            }
            if let Some(t) = self.ticks.back_mut() {
                if t.open.is_empty() {
                    // A tick put back from a trace, or keys just refined: index it again.
                    for (i, (key, _)) in t.by_chunk.iter().enumerate() {
                        let min = table.chunk(table.route(key)).min.clone();
                        t.open.entry(min).or_insert(i);
                    }
                }
                for (k, n) in by_shard.iter().enumerate() {
                    if t.by_shard.len() <= k {
                        t.by_shard.resize(k + 1, 0);
                    }
                    t.by_shard[k] += n;
                }
                for (key, n) in by_chunk.drain(..) {
                    let min = table.chunk(table.route(&key)).min.clone();
                    if let Some(&i) = t.open.get(&min) {
                        t.by_chunk[i].1 += n;
                    } else {
                        t.open.insert(min, t.by_chunk.len());
                        t.by_chunk.push((key, n));
                    }
                }
            }
        }
        by_chunk.clear();
        by_shard.clear();
        (by_chunk, by_shard)
    }

    /// Puts back a tick as a trace kept it (no merging).
    pub fn restore(&mut self, at_ms: u64, by_chunk: Vec<(ShardKey, u64)>, by_shard: Vec<u64>) {
        if by_shard.iter().any(|&n| n != 0) {
            self.ticks.push_back(Tick {
                at_ms,
                by_chunk,
                by_shard,
                open: BTreeMap::new(),
            });
        }
    }

    /// Drops the ticks that are out of the window at `now_ms`.
    fn forget_before(&mut self, now_ms: u64) {
        while self.ticks.front().is_some_and(|t| !recent(t.at_ms, now_ms)) {
            self.ticks.pop_front();
        }
    }

    /// Extends every kept key with `fill` for `added` new fields (after the key is refined).
    pub fn extend_keys(&mut self, added: usize, fill: &crate::model::KeyValue) {
        for t in &mut self.ticks {
            t.open = BTreeMap::new();
            for (key, _) in &mut t.by_chunk {
                let mut values: Vec<crate::model::KeyValue> = key.values().cloned().collect();
                values.extend(std::iter::repeat_n(fill.clone(), added));
                if let Some(k) = ShardKey::from_values(values) {
                    *key = k;
                }
            }
        }
    }

    fn live(&self, now_ms: u64) -> impl Iterator<Item = &Tick> {
        self.ticks.iter().filter(move |t| recent(t.at_ms, now_ms))
    }

    /// The ticks in the window at `now_ms`: when, per-chunk sample keys with counts, per-shard
    /// counts.
    pub fn ticks(&self, now_ms: u64) -> impl Iterator<Item = (u64, &[(ShardKey, u64)], &[u64])> {
        self.live(now_ms)
            .map(|t| (t.at_ms, t.by_chunk.as_slice(), t.by_shard.as_slice()))
    }

    /// Total writes in the window at `now_ms`.
    pub fn total(&self, now_ms: u64) -> u64 {
        self.live(now_ms).flat_map(|t| t.by_shard.iter()).sum()
    }

    /// Each shard's writes in the window at `now_ms`.
    pub fn shard_counts(&self, shards: usize, now_ms: u64) -> Vec<u64> {
        let mut counts = vec![0u64; shards];
        for t in self.live(now_ms) {
            for (s, n) in t.by_shard.iter().enumerate() {
                if s < shards {
                    counts[s] += n;
                }
            }
        }
        counts
    }

    /// Each shard's share of the window's writes at `now_ms` (all 0 without writes).
    pub fn shard_shares(&self, shards: usize, now_ms: u64) -> Vec<f64> {
        let counts = self.shard_counts(shards, now_ms);
        let total: u64 = counts.iter().sum();
        counts
            .iter()
            .map(|&n| {
                if total == 0 {
                    0.0
                } else {
                    n as f64 / total as f64
                }
            })
            .collect()
    }

    /// Writes per current chunk index (routing each tick's sample key through today's table).
    pub fn by_chunk(&self, table: &RoutingTable, now_ms: u64) -> BTreeMap<usize, u64> {
        let mut out = BTreeMap::new();
        for t in self.live(now_ms) {
            for (key, n) in &t.by_chunk {
                *out.entry(table.route(key)).or_insert(0) += n;
            }
        }
        out
    }

    /// The chunk with the largest share of the window's writes (lowest index on ties), and
    /// whether it is a hotspot among the collection's chunks.
    pub fn hottest(&self, table: &RoutingTable, now_ms: u64) -> Option<Hottest> {
        let counts = self.by_chunk(table, now_ms);
        let total: u64 = counts.values().sum();
        let (chunk, n) =
            counts
                .iter()
                .fold(None, |best: Option<(usize, u64)>, (&c, &n)| match best {
                    Some((_, bn)) if bn >= n => best,
                    _ => Some((c, n)),
                })?;
        let hot = hotspot(counts.iter().map(|(&c, &n)| (c, n)), table.len()).is_some();
        (total > 0).then(|| Hottest {
            chunk,
            share: n as f64 / total as f64,
            hot,
        })
    }

    /// The hotspot shard of the window at `now_ms`, by [`hotspot`]'s rule: `eligible` is the
    /// number of shards that can take the collection's writes (those owning a chunk of it).
    pub fn hot_shard(
        &self,
        shards: usize,
        eligible: usize,
        now_ms: u64,
    ) -> Option<Hotspot<ShardIdx>> {
        let counts = self.shard_counts(shards, now_ms);
        hotspot(
            counts
                .iter()
                .enumerate()
                .map(|(i, &n)| (ShardIdx(i as u32), n)),
            eligible,
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::model::{ChunkInfo, ChunkVersion, KeyValue};

    fn table() -> RoutingTable {
        let k = |n: i64| ShardKey::from(KeyValue::Int64(n));
        let info = |s: u32| ChunkInfo::new(ShardIdx(s), ChunkVersion::new(1, s));
        RoutingTable::from_chunks(
            vec![
                (ShardKey::from(KeyValue::MinKey), info(0)),
                (k(0), info(1)),
                (k(100), info(2)),
            ],
            ShardKey::from(KeyValue::MaxKey),
        )
        .unwrap()
    }

    #[test]
    fn a_hot_shard_fades_when_writes_stop() {
        let t = table();
        let mut w = WriteWindow::new();
        let key = ShardKey::from(KeyValue::Int64(5));
        for tick in 0..100u64 {
            w.push(tick * 100, vec![(key.clone(), 10)], vec![0, 10, 0], &t);
        }
        let end = 10_000;
        let hot = w.hot_shard(3, 3, end).map(|h| h.key);
        assert_eq!(hot, Some(ShardIdx(1)));
        assert!(w.hottest(&t, end).is_some_and(|h| h.hot && h.chunk == 1));
        // Writes stop; the clock goes on: the writes of the last 5 s still count, then none.
        assert_eq!(
            w.hot_shard(3, 3, 5_000 + WINDOW_MS).map(|h| h.key),
            Some(ShardIdx(1))
        );
        assert_eq!(w.hot_shard(3, 3, 9_900 + WINDOW_MS), None, "faded");
        assert_eq!(w.total(9_900 + WINDOW_MS), 0);
        assert_eq!(w.hottest(&t, 9_900 + WINDOW_MS), None);
        assert_eq!(w.shard_shares(3, 9_900 + WINDOW_MS), vec![0.0; 3]);
    }

    #[test]
    fn ticks_of_one_second_merge_by_chunk() {
        let t = table();
        let mut w = WriteWindow::new();
        let (a, b) = (
            ShardKey::from(KeyValue::Int64(5)),
            ShardKey::from(KeyValue::Int64(7)),
        );
        for tick in 0..10u64 {
            let key = if tick % 2 == 0 { a.clone() } else { b.clone() };
            w.push(tick * 100, vec![(key, 1)], vec![0, 1, 0], &t);
        }
        w.push(1_000, vec![(a.clone(), 1)], vec![0, 1, 0], &t);
        let ticks: Vec<_> = w.ticks(1_000).collect();
        assert_eq!(ticks.len(), 2, "one entry a second");
        assert_eq!(ticks[0].1, &[(a, 10)][..], "both keys route to one chunk");
        assert_eq!(ticks[0].2, &[0, 10, 0][..]);
        assert_eq!(w.by_chunk(&t, 1_000).get(&1), Some(&11));
    }
}
