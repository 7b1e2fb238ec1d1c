//! `shardtop lab`: candidate shard keys tried on a user's documents and queries, side by side,
//! before the collection is sharded. This module owns reading the documents and the traffic
//! ([`data`], [`traffic`]), each candidate's simulated cluster ([`run`]) and all of them in lockstep
//! ([`trial`]), the report ([`report`], [`verdict`], [`markdown`]), the proposed candidates
//! ([`suggest`]) and seed 003's example ([`example`]). It reads no cluster and draws nothing
//! (the command, the lab source and the UI build on it). The numbers `analyzeShardKey` (7.0+)
//! defines are [`crate::analyze`]'s, re-exported here at their old paths.

pub use crate::analyze::{characteristics, distribution};

pub mod data;
pub mod example;
pub mod markdown;
pub mod report;
pub mod run;
pub mod suggest;
pub mod traffic;
pub mod trial;
pub mod verdict;
