//! A cluster snapshot assembled from `config.*` documents: the same `Cluster` the simulator
//! keeps, so the summary and every view work on a live cluster unchanged. Chunk sizes are not
//! in `config.chunks`; per-shard data comes from `$shardedDataDistribution` / `$collStats`.

use std::collections::BTreeMap;

use super::config::{CollectionDoc, ConfigError, SettingsDocs, ShardDoc, TagDoc};
use super::routing_cache::CachedRouting;
use crate::model::{ChunkInfo, RoutingTable, Shard, ShardIdx, ZoneRanges};
use crate::sim::ServerVersion;
use crate::sim::cluster::{ActiveWindow, Cluster, Collection, Settings, ShardState};

/// What a poll read.
pub struct ConfigSnapshot<'a> {
    pub version: ServerVersion,
    pub shards: &'a [ShardDoc],
    pub settings: &'a SettingsDocs,
    /// Database → primary shard id.
    pub databases: &'a [(String, String)],
    pub collections: &'a [(&'a CollectionDoc, &'a CachedRouting)],
    pub tags: &'a [TagDoc],
}

fn shard_states(shards: &[ShardDoc]) -> Vec<ShardState> {
    shards
        .iter()
        .map(|s| ShardState {
            shard: Shard {
                id: s.id.clone(),
                zones: s.tags.iter().cloned().collect(),
                draining: s.draining,
            },
            capacity: 1.0,
            removed: false,
        })
        .collect()
}

fn index_of(shards: &mut Vec<ShardState>, id: &str) -> ShardIdx {
    if let Some(i) = shards.iter().position(|s| s.shard.id == id) {
        return ShardIdx(i as u32);
    }
    // A chunk on a shard config.shards does not list (removed meanwhile): keep it visible.
    shards.push(ShardState {
        shard: Shard::new(id),
        capacity: 1.0,
        removed: false,
    });
    ShardIdx((shards.len() - 1) as u32)
}

fn collection(
    coll: &CollectionDoc,
    cache: &CachedRouting,
    tags: &[TagDoc],
    shards: &mut Vec<ShardState>,
) -> Result<Collection, ConfigError> {
    let chunks = cache
        .chunks()
        .map(|c| {
            let mut info = ChunkInfo::new(index_of(shards, &c.shard), c.version);
            info.jumbo = c.jumbo;
            info.since = c.since.unwrap_or(0);
            (c.min.clone(), info)
        })
        .collect();
    let table = RoutingTable::from_chunks(chunks, coll.key.global_max())
        .map_err(|e| ConfigError(format!("config.chunks of {}: {e}", coll.ns)))?;
    let mut out = Collection::new(&coll.ns, coll.key.clone(), table);
    let mut zones = ZoneRanges::new();
    for t in tags.iter().filter(|t| t.ns == coll.ns) {
        let bound = |d| {
            crate::sim::zones::zone_bound(&coll.key, d)
                .map_err(|e| ConfigError(format!("config.tags of {}: {e}", coll.ns)))
        };
        zones
            .add(bound(&t.min)?, bound(&t.max)?, t.zone.clone())
            .map_err(|e| ConfigError(format!("config.tags of {}: {e}", coll.ns)))?;
    }
    out.zones = zones;
    out.indexes[0].unique = coll.unique;
    out.balancing = coll.balancing;
    Ok(out)
}

/// The cluster a poll describes.
pub fn cluster(snap: &ConfigSnapshot<'_>) -> Result<Cluster, ConfigError> {
    let mut shards = shard_states(snap.shards);
    let mut collections = Vec::new();
    for (coll, cache) in snap.collections.iter().filter(|(c, _)| c.is_sharded()) {
        collections.push(collection(coll, cache, snap.tags, &mut shards)?);
    }
    collections.sort_by(|a, b| a.ns.cmp(&b.ns));
    let mut databases = BTreeMap::new();
    for (db, primary) in snap.databases {
        let idx = index_of(&mut shards, primary);
        databases.insert(db.clone(), idx);
    }
    let chunk_size_bytes = snap
        .settings
        .chunk_size_mb
        .map_or_else(|| snap.version.default_chunk_size_bytes(), |mb| mb << 20);
    Ok(Cluster {
        version: snap.version,
        shards,
        settings: Settings {
            chunk_size_bytes,
            balancer_enabled: !snap.settings.balancer_off,
            active_window: snap.settings.active_window.map(|(a, b)| ActiveWindow {
                start_minute: a,
                stop_minute: b,
            }),
            migration_bytes_per_sec: 32 << 20,
            migration_overhead_ms: 1000,
            resharding: crate::sim::reshard::ReshardingParams::default(),
        },
        databases,
        collections,
        pending_zones: Vec::new(),
    })
}
