//! shardtop: how a MongoDB sharded cluster places its data — chunks per shard, the key space from
//! MinKey to MaxKey, the balancer and its migrations — on a real cluster, a recorded trace, or a
//! built-in simulator of MongoDB sharding.
//!
//! # Module map
//!
//! ```text
//!   main.rs ──► cli ──► commands ──┬──► runtime ──► ui ──► view ──┐
//!                                  ├──► source ──┬──► sim ────────┤
//!                                  │             ├──► trace ──────┤
//!                                  │             └──► live ───────┤
//!                                  ├──► serve ──► wire            │
//!                                  └──────────────────────────────┴──► model
//! ```
//!
//! * [`model`] is pure: shard-key values and their order, key patterns, the hashed-index hash,
//!   chunks and versions, the routing table, zones, query targeting. It depends on nothing but
//!   std, the bson/serde_json data types and md-5.
//! * [`sim`] is the deterministic simulator (virtual clock, workloads, splits, balancer, zones,
//!   draining, resharding, scenarios); it builds on `model` only and never touches I/O or the
//!   wall clock.
//! * [`trace`] writes and reads traces of the simulator's state and events (files, compression);
//!   it builds on `model` and `sim`'s state and event types.
//! * [`view`] pre-aggregates what one frame shows from a simulator-shaped state (no ratatui, no
//!   I/O), so a frame costs the same whatever the chunk count.
//! * [`live`] reads a real cluster through a mongos: typed `config.*` documents of 4.4–8.0, the
//!   allowlisted read-only client (the only `mongodb::` user outside tests), the mongos-like
//!   incremental routing cache, polling and recording.
//! * [`source`] drives a source in time and speaks to the UI through one message type:
//!   the simulator and replays (virtual time, `Timeline` + runner), a live cluster (polling).
//! * [`ui`] is the TUI's state, reducer, key map, theme and one file per pane; rendering is a
//!   pure function of the state and never does I/O. [`runtime`] is the event loop that wires
//!   keys, source messages and frames (generic over the backend, so tests drive it).
//! * [`wire`] is the MongoDB wire protocol as a server reads and writes it (framing, OP_MSG,
//!   the legacy OP_QUERY handshake); bytes ⇄ BSON documents, nothing else.
//! * [`serve`] runs the simulator as a MongoDB endpoint that behaves like a mongos: a tokio TCP
//!   server, one task owning the simulator, the commands and the generated config database.
//! * [`cli`] declares the command line (clap); [`commands`] carries out each subcommand, owns the
//!   terminal and the runtimes, and maps failures to the contract's exit codes. Only `commands`
//!   prints.

pub mod cli;
pub mod cluster;
pub mod commands;
pub mod live;
pub mod model;
pub mod runtime;
pub mod serve;
pub mod sim;
pub mod source;
pub mod trace;
pub mod ui;
pub mod units;
pub mod view;
pub mod wire;
