//! Data growth (`--heat size`): each shard's share of the growth of a collection's owned bytes
//! between two polls. It needs nothing but the reads a poll makes anyway and gives no per-chunk
//! signal (a mongos does not know chunk sizes). Growth is not writes: it is never called writes
//! and never makes a shard HOT. The bytes of chunks whose owner changed between the two polls (a
//! migration or a drain committed in between) are taken off the recipient's growth and given back
//! to the donor, so a migration alone shows no growth; what a chunk weighs is the poll's estimate
//! (a shard's owned bytes spread over its chunks).

use std::collections::{BTreeMap, HashMap};

use crate::cluster::Cluster;
use crate::model::{ChunkVersion, ShardIdx, ShardKey};

/// Who owned each chunk of one collection at the last poll, by its lower bound (shard indexes of
/// that poll: `ids` names them, as indexes may change between polls).
#[derive(Debug)]
struct Owners {
    version: ChunkVersion,
    ids: Vec<String>,
    by_min: BTreeMap<ShardKey, ShardIdx>,
}

/// Owned bytes per (namespace, shard) at the last poll, the owners of the chunks, and the shares
/// derived from the growth.
#[derive(Debug, Default)]
pub struct SizeHeat {
    last: HashMap<(String, String), u64>,
    owners: HashMap<String, Owners>,
    shares: HashMap<(String, String), f64>,
}

impl SizeHeat {
    /// Takes a new poll's state.
    pub fn observe(&mut self, state: &Cluster) {
        let mut now = HashMap::new();
        let mut growth: HashMap<String, Vec<(String, u64)>> = HashMap::new();
        let ids: Vec<String> = state.shards.iter().map(|s| s.shard.id.clone()).collect();
        for c in &state.collections {
            let (moved_in, moved_out) = self.moved(c, &ids);
            for (i, s) in state.shards.iter().enumerate() {
                let bytes = c.table.shard_totals(ShardIdx(i as u32)).stats.bytes;
                let key = (c.ns.clone(), s.shard.id.clone());
                if let Some(&before) = self.last.get(&key) {
                    let grown = (bytes + moved_out[i]).saturating_sub(before + moved_in[i]);
                    growth
                        .entry(c.ns.clone())
                        .or_default()
                        .push((s.shard.id.clone(), grown));
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

    /// The bytes each shard received and gave away in chunks whose owner changed since the last
    /// poll (a chunk known by the same lower bound then and now); the owners are read again only
    /// when the collection's version moved.
    fn moved(&mut self, c: &crate::cluster::Collection, ids: &[String]) -> (Vec<u64>, Vec<u64>) {
        let (mut moved_in, mut moved_out) = (vec![0u64; ids.len()], vec![0u64; ids.len()]);
        let version = c.table.version();
        let before = self.owners.get(&c.ns);
        if before.is_some_and(|o| o.version == version && o.ids == ids) {
            return (moved_in, moved_out);
        }
        let mut by_min = BTreeMap::new();
        for chunk in c.table.iter() {
            let to = chunk.info.shard.index();
            let from = before
                .and_then(|o| o.ids.get(o.by_min.get(chunk.min)?.index()))
                .and_then(|id| ids.iter().position(|i| i == id));
            if let Some(from) = from
                && from != to
                && to < ids.len()
            {
                moved_in[to] += chunk.info.stats.bytes;
                moved_out[from] += chunk.info.stats.bytes;
            }
            by_min.insert(chunk.min.clone(), chunk.info.shard);
        }
        self.owners.insert(
            c.ns.clone(),
            Owners {
                version,
                ids: ids.to_vec(),
                by_min,
            },
        );
        (moved_in, moved_out)
    }

    /// The shards' rows of `ns` with their share of its growth, or unknown before two polls.
    /// Growth is not writes: a migration's recipient grows with no insert, so growth alone never
    /// makes a shard HOT.
    pub fn fill(&self, ns: &str, rows: &mut [crate::view::ShardRow]) {
        for row in rows {
            row.write_share = self.share(ns, &row.id);
            row.share_unknown = !self.measured(ns);
            row.hot = false;
        }
    }

    /// Whether `ns`'s growth is measured: two polls have seen it.
    pub fn measured(&self, ns: &str) -> bool {
        self.shares.keys().any(|(n, _)| n == ns)
    }

    /// The share of `ns`'s growth that went to `shard` (0 before two polls).
    pub fn share(&self, ns: &str, shard: &str) -> f64 {
        self.shares
            .get(&(ns.to_string(), shard.to_string()))
            .copied()
            .unwrap_or(0.0)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::float_cmp)]
    use super::*;
    use crate::model::ChunkStats;
    use crate::sim::{Simulator, scenario};

    fn random() -> Simulator {
        let sc = scenario::built_in("random").unwrap().unwrap();
        let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
        sim.run_until(5_000);
        sim
    }

    #[test]
    fn a_migration_alone_is_no_growth_and_inserts_are() {
        let mut sim = random();
        let mut heat = SizeHeat::default();
        heat.observe(&sim.cluster);
        let ns = sim.cluster.collections[0].ns.clone();
        // One poll measures no growth: unknown, not 0%.
        assert!(!heat.measured(&ns));
        // Chunk 0 (on shard0000) moves to shard0001; nothing is inserted.
        let table = &mut sim.cluster.collections[0].table;
        assert_eq!(table.chunk(0).info.shard, ShardIdx(0));
        assert!(table.chunk(0).info.stats.bytes > 0);
        table.move_chunk(0, ShardIdx(1), 1).unwrap();
        heat.observe(&sim.cluster);
        assert!(heat.measured(&ns));
        for s in ["shard0000", "shard0001", "shard0002"] {
            assert_eq!(heat.share(&ns, s), 0.0, "{s}");
        }
        // Inserts on shard0002 and another move: shard0002 took all the growth.
        let table = &mut sim.cluster.collections[0].table;
        let on_2 = (0..table.len())
            .find(|&i| table.chunk(i).info.shard == ShardIdx(2))
            .unwrap();
        table.add_stats(on_2, ChunkStats::new(10, 10_000, 10));
        table.move_chunk(0, ShardIdx(0), 2).unwrap();
        heat.observe(&sim.cluster);
        assert_eq!(heat.share(&ns, "shard0002"), 1.0);
        assert_eq!(heat.share(&ns, "shard0000"), 0.0);
    }
}
