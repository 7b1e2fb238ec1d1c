//! The operations of the simulated cluster — what scenarios (and later the wire server) call:
//! shardCollection, split, mergeChunks, moveChunk/moveRange, balancer start/stop, chunk size,
//! addShard, createIndexes and refineCollectionShardKey — with MongoDB's refusals.

use super::engine::Simulator;
use crate::cluster::Placement;
use crate::cluster::error::MongoError;
use crate::cluster::event::{EventKind, MigrationReason};
use crate::cluster::{Collection, Index, ShardState};
use crate::model::{
    ChunkInfo, ChunkVersion, KeyPattern, KeyValue, RoutingTable, Shard, ShardIdx, ShardKey,
    hashed_split_points,
};

/// Options of `shardCollection`.
#[derive(Clone, Debug, Default)]
pub struct ShardCollectionOptions {
    pub unique: bool,
    /// Initial chunks for a hashed key on an empty collection (default: per server version).
    pub num_initial_chunks: Option<u32>,
    /// `presplitHashedZones`: pre-split the zone ranges defined before sharding at hashed values.
    pub presplit_hashed_zones: bool,
}

impl Simulator {
    /// Index of a sharded collection, or NamespaceNotSharded.
    /// The sharded collection `ns` (an unsharded one is refused as not sharded).
    pub fn coll(&self, ns: &str) -> Result<usize, MongoError> {
        self.cluster
            .collection_index(ns)
            .filter(|&c| self.cluster.collections[c].placement == Placement::Sharded)
            .ok_or_else(|| MongoError::namespace_not_sharded(format!("{ns} is not sharded")))
    }

    pub(super) fn shard(&self, id: &str) -> Result<ShardIdx, MongoError> {
        self.cluster
            .shard_index(id)
            .filter(|s| !self.cluster.shards[s.index()].removed)
            .ok_or_else(|| MongoError::shard_not_found(format!("Shard {id} not found")))
    }

    /// `addShard`: a new, empty shard.
    pub fn add_shard(&mut self, id: &str, capacity: f64) -> Result<ShardIdx, MongoError> {
        if self.cluster.shard_index(id).is_some() {
            return Err(MongoError::illegal_operation(format!(
                "a shard named {id} already exists"
            )));
        }
        if self.cluster.shards.len() >= crate::cluster::MAX_SHARDS {
            return Err(MongoError::illegal_operation(
                crate::cluster::max_shards_text(),
            ));
        }
        self.cluster.shards.push(ShardState {
            shard: Shard::new(id),
            capacity,
            removed: false,
            unlisted: false,
        });
        let idx = ShardIdx((self.cluster.shards.len() - 1) as u32);
        self.emit(EventKind::ShardAdded {
            shard: idx,
            id: id.to_string(),
        });
        Ok(idx)
    }

    /// `shardCollection`: with zone ranges defined beforehand the empty collection gets one chunk
    /// per range and per hole (SingleChunkPerTag); otherwise a hashed key on an empty collection is
    /// pre-split (2 chunks per shard, 1 from 7.2) in contiguous blocks in shard order, and any
    /// other key starts as one chunk on the database's primary shard.
    pub fn shard_collection(
        &mut self,
        ns: &str,
        key: KeyPattern,
        opts: &ShardCollectionOptions,
    ) -> Result<(), MongoError> {
        if !ns.contains('.') || ns.starts_with('.') || ns.ends_with('.') {
            return Err(MongoError::bad_value(format!("Invalid namespace {ns}")));
        }
        if let Some(c) = self.cluster.collection_index(ns)
            && self.cluster.collections[c].placement != Placement::Sharded
        {
            return Err(MongoError::illegal_operation(format!(
                "shardtop does not shard {ns} yet: it holds it unsharded (from a scenario or moveCollection)"
            )));
        }
        if self.cluster.collection_index(ns).is_some() {
            return Err(MongoError::already_sharded(format!(
                "sharding already enabled for collection {ns}"
            )));
        }
        if opts.unique && key.hashed_field().is_some() {
            return Err(MongoError::invalid_options(
                "Hashed shard keys cannot be declared unique. It's possible to ensure uniqueness on the hashed field by declaring an additional (non-hashed) unique index on the field.",
            ));
        }
        let db = ns.split_once('.').map_or(ns, |(d, _)| d).to_string();
        let primary = self.cluster.ensure_database(&db);
        let zones = crate::cluster::zones::zones_for(&self.cluster.pending_zones, ns, &key)?;
        let table = if opts.presplit_hashed_zones {
            super::zones::presplit_zones::presplit_hashed_zones(
                &key,
                &zones,
                &self.cluster.shards,
                opts.num_initial_chunks,
                self.cluster.version,
            )?
        } else if zones.is_empty() {
            self.initial_table(&key, primary, opts.num_initial_chunks)
        } else {
            super::zones::zones_initial::single_chunk_per_tag(
                &key,
                &zones,
                &self.cluster.shards,
                self.cluster.version,
            )?
        };
        let chunks = table.len();
        let mut indexes = vec![Index {
            key: key.clone(),
            unique: opts.unique,
        }];
        if key.fields()[0].path.as_ref() != "_id" || key.hashed_field() == Some(0) {
            indexes.insert(
                0,
                Index {
                    key: KeyPattern::parse_json(r#"{"_id": 1}"#)
                        .map_err(|e| MongoError::bad_value(e.0))?,
                    unique: true,
                },
            );
        }
        let layout = table
            .iter()
            .map(|ch| (ch.min.clone(), ch.info.shard))
            .collect();
        let mut coll = Collection::new(ns, key.clone(), table);
        coll.indexes = indexes;
        coll.zones = zones;
        self.cluster.pending_zones.retain(|r| r.ns != ns);
        let at = self
            .cluster
            .collections
            .partition_point(|c| c.ns.as_str() < ns);
        self.cluster.collections.insert(at, coll);
        self.emit(EventKind::CollectionSharded {
            ns: ns.to_string(),
            key,
            chunks,
            layout,
        });
        Ok(())
    }

    /// The initial chunks of a new collection: one chunk on the primary, or for a hashed first
    /// field pre-split at MongoDB's hashed points. Before 8.0 `numInitialChunks` (default: per
    /// shard, 2 and from 7.2 1) chunks go to the shards in contiguous blocks; from 8.0 there is
    /// one chunk per shard that is not draining, dealt round-robin over those shards in the order
    /// of `std::shuffle` with a default-seeded engine, and `numInitialChunks` is not used.
    // 8.0.10 `db/s/config/initial_split_policy.cpp` (`getAllNonDrainingShardIdsShuffled`,
    // `SplitPointsBasedSplitPolicy`: "a single chunk is allocated to every shard").
    pub(in crate::sim) fn initial_table(
        &self,
        key: &KeyPattern,
        primary: ShardIdx,
        requested: Option<u32>,
    ) -> RoutingTable {
        if key.hashed_field() != Some(0) {
            return RoutingTable::single(key.global_min(), key.global_max(), primary);
        }
        let (n, owner) = self.hashed_owners(primary, requested);
        let mut mins = vec![key.global_min()];
        for p in hashed_split_points(n) {
            let mut values = vec![KeyValue::Int64(p)];
            values.extend(std::iter::repeat_n(KeyValue::MinKey, key.len() - 1));
            mins.extend(ShardKey::from_values(values));
        }
        let chunks = mins
            .into_iter()
            .enumerate()
            .map(|(i, min)| {
                let info = ChunkInfo::new(owner(i as u32), ChunkVersion::new(1, i as u32));
                (min, info)
            })
            .collect();
        RoutingTable::from_chunks(chunks, key.global_max())
            .unwrap_or_else(|_| RoutingTable::single(key.global_min(), key.global_max(), primary))
    }

    /// How many hashed initial chunks, and the owner of chunk `i`.
    fn hashed_owners(
        &self,
        primary: ShardIdx,
        requested: Option<u32>,
    ) -> (u32, Box<dyn Fn(u32) -> ShardIdx>) {
        let version = self.cluster.version;
        if version >= crate::cluster::ServerVersion::V8_0 {
            let mut order: Vec<ShardIdx> = (0..self.cluster.shards.len())
                .filter(|&s| {
                    !self.cluster.shards[s].removed && !self.cluster.shards[s].shard.draining
                })
                .map(|s| ShardIdx(s as u32))
                .collect();
            if order.is_empty() {
                order.push(primary);
            }
            super::std_shuffle::shuffle(&mut order);
            let n = order.len() as u32;
            return (n, Box::new(move |i| order[(i % n) as usize]));
        }
        let shards = self.cluster.shards.len().max(1) as u32;
        let n = requested
            .unwrap_or(shards * version.hashed_chunks_per_shard())
            .max(1);
        let contiguous = (n / shards).max(1);
        let owner = move |i: u32| {
            if n < shards && i == 0 {
                primary
            } else {
                ShardIdx((i / contiguous) % shards)
            }
        };
        (n, Box::new(owner))
    }

    /// Chunk operations wait for a resharding of the collection to end.
    pub(super) fn refuse_if_resharding(&self, c: usize) -> Result<(), MongoError> {
        if self.cluster.collections[c].resharding.is_some() {
            return Err(MongoError::conflicting_operation(format!(
                "{} is being resharded",
                self.cluster.collections[c].ns
            )));
        }
        Ok(())
    }

    pub(super) fn refuse_if_migrating(&self, c: usize, i: usize) -> Result<(), MongoError> {
        let coll = &self.cluster.collections[c];
        let min = coll.table.chunk(i).min;
        if self.cluster.balancer.migrating(&coll.ns, min) {
            return Err(MongoError::conflicting_operation(
                "the chunk is being migrated",
            ));
        }
        Ok(())
    }

    /// `mergeChunks` over `[min, max)`: the bounds must be chunk bounds and the chunks on one shard.
    pub fn merge_chunks(
        &mut self,
        ns: &str,
        min: &ShardKey,
        max: &ShardKey,
    ) -> Result<(), MongoError> {
        let c = self.coll(ns)?;
        let coll = &mut self.cluster.collections[c];
        let first = coll.table.find_by_min(min);
        let end = if max == coll.table.global_max() {
            Some(coll.table.len())
        } else {
            coll.table.find_by_min(max)
        };
        let (Some(first), Some(end)) = (first, end) else {
            return Err(MongoError::illegal_operation(
                "could not merge chunks: the bounds are not chunk boundaries",
            ));
        };
        self.flush_writes(c);
        let coll = &mut self.cluster.collections[c];
        let shard = coll.table.chunk(first).info.shard;
        coll.table
            .merge(first..end)
            .map_err(|e| MongoError::illegal_operation(format!("could not merge chunks: {e}")))?;
        let ns = coll.ns.clone();
        self.emit(EventKind::Merge {
            ns,
            min: min.clone(),
            max: max.clone(),
            shard,
            chunks: end - first,
            auto: false,
        });
        Ok(())
    }

    /// `moveChunk` (whole chunk containing `key`) or `moveRange` (`[key's chunk min, upto)`) to `to`.
    pub fn move_chunk(
        &mut self,
        ns: &str,
        key: &ShardKey,
        upto: Option<&ShardKey>,
        to: &str,
    ) -> Result<(), MongoError> {
        let c = self.coll(ns)?;
        let to = self.shard(to)?;
        self.refuse_if_resharding(c)?;
        let i = self.cluster.collections[c].table.route(key);
        let from = self.cluster.collections[c].table.chunk(i).info.shard;
        if from == to {
            return Err(MongoError::illegal_operation(
                "the chunk is already on that shard",
            ));
        }
        let busy = self.busy_shards();
        if busy[from.index()] || busy[to.index()] {
            return Err(MongoError::conflicting_operation(
                "a shard involved is already in a migration",
            ));
        }
        self.start_migration(c, i, upto, to, MigrationReason::Manual)
    }

    /// `moveChunk` with `forceJumbo: true`: the chunk holding `key` moves whatever its size, and
    /// loses its jumbo flag.
    pub fn move_chunk_forced(
        &mut self,
        ns: &str,
        key: &ShardKey,
        to: &str,
    ) -> Result<(), MongoError> {
        let c = self.coll(ns)?;
        let to = self.shard(to)?;
        let i = self.cluster.collections[c].table.route(key);
        let from = self.cluster.collections[c].table.chunk(i).info.shard;
        let busy = self.busy_shards();
        if from == to || busy[from.index()] || busy[to.index()] {
            return Err(MongoError::conflicting_operation(
                "the chunk is on that shard or a shard involved is in a migration",
            ));
        }
        self.start_migration(c, i, None, to, MigrationReason::ManualForce)
    }

    /// `balancerStart` / `balancerStop`.
    pub fn set_balancer(&mut self, enabled: bool) {
        if self.cluster.settings.balancer_enabled != enabled {
            self.cluster.settings.balancer_enabled = enabled;
            self.emit(EventKind::BalancerSet { enabled });
        }
    }

    /// `config.settings` `{_id: "automerge", enabled}` (read from 7.0; earlier servers store the
    /// document and ignore it).
    pub fn set_auto_merge(&mut self, enabled: bool) {
        if self.cluster.settings.auto_merge != enabled {
            self.cluster.settings.auto_merge = enabled;
            self.emit(EventKind::AutoMergerSet { enabled });
        }
    }

    /// The balancer document's `attemptToBalanceJumboChunks` (4.4+).
    pub fn set_attempt_to_balance_jumbo_chunks(&mut self, enabled: bool) {
        if self.cluster.settings.attempt_to_balance_jumbo_chunks != enabled {
            self.cluster.settings.attempt_to_balance_jumbo_chunks = enabled;
            self.emit(EventKind::AttemptToBalanceJumboChunksSet { enabled });
        }
    }

    /// `config.settings` chunksize, in MB (1..=1024).
    pub fn set_chunk_size_mb(&mut self, mb: u64) -> Result<(), MongoError> {
        if !(1..=1024).contains(&mb) {
            return Err(MongoError::bad_value(
                "chunksize must be between 1 and 1024 MB",
            ));
        }
        self.cluster.settings.chunk_size_bytes = mb << 20;
        self.emit(EventKind::ChunkSizeSet { bytes: mb << 20 });
        Ok(())
    }

    /// `refineCollectionShardKey`: the new key must extend the current one with suffix fields and
    /// have a supporting index. Bounds gain MinKey for the new fields, jumbo flags are cleared and
    /// the collection gets a new epoch; no data moves.
    pub fn refine_shard_key(&mut self, ns: &str, key: KeyPattern) -> Result<(), MongoError> {
        let c = self.coll(ns)?;
        let coll = &self.cluster.collections[c];
        if !is_prefix(&coll.pattern, &key)
            || key.len() <= coll.pattern.len()
            || key.hashed_field() != coll.pattern.hashed_field()
        {
            return Err(MongoError::invalid_options(format!(
                "refineCollectionShardKey shard key {} does not extend the current shard key {}",
                key.server_text(),
                coll.pattern.server_text()
            )));
        }
        if !coll.indexes.iter().any(|i| is_prefix(&key, &i.key)) {
            return Err(MongoError::invalid_options(
                "Please create an index that starts with the proposed shard key before refining the collection's shard key.",
            ));
        }
        let Some(store) = coll.docs.clone() else {
            return Err(MongoError::illegal_operation(
                "the simulator did not keep this collection's documents (scenario: keepDocuments)",
            ));
        };
        let entries: Vec<(ShardKey, u64)> = store
            .docs
            .iter()
            .filter_map(|(values, bytes)| {
                key.key_of(store.values_for(&key, values))
                    .ok()
                    .map(|k| (k, *bytes))
            })
            .collect();
        self.flush_writes(c);
        let coll = &mut self.cluster.collections[c];
        coll.refine_key(key.clone())
            .map_err(|e| MongoError::illegal_operation(e.to_string()))?;
        coll.keys.rebuild(entries);
        for w in &mut self.workloads {
            if w.coll_ns == ns {
                w.key_sources = super::scenario::setup::key_sources(&key, &w.fields);
            }
        }
        self.emit(EventKind::KeyRefined {
            ns: ns.to_string(),
            key,
        });
        Ok(())
    }
}

/// Whether `prefix`'s field names start `key`'s, whatever their kinds: how a unique index is
/// checked against a shard key (`{customerId: "hashed"}` allows unique `{customerId: 1, orderNo: 1}`).
pub fn is_field_name_prefix(prefix: &KeyPattern, key: &KeyPattern) -> bool {
    prefix.len() <= key.len()
        && prefix
            .fields()
            .iter()
            .zip(key.fields())
            .all(|(a, b)| a.path == b.path)
}

/// Whether `prefix`'s fields (with their kinds) start `key`.
pub(super) fn is_prefix(prefix: &KeyPattern, key: &KeyPattern) -> bool {
    prefix.len() <= key.len()
        && prefix
            .fields()
            .iter()
            .zip(key.fields())
            .all(|(a, b)| a == b)
}
