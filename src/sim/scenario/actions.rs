//! Carrying out a scenario's scheduled actions: each names a MongoDB command and its arguments.

use crate::cluster::error::MongoError;
use crate::model::ShardKey;
use crate::sim::engine::Simulator;
use crate::sim::resharding::reshard_layout::{ReshardRequest, zones_of};
use crate::sim::scenario::setup::{document_of, pattern_of};
use crate::sim::scenario::{Action, Op};

impl Simulator {
    /// Carries out one scheduled action.
    pub(in crate::sim) fn apply_action(&mut self, action: &Action) -> Result<(), MongoError> {
        match &action.op {
            Op::AddShard { id, capacity } => self.add_shard(id, *capacity).map(|_| ()),
            Op::BalancerStart {}
            | Op::BalancerStop {}
            | Op::DisableBalancing { .. }
            | Op::EnableBalancing { .. }
            | Op::AttemptToBalanceJumboChunks { .. }
            | Op::StartAutoMerger {}
            | Op::StopAutoMerger {}
            | Op::SetChunkSize { .. } => self.apply_settings_op(&action.op),
            Op::Split { ns, middle } => {
                let key = self.bound(ns, middle)?;
                self.split_at(ns, key)
            }
            Op::SplitFind { ns, find } => {
                let key = self.extracted(ns, find)?;
                self.split_find(ns, &key)
            }
            Op::MoveChunk {
                ns,
                find,
                bounds,
                to,
                force_jumbo,
            } => self.move_chunk_action(ns, find.as_ref(), bounds.as_ref(), to, *force_jumbo),
            Op::RemoveShard { .. }
            | Op::StartShardDraining { .. }
            | Op::StopShardDraining { .. }
            | Op::CommitShardRemoval { .. }
            | Op::MovePrimary { .. }
            | Op::ClearJumboFlag { .. } => self.apply_removal_op(&action.op),
            Op::MoveZoneLowerBoundToNow { ns, zone } => self.move_zone_lower_bound_to_now(ns, zone),
            Op::MoveRange {
                ns,
                min,
                max,
                to,
                force_jumbo,
            } => {
                let min = min.as_ref().map(|m| self.bound(ns, m)).transpose()?;
                let max = max.as_ref().map(|m| self.bound(ns, m)).transpose()?;
                self.move_range(ns, min.as_ref(), max.as_ref(), to, *force_jumbo)
            }
            Op::ConfigureCollectionBalancing {
                ns,
                chunk_size,
                enable_auto_merger,
                defragment_collection,
            } => self.configure_collection_balancing(
                ns,
                crate::sim::balancer::collection_balancing::BalancingRequest {
                    chunk_size_mb: *chunk_size,
                    enable_auto_merger: *enable_auto_merger,
                    defragment: *defragment_collection,
                },
            ),
            Op::MergeChunks { ns, bounds } => {
                let (min, max) = (self.bound(ns, &bounds[0])?, self.bound(ns, &bounds[1])?);
                self.merge_chunks(ns, &min, &max)
            }
            Op::CreateIndex { ns, key, unique } => {
                let key = pattern_of(key, "key").map_err(MongoError::bad_value)?;
                self.create_index(ns, key, *unique)
            }
            Op::AddShardToZone { shard, zone } => self.add_shard_to_zone(shard, zone),
            Op::RemoveShardFromZone { shard, zone } => self.remove_shard_from_zone(shard, zone),
            Op::UpdateZoneKeyRange { ns, min, max, zone } => {
                let min = document_of(min, "min").map_err(MongoError::bad_value)?;
                let max = document_of(max, "max").map_err(MongoError::bad_value)?;
                self.update_zone_key_range(ns, &min, &max, zone.as_deref())
            }
            Op::UpdateShardKey { ns, find, set } => {
                let find = document_of(find, "find").map_err(MongoError::bad_value)?;
                let set = document_of(set, "set").map_err(MongoError::bad_value)?;
                self.update_shard_key(ns, &find, &set)
            }
            Op::DropIndex { ns, key } => {
                let key = pattern_of(key, "key").map_err(MongoError::bad_value)?;
                self.drop_index(ns, &key)
            }
            Op::ReshardCollection { ns, .. } => {
                self.reshard_origins.insert(ns.clone(), action.path());
                self.apply_reshard_op(&action.op)
            }
            Op::MoveCollection { .. } | Op::UnshardCollection { .. } => {
                self.apply_reshard_op(&action.op)
            }
            Op::RefineCollectionShardKey { ns, key } => {
                let key = pattern_of(key, "key").map_err(MongoError::bad_value)?;
                self.refine_shard_key(ns, key)
            }
        }
    }

    fn apply_reshard_op(&mut self, op: &Op) -> Result<(), MongoError> {
        match op {
            Op::ReshardCollection {
                ns,
                key,
                num_initial_chunks,
                force_redistribution,
                shard_distribution,
                zones,
            } => {
                let mut req =
                    ReshardRequest::new(pattern_of(key, "key").map_err(MongoError::bad_value)?);
                req.num_initial_chunks = *num_initial_chunks;
                req.force_redistribution = *force_redistribution;
                self.reshard_action(ns, req, shard_distribution.as_deref(), zones.as_deref())
            }
            Op::MoveCollection { ns, to_shard } => self.move_collection(ns, to_shard),
            Op::UnshardCollection { ns, to_shard } => {
                self.unshard_collection(ns, to_shard.as_deref())
            }
            _ => Ok(()),
        }
    }

    fn reshard_action(
        &mut self,
        ns: &str,
        mut req: ReshardRequest,
        distribution: Option<&[serde_json::Value]>,
        zones: Option<&[serde_json::Value]>,
    ) -> Result<(), MongoError> {
        if let Some(list) = distribution {
            req.distribution = self.shard_distribution_of(&req.key, list)?;
        }
        if let Some(list) = zones {
            req.zones = Some(zones_of(&req.key, list)?);
        }
        self.start_resharding(ns, req)
    }

    fn bound(&self, ns: &str, value: &serde_json::Value) -> Result<ShardKey, MongoError> {
        let c = self.coll(ns)?;
        let doc = document_of(value, "bound").map_err(MongoError::bad_value)?;
        self.cluster.collections[c]
            .pattern
            .bound_from_document(&doc)
            .map_err(|e| MongoError::bad_value(e.0))
    }

    fn extracted(&self, ns: &str, value: &serde_json::Value) -> Result<ShardKey, MongoError> {
        let c = self.coll(ns)?;
        let doc = document_of(value, "find").map_err(MongoError::bad_value)?;
        self.cluster.collections[c]
            .pattern
            .extract(&doc)
            .map_err(|e| MongoError::bad_value(e.0))
    }
}

impl Simulator {
    /// `moveChunk` of the chunk holding `find`, or of the chunk with exactly `bounds`.
    fn move_chunk_action(
        &mut self,
        ns: &str,
        find: Option<&serde_json::Value>,
        bounds: Option<&[serde_json::Value; 2]>,
        to: &str,
        force_jumbo: bool,
    ) -> Result<(), MongoError> {
        let key = match (find, bounds) {
            (Some(find), None) => self.extracted(ns, find)?,
            (None, Some([min, max])) => {
                let (min, max) = (self.bound(ns, min)?, self.bound(ns, max)?);
                self.exact_chunk(ns, &min, &max)?;
                min
            }
            _ => {
                return Err(MongoError::invalid_options(
                    "moveChunk needs exactly one of find and bounds",
                ));
            }
        };
        if force_jumbo {
            self.move_chunk_forced(ns, &key, to)
        } else {
            self.move_chunk(ns, &key, None, to)
        }
    }

    /// The balancer's and the AutoMerger's settings, cluster-wide and per collection.
    fn apply_settings_op(&mut self, op: &Op) -> Result<(), MongoError> {
        match op {
            Op::BalancerStart {} | Op::BalancerStop {} => {
                self.set_balancer(matches!(op, Op::BalancerStart {}));
            }
            Op::StartAutoMerger {} | Op::StopAutoMerger {} => {
                self.set_auto_merge(matches!(op, Op::StartAutoMerger {}));
            }
            Op::AttemptToBalanceJumboChunks { enabled } => {
                self.set_attempt_to_balance_jumbo_chunks(*enabled);
            }
            Op::DisableBalancing { ns } => return self.set_balancing_allowed(ns, false),
            Op::EnableBalancing { ns } => return self.set_balancing_allowed(ns, true),
            Op::SetChunkSize { mb } => return self.set_chunk_size_mb(*mb),
            _ => {}
        }
        Ok(())
    }

    /// The operations of removing a shard: draining, moving primaries, clearing jumbo flags.
    fn apply_removal_op(&mut self, op: &Op) -> Result<(), MongoError> {
        match op {
            Op::RemoveShard { id } => self.remove_shard(id).map(|_| ()),
            Op::StartShardDraining { id } => self.start_shard_draining(id),
            Op::StopShardDraining { id } => self.stop_shard_draining(id),
            Op::CommitShardRemoval { id } => self.commit_shard_removal(id),
            Op::MovePrimary { db, to } => self.move_primary(db, to),
            Op::ClearJumboFlag { ns, find } => {
                let key = self.extracted(ns, find)?;
                let c = self.coll(ns)?;
                let table = &self.cluster.collections[c].table;
                let min = table.chunk(table.route(&key)).min.clone();
                self.clear_jumbo_flag(ns, &min)
            }
            _ => Ok(()),
        }
    }
}
