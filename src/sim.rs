//! MongoDB's rules that change a cluster over time, as a deterministic simulator: a virtual
//! clock, insert workloads routed through the routing table, the auto-splitter (before 6.0), both
//! balancer generations and their policy, jumbo chunks, merges, drains, resharding, zones, and the
//! commands scenarios schedule. Same scenario and seed ⇒ byte-identical output.
//!
//! Grouped by mechanism: `scenario` (scenario files, set-up, key generators, scheduled actions),
//! `balancer` (rounds, policy, auto-splitter, per-collection settings), `merges` (AutoMerger,
//! defragmentation), `resharding` (`reshardCollection`, `moveCollection`), `drains`
//! (`removeShard`), `zones`, `whatif` (a fork run forward to answer "what if"); the engine and the sharding commands it serves (`ops`, `move_range`,
//! `indexes`, `docs`, `update`) and the seeded random numbers stay at the top.
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

pub mod auto_split_vector;
pub mod balancer;
pub mod collection_drop;
pub mod docs;
pub mod drains;
pub mod engine;
pub mod indexes;
pub mod merges;
pub mod move_range;
pub mod ops;
pub mod range_deletion_wait;
pub mod resharding;
pub mod rng;
pub mod scenario;
mod std_shuffle;
pub mod update;
pub mod whatif;
pub mod zones;

pub use engine::Simulator;
pub use scenario::Scenario;
