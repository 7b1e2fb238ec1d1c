//! Removing a shard as MongoDB runs it: `removeShard` starts draining (the balancer moves the
//! shard's chunks away, round by round, by force); the databases whose primary it is are listed as
//! `dbsToMove` until the operator moves them with `movePrimary`; and the shard leaves only when
//! `removeShard` is called again once it owns no chunk and no database. A chunk already marked
//! jumbo is never moved by the drain: it blocks completion until it is moved with `forceJumbo` or
//! its flag is cleared (`clearJumboFlag`) so the balancer can move it.
//!
//! From 8.3 the same procedure is also four commands: `startShardDraining`,
//! `shardDrainingStatus`, `stopShardDraining` and `commitShardRemoval`.
// 7.0-era `db/s/config/configsvr_remove_shard_command.cpp` and 8.0.10
// `db/s/config/sharding_catalog_manager_shard_operations.cpp` (`removeShard`: started / ongoing /
// completed, `chunkCount > 0 || databaseCount > 0` keeps it draining); 8.3: the release notes and
// master's `remove_shard_commit_coordinator.cpp` (RemoveShardDrainingInProgress).

use super::engine::Simulator;
use crate::cluster::ServerVersion;
use crate::cluster::error::MongoError;
use crate::cluster::event::EventKind;
use crate::model::ShardIdx;

/// What `removeShard` (and, from 8.3, `shardDrainingStatus`) answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RemoveShardState {
    /// Draining has just started; the databases to move.
    Started {
        dbs_to_move: Vec<String>,
        collections_to_move: Vec<String>,
    },
    /// Chunks and jumbo chunks still on the shard, the databases and (8.0+) the unsharded
    /// collections to move.
    Ongoing {
        chunks: u64,
        jumbo: u64,
        dbs_to_move: Vec<String>,
        collections_to_move: Vec<String>,
    },
    /// 8.3's `shardDrainingStatus` once nothing is left: ready for `commitShardRemoval`.
    DrainingComplete,
    Completed,
}

impl Simulator {
    /// Chunks and jumbo chunks `shard` still owns, over all collections in the catalog.
    pub fn owned_chunks(&self, shard: ShardIdx) -> (u64, u64) {
        self.cluster
            .collections
            .iter()
            .filter(|coll| coll.placement != crate::cluster::Placement::Untracked)
            .fold((0, 0), |(c, j), coll| {
                let t = coll.table.shard_totals(shard);
                (c + t.chunks, j + t.jumbo)
            })
    }

    /// The databases whose primary shard is `shard`, in name order.
    pub fn dbs_to_move(&self, shard: ShardIdx) -> Vec<String> {
        self.cluster
            .databases
            .iter()
            .filter(|(_, p)| **p == shard)
            .map(|(db, _)| db.clone())
            .collect()
    }

    fn live_shard(&self, id: &str) -> Result<ShardIdx, MongoError> {
        self.cluster
            .shard_index(id)
            .filter(|s| !self.cluster.shards[s.index()].removed)
            .ok_or_else(|| MongoError::shard_not_found(format!("Shard {id} not found")))
    }

    /// `removeShard`: starts draining; reports what is left; completes once nothing is.
    ///
    /// From 8.3 `removeShard` of a shard already removed succeeds, answered here as `completed`
    /// again; before 8.3 it is ShardNotFound. The 8.3-era copy (`requires_fcv_83`) of MongoDB's
    /// jstest of a drain blocked by unsharded collections ends with `assert.commandWorked` on a
    /// second `removeShard` of the removed shard (a mixed-version cluster may still fail
    /// ShardNotFound: "TODO (SERVER-97816)", the removal of the pre-8.3 topology-change path);
    /// the 8.0-era copy ends with `assert.commandFailed`. The test checks `ok` only: the reply's
    /// other fields are those of a completed removal, not read.
    pub fn remove_shard(&mut self, id: &str) -> Result<RemoveShardState, MongoError> {
        if self.cluster.version >= ServerVersion::V8_3
            && self
                .cluster
                .shard_index(id)
                .is_some_and(|s| self.cluster.shards[s.index()].removed)
        {
            return Ok(RemoveShardState::Completed);
        }
        let s = self.live_shard(id)?;
        self.refuse_if_required_by_zone(s)?;
        if !self.cluster.shards[s.index()].shard.draining {
            self.start_draining(s)?;
            return Ok(RemoveShardState::Started {
                dbs_to_move: self.dbs_to_move(s),
                collections_to_move: self.collections_to_move(s),
            });
        }
        match self.draining_status(s) {
            RemoveShardState::DrainingComplete => {
                self.complete_removal(s);
                Ok(RemoveShardState::Completed)
            }
            other => Ok(other),
        }
    }

    /// ZoneStillInUse when `s` is the only shard (in `config.shards`, draining or not) of a zone
    /// that has ranges: checked at every `removeShard` call, the first and those that follow
    /// (SERVER-44695, 4.3.3).
    // 4.4.6 and 8.0.10 `db/s/config/sharding_catalog_manager_shard_operations.cpp`
    // (`removeShard`, `_isShardRequiredByZoneStillInUse`): "Operation not allowed because it
    // would remove the only shard for zone …"; master's copy (its drain start, taken here from
    // 8.3 with the drain commands): "… there is no other shard in zone … to drain to.".
    fn refuse_if_required_by_zone(&self, s: ShardIdx) -> Result<(), MongoError> {
        let shards = &self.cluster.shards;
        for zone in &shards[s.index()].shard.zones {
            let alone = !shards
                .iter()
                .enumerate()
                .any(|(i, x)| i != s.index() && !x.removed && x.shard.zones.contains(zone));
            if alone && self.zone_has_ranges(zone) {
                return Err(MongoError::zone_still_in_use(
                    if self.cluster.version >= ServerVersion::V8_3 {
                        format!(
                            "Operation not allowed because there is no other shard in zone {zone} to drain to."
                        )
                    } else {
                        format!(
                            "Operation not allowed because it would remove the only shard for zone {zone} which has a chunk range is associated with it"
                        )
                    },
                ));
            }
        }
        Ok(())
    }

    fn start_draining(&mut self, s: ShardIdx) -> Result<(), MongoError> {
        let live = self.cluster.shards.iter().filter(|x| !x.removed).count();
        if live <= 1 {
            return Err(MongoError::illegal_operation(
                "Operation not allowed because it would remove the last shard",
            ));
        }
        // Before 8.3 one drain at a time; from 8.3 several (the `startShardDraining` docs: "more
        // than one shard draining operation in progress"; master's
        // `sharding_catalog_manager_shard_operations` unit tests drain two), as long as a shard
        // not draining remains to take their chunks.
        let draining = self.cluster.shards.iter().any(|x| x.shard.draining);
        if draining && self.cluster.version < ServerVersion::V8_3 {
            return Err(MongoError::conflicting_operation(
                "Can't have more than one draining shard at a time",
            ));
        }
        let serving = self
            .cluster
            .shards
            .iter()
            .enumerate()
            .any(|(i, x)| i != s.index() && !x.removed && !x.shard.draining);
        if !serving {
            return Err(MongoError::illegal_operation(
                "Operation not allowed because it would remove the last shard",
            ));
        }
        self.cluster.shards[s.index()].shard.draining = true;
        self.emit(EventKind::ShardDraining { shard: s });
        Ok(())
    }

    /// Where a draining shard stands: ongoing while it owns a chunk, a database or an unsharded
    /// collection.
    fn draining_status(&self, s: ShardIdx) -> RemoveShardState {
        let (chunks, jumbo) = self.owned_chunks(s);
        let dbs_to_move = self.dbs_to_move(s);
        let collections_to_move = self.collections_to_move(s);
        if chunks == 0 && dbs_to_move.is_empty() && collections_to_move.is_empty() {
            RemoveShardState::DrainingComplete
        } else {
            RemoveShardState::Ongoing {
                chunks,
                jumbo,
                dbs_to_move,
                collections_to_move,
            }
        }
    }

    fn complete_removal(&mut self, s: ShardIdx) {
        let state = &mut self.cluster.shards[s.index()];
        state.shard.draining = false;
        state.removed = true;
        self.emit(EventKind::ShardRemoved { shard: s });
    }

    fn require(&self, since: ServerVersion, command: &str) -> Result<(), MongoError> {
        if self.cluster.version < since {
            return Err(MongoError::command_not_found(format!(
                "no such command: '{command}'"
            )));
        }
        Ok(())
    }

    /// `startShardDraining` (8.3+).
    pub fn start_shard_draining(&mut self, id: &str) -> Result<(), MongoError> {
        self.require(ServerVersion::V8_3, "startShardDraining")?;
        let s = self.live_shard(id)?;
        self.refuse_if_required_by_zone(s)?;
        if self.cluster.shards[s.index()].shard.draining {
            return Ok(());
        }
        self.start_draining(s)
    }

    /// `shardDrainingStatus` (8.3+).
    pub fn shard_draining_status(&self, id: &str) -> Result<RemoveShardState, MongoError> {
        self.require(ServerVersion::V8_3, "shardDrainingStatus")?;
        let s = self.live_shard(id)?;
        if !self.cluster.shards[s.index()].shard.draining {
            return Err(MongoError::illegal_operation(format!(
                "Shard {id} is not draining"
            )));
        }
        Ok(self.draining_status(s))
    }

    /// `stopShardDraining` (8.3+): the shard takes chunks again.
    pub fn stop_shard_draining(&mut self, id: &str) -> Result<(), MongoError> {
        self.require(ServerVersion::V8_3, "stopShardDraining")?;
        let s = self.live_shard(id)?;
        if self.cluster.shards[s.index()].shard.draining {
            self.cluster.shards[s.index()].shard.draining = false;
            self.emit(EventKind::ShardDrainingStopped { shard: s });
        }
        Ok(())
    }

    /// `commitShardRemoval` (8.3+): removes a drained shard, or says what is left.
    pub fn commit_shard_removal(&mut self, id: &str) -> Result<(), MongoError> {
        self.require(ServerVersion::V8_3, "commitShardRemoval")?;
        let s = self.live_shard(id)?;
        let drained = self.cluster.shards[s.index()].shard.draining
            && self.draining_status(s) == RemoveShardState::DrainingComplete;
        if !drained {
            return Err(MongoError::remove_shard_draining_in_progress(
                "Draining of the shard being removed must complete before removing the shard.",
            ));
        }
        self.complete_removal(s);
        Ok(())
    }

    /// `movePrimary`: database `db`'s primary becomes shard `to`.
    pub fn move_primary(&mut self, db: &str, to: &str) -> Result<(), MongoError> {
        let Some(&from) = self.cluster.databases.get(db) else {
            return Err(MongoError::namespace_not_found(format!(
                "Database {db} not found"
            )));
        };
        let to = self.cluster.shard_index(to).ok_or_else(|| {
            MongoError::shard_not_found(format!("Could not find recipient shard {to}"))
        })?;
        if self.cluster.shards[to.index()].removed {
            return Err(MongoError::shard_not_found(format!(
                "Could not find recipient shard {}",
                self.cluster.shard_id(to)
            )));
        }
        if from != to {
            self.cluster.databases.insert(db.to_string(), to);
            self.cluster.move_untracked_collections(db, to);
            self.emit(EventKind::PrimaryMoved {
                db: db.to_string(),
                from,
                to,
            });
        }
        Ok(())
    }
}
