//! A cluster assembled from `config.*` documents: the same `Cluster` the simulator keeps, so the
//! summary and every view work on a live cluster unchanged. Chunk sizes are not in
//! `config.chunks`; per-shard data comes from `$shardedDataDistribution` / `$collStats`.

use std::collections::{BTreeMap, HashMap};

use super::config::{CollectionDoc, SettingsDocs, ShardDoc, TagDoc};
use crate::cluster::ServerVersion;
use crate::cluster::{ActiveWindow, Cluster, Collection, Settings, ShardState};
use crate::model::{RoutingTable, Shard, ShardIdx, ZoneRanges};

/// The shards of a poll, numbered: those `config.shards` lists, in its order, then any other a
/// chunk or a database names (removed meanwhile: kept visible).
#[derive(Clone, Debug, Default)]
pub struct ShardList {
    ids: Vec<String>,
    index: HashMap<String, ShardIdx>,
}

impl ShardList {
    /// `config.shards`, then the shards of `previous` that are gone from it but still own
    /// chunks there.
    pub fn new(docs: &[ShardDoc], previous: &Cluster) -> Self {
        let mut list = Self::default();
        for d in docs {
            list.index_of(&d.id);
        }
        for (s, state) in previous.shards.iter().enumerate() {
            let idx = ShardIdx(s as u32);
            let owns = previous
                .collections
                .iter()
                .any(|c| c.table.shard_totals(idx).chunks > 0);
            if owns {
                list.index_of(&state.shard.id);
            }
        }
        list
    }

    /// The index of shard `id`, numbering it if new.
    pub fn index_of(&mut self, id: &str) -> ShardIdx {
        if let Some(&i) = self.index.get(id) {
            return i;
        }
        let i = ShardIdx(self.ids.len() as u32);
        self.ids.push(id.to_string());
        self.index.insert(id.to_string(), i);
        i
    }

    /// The index of shard `id`, if numbered.
    pub fn get(&self, id: &str) -> Option<ShardIdx> {
        self.index.get(id).copied()
    }

    /// Where each shard of `previous` is in this list (itself when not listed).
    pub fn renumbering(&self, previous: &Cluster) -> Vec<ShardIdx> {
        previous
            .shards
            .iter()
            .enumerate()
            .map(|(s, state)| self.get(&state.shard.id).unwrap_or(ShardIdx(s as u32)))
            .collect()
    }

    fn states(&self, docs: &[ShardDoc]) -> Vec<ShardState> {
        let by_id: HashMap<&str, &ShardDoc> = docs.iter().map(|d| (d.id.as_str(), d)).collect();
        self.ids
            .iter()
            .map(|id| {
                let doc = by_id.get(id.as_str());
                ShardState {
                    shard: Shard {
                        id: id.clone(),
                        zones: doc
                            .map(|d| d.tags.iter().cloned().collect())
                            .unwrap_or_default(),
                        draining: doc.is_some_and(|d| d.draining),
                    },
                    capacity: 1.0,
                    removed: false,
                    unlisted: doc.is_none(),
                }
            })
            .collect()
    }
}

/// What a poll read, besides the routing tables.
pub struct ConfigSnapshot<'a> {
    pub version: ServerVersion,
    pub shards: &'a [ShardDoc],
    pub settings: &'a SettingsDocs,
    /// Database → primary shard id.
    pub databases: &'a [(String, String)],
    pub tags: &'a [TagDoc],
}

/// A collection of the model from its `config.collections` document, table and zones. Zone
/// ranges that do not fit the shard key or overlap (a server refuses to create them; the
/// documents can still say so) are left out, each with a note saying why.
pub fn collection(
    coll: &CollectionDoc,
    table: RoutingTable,
    tags: &[TagDoc],
) -> (Collection, Vec<String>) {
    let mut out = Collection::new(&coll.ns, coll.key.clone(), table);
    let mut zones = ZoneRanges::new();
    let mut notes = Vec::new();
    for t in tags.iter().filter(|t| t.ns == coll.ns) {
        let bound = |d| crate::cluster::zones::zone_bound(&coll.key, d);
        let added = match (bound(&t.min), bound(&t.max)) {
            (Ok(min), Ok(max)) => zones
                .add(min, max, t.zone.clone())
                .map_err(|e| e.to_string()),
            (Err(e), _) | (_, Err(e)) => Err(e.to_string()),
        };
        if let Err(e) = added {
            notes.push(format!(
                "config.tags of {}: zone {} not shown: {e}",
                coll.ns, t.zone
            ));
        }
    }
    out.zones = zones;
    out.indexes[0].unique = coll.unique;
    out.balancing = coll.balancing;
    out.timeseries = coll.timeseries;
    out.defragmentation = coll.defragmentation.flatten();
    (out, notes)
}

/// The cluster a poll describes, with its collections (any order) and shard list.
pub fn cluster(
    snap: &ConfigSnapshot<'_>,
    mut shards: ShardList,
    mut collections: Vec<Collection>,
) -> Cluster {
    collections.sort_by(|a, b| a.ns.cmp(&b.ns));
    let mut databases = BTreeMap::new();
    for (db, primary) in snap.databases {
        databases.insert(db.clone(), shards.index_of(primary));
    }
    let chunk_size_bytes = snap
        .settings
        .chunk_size_mb
        .map_or_else(|| snap.version.default_chunk_size_bytes(), |mb| mb << 20);
    Cluster {
        version: snap.version,
        before_6_0_3: false,
        shards: shards.states(snap.shards),
        settings: Settings {
            chunk_size_bytes,
            balancer_enabled: snap.settings.balancer_mode.migrates(),
            auto_split_only: snap.settings.balancer_mode
                == crate::cluster::balancer::BalancerMode::AutoSplitOnly,
            active_window: snap.settings.active_window.map(|(a, b)| ActiveWindow {
                start_minute: a,
                stop_minute: b,
            }),
            window_rejected: snap.settings.window_rejected.clone(),
            auto_merge: snap.settings.auto_merge,
            attempt_to_balance_jumbo_chunks: snap.settings.attempt_to_balance_jumbo_chunks,
            migration_bytes_per_sec: 32 << 20,
            migration_overhead_ms: 1000,
            resharding: crate::cluster::resharding::ReshardingParams::default(),
            orphan_cleanup_delay_secs: None,
            balancer_migrations_throttling_ms: None,
        },
        databases,
        collections,
        pending_zones: Vec::new(),
        now_ms: 0,
        balancer: crate::cluster::balancer::BalancerState::default(),
        next_migration_id: 1,
        failed_actions: Vec::new(),
        poll_notes: Vec::new(),
    }
}

/// A cluster with nothing in it (before the first poll).
pub fn empty() -> Cluster {
    let snap = ConfigSnapshot {
        version: ServerVersion::DEFAULT,
        shards: &[],
        settings: &SettingsDocs::default(),
        databases: &[],
        tags: &[],
    };
    cluster(&snap, ShardList::default(), Vec::new())
}
