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
//! * [`wire`] is the MongoDB wire protocol as a server reads and writes it (framing, OP_MSG,
//!   the legacy OP_QUERY handshake); bytes ⇄ BSON documents, nothing else.
//! * [`serve`] runs the simulator as a MongoDB endpoint that behaves like a mongos: a tokio TCP
//!   server, one task owning the simulator, the commands and the generated config database.
//! * [`cli`] declares the command line (clap); [`commands`] carries out each subcommand and maps
//!   failures to the contract's exit codes. Only `commands` prints.

pub mod cli;
pub mod commands;
pub mod live;
pub mod model;
pub mod runtime;
pub mod serve;
pub mod sim;
pub mod source;
pub mod trace;
pub mod ui;
pub mod view;
pub mod wire;
