//! The pure model of a sharded collection, in MongoDB's own terms: shard-key values and their
//! total order across BSON types, key patterns, the hashed-index hash, chunks and chunk versions,
//! the routing table, shards and zone ranges, and which shards a query targets.
//!
//! Owns: every rule that is a fact about MongoDB's data placement, independent of time and I/O.
//! May not touch: tokio, mongodb, ratatui, files, the clock, or any floor above it (`cluster`,
//! `sim`, …) — it is plain data and functions, so the cluster state, the simulator, traces, the
//! live source and the UI can all build on it.

pub mod bigint;
pub mod chunk;
pub mod decimal;
pub mod extjson;
pub mod hash;
pub mod key;
pub mod mongosh_read;
pub mod mongosh_text;
pub mod number;
pub mod pattern;
pub mod presplit;
pub mod route_index;
pub mod routing;
pub mod shard;
pub mod shell_text;
pub mod targeting;
pub mod value;
pub mod zones;

pub use chunk::{Chunk, ChunkInfo, ChunkStats, ChunkVersion, ShardTotals};
pub use hash::hash64;
pub use key::ShardKey;
pub use pattern::{KeyError, KeyField, KeyPattern, value_at};
pub use presplit::hashed_split_points;
pub use routing::{RangePatch, RoutingError, RoutingTable};
pub use shard::{Shard, ShardIdx};
pub use targeting::{KeyRange, TargetKind, Targeting, target};
pub use value::KeyValue;
pub use zones::{ZoneError, ZoneRange, ZoneRanges};
