//! What a sharded cluster is at one instant: its shards and their state, its settings, databases,
//! sharded collections with their routing tables and zones, the balancer's state and the
//! migrations and reshardings in flight, the recent writes, the events that change a cluster, the
//! server version and MongoDB's errors.
//!
//! Owns: these values and the transitions every producer shares. Builds on `model`. May not
//! touch: the simulator's rules over time (`sim`), I/O of any kind, tokio, mongodb, ratatui, the
//! wall clock. The simulator, a live poll and a trace replay all yield a [`Cluster`].

pub mod apply;
pub mod balancer;
pub mod balancing_window;
pub mod collection;
pub mod defragmentation;
pub mod describe;
pub mod drain;
pub mod error;
pub mod event;
pub mod explain;
pub mod failed_actions;
pub mod heat_history;
pub mod history;
pub mod hotspot;
pub mod key_index;
pub mod ns_kind;
pub mod orphans;
pub mod privileges;
pub mod resharding;
mod resharding_json;
pub mod summary;
pub mod version;
pub mod window;
pub mod writes;
pub mod zones;

use std::collections::BTreeMap;

pub use collection::{Collection, CollectionBalancing, DocStore, Inconsistency, Index, Placement};
pub use error::MongoError;
pub use event::{Event, EventKind};
pub use summary::SummaryOptions;
pub use version::ServerVersion;
pub use writes::{ChunkWrites, PendingWrites};

use crate::model::{Shard, ShardIdx};

/// The most shards a cluster holds in shardtop: a scenario file's `shards`, the shards `addShard`
/// adds (a scenario's actions, `serve`'s `addShard`), `shardtop whatif --add-shards` and the TUI's
/// what-if fork (`W`) are all held to it. MongoDB documents no hard limit on the number of shards;
/// this one is shardtop's, chosen where the simulator stays fast: a what-if adding 10,000 shards
/// runs in about a second and a half in a debug build, while the cost of adding shards grows with
/// their square (20,000: 6 s, 40,000: 29 s — docs/whatif.md).
pub const MAX_SHARDS: usize = 10_000;

/// The words of a refusal past [`MAX_SHARDS`], the same wherever shards are added.
pub fn max_shards_text() -> String {
    format!(
        "a cluster holds at most {MAX_SHARDS} shards in shardtop (MongoDB documents no limit; \
         this bound keeps the simulator fast)"
    )
}

/// A shard and its relative capacity (1.0 = an ordinary shard).
#[derive(Clone, Debug)]
pub struct ShardState {
    pub shard: Shard,
    pub capacity: f64,
    /// Removed by `removeShard` once drained (kept so shard indexes stay stable).
    pub removed: bool,
    /// Named by a chunk or a database of a live cluster but not listed in `config.shards`
    /// (removed meanwhile, or a catalog inconsistency): not a shard like the others.
    pub unlisted: bool,
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

/// How a rejected balancer document reads, in MongoDB's words and what it means: the balancer's
/// "why" line, the diagnosis's cause.
pub fn rejected_settings_text(why: &str) -> String {
    format!(
        "Failed to refresh the balancer settings :: caused by :: {why} — every round is skipped: no balancing until fixed"
    )
}

/// Cluster-wide settings (`config.settings`).
#[derive(Clone, Debug)]
pub struct Settings {
    pub chunk_size_bytes: u64,
    /// The balancer migrates (mode `full`). See [`Cluster::balancer_mode`].
    pub balancer_enabled: bool,
    /// The balancer's mode is `autoSplitOnly` (before 7.1): it does not migrate
    /// (`balancer_enabled` is false) but is not `off` either.
    pub auto_split_only: bool,
    pub active_window: Option<ActiveWindow>,
    /// The config server's error when it cannot load the balancer document (an `activeWindow`
    /// it rejects): every round is skipped until the document is fixed
    /// (`src/mongo/s/balancer_configuration.cpp`, `refreshAndCheck`).
    pub window_rejected: Option<String>,
    /// `config.settings` `{_id: "automerge", enabled}` (7.0+; on when the document is missing).
    pub auto_merge: bool,
    /// The balancer document's `attemptToBalanceJumboChunks` (4.4+): balancing and zone moves
    /// are issued with `forceJumbo`, so a chunk over the size limit still moves.
    pub attempt_to_balance_jumbo_chunks: bool,
    /// Migration speed of the simulated network and disks.
    pub migration_bytes_per_sec: u64,
    /// Fixed cost of a migration (clone set-up, catch-up, commit), in milliseconds.
    pub migration_overhead_ms: u64,
    /// Server parameters of `reshardCollection`.
    pub resharding: resharding::ReshardingParams,
    /// `orphanCleanupDelaySecs` when set (`setParameter`); the release line's default otherwise.
    pub orphan_cleanup_delay_secs: Option<u64>,
    /// `balancerMigrationsThrottlingMs` when set (6.0+; 1,000 otherwise): the pause after a
    /// balancer round with candidates.
    pub balancer_migrations_throttling_ms: Option<u64>,
}

/// A sharded cluster at one instant.
#[derive(Clone, Debug)]
pub struct Cluster {
    pub version: ServerVersion,
    /// The server's version string is before 6.0.3, which a release line cannot say (a live
    /// 6.0.0–6.0.2 mongos, from `buildInfo.version`): its balancer still evens chunk counts.
    pub before_6_0_3: bool,
    pub shards: Vec<ShardState>,
    pub settings: Settings,
    /// Database → primary shard.
    pub databases: BTreeMap<String, ShardIdx>,
    /// Sharded collections, in namespace order.
    pub collections: Vec<Collection>,
    /// Zone ranges of namespaces not sharded yet.
    pub pending_zones: Vec<zones::PendingZoneRange>,
    /// The instant this state describes: milliseconds of the source's clock (virtual time for the
    /// simulator and replays, the wall clock for a live cluster).
    pub now_ms: u64,
    pub balancer: balancer::BalancerState,
    /// The id the next migration gets.
    pub next_migration_id: u64,
    /// The scheduled actions of a scenario that were refused.
    pub failed_actions: Vec<failed_actions::FailedAction>,
    /// A live poll's notes on the reads it could not use (refused, failed, invalid): `(the pane
    /// it feeds, as the view names it, the note)`, kept so a recording replays them.
    pub poll_notes: Vec<(String, String)>,
}

impl Cluster {
    /// What this cluster's balancer evens: its release line's metric, except that 6.0.0–6.0.2
    /// still evened chunk counts: data-size balancing (mongo `src/mongo/db/s/balancer/
    /// balancer_policy.cpp`) shipped in 6.0.3, with `$shardedDataDistribution` and the end of
    /// auto-splitting (MongoDB's 6.0 manual: "Starting in MongoDB 6.0.3, automatic chunk
    /// splitting is not performed"; MongoDB's sharding product manager on the community forum,
    /// t/212616: "Starting in 6.0.3, we balance by data size instead of the number of chunks").
    pub fn balancing_metric(&self) -> version::BalancingMetric {
        if self.before_6_0_3 && self.version == ServerVersion::V6_0 {
            version::BalancingMetric::ChunkCount
        } else {
            self.version.balancing_metric()
        }
    }

    /// `movePrimary` takes the database's untracked unsharded collections to the new primary.
    pub fn move_untracked_collections(&mut self, db: &str, to: ShardIdx) {
        let now_secs = self.now_ms / 1000;
        for coll in &mut self.collections {
            if coll.placement == Placement::Untracked && coll.db() == db {
                let stats = coll.table.chunk(0).info.stats;
                let _ = coll.table.move_range(0, None, stats, to, now_secs);
            }
        }
    }

    /// The namespaces of the sharded collections.
    pub fn namespaces(&self) -> Vec<String> {
        self.collections.iter().map(|c| c.ns.clone()).collect()
    }

    /// The balancer's mode, as MongoDB names it.
    pub fn balancer_mode(&self) -> balancer::BalancerMode {
        if self.settings.balancer_enabled {
            balancer::BalancerMode::Full
        } else if self.settings.auto_split_only {
            balancer::BalancerMode::AutoSplitOnly
        } else {
            balancer::BalancerMode::Off
        }
    }

    /// Sets the balancer's mode.
    pub fn set_balancer_mode(&mut self, mode: balancer::BalancerMode) {
        self.settings.balancer_enabled = mode == balancer::BalancerMode::Full;
        self.settings.auto_split_only = mode == balancer::BalancerMode::AutoSplitOnly;
    }

    /// Whether the AutoMerger is enabled (`config.settings` `automerge`), or `None` before 7.0.
    pub fn auto_merger_enabled(&self) -> Option<bool> {
        (self.version >= ServerVersion::V7_0).then_some(self.settings.auto_merge)
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

    /// The primary shard a new database gets: the shard holding the least data (owned and
    /// orphaned bytes, as `listDatabases`' `totalSize` counts them), the first in `config.shards`
    /// order on a tie; from 7.0 a draining shard is never chosen.
    // 4.x `db/s/config/sharding_catalog_manager*.cpp` (`_selectShardForNewDatabase`: the least
    // `shardutil::retrieveTotalShardSize` over `getAllShardIds`, `<` so the first wins a tie);
    // 7.0/8.0-era `sharding_catalog_manager_database_operations.cpp` (`createDatabase`:
    // `shardutil::selectLeastLoadedShard`). That drains are skipped from 7.0 is the issue's
    // reading, not confirmed in the source read.
    pub fn shard_for_new_database(&self) -> ShardIdx {
        let skip_draining = self.version >= ServerVersion::V7_0;
        let load = |s: usize| -> u64 {
            let idx = ShardIdx(s as u32);
            self.collections
                .iter()
                .map(|c| c.table.shard_totals(idx).stats.bytes + c.orphans_on(idx).1)
                .sum()
        };
        (0..self.shards.len())
            .filter(|&s| !self.shards[s].removed)
            .filter(|&s| !(skip_draining && self.shards[s].shard.draining))
            .min_by_key(|&s| (load(s), s))
            .map_or(ShardIdx(0), |s| ShardIdx(s as u32))
    }

    /// The primary of database `db`, creating it in `config.databases` on the least loaded shard
    /// ([`Self::shard_for_new_database`]) if it does not exist yet (a `shardCollection`, an
    /// insert, a `moveCollection` into a new database).
    pub fn ensure_database(&mut self, db: &str) -> ShardIdx {
        if let Some(p) = self.databases.get(db) {
            return *p;
        }
        let p = self.shard_for_new_database();
        self.databases.insert(db.to_string(), p);
        p
    }

    /// Databases whose primary was the removed `shard` move to the first shard still serving.
    pub fn reassign_primaries(&mut self, shard: ShardIdx) {
        let heir = (0..self.shards.len())
            .map(|i| ShardIdx(i as u32))
            .find(|x| !self.shards[x.index()].removed && !self.shards[x.index()].shard.draining);
        if let Some(heir) = heir {
            for primary in self.databases.values_mut() {
                if *primary == shard {
                    *primary = heir;
                }
            }
        }
    }
}
