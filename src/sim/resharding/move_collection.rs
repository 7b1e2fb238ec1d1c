//! `moveCollection` and `unshardCollection` (8.0): reshardings to `{_id: 1}` with
//! `forceRedistribution`, one chunk on the shard named (for `unshardCollection` without one, the
//! non-draining shard with the least data), whose result is an unsharded collection tracked in the
//! catalog (`unsplittable: true`). An untracked unsharded collection is tracked first. Also the
//! unsharded collections a draining shard must give away (`collectionsToMove`).
// 8.0 `s/commands/cluster_move_collection_cmd.cpp`, `cluster_unshard_collection_cmd.cpp`
// (`makeMoveCollectionRequest` / `makeUnshardCollectionRequest`: key `{_id: 1}`, shardDistribution
// `[{shard, min: MinKey, max: MaxKey}]`, `forceRedistribution`, `numInitialChunks` 1),
// `db/s/reshard_collection_coordinator.cpp` (the errors below), `db/s/resharding/
// resharding_coordinator_service.cpp` (`_isReshardingOpRedundant`: already on the shard),
// `unshard_collection_coordinator` (`selectLeastLoadedNonDrainingShard`).

use crate::cluster::Collection;
use crate::cluster::error::MongoError;
use crate::cluster::resharding::{Provenance, ShardKeyRange};
use crate::cluster::{Placement, ServerVersion};
use crate::model::{KeyPattern, RoutingTable, ShardIdx};
use crate::sim::engine::Simulator;
use crate::sim::resharding::reshard_layout::ReshardRequest;

fn id_key() -> Result<KeyPattern, MongoError> {
    KeyPattern::parse_json(r#"{"_id": 1}"#).map_err(|e| MongoError::bad_value(e.0))
}

impl Simulator {
    fn require_8_0(&self, command: &str) -> Result<(), MongoError> {
        if self.cluster.version < ServerVersion::V8_0 {
            return Err(MongoError::command_not_found(format!(
                "no such command: '{command}'"
            )));
        }
        Ok(())
    }

    fn catalog_collection(&self, ns: &str) -> Result<usize, MongoError> {
        self.cluster.collection_index(ns).ok_or_else(|| {
            MongoError::namespace_not_found(format!(
                "Collection '{ns}' not found in cluster catalog"
            ))
        })
    }

    fn recipient_shard(&self, id: &str) -> Result<ShardIdx, MongoError> {
        self.cluster
            .shard_index(id)
            .filter(|s| !self.cluster.shards[s.index()].removed)
            .ok_or_else(|| MongoError::shard_not_found(format!("Shard {id} not found")))
    }

    /// The shard an unsharded collection's one chunk is on.
    fn holder(&self, c: usize) -> ShardIdx {
        self.cluster.collections[c].table.chunk(0).info.shard
    }

    /// `moveCollection {ns, toShard}`.
    pub fn move_collection(&mut self, ns: &str, to: &str) -> Result<(), MongoError> {
        self.require_8_0("moveCollection")?;
        if self.cluster.shards.iter().filter(|s| !s.removed).count() < 2 {
            return Err(MongoError::illegal_operation(
                "Cannot move a collection until a second shard has been successfully added",
            ));
        }
        let c = self.catalog_collection(ns)?;
        if self.cluster.collections[c].placement == Placement::Sharded {
            return Err(MongoError::namespace_not_found(
                "MoveCollection can only be called on an unsharded collection.",
            ));
        }
        let to = self.recipient_shard(to)?;
        if self.holder(c) == to && self.cluster.collections[c].resharding.is_none() {
            return Ok(());
        }
        self.reshard_onto_one_shard(ns, to, Provenance::MoveCollection)
    }

    /// `unshardCollection {ns, toShard?}`.
    pub fn unshard_collection(&mut self, ns: &str, to: Option<&str>) -> Result<(), MongoError> {
        self.require_8_0("unshardCollection")?;
        let c = self.catalog_collection(ns)?;
        let to = to.map(|id| self.recipient_shard(id)).transpose()?;
        match self.cluster.collections[c].placement {
            Placement::Untracked => {
                return Err(MongoError::namespace_not_found(format!(
                    "Collection '{ns}' not found in cluster catalog"
                )));
            }
            Placement::Unsplittable => {
                return match to {
                    Some(s) if s != self.holder(c) => Err(MongoError::namespace_not_sharded(
                        "Collection is already unsharded. Call moveCollection to move this collection to a different shard.",
                    )),
                    _ => Ok(()),
                };
            }
            Placement::Sharded => {}
        }
        let to = match to {
            Some(s) => s,
            None => self.least_loaded_non_draining_shard()?,
        };
        self.reshard_onto_one_shard(ns, to, Provenance::UnshardCollection)
    }

    /// `selectLeastLoadedNonDrainingShard`: the least data over every collection.
    fn least_loaded_non_draining_shard(&self) -> Result<ShardIdx, MongoError> {
        (0..self.cluster.shards.len())
            .filter(|&s| !self.cluster.shards[s].removed && !self.cluster.shards[s].shard.draining)
            .map(|s| ShardIdx(s as u32))
            .min_by_key(|&s| {
                self.cluster
                    .collections
                    .iter()
                    .map(|c| c.table.shard_totals(s).stats.bytes)
                    .sum::<u64>()
            })
            .ok_or_else(|| MongoError::shard_not_found("No non-draining shard found"))
    }

    fn reshard_onto_one_shard(
        &mut self,
        ns: &str,
        to: ShardIdx,
        provenance: Provenance,
    ) -> Result<(), MongoError> {
        let key = id_key()?;
        let whole = (key.global_min(), key.global_max());
        self.start_resharding(
            ns,
            ReshardRequest {
                num_initial_chunks: Some(1),
                force_redistribution: true,
                provenance,
                distribution: vec![ShardKeyRange {
                    shard: to,
                    range: Some(whole),
                }],
                ..ReshardRequest::new(key)
            },
        )
    }

    /// The unsharded collections on `shard` (8.0+ `collectionsToMove`), in name order.
    pub fn collections_to_move(&self, shard: ShardIdx) -> Vec<String> {
        if self.cluster.version < ServerVersion::V8_0 {
            return Vec::new();
        }
        let mut out: Vec<String> = self
            .cluster
            .collections
            .iter()
            .enumerate()
            .filter(|(c, coll)| coll.placement != Placement::Sharded && self.holder(*c) == shard)
            .map(|(_, coll)| coll.ns.clone())
            .collect();
        out.sort();
        out
    }

    /// A collection kept outside the simulator (by `serve`) enters it as an untracked unsharded
    /// collection on its database's primary shard, with `documents` (field values of `fields`
    /// and the bytes counted for each) kept and counted in its one chunk.
    pub fn adopt_unsharded(
        &mut self,
        ns: &str,
        fields: Vec<String>,
        documents: Vec<(Vec<crate::model::KeyValue>, u64)>,
    ) -> Result<usize, MongoError> {
        let c = self.create_unsharded(ns)?;
        let id_at = fields.iter().position(|f| f == "_id");
        self.keep_documents(c, fields);
        for (values, bytes) in documents {
            let id = id_at.map_or(crate::model::KeyValue::Null, |i| values[i].clone());
            self.insert(c, vec![id], Some(values), bytes);
        }
        Ok(c)
    }

    /// Creates `ns` as an untracked unsharded collection on its database's primary shard: one
    /// chunk over `{_id: 1}`, not in the catalog (no event: the catalog does not change).
    pub fn create_unsharded(&mut self, ns: &str) -> Result<usize, MongoError> {
        if self.cluster.collection_index(ns).is_some() {
            return Err(MongoError::namespace_exists(format!(
                "Collection {ns} already exists"
            )));
        }
        let key = id_key()?;
        let db = ns.split_once('.').map_or(ns, |(d, _)| d).to_string();
        let primary = self.cluster.ensure_database(&db);
        let table = RoutingTable::single(key.global_min(), key.global_max(), primary);
        let mut coll = Collection::new(ns, key, table);
        coll.placement = Placement::Untracked;
        coll.indexes[0].unique = true;
        let at = self
            .cluster
            .collections
            .partition_point(|c| c.ns.as_str() < ns);
        self.cluster.collections.insert(at, coll);
        Ok(at)
    }

    /// Hands collection `c` the documents already counted in its chunks (field values of
    /// `fields`, bytes), so that it can be resharded; refused when they do not add up to what its
    /// chunks hold.
    pub fn keep_existing_documents(
        &mut self,
        c: usize,
        fields: Vec<String>,
        documents: Vec<(Vec<crate::model::KeyValue>, u64)>,
    ) -> Result<(), MongoError> {
        let coll = &mut self.cluster.collections[c];
        let owned: u64 = coll.table.iter().map(|ch| ch.info.stats.docs).sum();
        if owned != documents.len() as u64 {
            return Err(MongoError::illegal_operation(format!(
                "{} holds {owned} documents but {} were kept, so it cannot be resharded",
                coll.ns,
                documents.len()
            )));
        }
        coll.docs = Some(crate::cluster::DocStore {
            fields,
            docs: documents,
        });
        Ok(())
    }
}
