//! The simulated cluster's state: shards, settings, databases and sharded collections (each with
//! its routing table, zones, key index, indexes and recent writes).

use std::collections::BTreeMap;

use super::key_index::KeyIndex;
use super::version::ServerVersion;
use super::window::WriteWindow;
use crate::model::{
    ChunkStats, KeyPattern, KeyValue, RoutingTable, Shard, ShardIdx, ShardKey, ZoneRanges,
};

/// A shard and its relative capacity (1.0 = an ordinary shard).
#[derive(Clone, Debug)]
pub struct ShardState {
    pub shard: Shard,
    pub capacity: f64,
    /// Removed by `removeShard` once drained (kept so shard indexes stay stable).
    pub removed: bool,
}

/// The balancer's active window (`activeWindow`), in minutes after midnight of virtual time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActiveWindow {
    pub start_minute: u32,
    pub stop_minute: u32,
}

impl ActiveWindow {
    /// Whether virtual time `now_ms` is inside the window (`start > stop` wraps midnight).
    pub fn contains(self, now_ms: u64) -> bool {
        let minute = ((now_ms / 60_000) % (24 * 60)) as u32;
        if self.start_minute <= self.stop_minute {
            (self.start_minute..self.stop_minute).contains(&minute)
        } else {
            minute >= self.start_minute || minute < self.stop_minute
        }
    }
}

/// Cluster-wide settings (`config.settings`).
#[derive(Clone, Debug)]
pub struct Settings {
    pub chunk_size_bytes: u64,
    pub balancer_enabled: bool,
    pub active_window: Option<ActiveWindow>,
    /// Migration speed of the simulated network and disks.
    pub migration_bytes_per_sec: u64,
    /// Fixed cost of a migration (clone set-up, catch-up, commit), in milliseconds.
    pub migration_overhead_ms: u64,
    /// Server parameters of `reshardCollection`.
    pub resharding: super::reshard::ReshardingParams,
}

/// A secondary index (only what sharding rules look at).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Index {
    pub key: KeyPattern,
    pub unique: bool,
}

/// The documents of a collection as field values (kept when the shard key may change).
#[derive(Clone, Debug, Default)]
pub struct DocStore {
    pub fields: Vec<String>,
    pub docs: Vec<(Vec<KeyValue>, u64)>,
}

impl DocStore {
    /// The values of `pattern`'s fields for document `i` (a missing field is null).
    pub fn values_for(&self, pattern: &KeyPattern, values: &[KeyValue]) -> Vec<KeyValue> {
        pattern
            .fields()
            .iter()
            .map(|f| {
                self.fields
                    .iter()
                    .position(|n| **n == *f.path)
                    .map_or(KeyValue::Null, |k| values[k].clone())
            })
            .collect()
    }
}

/// Writes of one chunk since the last flush: its lower bound, the counts, and the first key
/// written (the recent-writes window attributes the writes through that key, so they follow it
/// into the right piece after a split).
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkWrites {
    pub min: ShardKey,
    pub stats: ChunkStats,
    pub sample: ShardKey,
}

/// Writes not yet reported, by chunk index; they are flushed (reported as a `writes` event) before
/// any split, merge or migration shifts or moves chunks, and at the end of every tick.
#[derive(Clone, Debug, Default)]
pub struct PendingWrites {
    by_index: BTreeMap<usize, (ChunkStats, ShardKey)>,
    tick_samples: Vec<(ShardKey, u64)>,
    tick_by_shard: Vec<u64>,
}

impl PendingWrites {
    pub fn add(&mut self, chunk: usize, shard: ShardIdx, delta: ChunkStats, key: &ShardKey) {
        self.by_index
            .entry(chunk)
            .or_insert_with(|| (ChunkStats::ZERO, key.clone()))
            .0
            .add(delta);
        if self.tick_by_shard.len() <= shard.index() {
            self.tick_by_shard.resize(shard.index() + 1, 0);
        }
        self.tick_by_shard[shard.index()] += delta.writes;
    }

    /// Takes the unreported writes, per chunk (by the chunk's current lower bound).
    pub fn flush(&mut self, table: &RoutingTable) -> Vec<ChunkWrites> {
        std::mem::take(&mut self.by_index)
            .into_iter()
            .map(|(i, (stats, sample))| {
                self.tick_samples.push((sample.clone(), stats.writes));
                ChunkWrites {
                    min: table.chunk(i).min.clone(),
                    stats,
                    sample,
                }
            })
            .collect()
    }

    /// Ends the tick: its sample keys with their counts and the writes per shard.
    pub fn end_tick(&mut self) -> (Vec<(ShardKey, u64)>, Vec<u64>) {
        (
            std::mem::take(&mut self.tick_samples),
            std::mem::take(&mut self.tick_by_shard),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.by_index.is_empty() && self.tick_samples.is_empty()
    }

    /// Records writes reported by a `writes` event (replaying a trace): they join the tick.
    pub fn record_reported(&mut self, sample: ShardKey, shard: ShardIdx, writes: u64) {
        self.tick_samples.push((sample, writes));
        if self.tick_by_shard.len() <= shard.index() {
            self.tick_by_shard.resize(shard.index() + 1, 0);
        }
        self.tick_by_shard[shard.index()] += writes;
    }

    /// Extends the tick's sample keys after the shard key was refined.
    fn extend_keys(&mut self, added: usize, fill: &KeyValue) {
        for (key, _) in &mut self.tick_samples {
            let mut values: Vec<KeyValue> = key.values().cloned().collect();
            values.extend(std::iter::repeat_n(fill.clone(), added));
            if let Some(k) = ShardKey::from_values(values) {
                *key = k;
            }
        }
    }
}

/// A sharded collection.
#[derive(Clone, Debug)]
pub struct Collection {
    pub ns: String,
    pub pattern: KeyPattern,
    pub table: RoutingTable,
    pub zones: ZoneRanges,
    pub keys: KeyIndex,
    pub docs: Option<DocStore>,
    pub indexes: Vec<Index>,
    pub window: WriteWindow,
    pub pending: PendingWrites,
    /// Writes routed to each shard since the start (by shard index).
    pub routed_writes: Vec<u64>,
    /// Bumped when the collection gets a new epoch (refine, reshard).
    pub incarnation: u32,
    /// A `reshardCollection` in progress.
    pub resharding: Option<super::reshard::Resharding>,
    /// `configureCollectionBalancing`: the collection's own chunk size (`maxChunkSizeBytes`)
    /// and whether the AutoMerger may consider it (shardtop does not simulate the AutoMerger).
    pub balancing: CollectionBalancing,
}

/// Per-collection balancer settings (`configureCollectionBalancing`, 5.3+).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CollectionBalancing {
    pub max_chunk_size_bytes: Option<u64>,
    pub auto_merge: Option<bool>,
}

impl Collection {
    /// A collection with the given routing table, no zones, no data in its key index, and the
    /// shard key's index.
    pub fn new(ns: &str, pattern: KeyPattern, table: RoutingTable) -> Self {
        Self {
            ns: ns.to_string(),
            indexes: vec![Index {
                key: pattern.clone(),
                unique: false,
            }],
            pattern,
            table,
            zones: ZoneRanges::new(),
            keys: KeyIndex::new(),
            docs: None,
            window: WriteWindow::new(super::engine::WINDOW_TICKS),
            pending: PendingWrites::default(),
            routed_writes: Vec::new(),
            incarnation: 1,
            resharding: None,
            balancing: CollectionBalancing::default(),
        }
    }

    /// Takes a refined key (a suffix-extended pattern): chunk bounds gain MinKey for the new fields
    /// (MaxKey in the global max), jumbo flags are cleared, the collection gets a new incarnation.
    /// The key index is the caller's to rebuild.
    pub fn refine_key(&mut self, key: KeyPattern) -> Result<(), crate::model::RoutingError> {
        let added = key.len().saturating_sub(self.pattern.len());
        let extend = |k: &ShardKey| {
            let mut v: Vec<KeyValue> = k.values().cloned().collect();
            let fill = if v.iter().all(|x| *x == KeyValue::MaxKey) {
                KeyValue::MaxKey
            } else {
                KeyValue::MinKey
            };
            v.extend(std::iter::repeat_n(fill, added));
            ShardKey::from_values(v)
        };
        let chunks = self
            .table
            .iter()
            .filter_map(|ch| {
                Some((
                    extend(ch.min)?,
                    crate::model::ChunkInfo {
                        jumbo: false,
                        ..*ch.info
                    },
                ))
            })
            .collect();
        self.table = RoutingTable::from_chunks(chunks, key.global_max())?;
        self.window.extend_keys(added, &KeyValue::MinKey);
        self.pending.extend_keys(added, &KeyValue::MinKey);
        self.pattern = key;
        self.incarnation += 1;
        Ok(())
    }

    /// Installs the routing table a resharding committed: the new key, chunks versioned (1, 0),
    /// (1, 1), … of a new incarnation, no zones, a fresh recent-writes window. The key index is the
    /// caller's to rebuild.
    pub fn install_resharded(
        &mut self,
        key: KeyPattern,
        layout: &[super::reshard::NewChunk],
        now_secs: u64,
    ) -> Result<(), crate::model::RoutingError> {
        let chunks = layout
            .iter()
            .enumerate()
            .map(|(i, (min, shard, stats))| {
                let mut info = crate::model::ChunkInfo::new(
                    *shard,
                    crate::model::ChunkVersion::new(1, i as u32),
                );
                info.stats = *stats;
                info.since = now_secs;
                (min.clone(), info)
            })
            .collect();
        self.table = RoutingTable::from_chunks(chunks, key.global_max())?;
        if !self.indexes.iter().any(|i| i.key == key) {
            self.indexes.push(Index {
                key: key.clone(),
                unique: false,
            });
        }
        self.pattern = key;
        self.zones = crate::model::ZoneRanges::new();
        self.window = super::window::WriteWindow::new(super::engine::WINDOW_TICKS);
        self.pending = PendingWrites::default();
        self.resharding = None;
        self.incarnation += 1;
        Ok(())
    }

    /// Writes routed to `shard` since the start.
    pub fn writes_to(&self, shard: ShardIdx) -> u64 {
        self.routed_writes.get(shard.index()).copied().unwrap_or(0)
    }

    /// The database name of the namespace.
    pub fn db(&self) -> &str {
        self.ns
            .split_once('.')
            .map_or(self.ns.as_str(), |(db, _)| db)
    }
}

/// The whole simulated cluster.
#[derive(Clone, Debug)]
pub struct Cluster {
    pub version: ServerVersion,
    pub shards: Vec<ShardState>,
    pub settings: Settings,
    /// Database → primary shard.
    pub databases: BTreeMap<String, ShardIdx>,
    /// Sharded collections, in namespace order.
    pub collections: Vec<Collection>,
    /// Zone ranges of namespaces not sharded yet.
    pub pending_zones: Vec<super::zones_initial::PendingZoneRange>,
}

impl Cluster {
    /// The namespaces of the sharded collections.
    pub fn namespaces(&self) -> Vec<String> {
        self.collections.iter().map(|c| c.ns.clone()).collect()
    }

    /// The chunk size that governs collection `c`: its own (`configureCollectionBalancing`) or
    /// the cluster's (`config.settings` chunksize).
    pub fn chunk_size_of(&self, c: usize) -> u64 {
        self.collections[c]
            .balancing
            .max_chunk_size_bytes
            .unwrap_or(self.settings.chunk_size_bytes)
    }

    pub fn shard_index(&self, id: &str) -> Option<ShardIdx> {
        self.shards
            .iter()
            .position(|s| s.shard.id == id)
            .map(|i| ShardIdx(i as u32))
    }

    pub fn shard_id(&self, idx: ShardIdx) -> &str {
        self.shards
            .get(idx.index())
            .map_or("?", |s| s.shard.id.as_str())
    }

    pub fn collection_index(&self, ns: &str) -> Option<usize> {
        self.collections
            .binary_search_by(|c| c.ns.as_str().cmp(ns))
            .ok()
    }

    pub fn collection(&self, ns: &str) -> Option<&Collection> {
        self.collection_index(ns).map(|i| &self.collections[i])
    }
}
