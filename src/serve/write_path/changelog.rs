//! `config.changelog` and `config.actionlog`, written from the simulator's events as a config
//! server logs them. Balancer rounds (and balancer start/stop — unverified) go to the actionlog
//! with the real `details` of the version (`errorOccured` before 5.0, `errorOccurred` after);
//! everything else goes to the changelog with `what` (the names the events already use), `ns`,
//! `time` (the start of serving plus virtual time) and `details` (the event in words, plus
//! `min`/`max`/`from`/`to` for migrations, a commit's `counts`, whose donor also logs
//! `moveChunk.from` with its step times). Write
//! batches and round starts are not logged, as on a real cluster; the newest `KEEP` entries of
//! each are kept (the real collections are capped too).

use bson::{Document, doc};

use crate::cluster::{Event, EventKind, ServerVersion};
use crate::model::ChunkStats;
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
        if let EventKind::MigrationCommitted { moved, .. } = &e.kind {
            details.insert("counts", counts(*moved));
        }
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

/// A committed migration's `counts` in its `moveChunk.commit` entry, as the real 8.0.32 entry
/// holds them (all Int64): what was cloned, nothing caught up or steady (the simulator has no
/// writes during a migration's copy that it would send again).
fn counts(moved: ChunkStats) -> Document {
    let long = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    doc! {
        "cloned": long(moved.docs),
        "clonedBytes": long(moved.bytes),
        "catchup": 0_i64,
        "steady": 0_i64,
    }
}

/// The donor's step times of a migration that took `millis`: the six `"step K of 6"` fields
/// `src/mongo/db/s/migration_source_manager.cpp` logs through `move_timing_helper.cpp` (Int32
/// milliseconds since the step before, ahead of `min`/`max`/`to`/`from`/`note`, as in the real
/// 8.0.32 entry). Step 4 ends when the clone has caught up (`awaitToCatchUp`), step 6 when the
/// commit is done. The simulator's time is one cost (a fixed cost + bytes ÷ a rate,
/// `sim/balancer.rs`), so its split is ours: the copy in step 4, the fixed cost in step 6, the
/// other steps 0 (docs/fidelity.md).
fn steps(state: &State, millis: u64) -> Document {
    let fixed = state.sim.cluster.settings.migration_overhead_ms.min(millis);
    let int = |n: u64| i32::try_from(n).unwrap_or(i32::MAX);
    doc! {
        "step 1 of 6": 0_i32,
        "step 2 of 6": 0_i32,
        "step 3 of 6": 0_i32,
        "step 4 of 6": int(millis - fixed),
        "step 5 of 6": 0_i32,
        "step 6 of 6": int(fixed),
    }
}

/// The donor's `moveChunk.from` entry of a finished migration: its step times and
/// `note: "success"`, or `"aborted"` with `errmsg` — what `sh.status()` counts as migration
/// results.
fn donor_entry(state: &State, kind: &EventKind) -> Option<Document> {
    let mut d = migration_details(state, kind);
    match kind {
        EventKind::MigrationCommitted { millis, .. } => {
            let mut timed = steps(state, *millis);
            timed.extend(d);
            d = timed;
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
