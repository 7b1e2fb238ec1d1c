//! The operations a scenario can schedule, by MongoDB's command names: the `do` of each entry of a
//! scenario's `actions`. Plain data read from the file; `actions` carries them out.

use serde::Deserialize;

use super::unit;

/// The operations a scenario can schedule (MongoDB's command names).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum Op {
    AddShard {
        id: String,
        #[serde(default = "unit")]
        capacity: f64,
    },
    BalancerStart {},
    BalancerStop {},
    /// The balancer document's `attemptToBalanceJumboChunks`.
    AttemptToBalanceJumboChunks {
        enabled: bool,
    },
    /// `sh.disableBalancing(ns)` / `sh.enableBalancing(ns)`: `config.collections` `noBalance`.
    DisableBalancing {
        ns: String,
    },
    EnableBalancing {
        ns: String,
    },
    /// `sh.startAutoMerger()` / `sh.stopAutoMerger()`: `config.settings` `automerge`.
    StartAutoMerger {},
    StopAutoMerger {},
    SetChunkSize {
        mb: u64,
    },
    /// `split` at `middle` (a shard-key value, hashed fields given hashed).
    Split {
        ns: String,
        middle: serde_json::Value,
    },
    /// `split` with `find`: the chunk holding this document, at its median.
    SplitFind {
        ns: String,
        find: serde_json::Value,
    },
    /// `moveChunk` of the chunk holding `find` to `to`.
    MoveChunk {
        ns: String,
        /// A document of the chunk to move (`find`), or
        #[serde(default)]
        find: Option<serde_json::Value>,
        /// the chunk's exact `[min, max)` (`bounds`).
        #[serde(default)]
        bounds: Option<[serde_json::Value; 2]>,
        to: String,
        /// Move a jumbo chunk anyway (`forceJumbo: true`).
        #[serde(default, rename = "forceJumbo")]
        force_jumbo: bool,
    },
    /// `moveRange` of `[min, max)` to `to`; either bound may be left out (the range then holds
    /// about the collection's chunk size).
    MoveRange {
        ns: String,
        #[serde(default)]
        min: Option<serde_json::Value>,
        #[serde(default)]
        max: Option<serde_json::Value>,
        to: String,
        #[serde(default, rename = "forceJumbo")]
        force_jumbo: bool,
    },
    /// `configureCollectionBalancing`: the collection's chunk size in MiB (0: the cluster's) and
    /// the AutoMerger flag (7.0+), defragmentation (5.3+).
    ConfigureCollectionBalancing {
        ns: String,
        #[serde(default, rename = "chunkSize")]
        chunk_size: Option<u64>,
        #[serde(default, rename = "enableAutoMerger")]
        enable_auto_merger: Option<bool>,
        /// `defragmentCollection`: start or end defragmentation.
        #[serde(default, rename = "defragmentCollection")]
        defragment_collection: Option<bool>,
    },
    MergeChunks {
        ns: String,
        bounds: [serde_json::Value; 2],
    },
    CreateIndex {
        ns: String,
        key: serde_json::Value,
        #[serde(default)]
        unique: bool,
    },
    RefineCollectionShardKey {
        ns: String,
        key: serde_json::Value,
    },
    /// `updateOne(find, {$set: set})` changing a document's shard-key value.
    UpdateShardKey {
        ns: String,
        find: serde_json::Value,
        set: serde_json::Value,
    },
    /// `dropIndexes` of the index with this key pattern.
    DropIndex {
        ns: String,
        key: serde_json::Value,
    },
    /// `reshardCollection` to the new key `key`.
    ReshardCollection {
        ns: String,
        key: serde_json::Value,
        #[serde(default, rename = "numInitialChunks")]
        num_initial_chunks: Option<u32>,
        /// 7.2+: reshard even to the same key.
        #[serde(default, rename = "forceRedistribution")]
        force_redistribution: bool,
        /// 7.2+: `[{shard, min?, max?}]` in the new key.
        #[serde(default, rename = "shardDistribution")]
        shard_distribution: Option<Vec<serde_json::Value>>,
        /// `[{zone, min, max}]` in the new key.
        #[serde(default)]
        zones: Option<Vec<serde_json::Value>>,
    },
    /// 8.0: `moveCollection` of an unsharded collection to `toShard`.
    MoveCollection {
        ns: String,
        #[serde(rename = "toShard")]
        to_shard: String,
    },
    /// 8.0: `unshardCollection`, onto `toShard` or the shard with the least data.
    UnshardCollection {
        ns: String,
        #[serde(default, rename = "toShard")]
        to_shard: Option<String>,
    },
    AddShardToZone {
        shard: String,
        zone: String,
    },
    /// The firehose's daily job: the range of `zone` that ends at MaxKey starts from now on
    /// (its lower bound becomes the first ObjectId of the current second).
    MoveZoneLowerBoundToNow {
        ns: String,
        zone: String,
    },
    /// `removeShard`: starts draining the shard; called again once it owns nothing, removes it.
    RemoveShard {
        id: String,
    },
    /// 8.3+: `startShardDraining`, `stopShardDraining`, `commitShardRemoval`.
    StartShardDraining {
        id: String,
    },
    StopShardDraining {
        id: String,
    },
    CommitShardRemoval {
        id: String,
    },
    /// `movePrimary`: database `db`'s primary shard becomes `to`.
    MovePrimary {
        db: String,
        to: String,
    },
    /// `clearJumboFlag` on the chunk holding the document `find`.
    ClearJumboFlag {
        ns: String,
        find: serde_json::Value,
    },
    RemoveShardFromZone {
        shard: String,
        zone: String,
    },
    /// `[min, max)` (shard-key prefixes) to `zone`; `zone: null` removes the range.
    UpdateZoneKeyRange {
        ns: String,
        min: serde_json::Value,
        max: serde_json::Value,
        zone: Option<String>,
    },
}
