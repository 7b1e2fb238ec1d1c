//! `shardtop lab`: candidate shard keys tried on a user's documents and queries, side by side,
//! before the collection is sharded. This module owns the numbers `analyzeShardKey` (7.0+)
//! defines, computed on documents given in insertion order; it reads no cluster and draws
//! nothing (the command and the UI build on it).
//!
//! Built so far: the key characteristics ([`characteristics`]), seed 003's orders example
//! ([`example`]), and the readers of the user's documents ([`data`]: mongodump's BSON,
//! mongoexport's JSON) and traffic ([`traffic`]: a workload file, a MongoDB log's slow queries).
//! The command, the read and write distribution, the TUI and `serve`'s `analyzeShardKey` are not
//! built yet (the README says so).

pub mod characteristics;
pub mod data;
pub mod example;
pub mod traffic;
