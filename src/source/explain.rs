//! The explanation a source gives of a chunk (`shardtop explain`, the TUI's explain panel): the
//! simulator's policy over the source's state, with what the source could not read marked
//! unknown.
//!
//! Owns: which rules a state read from a cluster leaves unknown, and the panel for a view
//! request. May not touch: the rules (`sim::balancer::explain`), the terminal.

use crate::cluster::Cluster;
use crate::cluster::privileges::Feeds;
use crate::sim::Simulator;
use crate::sim::balancer::explain::{Told, Unread};
use crate::view::explain::ExplainView;
use crate::view::{ClusterView, ViewRequest};

/// What a state leaves unknown: read from a cluster (`live`: a poll, or a recording of polls),
/// every chunk's own document count (a poll reads per-shard totals) and whether the window is
/// open (when there is one: a mongos does not say the config server's time zone); and the sizes
/// or the balancer when the reads feeding those panes (`panes`, as `Feeds` names them) were
/// refused.
pub fn unread_of<S: AsRef<str>>(
    live: bool,
    cluster: &Cluster,
    panes: impl IntoIterator<Item = S>,
) -> Unread {
    let mut unread = Unread {
        chunk_docs: live,
        window: live && cluster.settings.active_window.is_some(),
        ..Unread::default()
    };
    for pane in panes {
        match Feeds::parse(pane.as_ref()) {
            Some(Feeds::Everything) => {
                unread.sizes = true;
                unread.balancer = true;
            }
            Some(Feeds::Shards) => unread.sizes = true,
            Some(Feeds::Balancer) => unread.balancer = true,
            _ => {}
        }
    }
    unread
}

/// The explain panel for `req` (when it asks for one): the selected cell's first chunk, else the
/// chunk the next round moves (the diagnosis's), else the hottest.
pub fn panel(
    sim: &Simulator,
    req: &ViewRequest,
    view: &ClusterView,
    unread: Unread,
    diagnoses: Option<&crate::diagnosis::Diagnoses>,
) -> Option<ExplainView> {
    if !req.explain {
        return None;
    }
    let c = if req.collection < sim.cluster.collections.len() {
        req.collection
    } else if sim.cluster.collections.is_empty() {
        return None;
    } else {
        0
    };
    let coll = &sim.cluster.collections[c];
    let key = (view.collection.as_ref())
        .and_then(|cv| cv.selection.as_ref())
        .filter(|s| s.first < coll.table.len())
        .map(|s| coll.table.chunk(s.first).min.clone());
    let told = match diagnoses.and_then(|d| d.of(&coll.ns)) {
        Some(d) => d.next.told(),
        None => {
            Told::Nothing("not worked out yet (the diagnosis runs on a thread of its own)".into())
        }
    };
    let e = sim.explain(c, key.as_ref(), unread, told);
    Some(crate::view::explain::panel(&e))
}

/// The frame's collection: the one `req` asks for, else the first.
pub fn ns_of<'a>(cluster: &'a crate::cluster::Cluster, req: &ViewRequest) -> Option<&'a str> {
    (cluster.collections.get(req.collection))
        .or_else(|| cluster.collections.first())
        .map(|c| c.ns.as_str())
}
