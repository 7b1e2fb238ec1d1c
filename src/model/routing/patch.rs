//! Changes to a routing table learned from outside instead of made by MongoDB's operations: a
//! live source that reads new chunks from `config.chunks` replaces the ranges they cover,
//! renumbers shards when `config.shards` changes, and spreads each shard's owned sizes over its
//! chunks (a mongos does not know a chunk's size).

use std::ops::Range;

use super::{RoutingError, RoutingTable};
use crate::model::{ChunkInfo, ChunkStats, ChunkVersion, KeyValue, ShardIdx, ShardKey};

/// Shards (and the collection) whose highest chunk version was taken away by a patch: their
/// version is recounted.
#[derive(Default)]
struct Dirty {
    shards: Vec<ShardIdx>,
    collection: bool,
}

impl Dirty {
    fn note_removed(&mut self, table: &RoutingTable, old: &ChunkInfo) {
        if table.shard_totals(old.shard).version == old.version && !self.shards.contains(&old.shard)
        {
            self.shards.push(old.shard);
        }
        self.collection |= table.version == old.version;
    }

    /// Recounts the versions marked dirty, in one pass over the chunks if any.
    fn recount(self, table: &mut RoutingTable) {
        if self.shards.is_empty() && !self.collection {
            return;
        }
        for &s in &self.shards {
            table.totals_mut(s).version = ChunkVersion::default();
        }
        if self.collection {
            table.version = ChunkVersion::default();
        }
        for k in 0..table.chunks.len() {
            let (shard, version) = (table.chunks[k].shard, table.chunks[k].version);
            if self.collection {
                table.version = table.version.max(version);
            }
            if self.shards.contains(&shard) {
                let t = table.totals_mut(shard);
                t.version = t.version.max(version);
            }
        }
    }
}

/// Moves the elements `run` of `v` by `by` places, right or left, over elements no longer
/// needed: elements that own memory are rotated (swaps) into place.
fn rotate<T>(v: &mut [T], run: Range<usize>, by: usize, right: bool) {
    if right {
        v[run.start..run.end + by].rotate_right(by);
    } else {
        v[run.start - by..run.end].rotate_left(by);
    }
}

/// The same for plain values: one memmove.
fn copy<T: Copy>(v: &mut [T], run: Range<usize>, by: usize, right: bool) {
    let to = if right {
        run.start + by
    } else {
        run.start - by
    };
    v.copy_within(run, to);
}

/// Replaces the sorted, disjoint `edits` ranges of `v` by their new elements, in place: when
/// every edit grows (`grows`), the kept runs are shifted right from the last one; when every
/// edit shrinks, left from the first. Each kept element moves once, by `shift`.
fn splice_sorted<T>(
    v: &mut Vec<T>,
    edits: Vec<(Range<usize>, Vec<T>)>,
    grows: bool,
    filler: impl Fn() -> T,
    shift: fn(&mut [T], Range<usize>, usize, bool),
) {
    let old_len = v.len();
    if grows {
        let growth: usize = edits.iter().map(|(r, new)| new.len() - r.len()).sum();
        v.resize_with(old_len + growth, filler);
        let (mut by, mut end) = (growth, old_len);
        for (range, new) in edits.into_iter().rev() {
            if by > 0 {
                shift(v, range.end..end, by, true);
            }
            let at = range.end + by - new.len();
            for (k, x) in new.into_iter().enumerate() {
                v[at + k] = x;
            }
            by = at - range.start;
            end = range.start;
        }
    } else {
        let (mut by, mut start) = (0, 0);
        for (range, new) in edits {
            if by > 0 {
                shift(v, start..range.start, by, false);
            }
            let at = range.start - by;
            let taken = new.len();
            for (k, x) in new.into_iter().enumerate() {
                v[at + k] = x;
            }
            by = range.end - (at + taken);
            start = range.end;
        }
        if by > 0 {
            shift(v, start..old_len, by, false);
        }
        v.truncate(old_len - by);
    }
}

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
    /// Applies patches on disjoint ranges (any order) and updates the totals and the collection
    /// version. When every patch grows (splits) or every patch shrinks (merges), the chunks
    /// after them are shifted in place; a mix rebuilds the table in one pass.
    pub fn replace_ranges(&mut self, mut patches: Vec<RangePatch>) -> Result<(), RoutingError> {
        if patches.is_empty() {
            return Ok(());
        }
        patches.sort_by_key(|p| p.range.start);
        self.check_patches(&patches)?;
        let mut dirty = Dirty::default();
        for p in &patches {
            for k in p.range.clone() {
                let old = self.chunks[k];
                dirty.note_removed(self, &old);
                self.account(&old, false);
            }
            for (min, info) in &p.chunks {
                self.account(info, true);
                self.version = self.version.max(info.version);
                self.log.note(info.version, min);
            }
        }
        let grows = patches.iter().all(|p| p.chunks.len() >= p.range.len());
        let shrinks = patches.iter().all(|p| p.chunks.len() <= p.range.len());
        if grows || shrinks {
            let (mut mins, mut prefixes, mut infos) = (Vec::new(), Vec::new(), Vec::new());
            for p in patches {
                let (m, i): (Vec<_>, Vec<_>) = p.chunks.into_iter().unzip();
                prefixes.push((
                    p.range.clone(),
                    m.iter().map(ShardKey::order_prefix).collect(),
                ));
                mins.push((p.range.clone(), m));
                infos.push((p.range, i));
            }
            let filler = || ShardKey::single(KeyValue::MinKey);
            let info = || ChunkInfo::new(ShardIdx(0), ChunkVersion::default());
            splice_sorted(&mut self.mins, mins, grows, filler, rotate);
            splice_sorted(&mut self.prefixes, prefixes, grows, || 0, copy);
            splice_sorted(&mut self.chunks, infos, grows, info, copy);
        } else {
            self.rebuild(patches);
        }
        self.bounds_changed();
        dirty.recount(self);
        Ok(())
    }

    fn check_patches(&self, patches: &[RangePatch]) -> Result<(), RoutingError> {
        let mut end = 0;
        for p in patches {
            let r = &p.range;
            if r.is_empty() || r.start < end || r.end > self.len() {
                return Err(layout(format!(
                    "replaced ranges must be non-empty, disjoint and inside the table (chunks {} to {})",
                    r.start, r.end
                )));
            }
            end = r.end;
            let Some((first, _)) = p.chunks.first() else {
                return Err(layout("a replacement has at least one chunk".into()));
            };
            if *first != self.mins[r.start] {
                return Err(layout(format!(
                    "a replacement starts at {}, not at the replaced chunk's {}",
                    crate::model::shell_text::stripped_key(first),
                    crate::model::shell_text::stripped_key(&self.mins[r.start])
                )));
            }
            let bound = self.mins.get(r.end).unwrap_or(&self.global_max);
            let mut prev = None;
            for (min, _) in &p.chunks {
                if prev.is_some_and(|m| m >= min) || min >= bound {
                    return Err(layout(format!(
                        "replacement chunks out of order or past the replaced range at {}",
                        crate::model::shell_text::stripped_key(min)
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
        self.bounds_changed();
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
            let stats = ChunkStats::new(extra(share.docs), extra(share.bytes), 0);
            // Written only when it changes: a poll of a quiet cluster dirties no memory.
            if c.stats != stats || c.bytes_written != stats.bytes {
                c.stats = stats;
                c.bytes_written = stats.bytes;
            }
            share.seen += 1;
        }
    }
}
