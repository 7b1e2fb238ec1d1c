//! `config.changelog` and `config.actionlog`, written from the simulator's events as a config
//! server logs them. Balancer rounds (and balancer start/stop — unverified) go to the actionlog
//! with the real `details` of the version (`errorOccured` before 5.0, `errorOccurred` after);
//! everything else goes to the changelog with `what` (the names the events already use), `ns`,
//! `time` (the start of serving plus virtual time) and `details` (the event in words). Write
//! batches and round starts are not logged, as on a real cluster; the newest `KEEP` entries of
//! each are kept (the real collections are capped too).

use std::collections::VecDeque;

use bson::{Document, doc};

use super::state::State;
use crate::sim::{Event, EventKind, ServerVersion};

const KEEP: usize = 10_000;

/// A capped log collection: the entries kept so far.
#[derive(Debug, Default)]
pub struct CappedLog {
    entries: VecDeque<Document>,
    next: u64,
}

impl CappedLog {
    pub fn documents(&self) -> Vec<Document> {
        self.entries.iter().cloned().collect()
    }

    fn push(&mut self, started_secs: u64, mut entry: Document) {
        let n = self.next;
        self.next += 1;
        let mut with_id = doc! {"_id": format!("shardtop-{started_secs}-{n}")};
        with_id.extend(std::mem::take(&mut entry));
        self.entries.push_back(with_id);
        while self.entries.len() > KEEP {
            self.entries.pop_front();
        }
    }
}

fn ns_of(kind: &EventKind) -> String {
    match kind {
        EventKind::CollectionSharded { ns, .. }
        | EventKind::Split { ns, .. }
        | EventKind::SplitFailed { ns, .. }
        | EventKind::Merge { ns, .. }
        | EventKind::JumboMarked { ns, .. }
        | EventKind::ZoneRangeSet { ns, .. }
        | EventKind::IndexCreated { ns, .. }
        | EventKind::KeyRefined { ns, .. } => ns.clone(),
        EventKind::MigrationStarted { range, .. }
        | EventKind::MigrationCommitted { range, .. }
        | EventKind::MigrationFailed { range, .. } => range.ns.clone(),
        _ => String::new(),
    }
}

/// `details` of an actionlog entry, or `None` for an event of the changelog.
fn action_details(kind: &EventKind, v: ServerVersion) -> Option<Document> {
    match kind {
        EventKind::BalancerRound {
            candidates,
            moved,
            millis,
            ..
        } => {
            let error_field = if v < ServerVersion::V5_0 {
                "errorOccured"
            } else {
                "errorOccurred"
            };
            let mut d = doc! {
                "executionTimeMillis": *millis as i64,
                error_field: false,
                "candidateChunks": *candidates as i64,
                "chunksMoved": *moved as i64,
            };
            if v >= ServerVersion::V8_0 {
                d.insert("candidateUnshardedCollections", 0_i64);
                d.insert("unshardedCollectionsMoved", 0_i64);
            }
            Some(d)
        }
        EventKind::BalancerSet { .. } => Some(Document::new()),
        _ => None,
    }
}

/// Takes the simulator's new events into the changelog and the actionlog.
pub fn record(state: &mut State) {
    let events: Vec<Event> = state.sim.take_events();
    let version = state.sim.cluster.version;
    for e in &events {
        if matches!(
            e.kind,
            EventKind::Writes { .. }
                | EventKind::BalancerRoundStarted { .. }
                | EventKind::BalancerIdle { .. }
        ) {
            continue;
        }
        let millis = state.started_secs as i64 * 1000 + e.at_ms as i64;
        let time = bson::DateTime::from_millis(millis);
        if let Some(details) = action_details(&e.kind, version) {
            let entry = doc! {
                "server": "shardtop", "shard": "config", "clientAddr": "", "time": time,
                "what": e.kind.what(), "ns": "", "details": details,
            };
            state.actionlog.push(state.started_secs, entry);
            continue;
        }
        let entry = doc! {
            "server": "shardtop",
            "clientAddr": "",
            "time": time,
            "what": e.kind.what(),
            "ns": ns_of(&e.kind),
            "details": { "shardtop": state.sim.describe_detail(e) },
        };
        state.changelog.push(state.started_secs, entry);
    }
}
