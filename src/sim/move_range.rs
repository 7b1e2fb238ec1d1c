//! `moveRange` (6.0+) with MongoDB's rules for the bounds it is given: `min` and `max` inside one
//! chunk; only `min` → the range ends at the donor's `autoSplitVector` point with limit 1 (see
//! [`super::auto_split_vector`]: about one chunk size, or the chunk's end when what is left would
//! be small); only `max` → the chunk ending at (or holding) `max`, and the range starts at the
//! same point found scanning backwards (or at the chunk's start). A range that starts inside a
//! chunk is split off first.
//!
//! Simplified: the server creates the sub-ranges in the migration's commit; here the split is a
//! separate `split` event just before the migration (the same chunks, one more version bump).

use super::engine::Simulator;
use crate::cluster::error::MongoError;
use crate::cluster::event::{MigrationReason, SplitCause};
use crate::model::ShardKey;

impl Simulator {
    /// Refuses `[min, max)` unless it is exactly one chunk (`moveChunk` with `bounds`).
    pub fn exact_chunk(&self, ns: &str, min: &ShardKey, max: &ShardKey) -> Result<(), MongoError> {
        let c = self.coll(ns)?;
        let table = &self.cluster.collections[c].table;
        let chunk = table.chunk(table.route(min));
        if chunk.min != min || chunk.max != max {
            return Err(MongoError::invalid_options(
                "moveChunk bounds must be the bounds of one chunk",
            ));
        }
        Ok(())
    }

    /// `moveRange {min?, max?, toShard, forceJumbo?}` (6.0+).
    pub fn move_range(
        &mut self,
        ns: &str,
        min: Option<&ShardKey>,
        max: Option<&ShardKey>,
        to: &str,
        force_jumbo: bool,
    ) -> Result<(), MongoError> {
        if self.cluster.version < crate::cluster::ServerVersion::V6_0 {
            return Err(MongoError::command_not_found(
                "no such command: 'moveRange'",
            ));
        }
        let c = self.coll(ns)?;
        let to = self.shard(to)?;
        self.refuse_if_resharding(c)?;
        let (i, start, end) = self.range_of(c, min, max)?;
        let from = self.cluster.collections[c].table.chunk(i).info.shard;
        if from == to {
            return Err(MongoError::illegal_operation(
                "the range is already on that shard",
            ));
        }
        let busy = self.busy_shards();
        if busy[from.index()] || busy[to.index()] {
            return Err(MongoError::conflicting_operation(
                "a shard involved is already in a migration",
            ));
        }
        self.refuse_if_migrating(c, i)?;
        let mut i = i;
        if start > *self.cluster.collections[c].table.chunk(i).min {
            self.split_chunk(c, i, vec![start.clone()], SplitCause::Command)?;
            i = self.cluster.collections[c].table.route(&start);
        }
        let reason = if force_jumbo {
            MigrationReason::ManualForce
        } else {
            MigrationReason::Manual
        };
        self.start_migration(c, i, end.as_ref(), to, reason)
    }

    /// The chunk and the `[start, end)` to move (`end` `None`: to the chunk's end).
    fn range_of(
        &self,
        c: usize,
        min: Option<&ShardKey>,
        max: Option<&ShardKey>,
    ) -> Result<(usize, ShardKey, Option<ShardKey>), MongoError> {
        let coll = &self.cluster.collections[c];
        match (min, max) {
            (Some(min), max) => {
                let i = coll.table.route(min);
                let chunk = coll.table.chunk(i);
                if let Some(max) = max
                    && (max <= min || max > chunk.max)
                {
                    return Err(MongoError::invalid_options(
                        "moveRange: [min, max) must lie inside one chunk",
                    ));
                }
                // 6.0+ `db/s/migration_source_manager.cpp` (`computeOtherBound`): without
                // `max`, `autoSplitVector` with limit 1 from `min` to the chunk's end.
                let end = match max {
                    Some(max) => (max < chunk.max).then(|| max.clone()),
                    None => self.other_bound_above(c, chunk.info.shard, (min, chunk.max)),
                };
                Ok((i, min.clone(), end))
            }
            (None, Some(max)) => {
                let mut i = coll.table.route(max);
                if coll.table.chunk(i).min == max {
                    if i == 0 {
                        return Err(MongoError::invalid_options(
                            "moveRange: no range ends at the collection's lower bound",
                        ));
                    }
                    i -= 1;
                }
                let chunk = coll.table.chunk(i);
                // master `migration_source_manager.cpp` (`computeOtherBound`, backwards).
                let start = self
                    .other_bound_below(c, chunk.info.shard, (chunk.min, max))
                    .unwrap_or_else(|| chunk.min.clone());
                let end = (max < chunk.max).then(|| max.clone());
                Ok((i, start, end))
            }
            (None, None) => Err(MongoError::invalid_options(
                "moveRange needs min, max or both",
            )),
        }
    }
}
