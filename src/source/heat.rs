//! Write heat from data growth (`--heat size`): each shard's share of the growth of a
//! collection's owned bytes between two polls. It needs nothing but the reads a poll makes
//! anyway; it sees migrations too (a recipient grows), and no per-chunk signal (a mongos does
//! not know chunk sizes).

use std::collections::HashMap;

use crate::cluster::Cluster;
use crate::model::ShardIdx;

/// Owned bytes per (namespace, shard) at the last poll, and the shares derived from the growth.
#[derive(Debug, Default)]
pub struct SizeHeat {
    last: HashMap<(String, String), u64>,
    shares: HashMap<(String, String), f64>,
}

impl SizeHeat {
    /// Takes a new poll's state.
    pub fn observe(&mut self, state: &Cluster) {
        let mut now = HashMap::new();
        let mut growth: HashMap<String, Vec<(String, u64)>> = HashMap::new();
        for c in &state.collections {
            for (i, s) in state.shards.iter().enumerate() {
                let bytes = c.table.shard_totals(ShardIdx(i as u32)).stats.bytes;
                let key = (c.ns.clone(), s.shard.id.clone());
                if let Some(&before) = self.last.get(&key) {
                    growth
                        .entry(c.ns.clone())
                        .or_default()
                        .push((s.shard.id.clone(), bytes.saturating_sub(before)));
                }
                now.insert(key, bytes);
            }
        }
        self.last = now;
        self.shares.clear();
        for (ns, per) in growth {
            let total: u64 = per.iter().map(|(_, g)| g).sum();
            for (shard, g) in per {
                let share = if total == 0 {
                    0.0
                } else {
                    g as f64 / total as f64
                };
                self.shares.insert((ns.clone(), shard), share);
            }
        }
    }

    /// The share of `ns`'s growth that went to `shard` (0 before two polls).
    pub fn share(&self, ns: &str, shard: &str) -> f64 {
        self.shares
            .get(&(ns.to_string(), shard.to_string()))
            .copied()
            .unwrap_or(0.0)
    }
}
