//! The diagnosis of each collection from a state, its recent migration outcomes and what the
//! state played forward showed: the status by fixed rules (below), its cause, the next move and
//! the estimate. The rules, in order:
//!
//! 1. Not known: a live source without `balancerCollectionStatus`'s answer for it whose data sizes
//!    were not read (the policy of 6.0+ needs them) — `unknown`.
//! 2. Compliant (the server's answer where a live cluster gave one, else the simulator's
//!    `balancer_compliance`) with nothing of it in flight and no resharding — `balanced`.
//! 3. Balancing switched off (the balancer stopped or `autoSplitOnly`, `noBalance`,
//!    `permitMigrations: false`) and nothing in flight — `disabled`.
//! 4. Its last [`STALL_FAILURES`] or more migrations failed, the newest within
//!    [`STALL_RECENT_MS`] — `stalled`: the cause is the newest failure's error, and there is no
//!    estimate while it lasts.
//! 5. Nothing in flight and the next round moves nothing of it (a jumbo chunk, a zone no shard can
//!    take, the window closed) — `blocked`.
//! 6. A draining shard holds its chunks — `draining`; otherwise `balancing`.
//!
//! Owns: these rules. May not touch: the balancer's policy (it reads the simulator's answers),
//! I/O, the clock.

use std::collections::BTreeMap;

use crate::cluster::Placement;
use crate::cluster::balancer::outcomes::{Outcome, OutcomeError};
use crate::cluster::version::BalancingMetric;
use crate::model::ShardIdx;
use crate::sim::Simulator;
use crate::sim::balancer::explain::Unread;

use super::lookahead::{Future, LOOKAHEAD_MS, look_ahead};
use super::{Basis, Cause, Diagnoses, Diagnosis, DrainEta, Eta, Evidence, Next, Status, classify};

/// Failures in a row that make a stall.
pub const STALL_FAILURES: usize = 3;
/// A stall's newest failure is at most this old (the source's clock).
pub const STALL_RECENT_MS: u64 = 10 * 60 * 1000;

/// Where the state comes from: what its clock is and whether a server answered for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// The simulator itself (its future is its own).
    Simulator,
    /// A trace at a time.
    Trace,
    /// A capture or a live cluster (wall-clock time).
    Live,
}

/// What a diagnosis reads.
pub struct Input<'a> {
    /// The simulator that continues the source: the simulator itself, or the source's fork as
    /// `whatif` prepares it.
    pub sim: &'a Simulator,
    pub kind: SourceKind,
    /// A live cluster's own `balancerCollectionStatus` answers: `None` compliant, else its
    /// `firstComplianceViolation`. A collection not asked is absent.
    pub server: BTreeMap<String, Option<String>>,
    /// What the source could not read.
    pub unread: Unread,
    /// A live cluster's measured drain estimates: shard → seconds left.
    pub measured_drains: BTreeMap<String, u64>,
}

impl<'a> Input<'a> {
    /// The input of a state with nothing read from a server.
    pub fn of(sim: &'a Simulator, kind: SourceKind) -> Self {
        Self {
            sim,
            kind,
            server: BTreeMap::new(),
            unread: Unread::default(),
            measured_drains: BTreeMap::new(),
        }
    }
}

/// Diagnoses every sharded collection of the input's state, playing it forward
/// [`LOOKAHEAD_MS`] at most.
pub fn diagnose(input: &Input) -> Diagnoses {
    let future = look_ahead(input.sim, LOOKAHEAD_MS);
    diagnose_with(input, &future)
}

/// [`diagnose`] with the state already played forward.
pub fn diagnose_with(input: &Input, future: &Future) -> Diagnoses {
    let cl = &input.sim.cluster;
    let collections = (0..cl.collections.len())
        .filter(|&c| cl.collections[c].placement == Placement::Sharded)
        .map(|c| one(input, future, c))
        .collect();
    let drains = (0..cl.shards.len())
        .filter(|&s| cl.shards[s].shard.draining && !cl.shards[s].removed)
        .map(|s| drain(input, future, ShardIdx(s as u32)))
        .collect();
    Diagnoses {
        at_ms: cl.now_ms,
        collections,
        drains,
        unix_clock: input.kind == SourceKind::Live,
    }
}

fn drain(input: &Input, future: &Future, s: ShardIdx) -> DrainEta {
    let id = input.sim.cluster.shard_id(s).to_string();
    let chunks_left = input.sim.owned_chunks(s).0;
    let eta = match future.shard_drained_at.get(&id) {
        Some(&at) => simulated(at, "drained"),
        None => measured_or(
            input,
            &id,
            "drained",
            "not drained within the 2 h looked ahead",
        ),
    };
    DrainEta {
        shard: id,
        chunks_left,
        eta,
    }
}

fn simulated(at: u64, what: &'static str) -> Eta {
    Eta {
        at_ms: Some(at),
        basis: Basis::Simulated,
        what,
        why: None,
    }
}

fn measured_or(input: &Input, shard: &str, what: &'static str, why: &str) -> Eta {
    match input.measured_drains.get(shard) {
        Some(&secs) => Eta {
            at_ms: Some(input.sim.cluster.now_ms + secs * 1000),
            basis: Basis::Measured,
            what,
            why: Some(format!(
                "{why}: the rate of the chunks drained since watching began"
            )),
        },
        None => Eta::unknown(what, why),
    }
}

/// What the rules read of collection `c`.
struct Facts<'a> {
    c: usize,
    ns: &'a str,
    compliant: Option<bool>,
    moving: bool,
    resharding: bool,
    draining_chunks: u64,
    switched_off: Option<Cause>,
    stall: Option<Cause>,
    next: Next,
}

fn facts<'a>(input: &'a Input, future: &Future, c: usize) -> Facts<'a> {
    let sim = input.sim;
    let cl = &sim.cluster;
    let coll = &cl.collections[c];
    let ours = sim.balancer_compliance(c).is_none();
    let sizes_needed = cl.balancing_metric() == BalancingMetric::DataSize;
    let compliant = match input.server.get(&coll.ns) {
        Some(answer) => Some(answer.is_none()),
        None if input.unread.sizes && sizes_needed => None,
        None => Some(ours),
    };
    let draining_chunks = (0..cl.shards.len())
        .filter(|&s| cl.shards[s].shard.draining && !cl.shards[s].removed)
        .map(|s| coll.table.shard_totals(ShardIdx(s as u32)).chunks)
        .sum();
    let next = match (&future.round, &future.no_round) {
        (Some(r), _) => match r.moves.get(&coll.ns) {
            Some(Ok(m)) => Next::Move(Box::new(m.clone())),
            Some(Err(why)) => Next::Nothing(why.clone()),
            None => Next::Nothing("the policy picks no migration for it".into()),
        },
        (None, Some(why)) => Next::Nothing(why.clone()),
        (None, None) => Next::Nothing(format!(
            "no balancer round within the {} looked ahead",
            hours(LOOKAHEAD_MS)
        )),
    };
    Facts {
        c,
        ns: &coll.ns,
        compliant,
        moving: cl.balancer.migrating_in(&coll.ns),
        resharding: coll.resharding.is_some(),
        draining_chunks,
        switched_off: switched_off(sim, c),
        stall: stall(cl.balancer.outcomes.of(&coll.ns), cl.now_ms).map(|mut cause| {
            cause.clears_at_ms = clears_at(cl, coll, &cause);
            cause
        }),
        next,
    }
}

fn hours(ms: u64) -> String {
    format!("{} h", ms / 3_600_000)
}

fn one(input: &Input, future: &Future, c: usize) -> Diagnosis {
    let f = facts(input, future, c);
    let (status, cause) = status_of(input, &f);
    let eta = eta_of(input, future, &f, status, &cause);
    Diagnosis {
        ns: f.ns.to_string(),
        at_ms: input.sim.cluster.now_ms,
        status,
        cause,
        next: f.next,
        eta,
    }
}

fn status_of(input: &Input, f: &Facts) -> (Status, Cause) {
    let Some(compliant) = f.compliant else {
        let cause = Cause::new(
            "unread",
            "balancerCollectionStatus gave no answer for it, and the shards' data sizes were not read",
            "whether it is balanced cannot be told from what was read",
        );
        return (Status::Unknown, cause);
    };
    if compliant && !f.moving && !f.resharding && f.draining_chunks == 0 {
        return (Status::Balanced, balanced_cause(input, f));
    }
    if !f.moving
        && let Some(cause) = f.switched_off.clone()
    {
        return (Status::Disabled, cause);
    }
    if let Some(cause) = f.stall.clone() {
        return (Status::Stalled, cause);
    }
    if !f.moving
        && let Some(why) = &input.sim.cluster.settings.window_rejected
    {
        let text = crate::cluster::rejected_settings_text(why);
        return (Status::Blocked, blocked_cause(&text));
    }
    if !f.moving && !f.resharding && window_closed(input.sim) {
        return (
            Status::Blocked,
            blocked_cause("outside the balancer's active window"),
        );
    }
    // Nothing moves next, and nothing could even with every shard free (a shard busy with
    // another migration only delays it).
    if !f.moving
        && !f.resharding
        && let Next::Nothing(why) = &f.next
        && input.sim.balancer_compliance(f.c).is_none()
    {
        return (Status::Blocked, blocked_cause(why));
    }
    let violation = input
        .server
        .get(f.ns)
        .cloned()
        .flatten()
        .or_else(|| (input.sim.balancer_compliance(f.c)).map(|v| v.as_str().to_string()));
    let rule = match violation.as_deref() {
        Some("draining") => "draining",
        Some("zoneViolation") => "zoneViolation",
        Some("defragmentingChunks") => "defragmentingChunks",
        Some(_) => "chunksImbalance",
        None if f.resharding => "resharding",
        None => "migrationInFlight",
    };
    let status = if f.draining_chunks > 0 {
        Status::Draining
    } else {
        Status::Balancing
    };
    (status, moving_cause(rule, f))
}

fn balanced_cause(input: &Input, f: &Facts) -> Cause {
    let mut cause = if input.server.contains_key(f.ns) {
        Cause::new(
            "balancerCompliant",
            "balancerCollectionStatus: balancerCompliant: true",
            "the server says the balancer has nothing to do for it",
        )
    } else {
        let plain = "nothing to move: no zone violation, no draining shard, no imbalance above the \
                     threshold, nothing of it in flight";
        Cause::new("balancerCompliant", plain, plain)
    };
    cause.source = Some("src/mongo/db/s/balancer/balancer.cpp");
    cause
}

fn moving_cause(rule: &'static str, f: &Facts) -> Cause {
    let plain = match rule {
        "draining" => format!(
            "a draining shard still holds {} of its chunks; the balancer moves them off",
            f.draining_chunks
        ),
        "zoneViolation" => {
            "chunks lie outside their zone's shards; the balancer moves them in".into()
        }
        "defragmentingChunks" => "defragmentCollection is merging and moving small chunks".into(),
        "resharding" => "a reshardCollection is copying it to its new key".into(),
        "migrationInFlight" => "a migration of it is in flight".into(),
        _ => "the shards differ by more than the balancer's threshold; it evens them".into(),
    };
    let mut cause = Cause::new(rule, rule, plain);
    cause.source = Some("src/mongo/db/s/balancer/balancer_policy.cpp");
    cause
}

fn blocked_cause(why: &str) -> Cause {
    let c = classify(why);
    let mut cause = Cause::new(
        c.as_ref().map_or("policy", |c| c.rule),
        why,
        c.as_ref().map_or_else(
            || "the next balancer round moves nothing of it, though it is not balanced".into(),
            |c| c.plain.clone(),
        ),
    );
    cause.source = Some(c.map_or("src/mongo/db/s/balancer/balancer_policy.cpp", |c| c.source));
    cause
}

/// The balancer's active window is closed now: in the simulator's time, or as a live cluster's
/// logged rounds tell (unknown counts as open).
fn window_closed(sim: &Simulator) -> bool {
    let cl = &sim.cluster;
    match (&cl.settings.active_window, &cl.balancer.window_now) {
        (None, _) => false,
        (Some(_), Some(now)) => now.open == Some(false),
        (Some(w), None) => !w.contains(cl.now_ms),
    }
}

/// Balancing switched off for collection `c`, when it is: the balancer itself, or the
/// collection's own settings.
fn switched_off(sim: &Simulator, c: usize) -> Option<Cause> {
    let cl = &sim.cluster;
    let coll = &cl.collections[c];
    let text = if !cl.balancer_mode().migrates() {
        format!(
            "the balancer is {} (mode {})",
            if cl.settings.balancer_enabled {
                "on but never migrates"
            } else {
                "stopped"
            },
            cl.balancer_mode().as_str()
        )
    } else if coll.balancing.no_balance {
        "balancing is disabled for this collection (noBalance)".to_string()
    } else if coll.balancing.migrations_blocked {
        "migrations are not allowed (setAllowMigrations false)".to_string()
    } else {
        return None;
    };
    let c = classify(&text);
    let mut cause = Cause::new(
        c.as_ref().map_or("balancerStopped", |c| c.rule),
        text,
        c.as_ref().map_or_else(String::new, |c| c.plain.clone()),
    );
    cause.source = c.map(|c| c.source);
    Some(cause)
}

/// A stall: the newest outcomes failures only, at least [`STALL_FAILURES`] of them, the newest
/// recent. The cause is the newest failure's error, whole.
fn stall<'o>(outcomes: impl DoubleEndedIterator<Item = &'o Outcome>, now_ms: u64) -> Option<Cause> {
    let failed: Vec<&Outcome> = outcomes.rev().take_while(|o| o.error.is_some()).collect();
    let newest = failed.first()?;
    if failed.len() < STALL_FAILURES || now_ms.saturating_sub(newest.at_ms) > STALL_RECENT_MS {
        return None;
    }
    let error = newest.error.as_ref()?;
    let c = classify(&error.message);
    let mut cause = Cause::new(
        c.as_ref().map_or("migrationFailed", |c| c.rule),
        error.text(),
        c.as_ref().map_or_else(
            || {
                format!(
                    "its last {} migrations failed, each with this error",
                    failed.len()
                )
            },
            |c| c.plain.clone(),
        ),
    );
    cause.source = c.map(|c| c.source);
    cause.events = (failed.iter().rev())
        .map(|o| Evidence {
            at_ms: o.at_ms,
            text: format!(
                "moveChunk.error {} {} → {}: {}",
                o.range,
                o.from,
                o.to,
                o.error.as_ref().map(OutcomeError::text).unwrap_or_default()
            ),
        })
        .collect();
    Some(cause)
}

/// When a pending range deletion blocking the stall is due: the newest deletion of the
/// collection's ranges on the recipient of the failing moves, where the state keeps them (the
/// simulator, its traces; a live cluster's are not read).
fn clears_at(
    cl: &crate::cluster::Cluster,
    coll: &crate::cluster::Collection,
    cause: &Cause,
) -> Option<u64> {
    if cause.rule != "rangeDeletionPending" {
        return None;
    }
    let to = cause
        .events
        .last()?
        .text
        .split(" → ")
        .nth(1)?
        .split(':')
        .next()?
        .trim();
    let shard = cl.shard_index(to)?;
    coll.range_deletions.on(shard).map(|r| r.due_ms).max()
}

fn eta_of(input: &Input, future: &Future, f: &Facts, status: Status, cause: &Cause) -> Eta {
    let what = if f.draining_chunks > 0 {
        "drained"
    } else {
        "balanced"
    };
    match status {
        Status::Balanced => Eta::unknown("balanced", "balanced now: nothing to wait for"),
        Status::Unknown => Eta::unknown(what, "the status is not known"),
        Status::Disabled => Eta::unknown(what, format!("balancing is off ({})", cause.rule)),
        Status::Stalled => Eta::unknown(
            what,
            format!(
                "stalled ({}): no estimate while its migrations fail",
                cause.rule
            ),
        ),
        _ => {
            let at = if what == "drained" {
                future.drained_at.get(f.ns)
            } else {
                future.balanced_at.get(f.ns)
            };
            if let Some(&at) = at {
                return simulated(at, what);
            }
            let why = format!("not {what} within the {} looked ahead", hours(LOOKAHEAD_MS));
            let shard = input.measured_drains.keys().next().cloned();
            match shard.filter(|_| what == "drained") {
                Some(s) => measured_or(input, &s, what, &why),
                None => Eta::unknown(what, why),
            }
        }
    }
}
