//! `configureCollectionBalancing` (5.3+): a collection's own chunk size (`chunkSize` in MiB,
//! 0 = back to the cluster's), which the balancer, the auto-splitter and moveRange use for that
//! collection, and the AutoMerger flag (7.0+), kept and shown in `config.collections`.
//! `defragmentCollection` starts or ends defragmentation (`sim::defragmenter`).

use crate::cluster::CollectionBalancing;
use crate::cluster::ServerVersion;
use crate::cluster::error::MongoError;
use crate::cluster::event::EventKind;
use crate::sim::engine::Simulator;

/// What a `configureCollectionBalancing` command asks for.
#[derive(Clone, Copy, Debug, Default)]
pub struct BalancingRequest {
    pub chunk_size_mb: Option<u64>,
    pub enable_auto_merger: Option<bool>,
    /// `defragmentCollection`: start (`true`) or end (`false`) defragmentation.
    pub defragment: Option<bool>,
}

impl Simulator {
    /// `configureCollectionBalancing`: fields not given keep their values.
    pub fn configure_collection_balancing(
        &mut self,
        ns: &str,
        req: BalancingRequest,
    ) -> Result<(), MongoError> {
        let v = self.cluster.version;
        if v < ServerVersion::new(5, 3) {
            return Err(MongoError::command_not_found(
                "no such command: 'configureCollectionBalancing'",
            ));
        }
        if req.enable_auto_merger.is_some() && v < ServerVersion::V7_0 {
            return Err(MongoError::unknown_field(
                "BSON field 'configureCollectionBalancing.enableAutoMerger' is an unknown field.",
            ));
        }
        let c = self.coll(ns)?;
        let mut balancing = self.cluster.collections[c].balancing;
        match req.chunk_size_mb {
            None => {}
            Some(0) => balancing.max_chunk_size_bytes = None,
            Some(mb) if mb <= 1024 => balancing.max_chunk_size_bytes = Some(mb << 20),
            // The wording of this refusal is ours (unverified against the server's).
            Some(_) => {
                return Err(MongoError::invalid_options(
                    "chunkSize must be between 1 and 1024 MB, or 0 for the cluster's chunk size",
                ));
            }
        }
        if let Some(on) = req.enable_auto_merger {
            balancing.auto_merge = Some(on);
        }
        self.set_collection_balancing(c, balancing);
        if let Some(on) = req.defragment {
            self.set_defragmentation(c, on);
        }
        Ok(())
    }

    fn set_collection_balancing(&mut self, c: usize, balancing: CollectionBalancing) {
        let coll = &mut self.cluster.collections[c];
        coll.balancing = balancing;
        let ns = coll.ns.clone();
        self.emit(EventKind::CollectionBalancingSet {
            ns,
            max_chunk_size_bytes: balancing.max_chunk_size_bytes,
            auto_merge: balancing.auto_merge,
            no_balance: balancing.no_balance,
            migrations_blocked: balancing.migrations_blocked,
        });
    }

    /// `sh.disableBalancing(ns)` / `sh.enableBalancing(ns)`: `config.collections` `noBalance`.
    pub fn set_balancing_allowed(&mut self, ns: &str, allowed: bool) -> Result<(), MongoError> {
        let c = self.coll(ns)?;
        let mut balancing = self.cluster.collections[c].balancing;
        balancing.no_balance = !allowed;
        self.set_collection_balancing(c, balancing);
        Ok(())
    }

    /// `config.collections` `enableAutoMerge` (`sh.enableAutoMerger(ns)` unsets it: `None`).
    pub fn set_collection_auto_merge(
        &mut self,
        ns: &str,
        on: Option<bool>,
    ) -> Result<(), MongoError> {
        let c = self.coll(ns)?;
        let mut balancing = self.cluster.collections[c].balancing;
        balancing.auto_merge = on;
        self.set_collection_balancing(c, balancing);
        Ok(())
    }

    /// `setAllowMigrations` (5.0+; `db/s/set_allow_migrations_coordinator.cpp`): `false` sets
    /// `permitMigrations: false`, `true` unsets it.
    pub fn set_allow_migrations(&mut self, ns: &str, allow: bool) -> Result<(), MongoError> {
        let c = self.cluster.collection_index(ns).filter(|&c| {
            self.cluster.collections[c].placement == crate::cluster::Placement::Sharded
        });
        let Some(c) = c else {
            return Err(MongoError::namespace_not_sharded(
                "Collection must be sharded so migrations can be blocked",
            ));
        };
        let mut balancing = self.cluster.collections[c].balancing;
        balancing.migrations_blocked = !allow;
        self.set_collection_balancing(c, balancing);
        Ok(())
    }
}
