//! shardtop: how a MongoDB sharded cluster places its data — chunks per shard, the key space from
//! MinKey to MaxKey, the balancer and its migrations — on a real cluster, a recorded trace, or a
//! built-in simulator of MongoDB sharding.
//!
//! # Module map
//!
//! ```text
//!   main.rs ──► cli ──► commands ──┬──► trace ──┐
//!                                  ├──► sim ────┤
//!                                  └────────────┴──► model
//! ```
//!
//! * [`model`] is pure: shard-key values and their order, key patterns, the hashed-index hash,
//!   chunks and versions, the routing table, zones, query targeting. It depends on nothing but
//!   std, the bson/serde_json data types and md-5.
//! * [`sim`] is the deterministic simulator (virtual clock, workloads, splits, balancer, zones,
//!   draining, scenarios); it builds on `model` only and never touches I/O or the wall clock.
//! * [`trace`] writes and reads traces of the simulator's state and events (files, compression);
//!   it builds on `model` and `sim`'s state and event types.
//! * [`cli`] declares the command line (clap); [`commands`] carries out each subcommand and maps
//!   failures to the contract's exit codes. Only `commands` prints.

pub mod cli;
pub mod commands;
pub mod live;
pub mod model;
pub mod runtime;
pub mod sim;
pub mod source;
pub mod trace;
pub mod ui;
pub mod view;
