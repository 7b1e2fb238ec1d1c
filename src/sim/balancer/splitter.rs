//! Splitting chunks: the `split` command (at a point, or at the median with `find`), the
//! auto-splitter (before 6.0) with its top-chunk optimisation, `splitOrMarkJumbo` after a
//! migration was refused as too big, and marking a chunk jumbo when it cannot be split.

use crate::cluster::event::{EventKind, MigrationReason, SplitCause};
use crate::cluster::{Collection, MongoError};
use crate::model::{ChunkStats, ShardIdx, ShardKey};
use crate::sim::engine::Simulator;

impl Simulator {
    /// `split` with `middle`: splits the chunk containing `point` at `point`.
    pub fn split_at(&mut self, ns: &str, point: ShardKey) -> Result<(), MongoError> {
        let c = self.coll(ns)?;
        self.refuse_if_resharding(c)?;
        let i = self.cluster.collections[c].table.route(&point);
        self.refuse_if_migrating(c, i)?;
        self.split_chunk(c, i, vec![point], SplitCause::Command)
    }

    /// `split` with `find` (`sh.splitFind`): splits the chunk containing `key` at its median.
    pub fn split_find(&mut self, ns: &str, key: &ShardKey) -> Result<(), MongoError> {
        let c = self.coll(ns)?;
        let i = self.cluster.collections[c].table.route(key);
        self.refuse_if_migrating(c, i)?;
        let coll = &self.cluster.collections[c];
        let chunk = coll.table.chunk(i);
        if let Some(point) = coll.keys.median(chunk.min, chunk.max) {
            return self.split_chunk(c, i, vec![point], SplitCause::Command);
        }
        let error = MongoError::cannot_split(
            "Unable to find median in chunk because chunk is indivisible.",
        );
        let (min, max, shard) = (chunk.min.clone(), chunk.max.clone(), chunk.info.shard);
        self.emit(EventKind::SplitFailed {
            ns: ns.to_string(),
            min,
            max,
            shard,
            error: error.clone(),
        });
        Err(error)
    }

    /// Splits chunk `i` of collection `c` at `points`, dividing its statistics by the key index.
    pub(in crate::sim) fn split_chunk(
        &mut self,
        c: usize,
        i: usize,
        points: Vec<ShardKey>,
        cause: SplitCause,
    ) -> Result<(), MongoError> {
        self.flush_writes(c);
        let coll = &mut self.cluster.collections[c];
        let chunk = coll.table.chunk(i);
        let (min, max, shard, whole) = (
            chunk.min.clone(),
            chunk.max.clone(),
            chunk.info.shard,
            chunk.info.stats,
        );
        let mut bounds = vec![min.clone()];
        bounds.extend(points.iter().cloned());
        bounds.push(max.clone());
        let mut pieces: Vec<ChunkStats> = bounds
            .windows(2)
            .map(|b| coll.keys.stats(&b[0], &b[1]))
            .collect();
        distribute_writes(&mut pieces, whole);
        coll.table
            .split(i, &points, &pieces)
            .map_err(|e| MongoError::cannot_split(e.to_string()))?;
        let ns = coll.ns.clone();
        self.emit(EventKind::Split {
            ns,
            min,
            max,
            points,
            shard,
            pieces,
            cause,
        });
        Ok(())
    }

    /// The auto-splitter (before 6.0): after chunk size ÷ 5 bytes written, split a chunk larger
    /// than the chunk size at about half-chunk intervals. When no split point is found it gives up
    /// (the chunk is marked jumbo only by a failed migration, `splitOrMarkJumbo`). The first or
    /// last chunk of a ranged key is cut at its extreme key instead (top-chunk optimisation: the
    /// second document's key for the MinKey chunk, the highest for the MaxKey chunk), and the new
    /// edge chunk is moved to the least loaded shard.
    // 4.4.6 `db/s/chunk_splitter.cpp` (`splitPoints.empty()` → `abandonPrepare`; `findExtremeKeyInChunk`
    // at both ends, `topChunkMinKey`, `moveChunk` of the top chunk via `balanceSingleChunk`).
    pub(in crate::sim) fn auto_split(&mut self, c: usize, i: usize) {
        let chunk_size = self.cluster.chunk_size_of(c);
        let coll = &mut self.cluster.collections[c];
        coll.table.reset_bytes_written(i);
        let chunk = coll.table.chunk(i);
        // 6.0 `db/s/config/sharding_catalog_manager_chunk_operations.cpp`: "Can't commit
        // auto-split while … is undergoing a defragmentation."
        if chunk.info.stats.bytes < chunk_size
            || chunk.info.jumbo
            || coll.defragmentation.is_some()
            || coll.placement != crate::cluster::Placement::Sharded
        {
            return;
        }
        if self.refuse_if_migrating(c, i).is_err() {
            return;
        }
        let coll = &self.cluster.collections[c];
        let chunk = coll.table.chunk(i);
        let mut points = coll.keys.split_points(chunk.min, chunk.max, chunk_size / 2);
        if points.is_empty() {
            return;
        }
        let ranged = coll.pattern.hashed_field().is_none();
        let bottom = ranged && *chunk.min == *coll.table.global_min();
        let top = ranged && !bottom && *chunk.max == *coll.table.global_max();
        // 4.4.6 `db/s/chunk_splitter.cpp` (`findExtremeKeyForShard`, doSplitAtLower): the
        // documents sorted by the key, `nToSkip` 1 — the second document's key, so the new
        // MinKey chunk keeps one document (none when the lowest value repeats).
        if bottom
            && let Some(second) = second_document_key(coll, chunk.min, chunk.max)
            && second > *chunk.min
        {
            points[0] = second;
        }
        if top
            && let Some(highest) = coll.keys_last(chunk.min, chunk.max)
            && let Some(last) = points.last_mut()
            && *last < highest
        {
            *last = highest;
        }
        if self.split_chunk(c, i, points, SplitCause::Auto).is_err() {
            return;
        }
        if (bottom || top) && self.cluster.settings.balancer_enabled {
            let edge = if bottom {
                i
            } else {
                self.cluster.collections[c].table.len() - 1
            };
            self.move_top_chunk(c, edge);
        }
    }

    fn move_top_chunk(&mut self, c: usize, i: usize) {
        let from = self.cluster.collections[c].table.chunk(i).info.shard;
        let busy = self.busy_shards();
        let to = (0..self.cluster.shards.len())
            .map(|s| ShardIdx(s as u32))
            .filter(|s| !busy[s.index()] && !self.cluster.shards[s.index()].shard.draining)
            .min_by_key(|s| {
                (
                    self.cluster.collections[c].table.shard_totals(*s).chunks,
                    *s,
                )
            });
        if let Some(to) = to.filter(|t| *t != from && !busy[from.index()]) {
            let _ = self.start_migration(c, i, None, to, MigrationReason::TopChunk);
        }
    }

    /// Flags chunk `i` jumbo (once).
    pub(in crate::sim) fn mark_jumbo(&mut self, c: usize, i: usize) {
        let coll = &mut self.cluster.collections[c];
        if coll.table.chunk(i).info.jumbo {
            return;
        }
        coll.table.set_jumbo(i, true);
        let (ns, min, max, shard) = chunk_of(coll, i);
        self.emit(EventKind::JumboMarked {
            ns,
            min,
            max,
            shard,
        });
    }

    /// `clearJumboFlag` on the chunk of `ns` starting at `min`: the balancer may move it again.
    pub fn clear_jumbo_flag(&mut self, ns: &str, min: &ShardKey) -> Result<(), MongoError> {
        let c = self.coll(ns)?;
        let coll = &mut self.cluster.collections[c];
        let Some(i) = coll.table.find_by_min(min) else {
            return Err(MongoError::illegal_operation(format!(
                "clearJumboFlag: no chunk of {ns} starts at the bound given"
            )));
        };
        if !coll.table.chunk(i).info.jumbo {
            return Ok(());
        }
        coll.table.clear_jumbo(i);
        let (ns, min, max, shard) = chunk_of(coll, i);
        self.emit(EventKind::JumboCleared {
            ns,
            min,
            max,
            shard,
        });
        Ok(())
    }

    /// `splitOrMarkJumbo`, after a migration was refused as too big: split the chunk at about
    /// half-chunk intervals, or flag it jumbo when it holds a single key value.
    pub(in crate::sim) fn split_or_mark_jumbo(&mut self, c: usize, i: usize) {
        let chunk_size = self.cluster.chunk_size_of(c);
        let coll = &self.cluster.collections[c];
        let chunk = coll.table.chunk(i);
        let points = coll.keys.split_points(chunk.min, chunk.max, chunk_size / 2);
        if points.is_empty()
            || self
                .split_chunk(c, i, points, SplitCause::Balancer)
                .is_err()
        {
            self.mark_jumbo(c, i);
        }
    }
}

impl Collection {
    /// The greatest key value held in `[min, max)`.
    fn keys_last(&self, min: &ShardKey, max: &ShardKey) -> Option<ShardKey> {
        self.keys.last_in(min, max)
    }
}

/// The namespace, bounds and owner of chunk `i`, for an event.
fn chunk_of(coll: &Collection, i: usize) -> (String, ShardKey, ShardKey, ShardIdx) {
    let chunk = coll.table.chunk(i);
    (
        coll.ns.clone(),
        chunk.min.clone(),
        chunk.max.clone(),
        chunk.info.shard,
    )
}

/// Writes are not in the key index: share the chunk's writes out by documents.
fn distribute_writes(pieces: &mut [ChunkStats], whole: ChunkStats) {
    let docs: u64 = pieces.iter().map(|p| p.docs).sum();
    let mut left = whole.writes;
    let n = pieces.len();
    for (k, p) in pieces.iter_mut().enumerate() {
        p.writes = if k + 1 == n {
            left
        } else {
            (whole.writes * p.docs).checked_div(docs).unwrap_or(0)
        };
        left -= p.writes;
    }
}

/// The shard key of the second document of `[min, max)` in key order (the lowest value again when
/// it has several documents), `None` with fewer than two documents.
fn second_document_key(coll: &Collection, min: &ShardKey, max: &ShardKey) -> Option<ShardKey> {
    coll.keys.with_range(min, max, |entries| match entries {
        [(first, count), ..] if count.docs >= 2 => Some(first.clone()),
        [_, (second, _), ..] => Some(second.clone()),
        _ => None,
    })
}
