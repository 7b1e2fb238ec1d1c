//! One frame, assembled in one place: the state's view (`build`) and what the source adds to it —
//! the diagnosis, the views over time of its past, the explain panel, the reads it could not
//! make, its write signal, a still state's words, the conformance, a disconnection and the
//! what-if fork. Every source hands its parts here; none patches a frame after it.
//!
//! Owns: the order the parts go in (the diagnosis after the history, whose drain lines it
//! completes; a disconnection last, which takes every write signal away). May not touch: how a
//! part is made (the sources, the diagnosis), ratatui, I/O.

use crate::cluster::Cluster;
use crate::cluster::heat_history::HeatLog;
use crate::cluster::history::History;
use crate::diagnosis::Diagnoses;

use super::{ClockView, ClusterView, RefusedRead, ShardRow, ViewRequest};

/// The source's past, for the views over time.
pub struct Past<'a> {
    pub heat: &'a HeatLog,
    pub history: &'a History,
    /// The source keeps writes per chunk (else the key visualizer is left out, and says why).
    pub key_visualizer: bool,
}

/// The explain panel of a frame, made from the state's frame.
pub type ExplainPart<'a> =
    Box<dyn FnOnce(&ClusterView) -> Option<super::explain::ExplainView> + 'a>;

/// Each shard's share of the writes of a collection, set in its rows.
pub type SharesPart<'a> = &'a dyn Fn(&str, &mut [ShardRow]);

/// What a source adds to its state's frame (each part `None` or empty when it has none).
#[derive(Default)]
pub struct Parts<'a> {
    pub diagnoses: Option<&'a Diagnoses>,
    pub past: Option<Past<'a>>,
    /// The explain panel, made from the state's frame when the request asks for it.
    pub explain: Option<ExplainPart<'a>>,
    pub refused: Vec<RefusedRead>,
    /// A live source's write signal (`None`: every write is seen).
    pub heat: Option<&'static str>,
    /// The write signal was chosen by `--heat auto` (the header says so).
    pub heat_auto: bool,
    /// Each shard's share of the writes as a live source's growth measures them.
    pub shares: Option<SharesPart<'a>>,
    pub still: Option<String>,
    pub conformance: Option<super::conformance::Conformance>,
    pub disconnected_since: Option<u64>,
    pub whatif: Option<Box<super::whatif::WhatIfView>>,
    /// The lab: its candidates side by side, the candidates' names in place of the collections,
    /// and the request the UI made (the state is the chosen candidate's, asked as its one
    /// collection).
    pub lab: Option<(super::lab::LabView, Vec<String>, ViewRequest)>,
}

/// The frame of `state` for `req`, with the source's `parts`.
pub fn frame(
    state: &Cluster,
    (req, label, clock): (&ViewRequest, &str, ClockView),
    parts: Parts,
) -> ClusterView {
    let mut v = super::build(state, req, label, clock);
    (v.heat, v.heat_auto) = (parts.heat, parts.heat_auto);
    v.refused = parts.refused;
    v.still = parts.still;
    v.conformance = parts.conformance;
    let ns = v.collection.as_ref().map(|c| c.ns.clone());
    if let (Some(shares), Some(ns)) = (parts.shares, &ns) {
        shares(ns, &mut v.shards);
    }
    if let (Some(past), Some(ns)) = (parts.past, &ns) {
        v.under_way = super::history::under_way(past.history, state, ns);
        if let Some(h) = req.heatmap.as_ref().filter(|_| past.key_visualizer) {
            let clock = (state.now_ms, &v.clock);
            v.heatmap = super::key_visualizer::build(past.heat, state, ns, h, clock);
        }
        if let Some(h) = &req.history {
            v.history = super::history::build(past.history, state, ns, h);
        }
    }
    if let Some(explain) = parts.explain.filter(|_| req.explain) {
        v.explain = explain(&v);
    }
    let shown = (state.collections.get(req.collection))
        .or_else(|| state.collections.first())
        .map(|c| c.ns.as_str());
    super::diagnosis::attach(&mut v, parts.diagnoses, shown);
    v.disconnected(parts.disconnected_since);
    v.whatif = parts.whatif;
    if let Some((lab, names, asked)) = parts.lab {
        (v.lab, v.collections, v.request) = (Some(lab), names, asked);
    }
    v
}
