//! Writes of a collection not yet reported: counted per chunk during a tick, reported as one
//! `writes` event per collection before chunks shift or move and at the end of every tick.

use std::collections::BTreeMap;

use crate::model::{ChunkStats, KeyValue, RoutingTable, ShardIdx, ShardKey};

/// Writes of one chunk since the last flush: its lower bound, the counts, and the first key
/// written (the recent-writes window attributes the writes through that key, so they follow it
/// into the right piece after a split).
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkWrites {
    pub min: ShardKey,
    pub stats: ChunkStats,
    pub sample: ShardKey,
}

/// Writes not yet reported, by chunk index; they are flushed (reported as a `writes` event) before
/// any split, merge or migration shifts or moves chunks, and at the end of every tick.
#[derive(Clone, Debug, Default)]
pub struct PendingWrites {
    by_index: BTreeMap<usize, (ChunkStats, ShardKey)>,
    tick_samples: Vec<(ShardKey, u64)>,
    tick_by_shard: Vec<u64>,
}

impl PendingWrites {
    pub fn add(&mut self, chunk: usize, shard: ShardIdx, delta: ChunkStats, key: &ShardKey) {
        self.by_index
            .entry(chunk)
            .or_insert_with(|| (ChunkStats::ZERO, key.clone()))
            .0
            .add(delta);
        if self.tick_by_shard.len() <= shard.index() {
            self.tick_by_shard.resize(shard.index() + 1, 0);
        }
        self.tick_by_shard[shard.index()] += delta.writes;
    }

    /// Takes the unreported writes, per chunk (by the chunk's current lower bound).
    pub fn flush(&mut self, table: &RoutingTable) -> Vec<ChunkWrites> {
        std::mem::take(&mut self.by_index)
            .into_iter()
            .map(|(i, (stats, sample))| {
                self.tick_samples.push((sample.clone(), stats.writes));
                ChunkWrites {
                    min: table.chunk(i).min.clone(),
                    stats,
                    sample,
                }
            })
            .collect()
    }

    /// Ends the tick: its sample keys with their counts and the writes per shard.
    pub fn end_tick(&mut self) -> (Vec<(ShardKey, u64)>, Vec<u64>) {
        (
            std::mem::take(&mut self.tick_samples),
            std::mem::take(&mut self.tick_by_shard),
        )
    }

    /// Takes empty buffers (with room) for the next tick's writes.
    pub fn reuse(&mut self, (samples, by_shard): super::window::TickBuffers) {
        if self.tick_samples.is_empty() && self.tick_by_shard.is_empty() {
            (self.tick_samples, self.tick_by_shard) = (samples, by_shard);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.by_index.is_empty() && self.tick_samples.is_empty()
    }

    /// Records writes reported by a `writes` event (replaying a trace): they join the tick.
    pub fn record_reported(&mut self, sample: ShardKey, shard: ShardIdx, writes: u64) {
        self.tick_samples.push((sample, writes));
        if self.tick_by_shard.len() <= shard.index() {
            self.tick_by_shard.resize(shard.index() + 1, 0);
        }
        self.tick_by_shard[shard.index()] += writes;
    }

    /// Extends the tick's sample keys after the shard key was refined.
    pub(super) fn extend_keys(&mut self, added: usize, fill: &KeyValue) {
        for (key, _) in &mut self.tick_samples {
            let mut values: Vec<KeyValue> = key.values().cloned().collect();
            values.extend(std::iter::repeat_n(fill.clone(), added));
            if let Some(k) = ShardKey::from_values(values) {
                *key = k;
            }
        }
    }
}
