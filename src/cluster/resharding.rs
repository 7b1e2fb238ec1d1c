//! A `reshardCollection` in flight, as part of a collection's state: the new key, when it started
//! and when its critical section may start, the donors' critical section with the writes it holds
//! back, and the server parameters that govern it. The rules that advance it are
//! `sim::resharding`'s.

use crate::model::{ChunkStats, KeyPattern, KeyValue, ShardIdx, ShardKey};

/// The server parameters of resharding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReshardingParams {
    /// `reshardingMinimumOperationDurationMillis`.
    pub minimum_operation_duration_ms: u64,
    /// `reshardingCriticalSectionTimeoutMillis`.
    pub critical_section_timeout_ms: u64,
}

impl Default for ReshardingParams {
    fn default() -> Self {
        Self {
            minimum_operation_duration_ms: 300_000,
            critical_section_timeout_ms: 5_000,
        }
    }
}

/// A write held back by the critical section: the workload that generated it, its fields, size.
#[derive(Clone, Debug)]
pub struct BlockedWrite {
    pub workload: usize,
    pub values: Vec<KeyValue>,
    pub bytes: u64,
}

/// The donors' critical section.
#[derive(Clone, Debug)]
pub struct CriticalSection {
    pub started_ms: u64,
    /// When it ends: the commit, or the abort when it times out.
    pub ends_ms: u64,
    pub times_out: bool,
    pub blocked: Vec<BlockedWrite>,
}

/// Which command started a resharding (`provenance`, 8.0): `moveCollection` and
/// `unshardCollection` are reshardings to `{_id: 1}` whose result is an unsplittable collection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Provenance {
    #[default]
    ReshardCollection,
    MoveCollection,
    UnshardCollection,
}

impl Provenance {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReshardCollection => "reshardCollection",
            Self::MoveCollection => "moveCollection",
            Self::UnshardCollection => "unshardCollection",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::ReshardCollection,
            Self::MoveCollection,
            Self::UnshardCollection,
        ]
        .into_iter()
        .find(|p| p.as_str() == s)
    }

    /// Whether the collection ends unsharded (tracked, `unsplittable: true`).
    pub fn ends_unsplittable(self) -> bool {
        self != Self::ReshardCollection
    }
}

/// One `shardDistribution` entry: a shard and, when every entry has one, the range it gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardKeyRange {
    pub shard: ShardIdx,
    pub range: Option<(ShardKey, ShardKey)>,
}

/// A resharding operation in progress on a collection.
#[derive(Clone, Debug)]
pub struct Resharding {
    pub key: KeyPattern,
    pub num_initial_chunks: u32,
    pub provenance: Provenance,
    /// `shardDistribution`: where the new chunks go (empty: every shard that may receive).
    pub distribution: Vec<ShardKeyRange>,
    /// `zones`: the zone ranges of the new key (`None`: none).
    pub zones: Option<Vec<crate::model::zones::ZoneRange>>,
    pub started_ms: u64,
    /// When cloning is done and the minimum duration has passed: the critical section starts.
    pub ready_ms: u64,
    pub critical_section: Option<CriticalSection>,
    /// Writes to the collection in the current second and the one before (the recipients' lag).
    second: u64,
    this_second: u64,
    last_second: u64,
}

impl Resharding {
    pub fn new(key: KeyPattern, num_initial_chunks: u32, started_ms: u64, ready_ms: u64) -> Self {
        Self {
            key,
            num_initial_chunks,
            provenance: Provenance::ReshardCollection,
            distribution: Vec::new(),
            zones: None,
            started_ms,
            ready_ms,
            critical_section: None,
            second: started_ms / 1000,
            this_second: 0,
            last_second: 0,
        }
    }

    /// Counts a write the recipients will have to apply from the oplog.
    pub fn record_write(&mut self, now_ms: u64) {
        let s = now_ms / 1000;
        if s != self.second {
            self.last_second = if s == self.second + 1 {
                self.this_second
            } else {
                0
            };
            self.this_second = 0;
            self.second = s;
        }
        self.this_second += 1;
    }

    /// Oplog entries the recipients have not applied yet at `now_ms`.
    pub fn backlog(&self, now_ms: u64) -> u64 {
        if now_ms / 1000 > self.second + 1 {
            return 0;
        }
        if now_ms / 1000 == self.second + 1 {
            return self.this_second;
        }
        self.this_second + self.last_second
    }
}

/// One chunk of the new layout: its lower bound, shard and contents.
pub type NewChunk = (ShardKey, ShardIdx, ChunkStats);
