//! Rewriting a collection's data under a new layout: `reshardCollection` (its new layout, its
//! control — minimum duration, critical section, abort, commit), `moveCollection` and
//! `unshardCollection`, and the layout `shardtop lab` starts each candidate from.
//!
//! Owns: the rules of resharding. Builds on the engine (`super::engine`), the sharding commands
//! (`super::ops`), the scenario set-up's key sources, `cluster` and `model`; may not touch the
//! terminal, I/O or the wall clock.

pub mod lab_layout;
pub mod move_collection;
pub mod reshard;
pub mod reshard_control;
pub mod reshard_layout;
