//! Data growth (`--heat size`): each shard's share of the growth of a collection's owned bytes
//! between two polls. It needs nothing but the reads a poll makes anyway and gives no per-chunk
//! signal (a mongos does not know chunk sizes). Growth is not writes: it is never called writes.
//! The bytes and documents of chunks whose owner changed between the two polls (a migration or a
//! drain committed in between) are taken off the recipient's growth and given back to the donor,
//! so a migration alone shows no growth; what a chunk weighs is the poll's estimate (a shard's
//! owned bytes and documents spread over its chunks).
//!
//! Growth is insert evidence: a shard's owned documents grow only by inserts (a migration's are
//! given back to the donor above; deletes shrink them), so the documents each shard grew by over
//! the last 60 s go through the one hotspot rule (`cluster::hotspot`), and a hotspot found so is
//! shown `◀ HOT (growth)` — never plain `HOT`, which means writes counted one by one.

use std::collections::{BTreeMap, HashMap, VecDeque};

use crate::cluster::Cluster;
use crate::cluster::hotspot::{WINDOW_MS, hotspot};
use crate::model::{ChunkVersion, ShardIdx, ShardKey};

/// Who owned each chunk of one collection at the last poll, by its lower bound (shard indexes of
/// that poll: `ids` names them, as indexes may change between polls).
#[derive(Debug)]
struct Owners {
    version: ChunkVersion,
    ids: Vec<String>,
    by_min: BTreeMap<ShardKey, ShardIdx>,
}

/// Owned bytes and documents of one shard (or moved in or out of it).
#[derive(Clone, Copy, Debug, Default)]
struct Owned {
    bytes: u64,
    docs: u64,
}

/// The documents each shard grew by at one poll (by shard id).
type DocsGrown = (u64, Vec<(String, u64)>);

/// Owned bytes and documents per (namespace, shard) at the last poll, the owners of the chunks,
/// the shares derived from the growth, and each collection's document growth over the window.
#[derive(Debug, Default)]
pub struct SizeHeat {
    last: HashMap<(String, String), Owned>,
    owners: HashMap<String, Owners>,
    shares: HashMap<(String, String), f64>,
    docs: HashMap<String, VecDeque<DocsGrown>>,
}

impl SizeHeat {
    /// Takes a new poll's state.
    pub fn observe(&mut self, state: &Cluster) {
        let mut now = HashMap::new();
        let mut growth: HashMap<String, Vec<(String, u64)>> = HashMap::new();
        let ids: Vec<String> = state.shards.iter().map(|s| s.shard.id.clone()).collect();
        for c in &state.collections {
            let (moved_in, moved_out) = self.moved(c, &ids);
            let mut docs = Vec::new();
            for (i, s) in state.shards.iter().enumerate() {
                let stats = c.table.shard_totals(ShardIdx(i as u32)).stats;
                let key = (c.ns.clone(), s.shard.id.clone());
                if let Some(&before) = self.last.get(&key) {
                    let (inn, out) = (moved_in[i], moved_out[i]);
                    let grown = (stats.bytes + out.bytes).saturating_sub(before.bytes + inn.bytes);
                    growth
                        .entry(c.ns.clone())
                        .or_default()
                        .push((s.shard.id.clone(), grown));
                    let docs_grown = (stats.docs + out.docs).saturating_sub(before.docs + inn.docs);
                    docs.push((s.shard.id.clone(), docs_grown));
                }
                let owned = Owned {
                    bytes: stats.bytes,
                    docs: stats.docs,
                };
                now.insert(key, owned);
            }
            let window = self.docs.entry(c.ns.clone()).or_default();
            window.push_back((state.now_ms, docs));
            while window
                .front()
                .is_some_and(|(at, _)| at + WINDOW_MS <= state.now_ms)
            {
                window.pop_front();
            }
        }
        self.docs
            .retain(|ns, _| state.collections.iter().any(|c| &c.ns == ns));
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

    /// The bytes and documents each shard received and gave away in chunks whose owner changed
    /// since the last poll (a chunk known by the same lower bound then and now); the owners are
    /// read again only when the collection's version moved.
    fn moved(
        &mut self,
        c: &crate::cluster::Collection,
        ids: &[String],
    ) -> (Vec<Owned>, Vec<Owned>) {
        let none = vec![Owned::default(); ids.len()];
        let (mut moved_in, mut moved_out) = (none.clone(), none);
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
                let stats = chunk.info.stats;
                moved_in[to].bytes += stats.bytes;
                moved_in[to].docs += stats.docs;
                moved_out[from].bytes += stats.bytes;
                moved_out[from].docs += stats.docs;
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

    /// The shards' rows of `ns` with their share of its growth, or unknown before two polls;
    /// the hotspot of its document growth over the window, by the one rule (the rows' `hot`,
    /// which the shards pane labels as growth evidence).
    pub fn fill(&self, ns: &str, rows: &mut [crate::view::ShardRow]) {
        let hot = self.growth_hotspot(ns, rows);
        for (i, row) in rows.iter_mut().enumerate() {
            row.write_share = self.share(ns, &row.id);
            row.share_unknown = !self.measured(ns);
            row.hot = hot == Some(i) && row.chunks > 0;
        }
    }

    /// The row whose shard took a hotspot's share of `ns`'s document growth over the window:
    /// [`hotspot`] over the documents each shard grew by, the fair share over the shards owning
    /// a chunk of it.
    fn growth_hotspot(&self, ns: &str, rows: &[crate::view::ShardRow]) -> Option<usize> {
        let window = self.docs.get(ns)?;
        let counts = rows.iter().enumerate().map(|(i, row)| {
            let grown: u64 = window
                .iter()
                .flat_map(|(_, per)| per.iter())
                .filter(|(id, _)| *id == row.id)
                .map(|(_, n)| n)
                .sum();
            (i, grown)
        });
        let eligible = rows.iter().filter(|r| r.chunks > 0).count();
        hotspot(counts, eligible).map(|h| h.key)
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

    fn rows() -> Vec<crate::view::ShardRow> {
        ["shard0000", "shard0001", "shard0002"]
            .iter()
            .map(|id| crate::view::ShardRow {
                id: (*id).to_string(),
                chunks: 1,
                ..crate::view::ShardRow::default()
            })
            .collect()
    }

    #[test]
    fn inserts_on_one_shard_are_a_growth_hotspot_and_a_migration_is_not() {
        let mut sim = random();
        let mut heat = SizeHeat::default();
        heat.observe(&sim.cluster);
        let ns = sim.cluster.collections[0].ns.clone();
        // A migration alone: no growth, no hotspot.
        sim.cluster.collections[0]
            .table
            .move_chunk(0, ShardIdx(1), 1)
            .unwrap();
        sim.cluster.now_ms += 2_000;
        heat.observe(&sim.cluster);
        let mut shown = rows();
        heat.fill(&ns, &mut shown);
        assert!(shown.iter().all(|r| !r.hot), "a migration is no insert");
        // 500 documents inserted on shard0002: HOT, by the one rule.
        let table = &mut sim.cluster.collections[0].table;
        let on_2 = (0..table.len())
            .find(|&i| table.chunk(i).info.shard == ShardIdx(2))
            .unwrap();
        table.add_stats(on_2, ChunkStats::new(500, 50_000, 500));
        sim.cluster.now_ms += 2_000;
        heat.observe(&sim.cluster);
        heat.fill(&ns, &mut shown);
        let hot: Vec<&str> = (shown.iter().filter(|r| r.hot))
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(hot, ["shard0002"]);
        // 61 s later with no insert, the window is empty: HOT fades.
        sim.cluster.now_ms += 61_000;
        heat.observe(&sim.cluster);
        heat.fill(&ns, &mut shown);
        assert!(shown.iter().all(|r| !r.hot));
    }
}
