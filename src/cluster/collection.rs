//! A sharded collection at one instant: its shard key, routing table, zones, the index of its
//! shard-key values, its secondary indexes, kept documents, recent writes and a resharding in
//! flight — and the changes of its own state that several producers make (refining the key,
//! installing a resharded table).

use super::key_index::KeyIndex;
use super::window::WriteWindow;
use super::writes::PendingWrites;
use crate::model::{
    ChunkStats, KeyPattern, KeyValue, RoutingTable, ShardIdx, ShardKey, ZoneRanges,
};

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

/// One way a collection's routing metadata is inconsistent, named as `checkMetadataConsistency`
/// names it (`kind`: `RoutingTableRangeOverlap`, `RoutingTableRangeGap`,
/// `RoutingTableMissingMinKey`, `RoutingTableMissingMaxKey`; mongo
/// `src/mongo/db/s/metadata_consistency_util.cpp`), and what it is, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inconsistency {
    pub kind: String,
    pub description: String,
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
    pub resharding: Option<super::resharding::Resharding>,
    /// A live cluster's resharding in progress, as its `$currentOp` reports it.
    pub resharding_progress: Option<super::resharding::ReshardingProgress>,
    /// `configureCollectionBalancing`: the collection's own chunk size (`maxChunkSizeBytes`)
    /// and whether the AutoMerger may consider it.
    pub balancing: CollectionBalancing,
    /// Ranges migrations left on their donors, waiting for the range deleter (orphans).
    pub range_deletions: super::orphans::RangeDeletions,
    /// Sharded, or unsharded (8.0: tracked as `unsplittable`, or not in the catalog at all).
    pub placement: Placement,
    /// `defragmentCollection: true` and its `defragmentationPhase`, while it runs.
    pub defragmentation: Option<super::defragmentation::DefragmentationPhase>,
    /// Shards whose reported size of the collection was out of what a server reports (a live
    /// cluster): their sizes are invalid, not zero.
    pub invalid_sizes: Vec<ShardIdx>,
    /// What is inconsistent in its routing metadata as read (a live cluster only; empty when
    /// its chunks tile the key space). Its table then shows the chunks sorted by lower bound.
    pub inconsistencies: Vec<Inconsistency>,
    /// A time series known by its own namespace: its `config.collections` entry has
    /// `timeseriesFields` (`src/mongo/s/catalog/type_collection.idl`) where the name is not a
    /// `system.buckets.` one (9.0: one namespace). Its documents are buckets all the same.
    pub timeseries: bool,
}

/// Whether a collection is sharded. An unsharded collection is modelled as one chunk
/// `[{_id: MinKey}, {_id: MaxKey})` on the shard that holds it; it is never split, merged or
/// balanced. From 8.0 `moveCollection` and `unshardCollection` leave it tracked in the catalog
/// (`config.collections` `unsplittable: true`, key `{_id: 1}`, one `config.chunks` entry); before
/// that it lives on its database's primary shard and the catalog does not know it.
// 8.0 `s/catalog/type_collection.idl` (`unsplittable`), `db/s/shard_key_util` and
// `sharding_ddl_util` (`kUnsplittableCollectionShardKey`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Placement {
    #[default]
    Sharded,
    Unsplittable,
    Untracked,
}

impl Placement {
    /// The name the JSON summary and keyframes use.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sharded => "sharded",
            Self::Unsplittable => "unsplittable",
            Self::Untracked => "untracked",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Sharded, Self::Unsplittable, Self::Untracked]
            .into_iter()
            .find(|p| p.as_str() == s)
    }
}

/// Per-collection balancer settings (`configureCollectionBalancing`, 5.3+).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CollectionBalancing {
    pub max_chunk_size_bytes: Option<u64>,
    pub auto_merge: Option<bool>,
    /// `noBalance: true` in `config.collections` (`sh.disableBalancing`): the balancer skips the
    /// collection entirely, drains included.
    pub no_balance: bool,
    /// `permitMigrations: false` (`setAllowMigrations`): no migration of the collection commits
    /// and the balancer leaves it alone; merges go on.
    pub migrations_blocked: bool,
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
            window: WriteWindow::new(),
            pending: PendingWrites::default(),
            routed_writes: Vec::new(),
            incarnation: 1,
            resharding: None,
            resharding_progress: None,
            balancing: CollectionBalancing::default(),
            range_deletions: super::orphans::RangeDeletions::default(),
            defragmentation: None,
            inconsistencies: Vec::new(),
            placement: Placement::Sharded,
            invalid_sizes: Vec::new(),
            timeseries: false,
        }
    }

    /// What its documents are: `buckets` for a time series (named `db.system.buckets.coll`, or
    /// marked by its `timeseriesFields`), `docs` otherwise.
    pub fn unit(&self) -> &'static str {
        if self.timeseries {
            "buckets"
        } else {
            super::ns_kind::NsKind::of(&self.ns).unit()
        }
    }

    /// Its shard key as Extended JSON; `None` for an untracked unsharded collection, which has
    /// none (no document names one: nothing is invented).
    pub fn key_json(&self) -> Option<serde_json::Value> {
        (self.placement != Placement::Untracked)
            .then(|| bson::Bson::Document(self.pattern.to_document()).into_relaxed_extjson())
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
    /// (1, 1), … of a new incarnation, the new zones, a fresh recent-writes window. The key index
    /// is the caller's to rebuild.
    pub fn install_resharded(
        &mut self,
        key: KeyPattern,
        layout: &[super::resharding::NewChunk],
        zones: &[crate::model::zones::ZoneRange],
        now_secs: u64,
    ) -> Result<(), String> {
        // The donors drop the old incarnation, its orphans with it.
        self.range_deletions.clear();
        self.defragmentation = None;
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
        self.table =
            RoutingTable::from_chunks(chunks, key.global_max()).map_err(|e| e.to_string())?;
        if !self.indexes.iter().any(|i| i.key == key) {
            self.indexes.push(Index {
                key: key.clone(),
                unique: false,
            });
        }
        self.pattern = key;
        self.zones = crate::model::ZoneRanges::new();
        for z in zones {
            self.zones
                .add(z.min.clone(), z.max.clone(), z.zone.as_str())
                .map_err(|e| e.to_string())?;
        }
        self.window = WriteWindow::new();
        self.pending = PendingWrites::default();
        self.resharding = None;
        self.incarnation += 1;
        Ok(())
    }

    /// Ends the tick that started at `at_ms`: its writes join the recent-writes window.
    pub fn close_tick(&mut self, at_ms: u64) {
        let (samples, by_shard) = self.pending.end_tick();
        let spare = self.window.push(at_ms, samples, by_shard, &self.table);
        self.pending.reuse(spare);
    }

    /// Counts `n` writes routed to `shard`.
    pub fn count_routed_writes(&mut self, shard: ShardIdx, n: u64) {
        if self.routed_writes.len() <= shard.index() {
            self.routed_writes.resize(shard.index() + 1, 0);
        }
        self.routed_writes[shard.index()] += n;
    }

    /// The routing-table side of a shard-key update: one document of `bytes` leaves the chunk of
    /// `from` and enters the chunk of `to`; each side counts a write on its shard.
    pub fn move_document(&mut self, from: &ShardKey, to: &ShardKey, bytes: u64) {
        let (i, j) = (self.table.route(from), self.table.route(to));
        self.table.remove_stats(i, ChunkStats::new(1, bytes, 0));
        self.table.add_stats(i, ChunkStats::new(0, 0, 1));
        self.table.add_stats(j, ChunkStats::new(1, bytes, 1));
        for k in [i, j] {
            self.count_routed_writes(self.table.chunk(k).info.shard, 1);
        }
    }

    /// The routing-table side of a delete: one document of `bytes` leaves the chunk owning `key`
    /// (its counts never go below zero) and the delete counts as a write on that chunk's shard.
    pub fn delete_document(&mut self, key: &ShardKey, bytes: u64) {
        let i = self.table.route(key);
        self.table.remove_stats(i, ChunkStats::new(1, bytes, 0));
        self.table.add_stats(i, ChunkStats::new(0, 0, 1));
        self.count_routed_writes(self.table.chunk(i).info.shard, 1);
    }

    /// What keeps the balancer, migrations or the AutoMerger from this collection, one phrase
    /// each in MongoDB's words: `noBalance` (`sh.disableBalancing`), `permitMigrations: false`
    /// (`setAllowMigrations`), `enableAutoMerge: false`, a defragmentation running.
    // 8.0 `s/catalog/type_collection.idl` (`noBalance`, `permitMigrations`, `enableAutoMerge`,
    // `defragmentCollection`, `defragmentationPhase`).
    pub fn balancing_notes(&self) -> Vec<String> {
        let b = &self.balancing;
        let mut out = Vec::new();
        if b.no_balance {
            out.push("noBalance: the balancer skips it".to_string());
        }
        if b.migrations_blocked {
            out.push("permitMigrations: false".to_string());
        }
        if b.auto_merge == Some(false) {
            out.push("enableAutoMerge: false".to_string());
        }
        if let Some(p) = self.defragmentation {
            out.push(format!("defragmenting ({})", p.as_str()));
        }
        out
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
