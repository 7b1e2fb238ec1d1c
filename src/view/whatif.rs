//! The what-if screen's frame: the source's state forked into the simulator at an instant,
//! changed as asked, playing beside "now" — the fork's own view (the same panes as the main
//! view), its newest event-log lines, and the prediction for the chosen collection (`predict`
//! run on a copy of the fork) with the first of its inputs that is assumed, not measured, and
//! every input measured or assumed.
//!
//! Owns: that frame. May not touch: the simulator (the source fills it), ratatui, I/O.

use super::{ClusterView, LogLine};

/// The fork beside "now".
#[derive(Clone, Debug, PartialEq)]
pub struct WhatIfView {
    /// The changes in a screen's words: `+2 shards, drain shard0001`, `no change`.
    pub changes: String,
    /// The fork's own view, for the same request as the source's (its clock on the source's).
    pub fork: Box<ClusterView>,
    /// The fork's newest event-log lines, oldest first.
    pub log: Vec<LogLine>,
    /// The source's time the fork was made at (the fork's clock never goes before it).
    pub forked_at_ms: u64,
    /// Changes the cluster refused at the fork (`removeShard` of the last shard…).
    pub refused: Vec<String>,
    /// The prediction for the chosen collection; `None` while it runs.
    pub prediction: Option<PredictionView>,
    /// The first input of the fork that is assumed (`writes: none: …`); `None` when every one
    /// was measured (a fork of the simulator itself).
    pub assumed: Option<String>,
    /// Every input of the fork for the chosen collection, in `shardtop whatif`'s order.
    pub inputs: Vec<InputView>,
}

/// One input of a fork: what it is (`migrationRate`, `writes`…), whether it was measured from
/// the source or assumed, and how (the `assumptions` of `shardtop whatif`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputView {
    pub what: String,
    pub measured: bool,
    pub note: String,
}

/// What `predict` answered for one collection, times on the source's clock.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PredictionView {
    pub ns: String,
    pub balanced_at_ms: Option<u64>,
    /// Why it was not balanced by the end of the run.
    pub not_balanced: Option<String>,
    /// Each drained shard: when it owned no chunk of the collection any more.
    pub drained: Vec<(String, Option<u64>)>,
    pub migrations: u64,
    pub bytes_moved: u64,
    /// How far the run went (the fork's clock).
    pub until_ms: u64,
}
