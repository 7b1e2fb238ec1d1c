//! MongoDB's rules that change a cluster over time, as a deterministic simulator: a virtual
//! clock, insert workloads routed through the routing table, the auto-splitter (before 6.0), both
//! balancer generations and their policy, jumbo chunks, merges, drains, resharding, zones, and the
//! commands scenarios schedule. Same scenario and seed ⇒ byte-identical output.
//!
//! Owns: the rules of how a cluster changes over (virtual) time, scenarios and their files. The
//! state it changes is a [`Cluster`](crate::cluster::Cluster) (`cluster` owns the values, the
//! events and MongoDB's errors). Builds on `cluster` and `model`. May not touch: tokio, mongodb,
//! ratatui, the terminal, I/O or the wall clock.
//!
//! Simplifications (also in the README): time advances in 100 ms ticks; a migration takes
//! 1 s + bytes ÷ 32 MB/s; migrations are not throttled between rounds; the data-size balancer
//! reads exact per-shard sizes (no orphans); 6.0 is simulated without the auto-splitter (removed
//! in 6.0.3).

mod action_errors;
pub mod actions;
pub mod auto_merger;
pub mod balancer;
pub mod collection_balancing;
pub mod defragmenter;
pub mod docs;
pub mod drain;
pub mod engine;
pub mod indexes;
pub mod keygen;
pub mod lab_layout;
pub mod limits;
pub mod move_collection;
pub mod move_range;
pub mod ops;
pub mod policy;
pub mod presplit_zones;
pub mod reshard;
pub mod reshard_control;
pub mod reshard_layout;
pub mod rng;
pub mod scenario;
pub mod setup;
pub mod splitter;
mod std_shuffle;
pub mod update;
pub mod zones;
pub mod zones_initial;

pub use engine::Simulator;
pub use scenario::Scenario;
