//! Installing what a poll read into the kept model, with no I/O and all or nothing: new routing
//! tables or patches to the kept ones (renumbered when the shards changed), zones, settings,
//! databases and per-shard sizes.
//!
//! Owns: the step from `Reads` to the poller's `Cluster`. May not touch: the server (every read is
//! done before, in `reads`).

use std::collections::HashMap;

use super::reads::{Reads, Refresh};
use super::{Poller, bad};
use crate::cluster::ServerVersion;
use crate::live::client::LiveError;
use crate::live::data_sizes;
use crate::live::refusals::Refusals;
use crate::live::routing_cache::CachedRouting;
use crate::live::snapshot::{self, ConfigSnapshot};
use crate::model::RoutingTable;

impl Poller {
    /// Brings the kept model up to date with what a poll read (no I/O: all or nothing).
    pub(super) fn install(
        &mut self,
        version: ServerVersion,
        reads: Reads,
        refused: &mut Refusals,
    ) -> Result<(), LiveError> {
        let renumber = reads.shards.renumbering(&self.state);
        let renumbered = renumber.iter().enumerate().any(|(i, s)| s.index() != i);
        let mut kept: HashMap<String, RoutingTable> = std::mem::take(&mut self.state.collections)
            .into_iter()
            .map(|c| (c.ns, c.table))
            .collect();
        let mut caches = std::mem::take(&mut self.caches);
        let mut collections = Vec::new();
        for (coll, refresh) in reads.colls.iter().zip(reads.refreshes) {
            let mut inconsistencies = Vec::new();
            let (table, cache) = match refresh {
                Refresh::Full(loaded) => {
                    let loaded = *loaded;
                    inconsistencies = loaded.inconsistencies;
                    (loaded.table, CachedRouting::new(coll, loaded.jumbo))
                }
                Refresh::Patch(patches, jumbo) => {
                    let mut table = kept
                        .remove(&coll.ns)
                        .ok_or_else(|| bad("a kept routing table vanished"))?;
                    if renumbered {
                        table.renumber_shards(&renumber);
                    }
                    let mut cache = caches
                        .remove(&coll.ns)
                        .ok_or_else(|| bad("a routing cache vanished"))?;
                    cache.patch(&mut table, patches, jumbo).map_err(bad)?;
                    (table, cache)
                }
                Refresh::Missing => {
                    crate::live::inconsistency::say_missing(refused, &coll.ns);
                    continue;
                }
            };
            self.caches.insert(coll.ns.clone(), cache);
            let (mut c, notes) = snapshot::collection(coll, table, &reads.tags);
            for note in notes {
                refused.say(crate::cluster::privileges::Feeds::Shards, note);
            }
            c.inconsistencies = inconsistencies;
            crate::live::catalog::mark(coll, &mut c);
            collections.push(c);
        }
        let mut shards = reads.shards;
        (reads.untracked.iter())
            .filter_map(|u| crate::live::catalog::untracked_collection(u, &mut shards))
            .for_each(|c| collections.push(c));
        let snap = ConfigSnapshot {
            version,
            shards: &reads.shard_docs,
            settings: &reads.settings,
            databases: &reads.databases,
            tags: &reads.tags,
        };
        let mut cluster = snapshot::cluster(&snap, shards, collections);
        data_sizes::spread(&mut cluster, &reads.sizes);
        cluster.before_6_0_3 = self.before_6_0_3;
        self.state = cluster;
        Ok(())
    }
}
