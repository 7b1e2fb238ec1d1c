//! Merging chunks over time: the AutoMerger (7.0+), which merges mergeable chunks in rounds, and
//! defragmentation (`configureCollectionBalancing` with `defragmentCollection`, 5.3+), which moves
//! and merges a collection's small chunks phase by phase.
//!
//! Owns: the rules of both mechanisms. Builds on the engine (`super::engine`), `cluster` and
//! `model`; may not touch the terminal, I/O or the wall clock.

pub mod auto_merger;
pub mod defragmenter;
