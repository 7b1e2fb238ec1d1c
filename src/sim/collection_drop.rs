//! `drop` of a collection the catalog holds (sharded, or unsharded and tracked): its
//! `config.collections` entry, its chunks and its zone ranges are removed and its migrations in
//! flight abandoned, as the drop coordinator does (`db/s/drop_collection_coordinator.cpp`:
//! `removeCollAndChunksMetadataFromConfig`, `removeTagsMetadataFromConfig`; 4.4
//! `ShardingCatalogManager::dropCollection`). Simplified: a real drop takes the collection's DDL
//! lock and waits for a migration in progress to end; here the migration is abandoned at once
//! (docs/fidelity.md).

use super::engine::Simulator;
use crate::cluster::error::MongoError;
use crate::cluster::event::EventKind;

impl Simulator {
    /// Drops collection `ns` from the catalog; NamespaceNotFound when the catalog has none.
    pub fn drop_collection(&mut self, ns: &str) -> Result<(), MongoError> {
        if self.cluster.collection_index(ns).is_none() {
            return Err(MongoError::namespace_not_found(format!("{ns} not found")));
        }
        self.cluster.collections.retain(|c| c.ns != ns);
        self.cluster.pending_zones.retain(|r| r.ns != ns);
        let abandoned: Vec<u64> = (self.cluster.balancer.in_flight.iter())
            .filter(|m| m.ns == ns)
            .map(|m| m.id)
            .collect();
        self.cluster.balancer.in_flight.retain(|m| m.ns != ns);
        for id in abandoned {
            self.failing_migrations.remove(&id);
        }
        self.reshard_origins.remove(ns);
        self.emit(EventKind::CollectionDropped { ns: ns.to_string() });
        Ok(())
    }
}
