//! Changes to a routing table learned from outside instead of made by MongoDB's operations: a
//! live source that reads new chunks from `config.chunks` replaces the ranges they cover,
//! renumbers shards when `config.shards` changes, and spreads each shard's owned sizes over its
//! chunks (a mongos does not know a chunk's size).

use std::ops::Range;
use std::sync::OnceLock;

use super::{RoutingError, RoutingTable};
use crate::model::{ChunkInfo, ChunkStats, ShardIdx, ShardKey};

/// Chunks that replace the chunks `range` of a table: the first starts at the first replaced
/// chunk's lower bound, the last ends where the last replaced chunk ends.
#[derive(Clone, Debug)]
pub struct RangePatch {
    pub range: Range<usize>,
    pub chunks: Vec<(ShardKey, ChunkInfo)>,
}

fn layout(message: String) -> RoutingError {
    RoutingError::BadLayout(message)
}

impl RoutingTable {
    /// Applies patches on disjoint ranges (any order), then recounts the totals and the
    /// collection version. Patches that keep the number of chunks are written in place; others
    /// rebuild the table in one pass.
    pub fn replace_ranges(&mut self, mut patches: Vec<RangePatch>) -> Result<(), RoutingError> {
        if patches.is_empty() {
            return Ok(());
        }
        patches.sort_by_key(|p| p.range.start);
        self.check_patches(&patches)?;
        if patches.iter().all(|p| p.range.len() == p.chunks.len()) {
            for p in patches {
                for (k, (min, info)) in p.range.zip(p.chunks) {
                    self.prefixes[k] = min.order_prefix();
                    self.mins[k] = min;
                    self.chunks[k] = info;
                }
            }
        } else {
            self.rebuild(patches);
        }
        self.index = OnceLock::new();
        self.recompute_totals();
        Ok(())
    }

    fn check_patches(&self, patches: &[RangePatch]) -> Result<(), RoutingError> {
        let mut end = 0;
        for p in patches {
            let r = &p.range;
            if r.is_empty() || r.start < end || r.end > self.len() {
                return Err(layout(format!(
                    "replaced ranges must be non-empty, disjoint and inside the table ({r:?})"
                )));
            }
            end = r.end;
            let Some((first, _)) = p.chunks.first() else {
                return Err(layout("a replacement has at least one chunk".into()));
            };
            if *first != self.mins[r.start] {
                return Err(layout(format!(
                    "a replacement starts at {first:?}, not at the replaced chunk's {:?}",
                    self.mins[r.start]
                )));
            }
            let bound = self.mins.get(r.end).unwrap_or(&self.global_max);
            let mut prev = None;
            for (min, _) in &p.chunks {
                if prev.is_some_and(|m| m >= min) || min >= bound {
                    return Err(layout(format!(
                        "replacement chunks out of order or past the replaced range at {min:?}"
                    )));
                }
                prev = Some(min);
            }
        }
        Ok(())
    }

    /// Writes the table anew: kept chunks moved over, replaced ones dropped, new ones added.
    fn rebuild(&mut self, patches: Vec<RangePatch>) {
        let grow: usize = patches.iter().map(|p| p.chunks.len()).sum();
        let shrink: usize = patches.iter().map(|p| p.range.len()).sum();
        let len = self.len() + grow - shrink;
        let (mut mins, mut prefixes, mut chunks) = (
            Vec::with_capacity(len),
            Vec::with_capacity(len),
            Vec::with_capacity(len),
        );
        let mut old_mins = std::mem::take(&mut self.mins).into_iter();
        let mut old_prefixes = std::mem::take(&mut self.prefixes).into_iter();
        let mut old_chunks = std::mem::take(&mut self.chunks).into_iter();
        let mut at = 0;
        for p in patches {
            let keep = p.range.start - at;
            mins.extend(old_mins.by_ref().take(keep));
            prefixes.extend(old_prefixes.by_ref().take(keep));
            chunks.extend(old_chunks.by_ref().take(keep));
            for _ in p.range.clone() {
                old_mins.next();
                old_prefixes.next();
                old_chunks.next();
            }
            for (min, info) in p.chunks {
                prefixes.push(min.order_prefix());
                mins.push(min);
                chunks.push(info);
            }
            at = p.range.end;
        }
        mins.extend(old_mins);
        prefixes.extend(old_prefixes);
        chunks.extend(old_chunks);
        (self.mins, self.prefixes, self.chunks) = (mins, prefixes, chunks);
    }

    /// Renumbers the shards: chunks of shard `i` move to `to[i]` (indexes past `to` stay).
    pub fn renumber_shards(&mut self, to: &[ShardIdx]) {
        for c in &mut self.chunks {
            c.shard = to.get(c.shard.index()).copied().unwrap_or(c.shard);
        }
        self.recompute_totals();
    }

    /// Sets every chunk's documents and bytes from its shard's owned totals (`owned`, by shard;
    /// shards not listed own nothing) spread evenly over the shard's chunks in key order — the
    /// first `total % n` get one more. Writes restart at zero; the auto-split tracker holds the
    /// chunk's bytes.
    pub fn spread_owned(&mut self, owned: &[(ShardIdx, ChunkStats)]) {
        /// A shard's quotient and remainder per chunk, and how many of its chunks were seen.
        #[derive(Clone, Copy, Default)]
        struct Share {
            docs: (u64, u64),
            bytes: (u64, u64),
            seen: u64,
        }
        let mut shares = vec![Share::default(); self.totals.len()];
        for t in &mut self.totals {
            t.stats = ChunkStats::ZERO;
        }
        for &(s, stats) in owned {
            let n = self.shard_totals(s).chunks;
            if n == 0 {
                continue;
            }
            shares[s.index()] = Share {
                docs: (stats.docs / n, stats.docs % n),
                bytes: (stats.bytes / n, stats.bytes % n),
                seen: 0,
            };
            self.totals[s.index()].stats = ChunkStats::new(stats.docs, stats.bytes, 0);
        }
        for c in &mut self.chunks {
            let share = &mut shares[c.shard.index()];
            let extra = |(q, r): (u64, u64)| q + u64::from(share.seen < r);
            c.stats = ChunkStats::new(extra(share.docs), extra(share.bytes), 0);
            c.bytes_written = c.stats.bytes;
            share.seen += 1;
        }
    }
}
