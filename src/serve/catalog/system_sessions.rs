//! `config.system.sessions`, which every real sharded cluster has: the config server shards it
//! on `{_id: 1}` as soon as there is a shard, one chunk on one shard, from 6.0 with
//! `maxChunkSizeBytes: 200000` (6.0 also `noAutoSplit: true`). It holds no documents here. It
//! is `serve`'s, not the simulator's: it joins the simulator's collections in the catalog that
//! `config.collections`, `config.chunks`, `$shardedDataDistribution` and `sh.status()` read
//! (`State::catalog`), on the first shard that is not draining.
// 8.0 `db/s/sessions_collection_config_server.cpp` (`setupSessionsCollection`,
// `logical_sessions::kMaxChunkSizeBytes`); real outputs in `sh.status-7.0.24.txt`.

use crate::cluster::{Cluster, Collection, Index, ServerVersion};
use crate::model::{KeyPattern, RoutingTable, ShardIdx};
use crate::serve::state::State;

pub const NS: &str = "config.system.sessions";
const MAX_CHUNK_SIZE_BYTES: u64 = 200_000;

/// The collection as the catalog shows it now, or `None` before any shard exists.
pub fn collection(cluster: &Cluster) -> Option<Collection> {
    let serving = |s: &usize| !cluster.shards[*s].removed;
    let shard = (0..cluster.shards.len())
        .filter(serving)
        .find(|&s| !cluster.shards[s].shard.draining)
        .or_else(|| (0..cluster.shards.len()).find(serving))?;
    let key = KeyPattern::parse_json(r#"{"_id": 1}"#).ok()?;
    let table = RoutingTable::single(key.global_min(), key.global_max(), ShardIdx(shard as u32));
    let mut coll = Collection::new(NS, key.clone(), table);
    // Its `_id` index; `config.collections` `unique` (a unique shard key) is false.
    coll.indexes = vec![Index { key, unique: false }];
    if cluster.version >= ServerVersion::V6_0 {
        coll.balancing.max_chunk_size_bytes = Some(MAX_CHUNK_SIZE_BYTES);
    }
    Some(coll)
}

impl State {
    /// The sharded collections the config database lists: the simulator's and
    /// `config.system.sessions`, in namespace order.
    pub fn catalog(&self) -> Vec<std::borrow::Cow<'_, crate::cluster::Collection>> {
        let mut out: Vec<std::borrow::Cow<'_, crate::cluster::Collection>> = self
            .sim
            .cluster
            .collections
            .iter()
            .map(std::borrow::Cow::Borrowed)
            .collect();
        if self.sim.cluster.collection(NS).is_none()
            && let Some(s) = collection(&self.sim.cluster)
        {
            let at = out.partition_point(|c| c.ns.as_str() < NS);
            out.insert(at, std::borrow::Cow::Owned(s));
        }
        out
    }
}
