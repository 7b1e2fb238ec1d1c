//! What the per-event heat sources (change streams, sampled queries) keep per collection between
//! polls: the recent window of counts by chunk and shard, and the totals by shard id since the
//! watch started; each poll's counts go into the collection the views read.

use std::collections::HashMap;

use crate::cluster::Cluster;
use crate::cluster::Collection;
use crate::cluster::window::WriteWindow;
use crate::model::ShardKey;

/// One collection's counts.
pub struct HeatCounts {
    window: WriteWindow,
    per_shard: HashMap<String, u64>,
    /// The counts by chunk of the polls not yet taken by the key visualizer.
    untaken: Vec<(ShardKey, u64)>,
}

impl Default for HeatCounts {
    fn default() -> Self {
        Self {
            window: WriteWindow::new(),
            per_shard: HashMap::new(),
            untaken: Vec::new(),
        }
    }
}

/// The ids of the state's shards, by shard index.
pub fn shard_ids(state: &Cluster) -> Vec<String> {
    state.shards.iter().map(|s| s.shard.id.clone()).collect()
}

/// Counts kept for the key visualizer between two takes, at most.
const MAX_UNTAKEN: usize = 1_000_000;

impl HeatCounts {
    /// The counts by chunk (a key of the chunk, writes) since the last take.
    pub fn take(&mut self) -> Vec<(ShardKey, u64)> {
        std::mem::take(&mut self.untaken)
    }

    /// Adds one poll's counts (by chunk index, with a key of that chunk; by shard index), taken
    /// at `at_ms`, and gives the collection its window and per-shard totals.
    pub fn record(
        &mut self,
        (c, at_ms): (&mut Collection, u64),
        shard_ids: &[String],
        by_chunk: HashMap<usize, (ShardKey, u64)>,
        by_shard: Vec<u64>,
    ) {
        for (k, n) in by_shard.iter().enumerate() {
            if let Some(id) = shard_ids.get(k) {
                *self.per_shard.entry(id.clone()).or_insert(0) += n;
            }
        }
        let by_chunk: Vec<(ShardKey, u64)> = by_chunk.into_values().collect();
        if self.untaken.len() < MAX_UNTAKEN {
            self.untaken.extend(by_chunk.iter().cloned());
        }
        self.window.push(at_ms, by_chunk, by_shard, &c.table);
        c.window = self.window.clone();
        c.routed_writes = shard_ids
            .iter()
            .map(|id| self.per_shard.get(id).copied().unwrap_or(0))
            .collect();
    }
}
