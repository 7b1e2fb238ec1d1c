//! Every change of a cluster's state, as a typed event. Names follow
//! `config.changelog`'s `what` values (and `config.actionlog`'s for balancer rounds) where MongoDB
//! has one. The event log, traces and the TUI are built on these.

use super::ChunkWrites;
use super::error::MongoError;
use crate::model::{ChunkStats, KeyPattern, ShardIdx, ShardKey};

/// An event at a virtual time (milliseconds since the start of the run).
#[derive(Clone, Debug)]
pub struct Event {
    pub at_ms: u64,
    pub kind: EventKind,
}

/// Why a migration was started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MigrationReason {
    /// The donor is draining (`removeShard`).
    Drain,
    /// The chunk is outside its zone's shards.
    ZoneViolation,
    /// The balancer evens chunk counts or data sizes.
    ChunksImbalance,
    /// The auto-splitter's top-chunk optimisation moved a new edge chunk (before 6.0).
    TopChunk,
    /// A `moveChunk` / `moveRange` command.
    Manual,
    /// A `moveChunk` with `forceJumbo`: moves a jumbo chunk whatever its size.
    ManualForce,
    /// Defragmentation's moveAndMergeChunks phase moves a small chunk to its neighbour's shard.
    Defragmentation,
    /// Not known: a live migration whose cause nothing the server reports tells (a balancer
    /// move and a `moveChunk` / `moveRange` by hand look the same in `$currentOp`).
    Unknown,
}

impl MigrationReason {
    /// Whether the migration empties a draining shard.
    pub fn is_drain(self) -> bool {
        self == Self::Drain
    }

    /// Whether the move ignores the size limit: `forceJumbo` by hand, and a drain's moves, which
    /// the balancer issues with `kForceBalancer` (4.4.6 and 8.0.10
    /// `db/s/balancer/balancer_policy.cpp`, the draining loop of `balance()`).
    pub fn is_forced(self) -> bool {
        matches!(self, Self::Drain | Self::ManualForce)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Drain => "drain",
            Self::ZoneViolation => "zoneViolation",
            Self::ChunksImbalance => "chunksImbalance",
            Self::TopChunk => "topChunk",
            Self::Manual => "manual",
            Self::ManualForce => "manualForceJumbo",
            Self::Defragmentation => "defragmentation",
            Self::Unknown => "unknown",
        }
    }
}

/// What caused a split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitCause {
    /// The auto-splitter (before 6.0).
    Auto,
    /// A `split` command.
    Command,
    /// `splitOrMarkJumbo` after a migration was refused as too big.
    Balancer,
    /// A chunk straddled a zone boundary.
    Zone,
}

/// What every migration event names: the migration, its range `[min, max)` and its two shards.
#[derive(Clone, Debug)]
pub struct MigrationRange {
    pub id: u64,
    pub ns: String,
    pub min: ShardKey,
    pub max: ShardKey,
    pub from: ShardIdx,
    pub to: ShardIdx,
}

/// The kinds of events.
#[derive(Clone, Debug)]
pub enum EventKind {
    /// `addShard`.
    ShardAdded { shard: ShardIdx, id: String },
    /// `shardCollection.end`: the collection and its initial chunks.
    CollectionSharded {
        ns: String,
        key: KeyPattern,
        chunks: usize,
        /// Each initial chunk's lower bound and shard (versions are (1, 0), (1, 1), … in order).
        layout: Vec<(ShardKey, ShardIdx)>,
    },
    /// `split` (one point) or `multi-split` (several).
    Split {
        ns: String,
        min: ShardKey,
        max: ShardKey,
        points: Vec<ShardKey>,
        shard: ShardIdx,
        pieces: Vec<ChunkStats>,
        cause: SplitCause,
    },
    /// A split that could not be made (CannotSplit and the like).
    SplitFailed {
        ns: String,
        min: ShardKey,
        max: ShardKey,
        shard: ShardIdx,
        error: MongoError,
    },
    /// `merge`.
    Merge {
        ns: String,
        min: ShardKey,
        max: ShardKey,
        shard: ShardIdx,
        chunks: usize,
        /// Merged by the AutoMerger (`mergeAllChunksOnShard`, 7.0+), not by `mergeChunks`.
        auto: bool,
    },
    /// `moveChunk.start`.
    MigrationStarted {
        range: MigrationRange,
        reason: MigrationReason,
        bytes: u64,
    },
    /// `moveChunk.commit`.
    MigrationCommitted {
        range: MigrationRange,
        moved: ChunkStats,
        millis: u64,
    },
    /// `moveChunk.error`: refused or aborted, with the reason.
    MigrationFailed {
        range: MigrationRange,
        error: MongoError,
    },
    /// A chunk was flagged jumbo.
    JumboMarked {
        ns: String,
        min: ShardKey,
        max: ShardKey,
        shard: ShardIdx,
    },
    /// The range deleter removed the orphans a migration left on `shard`.
    RangeDeleted {
        ns: String,
        min: ShardKey,
        max: ShardKey,
        shard: ShardIdx,
        docs: u64,
        bytes: u64,
    },
    /// `clearJumboFlag`.
    JumboCleared {
        ns: String,
        min: ShardKey,
        max: ShardKey,
        shard: ShardIdx,
    },
    /// `balancer.round` (actionlog): candidates, moves, and why more was not done.
    BalancerRound {
        round: u64,
        candidates: usize,
        moved: usize,
        failed: usize,
        millis: u64,
        why_not: Vec<String>,
    },
    /// `balancer.start` / `balancer.stop`.
    BalancerSet { enabled: bool },
    /// The chunk size setting changed.
    ChunkSizeSet { bytes: u64 },
    /// `config.settings` `automerge` (`sh.startAutoMerger()` / `sh.stopAutoMerger()`, 7.0+).
    AutoMergerSet { enabled: bool },
    /// The balancer document's `attemptToBalanceJumboChunks`.
    AttemptToBalanceJumboChunksSet { enabled: bool },
    /// `configureCollectionBalancing`: the collection's chunk size (`None`: the cluster's) and
    /// AutoMerger flag (`None`: not set).
    CollectionBalancingSet {
        ns: String,
        max_chunk_size_bytes: Option<u64>,
        auto_merge: Option<bool>,
        no_balance: bool,
        migrations_blocked: bool,
    },
    /// A collection's defragmentation moved to `phase` (`None`: finished, the fields unset).
    DefragmentationPhaseSet {
        ns: String,
        phase: Option<super::defragmentation::DefragmentationPhase>,
    },
    /// An index was created.
    IndexCreated {
        ns: String,
        key: KeyPattern,
        unique: bool,
    },
    /// `refineCollectionShardKey.end`.
    KeyRefined { ns: String, key: KeyPattern },
    /// `addShardToZone` (`member`) or `removeShardFromZone`.
    ShardZoneSet {
        shard: ShardIdx,
        zone: String,
        member: bool,
    },
    /// `updateZoneKeyRange`: `[min, max)` assigned to `zone`, or removed when `zone` is `None`.
    ZoneRangeSet {
        ns: String,
        min: ShardKey,
        max: ShardKey,
        zone: Option<String>,
    },
    /// `removeShard.start`: the shard is draining.
    ShardDraining { shard: ShardIdx },
    /// `removeShard`: the drained shard left the cluster.
    ShardRemoved { shard: ShardIdx },
    /// `movePrimary`: database `db`'s primary shard becomes `to`.
    PrimaryMoved {
        db: String,
        from: ShardIdx,
        to: ShardIdx,
    },
    /// `stopShardDraining` (8.3+): the shard takes chunks again.
    ShardDrainingStopped { shard: ShardIdx },
    /// Writes to one collection since the last report, per chunk (by the chunk's lower bound).
    Writes {
        ns: String,
        chunks: Vec<ChunkWrites>,
    },
    /// A balancer round started (what it could not do is in `why_not`).
    BalancerRoundStarted {
        round: u64,
        candidates: usize,
        why_not: Vec<String>,
    },
    /// The balancer checked and did not run a round (stopped, outside its window).
    BalancerIdle { why_not: Vec<String> },
    /// `reshardCollection` started: cloning `docs` documents (`bytes`) takes `clone_ms`
    /// (at least the minimum duration) before the critical section.
    ReshardingStarted {
        ns: String,
        key: KeyPattern,
        docs: u64,
        bytes: u64,
        clone_ms: u64,
        num_initial_chunks: u32,
        /// `reshardCollection`, or the `moveCollection` / `unshardCollection` it stands for.
        provenance: super::resharding::Provenance,
    },
    /// `reshardCollection` committed: the new key and routing table (a new incarnation).
    ReshardingCommitted {
        ns: String,
        key: KeyPattern,
        layout: Vec<super::resharding::NewChunk>,
        /// The zone ranges of the new key.
        zones: Vec<crate::model::zones::ZoneRange>,
        /// Whether the collection is now unsharded (`moveCollection`, `unshardCollection`).
        unsplittable: bool,
        millis: u64,
        critical_section_ms: u64,
        /// Writes that waited for the critical section to end.
        blocked_writes: u64,
    },
    /// `reshardCollection` failed or was aborted: the old layout stays.
    ReshardingAborted {
        ns: String,
        key: KeyPattern,
        error: MongoError,
    },
    /// `updateZoneKeyRange` on a namespace not sharded yet: bounds as given (`zone: None` removes).
    PendingZoneRangeSet {
        ns: String,
        min: Box<bson::Document>,
        max: Box<bson::Document>,
        zone: Option<String>,
    },
    /// A document's shard-key value changed from `from` to `to`: it moved to the owning chunk.
    ShardKeyUpdated {
        ns: String,
        from: ShardKey,
        to: ShardKey,
        bytes: u64,
    },
    /// `dropIndexes` of one index.
    IndexDropped { ns: String, key: KeyPattern },
    /// `drop` of a collection in the catalog: its entry, chunks and zone ranges removed, its
    /// migrations in flight abandoned (`dropCollection`).
    CollectionDropped { ns: String },
    /// A scheduled action of a scenario was refused (`path`: where it is in the file, e.g.
    /// `actions[3].do.split`); nothing changed.
    ActionFailed {
        path: String,
        command: String,
        error: MongoError,
    },
    /// One document of shard-key value `key` and `bytes` was deleted from the chunk owning `key`.
    DocumentDeleted {
        ns: String,
        key: ShardKey,
        bytes: u64,
    },
}

impl EventKind {
    /// The `what` of the event, in changelog / actionlog terms.
    pub fn what(&self) -> &'static str {
        match self {
            Self::ShardAdded { .. } => "addShard",
            Self::CollectionSharded { .. } => "shardCollection.end",
            Self::Split { points, .. } if points.len() > 1 => "multi-split",
            Self::Split { .. } => "split",
            Self::SplitFailed { .. } => "split.error",
            Self::Merge { .. } => "merge",
            Self::MigrationStarted { .. } => "moveChunk.start",
            Self::MigrationCommitted { .. } => "moveChunk.commit",
            Self::MigrationFailed { .. } => "moveChunk.error",
            Self::JumboMarked { .. } => "markJumbo",
            Self::JumboCleared { .. } => "clearJumboFlag",
            Self::RangeDeleted { .. } => "rangeDeletion",
            Self::BalancerRound { .. } => "balancer.round",
            Self::BalancerSet { enabled: true } => "balancer.start",
            Self::BalancerSet { enabled: false } => "balancer.stop",
            Self::ChunkSizeSet { .. } => "setChunkSize",
            Self::AutoMergerSet { .. } => "setAutoMerger",
            Self::AttemptToBalanceJumboChunksSet { .. } => "setAttemptToBalanceJumboChunks",
            Self::CollectionBalancingSet { .. } => "configureCollectionBalancing",
            Self::DefragmentationPhaseSet { .. } => "defragmentationPhase",
            Self::IndexCreated { .. } => "createIndexes",
            Self::KeyRefined { .. } => "refineCollectionShardKey.end",
            Self::Writes { .. } => "writes",
            Self::ShardDraining { .. } => "removeShard.start",
            Self::ShardRemoved { .. } => "removeShard",
            Self::PrimaryMoved { .. } => "movePrimary.commit",
            Self::ShardDrainingStopped { .. } => "stopShardDraining",
            Self::ShardZoneSet { member: true, .. } => "addShardToZone",
            Self::ShardZoneSet { member: false, .. } => "removeShardFromZone",
            Self::ZoneRangeSet { .. } | Self::PendingZoneRangeSet { .. } => "updateZoneKeyRange",
            Self::BalancerRoundStarted { .. } => "balancer.roundStart",
            Self::BalancerIdle { .. } => "balancer.idle",
            Self::ReshardingStarted { .. } => "reshardCollection.start",
            Self::ReshardingCommitted { .. } => "reshardCollection.commit",
            Self::ReshardingAborted { .. } => "reshardCollection.abort",
            Self::IndexDropped { .. } => "dropIndexes",
            Self::CollectionDropped { .. } => "dropCollection",
            Self::ShardKeyUpdated { .. } => "updateShardKey",
            Self::DocumentDeleted { .. } => "delete",
            Self::ActionFailed { .. } => "scheduledAction.failed",
        }
    }
}
