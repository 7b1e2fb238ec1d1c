//! The operations that change a routing table — split, merge, move and moveRange — with
//! MongoDB's chunk-version rules: split pieces take successive minor versions, a migrated chunk
//! the next major version, and a chunk left on the donor (the control chunk) the minor after it.

use std::ops::Range;

use super::{RoutingError, RoutingTable};
use crate::model::chunk::{ChunkInfo, ChunkStats};
use crate::model::key::ShardKey;
use crate::model::shard::ShardIdx;

impl RoutingTable {
    /// Splits chunk `i` at `points` (strictly inside it, increasing) into `points.len() + 1`
    /// chunks whose statistics are `pieces` (they must add up to the chunk's). The pieces get
    /// successive minor versions of the collection version, in key order; jumbo is cleared.
    pub fn split(
        &mut self,
        i: usize,
        points: &[ShardKey],
        pieces: &[ChunkStats],
    ) -> Result<(), RoutingError> {
        self.check_split(i, points, pieces)?;
        let old = self.chunks[i];
        self.account(&old, false);
        let mut version = self.version;
        let mut infos = Vec::with_capacity(pieces.len());
        for stats in pieces {
            version = version.next_minor();
            infos.push(ChunkInfo {
                shard: old.shard,
                version,
                stats: *stats,
                jumbo: false,
                bytes_written: 0,
                since: old.since,
            });
        }
        for info in &infos {
            self.account(info, true);
        }
        self.version = version;
        self.chunks.splice(i..=i, infos);
        let at = i + 1;
        self.mins.splice(at..at, points.iter().cloned());
        self.prefixes
            .splice(at..at, points.iter().map(ShardKey::order_prefix));
        self.bounds_changed();
        for k in i..=i + points.len() {
            self.log.note(self.chunks[k].version, &self.mins[k]);
        }
        Ok(())
    }

    fn check_split(
        &self,
        i: usize,
        points: &[ShardKey],
        pieces: &[ChunkStats],
    ) -> Result<(), RoutingError> {
        let chunk = self.chunk(i);
        if points.is_empty() {
            return Err(RoutingError::BadSplit("no split point given".into()));
        }
        for (n, point) in points.iter().enumerate() {
            if point <= chunk.min || point >= chunk.max {
                return Err(RoutingError::InvalidSplitPoint(format!(
                    "split point {} is not strictly inside the chunk's range (a bound or outside it)",
                    super::super::shell_text::stripped_key(point)
                )));
            }
            if n > 0 && points[n - 1] >= *point {
                return Err(RoutingError::BadSplit(
                    "split points must be in increasing order".into(),
                ));
            }
        }
        let mut total = ChunkStats::ZERO;
        for p in pieces {
            total.add(*p);
        }
        if pieces.len() != points.len() + 1 || total != chunk.info.stats {
            return Err(RoutingError::BadSplit(
                "the pieces' statistics must add up to the chunk's".into(),
            ));
        }
        Ok(())
    }

    /// Merges the contiguous chunks `range` (at least two, all on one shard) into one, with the
    /// next minor version of the collection version.
    pub fn merge(&mut self, range: Range<usize>) -> Result<(), RoutingError> {
        if range.len() < 2 || range.end > self.len() {
            return Err(RoutingError::BadMerge(
                "a merge needs at least two contiguous chunks".into(),
            ));
        }
        let shard = self.chunks[range.start].shard;
        if self.chunks[range.clone()].iter().any(|c| c.shard != shard) {
            return Err(RoutingError::BadMerge(
                "chunks to merge must all be on one shard".into(),
            ));
        }
        let mut stats = ChunkStats::ZERO;
        let mut since = 0;
        for k in range.clone() {
            let info = self.chunks[k];
            stats.add(info.stats);
            since = since.max(info.since);
            self.account(&info, false);
        }
        self.version = self.version.next_minor();
        let merged = ChunkInfo {
            shard,
            version: self.version,
            stats,
            jumbo: false,
            bytes_written: 0,
            since,
        };
        self.account(&merged, true);
        self.chunks.splice(range.clone(), [merged]);
        self.mins.drain(range.start + 1..range.end);
        self.prefixes.drain(range.start + 1..range.end);
        self.bounds_changed();
        self.log.note(self.version, &self.mins[range.start]);
        Ok(())
    }

    /// Moves chunk `i` to shard `to` at time `now`: the chunk gets `(major+1, 0)`; another chunk
    /// left on the donor (the control chunk) gets `(major+1, 1)` so the donor's version rises.
    pub fn move_chunk(&mut self, i: usize, to: ShardIdx, now: u64) -> Result<(), RoutingError> {
        let from = self.chunks[i].shard;
        if from == to {
            return Err(RoutingError::BadMove(
                "the chunk is already on that shard".into(),
            ));
        }
        self.migrate(i, to, now);
        if let Some(control) = self.nearest_chunk_on(from, i) {
            self.bump(control);
        }
        Ok(())
    }

    /// Moves the range starting at chunk `i`'s lower bound and ending at `upto` (inside the
    /// chunk; `None` or the chunk's max = the whole chunk) to `to`, as `moveRange` does: the chunk is
    /// split, the moved piece gets `(major+1, 0)`, the piece left on the donor `(major+1, 1)`, and
    /// another chunk of the donor (the control chunk), if it has one, `(major+1, 2)`.
    /// `moved` is the moved piece's share of the chunk's statistics.
    // 7.0-era and 8.0.10 `db/s/config/sharding_catalog_manager_chunk_operations.cpp`,
    // `commitChunkMigration`: `minVersionIncrement++` for the moved range, the split pieces, then
    // the control chunk from `getControlChunkForMigrate` (a donor chunk other than the original).
    pub fn move_range(
        &mut self,
        i: usize,
        upto: Option<&ShardKey>,
        moved: ChunkStats,
        to: ShardIdx,
        now: u64,
    ) -> Result<(), RoutingError> {
        let whole = upto.is_none_or(|u| u == self.chunk(i).max);
        if whole {
            return self.move_chunk(i, to, now);
        }
        let Some(point) = upto else {
            unreachable!("checked above")
        };
        let mut rest = self.chunks[i].stats;
        if moved.docs > rest.docs || moved.bytes > rest.bytes || moved.writes > rest.writes {
            return Err(RoutingError::BadMove(
                "the moved piece holds more than the chunk".into(),
            ));
        }
        rest.sub(moved);
        if self.chunks[i].shard == to {
            return Err(RoutingError::BadMove(
                "the range is already on that shard".into(),
            ));
        }
        let from = self.chunks[i].shard;
        let control = self
            .nearest_chunk_on(from, i)
            .map(|k| k + usize::from(k > i));
        self.split(i, std::slice::from_ref(point), &[moved, rest])?;
        let (left, right) = (i, i + 1);
        self.migrate(left, to, now);
        self.bump(right);
        if let Some(control) = control {
            self.bump(control);
        }
        Ok(())
    }

    /// `clearJumboFlag`: clears chunk `i`'s jumbo flag and gives it the next minor version, so
    /// routers refresh (8.0.10 `db/s/config/sharding_catalog_manager_chunk_operations.cpp`,
    /// `clearJumboFlag`). Nothing changes when the chunk is not jumbo.
    pub fn clear_jumbo(&mut self, i: usize) {
        if self.chunks[i].jumbo {
            self.set_jumbo(i, false);
            self.bump(i);
        }
    }

    /// Gives chunk `k` to shard `to` at time `now` with the next major version.
    fn migrate(&mut self, k: usize, to: ShardIdx, now: u64) {
        let mut info = self.chunks[k];
        let from = info.shard;
        self.account(&info, false);
        self.version = self.version.next_major();
        info.shard = to;
        info.version = self.version;
        info.since = now;
        self.account(&info, true);
        self.chunks[k] = info;
        self.note_owner(k, from, to);
        self.log.note(self.version, &self.mins[k]);
    }

    /// Gives chunk `k` the next minor version.
    fn bump(&mut self, k: usize) {
        self.version = self.version.next_minor();
        self.chunks[k].version = self.version;
        self.log.note(self.version, &self.mins[k]);
        let (shard, version) = (self.chunks[k].shard, self.version);
        let t = self.totals_mut(shard);
        t.version = t.version.max(version);
    }

    /// The chunk of `shard` nearest to position `i` (other than `i`), if any.
    fn nearest_chunk_on(&self, shard: ShardIdx, i: usize) -> Option<usize> {
        if self.shard_totals(shard).chunks == 0 {
            return None;
        }
        (1..self.len()).find_map(|d| {
            let below = i.checked_sub(d).filter(|&k| self.chunks[k].shard == shard);
            let above = Some(i + d).filter(|&k| k < self.len() && self.chunks[k].shard == shard);
            below.or(above)
        })
    }
}
