//! `removeShard`: the shard drains (the balancer moves its chunks away first, round by round) and
//! leaves the cluster once it owns nothing. A jumbo chunk on it blocks completion until it is moved
//! by force (`moveChunk` with `forceJumbo`).
//!
//! Simplifications: completion happens by itself when the shard is empty (as if an operator kept
//! calling `removeShard`), and databases whose primary it was move to another shard then.

use super::engine::Simulator;
use crate::cluster::error::MongoError;
use crate::cluster::event::EventKind;
use crate::model::ShardIdx;

/// What `removeShard` answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RemoveShardState {
    Started,
    /// Chunks and jumbo chunks still on the shard.
    Ongoing {
        chunks: u64,
        jumbo: u64,
    },
    Completed,
}

impl Simulator {
    /// Chunks and jumbo chunks `shard` still owns, over all collections.
    pub fn owned_chunks(&self, shard: ShardIdx) -> (u64, u64) {
        self.cluster
            .collections
            .iter()
            .fold((0, 0), |(c, j), coll| {
                let t = coll.table.shard_totals(shard);
                (c + t.chunks, j + t.jumbo)
            })
    }

    /// `removeShard`: starts draining, or reports progress.
    pub fn remove_shard(&mut self, id: &str) -> Result<RemoveShardState, MongoError> {
        let s = self
            .cluster
            .shard_index(id)
            .filter(|s| !self.cluster.shards[s.index()].removed)
            .ok_or_else(|| MongoError::shard_not_found(format!("Shard {id} not found")))?;
        if self.cluster.shards[s.index()].shard.draining {
            let (chunks, jumbo) = self.owned_chunks(s);
            return Ok(RemoveShardState::Ongoing { chunks, jumbo });
        }
        let live = self.cluster.shards.iter().filter(|x| !x.removed).count();
        if live <= 1 {
            return Err(MongoError::illegal_operation(
                "Operation not allowed because it would remove the last shard",
            ));
        }
        if self.cluster.shards.iter().any(|x| x.shard.draining) {
            return Err(MongoError::conflicting_operation(
                "Can't have more than one draining shard at a time",
            ));
        }
        self.cluster.shards[s.index()].shard.draining = true;
        self.emit(EventKind::ShardDraining { shard: s });
        Ok(RemoveShardState::Started)
    }

    /// Removes draining shards that own nothing any more.
    pub(super) fn complete_drains(&mut self) {
        let drained: Vec<ShardIdx> = (0..self.cluster.shards.len())
            .map(|i| ShardIdx(i as u32))
            .filter(|s| {
                self.cluster.shards[s.index()].shard.draining && self.owned_chunks(*s).0 == 0
            })
            .collect();
        for s in drained {
            let state = &mut self.cluster.shards[s.index()];
            state.shard.draining = false;
            state.removed = true;
            self.cluster.reassign_primaries(s);
            self.emit(EventKind::ShardRemoved { shard: s });
        }
    }
}
