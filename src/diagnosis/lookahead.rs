//! The state played forward on a copy of the simulator that continues the source (a simulator
//! source: itself, with its workloads and scheduled actions; any other: its fork, as `whatif`
//! prepares it): the first balancer round after "now" and what it starts per collection, then
//! when each collection is first balanced and each drain done. The copy runs MongoDB's rules
//! tick by tick — zone splits, scheduled actions, the commit of migrations in flight included —
//! so the round found is the round the simulator starts.
//!
//! Owns: that run and what it observed ([`Future`]). May not touch: the simulator it was handed
//! (it plays a copy), I/O, the wall clock.

use std::collections::BTreeMap;

use crate::cluster::event::{Event, EventKind, MigrationReason};
use crate::model::ShardIdx;
use crate::sim::Simulator;
use crate::sim::engine::TICK_MS;

use super::NextMove;

/// How far ahead a diagnosis plays the state, in the source's (virtual) time.
pub const LOOKAHEAD_MS: u64 = 2 * 3600 * 1000;

/// The first balancer round after the state: when, and per collection its first migration or
/// why none.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundSeen {
    pub at_ms: u64,
    pub moves: BTreeMap<String, Result<NextMove, String>>,
}

/// What a look ahead observed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Future {
    pub from_ms: u64,
    /// Where the run stopped: every question answered, or the horizon.
    pub until_ms: u64,
    pub round: Option<RoundSeen>,
    /// Why no round was seen (the balancer stopped), when none was.
    pub no_round: Option<String>,
    /// Per collection: the first instant it was balanced (compliant, nothing of it in flight,
    /// no resharding).
    pub balanced_at: BTreeMap<String, u64>,
    /// Per collection with chunks on a draining shard at the start: the first instant none was
    /// left there.
    pub drained_at: BTreeMap<String, u64>,
    /// Per draining shard: the first instant it owned no chunk of any collection.
    pub shard_drained_at: BTreeMap<String, u64>,
    /// Per collection: its migrations that failed during the run (the server's code names).
    pub failures: BTreeMap<String, Vec<&'static str>>,
}

/// Plays a copy of `sim` forward up to `horizon_ms` (or until every question is answered).
pub fn look_ahead(sim: &Simulator, horizon_ms: u64) -> Future {
    let mut copy = sim.clone();
    copy.take_events();
    let from = copy.now_ms();
    let watch = Watch::new(&copy);
    let mut f = Future {
        from_ms: from,
        ..Future::default()
    };
    if !copy.cluster.settings.balancer_enabled {
        f.no_round = Some("the balancer is stopped".into());
    }
    watch.check(&copy, &mut f);
    let limit = from.saturating_add(horizon_ms);
    while !watch.done(&f) && copy.now_ms() + TICK_MS <= limit {
        if f.round.is_none() && !copy.cluster.settings.balancer_enabled && !copy.has_future_inputs()
        {
            break;
        }
        copy.step();
        let events = copy.take_events();
        if f.round.is_none() {
            f.round = round_of(&copy, &events);
        }
        note_failures(&events, &mut f);
        if !events.is_empty() {
            watch.check(&copy, &mut f);
        }
    }
    f.until_ms = copy.now_ms();
    f
}

/// What is watched: the sharded collections (index, namespace, whether a draining shard held
/// its chunks at the start) and the draining shards.
struct Watch {
    colls: Vec<(usize, String, bool)>,
    draining: Vec<ShardIdx>,
}

impl Watch {
    fn new(sim: &Simulator) -> Self {
        let cl = &sim.cluster;
        let draining: Vec<ShardIdx> = (0..cl.shards.len())
            .filter(|&s| cl.shards[s].shard.draining && !cl.shards[s].removed)
            .map(|s| ShardIdx(s as u32))
            .collect();
        let colls = (0..cl.collections.len())
            .filter(|&c| cl.collections[c].placement == crate::cluster::Placement::Sharded)
            .map(|c| {
                let drains = draining_chunks(sim, c, &draining) > 0;
                (c, cl.collections[c].ns.clone(), drains)
            })
            .collect();
        Self { colls, draining }
    }

    fn check(&self, sim: &Simulator, f: &mut Future) {
        let now = sim.now_ms();
        for (c, ns, drains) in &self.colls {
            let Some(c) = (sim.cluster.collections.get(*c))
                .filter(|x| x.ns == *ns)
                .map(|_| *c)
            else {
                continue;
            };
            if !f.balanced_at.contains_key(ns) && crate::sim::whatif::balanced(sim, c) {
                f.balanced_at.insert(ns.clone(), now);
            }
            if *drains
                && !f.drained_at.contains_key(ns)
                && draining_chunks(sim, c, &self.draining) == 0
            {
                f.drained_at.insert(ns.clone(), now);
            }
        }
        for &s in &self.draining {
            let id = sim.cluster.shard_id(s);
            if !f.shard_drained_at.contains_key(id) && sim.owned_chunks(s).0 == 0 {
                f.shard_drained_at.insert(id.to_string(), now);
            }
        }
    }

    fn done(&self, f: &Future) -> bool {
        let colls_done = self.colls.iter().all(|(_, ns, drains)| {
            f.balanced_at.contains_key(ns) && (!drains || f.drained_at.contains_key(ns))
        });
        (f.round.is_some() || f.no_round.is_some())
            && colls_done
            && f.shard_drained_at.len() == self.draining.len()
    }
}

/// Chunks of collection `c` on the draining shards.
fn draining_chunks(sim: &Simulator, c: usize, draining: &[ShardIdx]) -> u64 {
    let table = &sim.cluster.collections[c].table;
    draining.iter().map(|&s| table.shard_totals(s).chunks).sum()
}

fn note_failures(events: &[Event], f: &mut Future) {
    for e in events {
        if let EventKind::MigrationFailed { range, error } = &e.kind {
            (f.failures.entry(range.ns.clone()).or_default()).push(error.code_name);
        }
    }
}

/// The round that started in this tick, if one did: per collection its first balancer
/// migration (zone, drain, imbalance or defragmentation moves; not a manual one or the
/// auto-splitter's top-chunk move) and whether it failed as it started, else the round's reasons
/// for that collection.
fn round_of(sim: &Simulator, events: &[Event]) -> Option<RoundSeen> {
    let (at_ms, why_not) = events.iter().find_map(|e| match &e.kind {
        EventKind::BalancerRoundStarted { why_not, .. } => Some((e.at_ms, why_not)),
        _ => None,
    })?;
    let mut moves = BTreeMap::new();
    for e in events {
        let EventKind::MigrationStarted { range, reason, .. } = &e.kind else {
            continue;
        };
        if matches!(
            reason,
            MigrationReason::Manual | MigrationReason::ManualForce | MigrationReason::TopChunk
        ) || moves.contains_key(&range.ns)
        {
            continue;
        }
        let fails = events.iter().find_map(|f| match &f.kind {
            EventKind::MigrationFailed { range: r, error } if r.id == range.id => {
                Some(error.code_name)
            }
            _ => None,
        });
        let cl = &sim.cluster;
        let bound = |k| {
            (cl.collection(&range.ns))
                .map_or(serde_json::Value::Null, |c| c.pattern.bound_to_json(k))
        };
        let next = NextMove {
            at_ms,
            from: cl.shard_id(range.from).to_string(),
            to: cl.shard_id(range.to).to_string(),
            min: bound(&range.min),
            max: bound(&range.max),
            range: format!(
                "[{}, {})",
                cl.bound_text(&range.ns, &range.min),
                cl.bound_text(&range.ns, &range.max)
            ),
            reason: reason.as_str(),
            fails,
            min_key: range.min.clone(),
        };
        moves.insert(range.ns.clone(), Ok(next));
    }
    for coll in &sim.cluster.collections {
        if moves.contains_key(&coll.ns) {
            continue;
        }
        let mine: Vec<String> = (why_not.iter())
            .filter_map(|w| w.strip_prefix(coll.ns.as_str()))
            .filter(|w| w.starts_with(':') || w.starts_with(' '))
            .map(|w| w.trim_start_matches(':').trim().to_string())
            .collect();
        let why = if mine.is_empty() {
            "the policy picks no migration for it".to_string()
        } else {
            mine.join("; ")
        };
        moves.insert(coll.ns.clone(), Err(why));
    }
    Some(RoundSeen { at_ms, moves })
}
