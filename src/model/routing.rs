//! The routing table of one sharded collection: chunks `[min, max)` covering MinKey..MaxKey with
//! no gap and no overlap, the operations that change it (split, merge, move, moveRange) with
//! MongoDB's chunk-version rules, and per-shard totals (and each shard's first chunk in key order)
//! kept up to date incrementally.
//!
//! Only each chunk's lower bound is stored; a chunk's upper bound is the next chunk's lower bound
//! (the global max for the last), so coverage without gaps or overlaps holds by construction.
//! Routing is a binary search over a compact, order-preserving 128-bit prefix of each lower bound,
//! refined by full comparisons only where prefixes tie.

use std::fmt;
use std::sync::OnceLock;

use super::chunk::{Chunk, ChunkInfo, ChunkStats, ChunkVersion, ShardTotals};
use super::key::ShardKey;
use super::route_index::RouteIndex;
use super::shard::ShardIdx;

mod changes;
mod invariants;
mod patch;
mod version_log;
pub use patch::RangePatch;

/// The chunks of one collection.
#[derive(Clone, Debug)]
pub struct RoutingTable {
    mins: Vec<ShardKey>,
    prefixes: Vec<u128>,
    chunks: Vec<ChunkInfo>,
    global_max: ShardKey,
    version: ChunkVersion,
    totals: Vec<ShardTotals>,
    /// Built on the first lookup after a change of the bounds.
    index: OnceLock<RouteIndex>,
    /// Each shard's first chunk in key order (`None`: it owns none), by shard: built on the
    /// first question after a change of the bounds or of many owners, kept up to date by a
    /// migration.
    firsts: OnceLock<Vec<Option<usize>>>,
    /// The versions given lately (an index on `lastmod`).
    log: version_log::VersionLog,
}

/// A refused change of the routing table, with MongoDB's reason where it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoutingError {
    /// The split point is a bound of the chunk or outside it.
    InvalidSplitPoint(String),
    /// No split point, points out of order, or statistics that do not add up.
    BadSplit(String),
    /// Merge of fewer than two chunks, of chunks on different shards, or out of range.
    BadMerge(String),
    /// Move to the shard that owns the chunk, or a bad range.
    BadMove(String),
    /// A chunk list that does not cover the key space exactly.
    BadLayout(String),
}

impl fmt::Display for RoutingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidSplitPoint(m)
            | Self::BadSplit(m)
            | Self::BadMerge(m)
            | Self::BadMove(m)
            | Self::BadLayout(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for RoutingError {}

impl RoutingTable {
    /// A collection that is one chunk `[global_min, global_max)` on `shard`, version (1,0).
    pub fn single(global_min: ShardKey, global_max: ShardKey, shard: ShardIdx) -> Self {
        let info = ChunkInfo::new(shard, ChunkVersion::new(1, 0));
        Self::from_chunks(vec![(global_min, info)], global_max)
            .unwrap_or_else(|_| unreachable!("a single chunk is always a valid layout"))
    }

    /// A table from chunks in key order (e.g. initial chunks, or `config.chunks` read from a
    /// cluster). The last chunk ends at `global_max`. Bounds must strictly increase.
    pub fn from_chunks(
        chunks: Vec<(ShardKey, ChunkInfo)>,
        global_max: ShardKey,
    ) -> Result<Self, RoutingError> {
        if chunks.is_empty() {
            return Err(RoutingError::BadLayout(
                "a collection has at least one chunk".into(),
            ));
        }
        let (mins, infos): (Vec<_>, Vec<_>) = chunks.into_iter().unzip();
        for pair in mins.windows(2) {
            if pair[0] >= pair[1] {
                return Err(RoutingError::BadLayout(format!(
                    "chunk bounds out of order or overlapping at {}",
                    super::shell_text::stripped_key(&pair[1])
                )));
            }
        }
        if mins.last().is_some_and(|last| *last >= global_max) {
            return Err(RoutingError::BadLayout(
                "the last chunk ends before it starts".into(),
            ));
        }
        let mut table = Self {
            prefixes: mins.iter().map(ShardKey::order_prefix).collect(),
            mins,
            chunks: infos,
            global_max,
            version: ChunkVersion::default(),
            totals: Vec::new(),
            index: OnceLock::new(),
            firsts: OnceLock::new(),
            log: version_log::VersionLog::default(),
        };
        table.recompute_totals();
        table.log = version_log::VersionLog::starting_at(table.version);
        Ok(table)
    }

    fn recompute_totals(&mut self) {
        self.totals.clear();
        self.version = ChunkVersion::default();
        for i in 0..self.chunks.len() {
            let info = self.chunks[i];
            self.account(&info, true);
            self.version = self.version.max(info.version);
        }
    }

    fn totals_mut(&mut self, shard: ShardIdx) -> &mut ShardTotals {
        if self.totals.len() <= shard.index() {
            self.totals
                .resize(shard.index() + 1, ShardTotals::default());
        }
        &mut self.totals[shard.index()]
    }

    /// Adds (or removes) a chunk's contribution to its shard's totals.
    fn account(&mut self, info: &ChunkInfo, add: bool) {
        let t = self.totals_mut(info.shard);
        if add {
            t.chunks += 1;
            t.jumbo += u64::from(info.jumbo);
            t.stats.add(info.stats);
            t.version = t.version.max(info.version);
        } else {
            t.chunks -= 1;
            t.jumbo -= u64::from(info.jumbo);
            t.stats.sub(info.stats);
            if t.chunks == 0 {
                t.version = ChunkVersion::default();
            }
        }
    }

    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The collection version: the highest chunk version.
    pub fn version(&self) -> ChunkVersion {
        self.version
    }

    pub fn global_min(&self) -> &ShardKey {
        &self.mins[0]
    }

    pub fn global_max(&self) -> &ShardKey {
        &self.global_max
    }

    /// Chunk `i`.
    pub fn chunk(&self, i: usize) -> Chunk<'_> {
        Chunk {
            index: i,
            min: &self.mins[i],
            max: self.mins.get(i + 1).unwrap_or(&self.global_max),
            info: &self.chunks[i],
        }
    }

    /// All chunks in key order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Chunk<'_>> + '_ {
        (0..self.len()).map(|i| self.chunk(i))
    }

    /// The index of the chunk that owns `key` (O(log n)).
    pub fn route(&self, key: &ShardKey) -> usize {
        let p = key.order_prefix();
        let index = self.index.get_or_init(|| RouteIndex::build(&self.prefixes));
        self.resolve(key, p, index.upper_bound(&self.prefixes, p))
    }

    /// The chunk of `key` given `end`, the number of lower-bound prefixes not above its prefix.
    fn resolve(&self, key: &ShardKey, p: u128, end: usize) -> usize {
        if end == 0 || self.prefixes[end - 1] != p {
            return end.saturating_sub(1);
        }
        // Lower bounds whose prefix ties with the key's: compare in full.
        let start = self.prefixes[..end].partition_point(|&x| x < p);
        let past = start + self.mins[start..end].partition_point(|m| m <= key);
        past.saturating_sub(1)
    }

    /// The first chunk of `shard` in key order (`None`: it owns none): a scan of the table on
    /// the first question after the bounds changed, O(1) after it.
    pub fn first_on(&self, shard: ShardIdx) -> Option<usize> {
        let firsts = self.firsts.get_or_init(|| self.scan_firsts());
        firsts.get(shard.index()).copied().flatten()
    }

    /// The first chunk of `shard` at position `from` or after it, in key order (a scan from
    /// `from`).
    pub fn next_on(&self, shard: ShardIdx, from: usize) -> Option<usize> {
        if self.shard_totals(shard).chunks == 0 {
            return None;
        }
        (from..self.len()).find(|&k| self.chunks[k].shard == shard)
    }

    fn scan_firsts(&self) -> Vec<Option<usize>> {
        let mut firsts = vec![None; self.totals.len()];
        for (k, info) in self.chunks.iter().enumerate().rev() {
            if let Some(f) = firsts.get_mut(info.shard.index()) {
                *f = Some(k);
            }
        }
        firsts
    }

    /// The bounds (or the owners of many chunks) changed: the indexes are built again when
    /// next needed.
    fn bounds_changed(&mut self) {
        self.index = OnceLock::new();
        self.firsts = OnceLock::new();
    }

    /// Chunk `k` moved from `from` to `to`: each shard's first chunk, if known, kept up to date.
    fn note_owner(&mut self, k: usize, from: ShardIdx, to: ShardIdx) {
        let Some(firsts) = self.firsts.get() else {
            return;
        };
        let from_next = if firsts.get(from.index()).copied().flatten() == Some(k) {
            Some(self.next_on(from, k + 1))
        } else {
            None
        };
        let Some(firsts) = self.firsts.get_mut() else {
            return;
        };
        if firsts.len() <= to.index() {
            firsts.resize(to.index() + 1, None);
        }
        if firsts[to.index()].is_none_or(|f| f > k) {
            firsts[to.index()] = Some(k);
        }
        if let Some(next) = from_next {
            firsts[from.index()] = next;
        }
    }

    /// The index of the chunk whose lower bound is exactly `min`.
    pub fn find_by_min(&self, min: &ShardKey) -> Option<usize> {
        let i = self.route(min);
        (self.mins[i] == *min).then_some(i)
    }

    /// The chunks whose version is at least `at` (above it when `strict`), in key order, from
    /// the versions given lately — like the index on `lastmod` of a config server; `None` when
    /// those do not reach back to `at` (scan the table instead).
    pub fn changed_since(&self, at: ChunkVersion, strict: bool) -> Option<Vec<usize>> {
        let passes = |v: ChunkVersion| if strict { v > at } else { v >= at };
        let mut out: Vec<usize> = self
            .log
            .since(at, strict)?
            .filter_map(|min| self.find_by_min(min))
            .filter(|&i| passes(self.chunks[i].version))
            .collect();
        out.sort_unstable();
        out.dedup();
        Some(out)
    }

    /// The totals of `shard` for this collection (zeros if it owns nothing), O(1).
    pub fn shard_totals(&self, shard: ShardIdx) -> ShardTotals {
        self.totals.get(shard.index()).copied().unwrap_or_default()
    }

    /// Adds documents, bytes and writes to chunk `i` (a routed write), and to the auto-split
    /// tracker.
    pub fn add_stats(&mut self, i: usize, delta: ChunkStats) {
        let chunk = &mut self.chunks[i];
        chunk.stats.add(delta);
        chunk.bytes_written += delta.bytes;
        let shard = chunk.shard;
        self.totals_mut(shard).stats.add(delta);
    }

    /// Removes documents and bytes from chunk `i` (deletes).
    pub fn remove_stats(&mut self, i: usize, delta: ChunkStats) {
        let delta = ChunkStats {
            docs: delta.docs.min(self.chunks[i].stats.docs),
            bytes: delta.bytes.min(self.chunks[i].stats.bytes),
            writes: 0,
        };
        self.chunks[i].stats.sub(delta);
        let shard = self.chunks[i].shard;
        self.totals_mut(shard).stats.sub(delta);
    }

    /// Resets chunk `i`'s auto-split tracker (after a split attempt).
    pub fn reset_bytes_written(&mut self, i: usize) {
        self.chunks[i].bytes_written = 0;
    }

    /// Marks or clears the jumbo flag of chunk `i`.
    pub fn set_jumbo(&mut self, i: usize, jumbo: bool) {
        let was = self.chunks[i].jumbo;
        if was != jumbo {
            self.chunks[i].jumbo = jumbo;
            let shard = self.chunks[i].shard;
            let t = self.totals_mut(shard);
            if jumbo { t.jumbo += 1 } else { t.jumbo -= 1 }
        }
    }
}
