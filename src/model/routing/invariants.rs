//! The invariants of a routing table, checked from scratch (tests call it after every change).

use super::RoutingTable;
use crate::model::chunk::ChunkVersion;
use crate::model::route_index::RouteIndex;
use crate::model::shard::ShardIdx;

impl RoutingTable {
    /// Checks every invariant: bounds strictly increasing from the global min, prefixes in step,
    /// chunk versions unique with the collection version their maximum, totals equal to a
    /// recount, each shard's first chunk (when kept) a scan's. Tests call it after every change.
    pub fn check_invariants(&self) -> Result<(), String> {
        if self.mins.len() != self.chunks.len() || self.prefixes.len() != self.chunks.len() {
            return Err("parallel vectors out of step".into());
        }
        if self.mins[0]
            .values()
            .any(|v| *v != crate::model::value::KeyValue::MinKey)
        {
            return Err("the first chunk does not start at MinKey".into());
        }
        for (k, pair) in self.mins.windows(2).enumerate() {
            if pair[0] >= pair[1] {
                return Err(format!(
                    "chunk {k} and {} are out of order or overlap",
                    k + 1
                ));
            }
        }
        if self.mins[self.len() - 1] >= self.global_max {
            return Err("the last chunk is empty".into());
        }
        let index = RouteIndex::build(&self.prefixes);
        for (k, (m, p)) in self.mins.iter().zip(&self.prefixes).enumerate() {
            if m.order_prefix() != *p {
                return Err(format!("stale prefix at chunk {k}"));
            }
            let probe = p.saturating_sub(u128::from(k % 2 == 1));
            if index.upper_bound(&self.prefixes, probe)
                != self.prefixes.partition_point(|&x| x <= probe)
            {
                return Err(format!(
                    "the route index disagrees with a search at chunk {k}"
                ));
            }
        }
        let mut versions: Vec<ChunkVersion> = self.chunks.iter().map(|c| c.version).collect();
        versions.sort_unstable();
        if versions.windows(2).any(|w| w[0] == w[1]) {
            return Err("two chunks share a version".into());
        }
        if versions.last() != Some(&self.version) {
            return Err("the collection version is not the highest chunk version".into());
        }
        for at in [versions[0], versions[versions.len() / 2], self.version] {
            for strict in [false, true] {
                let Some(got) = self.changed_since(at, strict) else {
                    continue;
                };
                let passes = |v: ChunkVersion| if strict { v > at } else { v >= at };
                let want: Vec<usize> = (0..self.len())
                    .filter(|&i| passes(self.chunks[i].version))
                    .collect();
                if got != want {
                    return Err(format!(
                        "the version log names {got:?} as changed since {at}, a scan {want:?}"
                    ));
                }
            }
        }
        if let Some(firsts) = self.firsts.get() {
            let scan = self.scan_firsts();
            for s in 0..firsts.len().max(scan.len()) {
                let (kept, found) = (
                    firsts.get(s).copied().flatten(),
                    scan.get(s).copied().flatten(),
                );
                if kept != found {
                    return Err(format!(
                        "the first chunk of shard {s} is kept as {kept:?}, a scan finds {found:?}"
                    ));
                }
            }
        }
        let mut recount = self.clone();
        recount.recompute_totals();
        let shards = self.totals.len().max(recount.totals.len());
        for s in 0..shards {
            let idx = ShardIdx(s as u32);
            if self.shard_totals(idx) != recount.shard_totals(idx) {
                return Err(format!(
                    "totals of shard {s} are {:?}, a recount gives {:?}",
                    self.shard_totals(idx),
                    recount.shard_totals(idx)
                ));
            }
        }
        Ok(())
    }
}
