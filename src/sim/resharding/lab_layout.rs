//! A collection's documents laid out in chunks as `reshardCollection` lays out a new key: split
//! points at quantiles of the documents' keys (`numInitialChunks` pieces, 90 by default from 6.0),
//! cut at zone bounds, dealt over the shards in turn — what `shardtop lab` starts each candidate
//! from, so the documents already there sit where resharding to that key would put them.
// 8.0 `db/s/resharding/resharding_coordinator_service.cpp` (the sampled split points) through
// [`super::reshard_layout::new_layout`], the same code a simulated resharding commits with.

use crate::cluster::error::MongoError;
use crate::cluster::resharding::Resharding;
use crate::model::zones::ZoneRange;
use crate::sim::engine::Simulator;

impl Simulator {
    /// Replaces the chunks of `ns` (its documents already inserted, under the key it has) with a
    /// resharding's layout of those documents; returns the number of chunks.
    pub fn lay_out_as_resharding(
        &mut self,
        ns: &str,
        num_initial_chunks: Option<u32>,
    ) -> Result<usize, MongoError> {
        let c = self.coll(ns)?;
        self.flush_writes(c);
        let recipients = self.recipients();
        let coll = &self.cluster.collections[c];
        let zones: Vec<ZoneRange> = coll.zones.iter().cloned().collect();
        let chunks = num_initial_chunks.unwrap_or_else(|| {
            self.cluster
                .version
                .resharding_default_initial_chunks(coll.table.len())
        });
        let now = self.cluster.now_ms;
        let mut r = Resharding::new(coll.pattern.clone(), chunks, now, now);
        r.zones = Some(zones.clone());
        let members = self.zone_members(&zones);
        let layout =
            crate::sim::resharding::reshard_layout::new_layout(coll, &r, &recipients, &members);
        let key = coll.pattern.clone();
        self.cluster.collections[c]
            .install_resharded(key, &layout, &zones, now / 1000)
            .map_err(MongoError::illegal_operation)?;
        Ok(layout.len())
    }
}
