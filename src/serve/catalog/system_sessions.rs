//! `config.system.sessions`, which every real sharded cluster has: the config server shards it
//! on `{_id: 1}` as soon as there is a shard, one chunk on one shard, from 6.0 with
//! `maxChunkSizeBytes: 200000` (6.0 also `noAutoSplit: true`). It holds no documents here. It
//! is `serve`'s, not the simulator's: it joins the simulator's collections in the catalog that
//! `config.collections`, `config.chunks`, `$shardedDataDistribution` and `sh.status()` read
//! (`State::catalog`), on the first shard that is not draining.
//!
//! Before 7.0 the balancer pre-splits it into `minNumChunksForSessionsCollection` (1,024) chunks
//! on `_id.id`; from 7.0 it stays one chunk.
// 8.0 `db/s/sessions_collection_config_server.cpp` (`setupSessionsCollection`,
// `logical_sessions::kMaxChunkSizeBytes`); real outputs in `sh.status-7.0.24.txt` (one chunk) and
// `sh.status-6.0.3.txt` (1,024 chunks). The pre-split: 4.x and 6.0-era
// `db/s/balancer/balancer_chunk_selection_policy_impl.cpp` (`getSplitCandidatesForSessionsCollection`,
// `minNumChunksForSessionsCollection` 1,024); SERVER-78657 removed it ("starting from v7.0 the auto
// merger will squash them back together"), the 7.1 compatibility notes deprecate the parameter
// ("no longer presplitted during balancing rounds"), and a fresh 7.0.24 cluster shows one chunk.

use crate::cluster::{Cluster, Collection, Index, ServerVersion};
use crate::model::{
    ChunkInfo, ChunkVersion, KeyPattern, KeyValue, RoutingTable, ShardIdx, ShardKey,
};
use crate::serve::state::State;

pub const NS: &str = "config.system.sessions";
const MAX_CHUNK_SIZE_BYTES: u64 = 200_000;
/// `minNumChunksForSessionsCollection`'s default, a power of two already (the balancer rounds the
/// parameter up to one).
const PRESPLIT_CHUNKS: u32 = 1024;

/// The balancer's split points before 7.0: `{_id: {id: UUID}}` whose first 32 bits are `i` shifted
/// left by 32 − log2(chunks), the rest zero (`getSplitCandidatesForSessionsCollection`), for `i` in
/// 1..chunks. `UUID('00400000-0000-0000-0000-000000000000')` is the first of 1,024 (as in the
/// 4.4.1 `config.chunks` of `chunks-4.4.ejson.txt`).
fn split_point(i: u32, chunks: u32) -> ShardKey {
    let bits = chunks.trailing_zeros();
    let high = i << (32 - bits);
    let mut bytes = [0_u8; 16];
    bytes[..4].copy_from_slice(&high.to_be_bytes());
    let uuid = KeyValue::Binary(Box::new(crate::model::value::Binary {
        subtype: 4,
        bytes: bytes.into(),
    }));
    ShardKey::single(KeyValue::Document(vec![("id".into(), uuid)].into()))
}

/// The chunks on `shard`: one before the split, or 1,024 after it. The split commits one chunk
/// into many, each taking the next minor version of the collection's (1,0): (1,1) … (1,1024)
/// (`commitChunkSplit` in `sharding_catalog_manager_chunk_operations.cpp`).
fn table(key: &KeyPattern, shard: ShardIdx, presplit: bool) -> Option<RoutingTable> {
    if !presplit {
        return Some(RoutingTable::single(
            key.global_min(),
            key.global_max(),
            shard,
        ));
    }
    let chunks = (0..PRESPLIT_CHUNKS)
        .map(|i| {
            let min = if i == 0 {
                key.global_min()
            } else {
                split_point(i, PRESPLIT_CHUNKS)
            };
            (min, ChunkInfo::new(shard, ChunkVersion::new(1, i + 1)))
        })
        .collect();
    RoutingTable::from_chunks(chunks, key.global_max()).ok()
}

/// The collection as the catalog shows it now, or `None` before any shard exists.
pub fn collection(cluster: &Cluster) -> Option<Collection> {
    let serving = |s: &usize| !cluster.shards[*s].removed;
    let shard = (0..cluster.shards.len())
        .filter(serving)
        .find(|&s| !cluster.shards[s].shard.draining)
        .or_else(|| (0..cluster.shards.len()).find(serving))?;
    let key = KeyPattern::parse_json(r#"{"_id": 1}"#).ok()?;
    let presplit = cluster.version < ServerVersion::V7_0;
    let table = table(&key, ShardIdx(shard as u32), presplit)?;
    let mut coll = Collection::new(NS, key.clone(), table);
    // Its `_id` index; `config.collections` `unique` (a unique shard key) is false.
    coll.indexes = vec![Index { key, unique: false }];
    if cluster.version >= ServerVersion::V6_0 {
        coll.balancing.max_chunk_size_bytes = Some(MAX_CHUNK_SIZE_BYTES);
    }
    Some(coll)
}

/// What `balancerCollectionStatus` answers for `config.system.sessions`: the balancer's policy
/// over it, as over any sharded collection (the config server's `getBalancerStatusForNs` reads it
/// from `config.collections` like the others; it is NamespaceNotSharded only before it exists),
/// as `(its chunk size in bytes, the first compliance violation)`; `None` before any shard exists.
/// The policy runs on a copy of the cluster's shards and settings holding this one collection
/// (the simulator does not hold it).
// 8.0 `db/s/balancer/balancer.cpp` (`Balancer::getBalancerStatusForNs`: `getCollection`, then
// `selectChunksToSplit` (zones) and `selectChunksToMove`'s first reason);
// `db/s/config/configsvr_balancer_collection_status_command.cpp` forwards it.
pub fn compliance(cluster: &Cluster) -> Option<(u64, Option<crate::sim::balancer::Violation>)> {
    let coll = collection(cluster)?;
    let chunk_bytes =
        (coll.balancing.max_chunk_size_bytes).unwrap_or(cluster.settings.chunk_size_bytes);
    let alone = Cluster {
        version: cluster.version,
        before_6_0_3: cluster.before_6_0_3,
        shards: cluster.shards.clone(),
        settings: cluster.settings.clone(),
        databases: std::collections::BTreeMap::new(),
        collections: vec![coll],
        pending_zones: Vec::new(),
        now_ms: cluster.now_ms,
        balancer: crate::cluster::balancer::BalancerState::default(),
        next_migration_id: 1,
        failed_actions: Vec::new(),
        poll_notes: Vec::new(),
    };
    let sim = crate::sim::Simulator::from_cluster(alone);
    Some((chunk_bytes, sim.balancer_compliance(0)))
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn uuid_of(key: &ShardKey) -> Vec<u8> {
        match key.get(0) {
            Some(KeyValue::Document(fields)) => match &fields[0].1 {
                KeyValue::Binary(b) => b.bytes.to_vec(),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_presplit_bounds_and_versions() {
        let key = KeyPattern::parse_json(r#"{"_id": 1}"#).unwrap();
        let t = table(&key, ShardIdx(1), true).unwrap();
        assert_eq!(t.len(), 1024);
        assert_eq!(t.version(), ChunkVersion::new(1, 1024));
        // i << 22 in the first 32 bits: 0x00400000, 0x00800000, … 0xffc00000.
        let mut first = [0_u8; 16];
        first[1] = 0x40;
        assert_eq!(uuid_of(t.chunk(1).min), first);
        let mut last = [0_u8; 16];
        last[..2].copy_from_slice(&[0xff, 0xc0]);
        assert_eq!(uuid_of(t.chunk(1023).min), last);
        assert!(t.iter().all(|c| c.info.shard == ShardIdx(1)));
        assert_eq!(table(&key, ShardIdx(0), false).unwrap().len(), 1);
    }
}
