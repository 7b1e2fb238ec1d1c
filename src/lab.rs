//! `shardtop lab`: candidate shard keys tried on a user's documents and queries, side by side,
//! before the collection is sharded. This module owns the numbers `analyzeShardKey` (7.0+)
//! defines, computed on documents given in insertion order; it reads no cluster and draws
//! nothing (the command and the UI build on it).
//!
//! Built so far: the key characteristics ([`characteristics`]) and seed 003's orders example
//! ([`example`]). The command, the data and traffic readers, the read and write distribution
//! and the TUI are not built yet (the README says so); `serve`'s `analyzeShardKey` uses the
//! characteristics and [`distribution`].

pub mod characteristics;
pub mod data;
pub mod distribution;
pub mod example;
pub mod markdown;
pub mod report;
pub mod run;
pub mod traffic;
pub mod trial;
pub mod verdict;
