//! shardtop: how a MongoDB sharded cluster places its data — chunks per shard, the key space from
//! MinKey to MaxKey, the balancer and its migrations — on a real cluster, a recorded trace, or a
//! built-in simulator of MongoDB sharding.
//!
//! # Module map
//!
//! ```text
//!   main.rs ──► cli ──► commands ──► model
//!                                     ▲
//!                 (later: sim, trace, source, ui build on model)
//! ```
//!
//! * [`model`] is pure: shard-key values and order, key patterns, the hashed-index hash, the
//!   routing table, zones. It depends on nothing but std, serde/bson data types and md-5.
//! * [`cli`] declares the command line (clap); [`commands`] carries out each subcommand and maps
//!   failures to the contract's exit codes. Only `commands` prints.

pub mod cli;
pub mod commands;
pub mod model;
pub mod sim;
pub mod trace;
