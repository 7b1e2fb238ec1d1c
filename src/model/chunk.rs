//! Chunks: a half-open range of the shard key owned by one shard, with its version and the
//! per-chunk statistics the simulator and the views keep.

use std::fmt;

use super::key::ShardKey;
use super::shard::ShardIdx;

/// A chunk version `(major, minor)` (stored as `lastmod`, a Timestamp with `t` = major).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChunkVersion {
    pub major: u32,
    pub minor: u32,
}

impl ChunkVersion {
    pub const fn new(major: u32, minor: u32) -> Self {
        Self { major, minor }
    }

    /// The next minor version of the same major.
    pub const fn next_minor(self) -> Self {
        Self {
            major: self.major,
            minor: self.minor + 1,
        }
    }

    /// The first version of the next major.
    pub const fn next_major(self) -> Self {
        Self {
            major: self.major + 1,
            minor: 0,
        }
    }
}

impl fmt::Display for ChunkVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}|{}", self.major, self.minor)
    }
}

/// Documents, bytes and writes counted in a range of the key space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChunkStats {
    pub docs: u64,
    pub bytes: u64,
    pub writes: u64,
}

impl ChunkStats {
    pub const ZERO: Self = Self {
        docs: 0,
        bytes: 0,
        writes: 0,
    };

    pub const fn new(docs: u64, bytes: u64, writes: u64) -> Self {
        Self {
            docs,
            bytes,
            writes,
        }
    }

    pub fn add(&mut self, other: Self) {
        self.docs += other.docs;
        self.bytes += other.bytes;
        self.writes += other.writes;
    }

    pub fn sub(&mut self, other: Self) {
        self.docs -= other.docs;
        self.bytes -= other.bytes;
        self.writes -= other.writes;
    }
}

/// Everything about a chunk except its bounds (kept by the routing table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkInfo {
    pub shard: ShardIdx,
    pub version: ChunkVersion,
    pub stats: ChunkStats,
    pub jumbo: bool,
    /// Bytes written since the chunk was created: the auto-splitter's tracker (before 6.0).
    pub bytes_written: u64,
    /// When the chunk arrived on its shard (`onCurrentShardSince`), in seconds.
    pub since: u64,
}

impl ChunkInfo {
    pub fn new(shard: ShardIdx, version: ChunkVersion) -> Self {
        Self {
            shard,
            version,
            stats: ChunkStats::ZERO,
            jumbo: false,
            bytes_written: 0,
            since: 0,
        }
    }
}

/// A chunk seen through the routing table: `[min, max)` and its info.
#[derive(Clone, Copy, Debug)]
pub struct Chunk<'a> {
    pub index: usize,
    pub min: &'a ShardKey,
    pub max: &'a ShardKey,
    pub info: &'a ChunkInfo,
}

/// Per-shard totals of one collection, kept incrementally by the routing table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShardTotals {
    pub chunks: u64,
    pub jumbo: u64,
    pub stats: ChunkStats,
    /// The shard version: the highest version among the shard's chunks, (0,0) when it has none.
    pub version: ChunkVersion,
}
