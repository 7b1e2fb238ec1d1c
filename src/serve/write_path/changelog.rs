//! `config.changelog` and `config.actionlog`, written from the simulator's events as a config
//! server logs them. Balancer rounds (and balancer start/stop — unverified) go to the actionlog
//! with the real `details` of the version (`errorOccured` before 5.0, `errorOccurred` after);
//! everything else goes to the changelog with `what` (the names the events already use), `ns`,
//! `time` (the start of serving plus virtual time) and `details` (the event in words, plus
//! `min`/`max`/`from`/`to` for migrations, whose donor also logs `moveChunk.from`). Write
//! batches and round starts are not logged, as on a real cluster; the newest `KEEP` entries of
//! each are kept (the real collections are capped too).

use bson::{Document, doc};

use crate::cluster::{Event, EventKind, ServerVersion};
use crate::serve::state::State;

fn ns_of(kind: &EventKind) -> String {
    match kind {
        EventKind::CollectionSharded { ns, .. }
        | EventKind::Split { ns, .. }
        | EventKind::SplitFailed { ns, .. }
        | EventKind::Merge { ns, .. }
        | EventKind::JumboMarked { ns, .. }
        | EventKind::JumboCleared { ns, .. }
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
    state.outcomes.note(&events);
    let version = state.sim.cluster.version;
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
        let time = bson::DateTime::from_millis(millis);
        if let Some(details) = action_details(&e.kind, version) {
            let entry = doc! {
                "server": "shardtop", "shard": "config", "clientAddr": "", "time": time,
                "what": e.kind.what(), "ns": "", "details": details,
            };
            state.actionlog.push(state.started_secs, entry);
            continue;
        }
        let text = state.sim.cluster.describe_detail(e);
        let mut details = migration_details(state, &e.kind);
        details.insert("shardtop", text);
        let entry = doc! {
            "server": "shardtop",
            "clientAddr": "",
            "time": time,
            "what": e.kind.what(),
            "ns": ns_of(&e.kind),
            "details": details,
        };
        state.changelog.push(state.started_secs, entry);
        if let Some(from) = donor_entry(state, &e.kind) {
            let entry = doc! {
                "server": "shardtop", "clientAddr": "", "time": time,
                "what": "moveChunk.from", "ns": ns_of(&e.kind), "details": from,
            };
            state.changelog.push(state.started_secs, entry);
        }
    }
}

/// `{min, max, from, to}` of a migration event (empty for other events).
fn migration_details(state: &State, kind: &EventKind) -> Document {
    let (EventKind::MigrationStarted { range, .. }
    | EventKind::MigrationCommitted { range, .. }
    | EventKind::MigrationFailed { range, .. }) = kind
    else {
        return Document::new();
    };
    let cluster = &state.sim.cluster;
    let Some(c) = cluster.collection(&range.ns) else {
        return Document::new();
    };
    doc! {
        "min": c.pattern.bound_to_document(&range.min),
        "max": c.pattern.bound_to_document(&range.max),
        "from": cluster.shard_id(range.from),
        "to": cluster.shard_id(range.to),
    }
}

/// The donor's `moveChunk.from` entry of a finished migration: `note: "success"`, or
/// `"aborted"` with `errmsg` — what `sh.status()` counts as migration results. (The donor's
/// per-step timings, `"step 1 of 6"` …, are not simulated and left out.)
fn donor_entry(state: &State, kind: &EventKind) -> Option<Document> {
    let mut d = migration_details(state, kind);
    match kind {
        EventKind::MigrationCommitted { .. } => {
            d.insert("note", "success");
        }
        EventKind::MigrationFailed { error, .. } => {
            d.insert("note", "aborted");
            d.insert("errmsg", error.message.clone());
        }
        _ => return None,
    }
    Some(d)
}
