//! Recent writes of a collection: per-tick counts by chunk and by shard over a sliding window,
//! which yield the hottest chunk and each shard's share of recent writes.

use std::collections::{BTreeMap, VecDeque};

use crate::model::{RoutingTable, ShardIdx, ShardKey};

/// Ticks of writes kept in each collection's recent-writes window (10 seconds with writes).
pub const WINDOW_TICKS: usize = 100;

/// The writes of one tick.
#[derive(Clone, Debug, Default)]
struct Tick {
    /// Writes per chunk, by a key written to it.
    by_chunk: Vec<(ShardKey, u64)>,
    /// Writes per shard (by shard index).
    by_shard: Vec<u64>,
}

/// Empty buffers for a tick's writes per chunk and per shard.
pub type TickBuffers = (Vec<(ShardKey, u64)>, Vec<u64>);

/// The last `keep` ticks that had writes (so the window still shows the final burst after a
/// workload stops).
#[derive(Clone, Debug)]
pub struct WriteWindow {
    keep: usize,
    ticks: VecDeque<Tick>,
}

/// The hottest chunk of the window.
#[derive(Clone, Debug, PartialEq)]
pub struct Hottest {
    pub chunk: usize,
    pub share: f64,
}

impl WriteWindow {
    pub fn new(keep: usize) -> Self {
        Self {
            keep: keep.max(1),
            ticks: VecDeque::new(),
        }
    }

    /// Adds one tick's writes; ticks without writes are not kept. Gives back the buffers of the
    /// tick not kept or pushed out of the window, emptied, for the next tick.
    pub fn push(&mut self, by_chunk: Vec<(ShardKey, u64)>, by_shard: Vec<u64>) -> TickBuffers {
        let mut spare = Tick { by_chunk, by_shard };
        if spare.by_shard.iter().any(|&n| n != 0) {
            self.ticks.push_back(spare);
            spare = Tick::default();
            while self.ticks.len() > self.keep {
                spare = self.ticks.pop_front().unwrap_or_default();
            }
        }
        spare.by_chunk.clear();
        spare.by_shard.clear();
        (spare.by_chunk, spare.by_shard)
    }

    /// Extends every kept key with `fill` for `added` new fields (after the key is refined).
    pub fn extend_keys(&mut self, added: usize, fill: &crate::model::KeyValue) {
        for t in &mut self.ticks {
            for (key, _) in &mut t.by_chunk {
                let mut values: Vec<crate::model::KeyValue> = key.values().cloned().collect();
                values.extend(std::iter::repeat_n(fill.clone(), added));
                if let Some(k) = ShardKey::from_values(values) {
                    *key = k;
                }
            }
        }
    }

    /// The kept ticks: per-chunk sample keys with counts, and per-shard counts.
    pub fn ticks(&self) -> impl Iterator<Item = (&[(ShardKey, u64)], &[u64])> {
        self.ticks
            .iter()
            .map(|t| (t.by_chunk.as_slice(), t.by_shard.as_slice()))
    }

    /// Total writes in the window.
    pub fn total(&self) -> u64 {
        self.ticks.iter().flat_map(|t| t.by_shard.iter()).sum()
    }

    /// Each shard's share of the window's writes.
    pub fn shard_shares(&self, shards: usize) -> Vec<f64> {
        let mut counts = vec![0u64; shards];
        for t in &self.ticks {
            for (s, n) in t.by_shard.iter().enumerate() {
                if s < shards {
                    counts[s] += n;
                }
            }
        }
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
    pub fn by_chunk(&self, table: &RoutingTable) -> BTreeMap<usize, u64> {
        let mut out = BTreeMap::new();
        for t in &self.ticks {
            for (key, n) in &t.by_chunk {
                *out.entry(table.route(key)).or_insert(0) += n;
            }
        }
        out
    }

    /// The chunk with the largest share of the window's writes (lowest index on ties).
    pub fn hottest(&self, table: &RoutingTable) -> Option<Hottest> {
        let counts = self.by_chunk(table);
        let total: u64 = counts.values().sum();
        let (chunk, n) =
            counts
                .iter()
                .fold(None, |best: Option<(usize, u64)>, (&c, &n)| match best {
                    Some((_, bn)) if bn >= n => best,
                    _ => Some((c, n)),
                })?;
        (total > 0).then(|| Hottest {
            chunk,
            share: n as f64 / total as f64,
        })
    }

    /// The hottest shard index and its share, if any writes.
    pub fn hottest_shard(&self, shards: usize) -> Option<(ShardIdx, f64)> {
        let shares = self.shard_shares(shards);
        let (i, share) = shares
            .iter()
            .enumerate()
            .fold((0, 0.0), |b, (i, &s)| if s > b.1 { (i, s) } else { b });
        (share > 0.0).then_some((ShardIdx(i as u32), share))
    }
}
