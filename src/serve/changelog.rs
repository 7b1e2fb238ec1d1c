//! `config.changelog`, written from the simulator's events as a config server logs them: one
//! document per event with `what` (the changelog names the events already use), `ns`, `time`
//! (the start of serving plus virtual time) and `details` (the event in words). Write batches and
//! round starts are not logged, as on a real cluster; the newest `KEEP` entries are kept (the
//! real collection is capped too).

use std::collections::VecDeque;

use bson::{Document, doc};

use super::state::State;
use crate::sim::{Event, EventKind};

const KEEP: usize = 10_000;

/// The entries kept so far.
#[derive(Debug, Default)]
pub struct Changelog {
    entries: VecDeque<Document>,
    next: u64,
}

impl Changelog {
    pub fn documents(&self) -> Vec<Document> {
        self.entries.iter().cloned().collect()
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

/// Takes the simulator's new events into the changelog.
pub fn record(state: &mut State) {
    let events: Vec<Event> = state.sim.take_events();
    for e in &events {
        if matches!(
            e.kind,
            EventKind::Writes { .. }
                | EventKind::DocumentDeleted { .. }
                | EventKind::BalancerRoundStarted { .. }
                | EventKind::BalancerIdle { .. }
        ) {
            continue;
        }
        let millis = state.started_secs as i64 * 1000 + e.at_ms as i64;
        let n = state.changelog.next;
        state.changelog.next += 1;
        let entry = doc! {
            "_id": format!("shardtop-{}-{n}", state.started_secs),
            "server": "shardtop",
            "clientAddr": "",
            "time": bson::DateTime::from_millis(millis),
            "what": e.kind.what(),
            "ns": ns_of(&e.kind),
            "details": { "shardtop": state.sim.describe_detail(e) },
        };
        state.changelog.entries.push_back(entry);
        while state.changelog.entries.len() > KEEP {
            state.changelog.entries.pop_front();
        }
    }
}
