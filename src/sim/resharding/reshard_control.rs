//! `abortReshardCollection` and `commitReshardCollection` (5.0+): the user ends a resharding
//! in flight. Abort puts the old layout back at once; commit skips what is left of the minimum
//! duration so the critical section starts now (and the commit follows it).
// 8.0 `db/s/config/configsvr_abort_reshard_collection_command.cpp`,
// `configsvr_commit_reshard_collection_command.cpp`, `resharding_coordinator_service.cpp`.

use crate::cluster::error::MongoError;
use crate::sim::engine::Simulator;

fn no_such(message: &str) -> MongoError {
    MongoError {
        code: 339,
        code_name: "NoSuchReshardCollection",
        message: message.to_string(),
    }
}

impl Simulator {
    fn resharding_of(&self, ns: &str) -> Option<usize> {
        self.cluster
            .collection_index(ns)
            .filter(|&c| self.cluster.collections[c].resharding.is_some())
    }

    /// `abortReshardCollection: ns`.
    pub fn abort_reshard_collection(&mut self, ns: &str) -> Result<(), MongoError> {
        let c = self.resharding_of(ns).ok_or_else(|| {
            no_such("Could not find resharding-related metadata that matches the given namespace")
        })?;
        let error = MongoError {
            code: 341,
            code_name: "ReshardCollectionAborted",
            message: "Resharding operation was aborted by the user (abortReshardCollection)"
                .to_string(),
        };
        self.abort_resharding(c, error);
        Ok(())
    }

    /// `commitReshardCollection: ns`: the critical section starts as soon as cloning is done.
    pub fn commit_reshard_collection(&mut self, ns: &str) -> Result<(), MongoError> {
        let c = self
            .resharding_of(ns)
            .ok_or_else(|| no_such(&format!("Could not find resharding metadata for {ns}")))?;
        let now = self.cluster.now_ms;
        // The copy itself still takes its time at the migration rate.
        let coll = &self.cluster.collections[c];
        let bytes: u64 = (0..self.cluster.shards.len())
            .map(|s| {
                coll.table
                    .shard_totals(crate::model::ShardIdx(s as u32))
                    .stats
                    .bytes
            })
            .sum();
        let rate = self.cluster.settings.migration_bytes_per_sec.max(1);
        let copy_ms = bytes.saturating_mul(1000) / rate;
        if let Some(r) = self.cluster.collections[c].resharding.as_mut() {
            r.ready_ms = r.ready_ms.min((r.started_ms + copy_ms).max(now));
        }
        Ok(())
    }
}
