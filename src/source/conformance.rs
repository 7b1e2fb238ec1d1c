//! Conformance over a live source or a live recording: after each poll, the release line's
//! balancer rules run one round ahead on a simulator over the polled state
//! ([`Simulator::next_move`]), and the following polls tell what the cluster then did — the
//! migrations in flight, the chunks whose major version rose (a migration commits a new major
//! version: `commitChunkMigration` in
//! `src/mongo/db/s/config/sharding_catalog_manager_chunk_operations.cpp`; splits and merges
//! raise the minor only), the failed migrations counted. When the rules picked a migration at
//! every poll for [`WITHHELD_MS`] and none started, or chunks moved that the rules would not
//! have moved ([`UNEXPECTED_MOVES`] within [`UNEXPECTED_SPAN_MS`]), it says so.
//!
//! Conservative: nothing is compared while the balancer does not migrate, the window is closed
//! or not known open, a round is in flight, or the reads the rules need were refused (unknown,
//! and the counts start again).
//!
//! Owns: the comparison and its thresholds. May not touch: the rules (the simulator's own,
//! never re-implemented here), the terminal, the cluster (it reads states already polled).

use std::collections::BTreeMap;

use crate::cluster::version::BalancingMetric;
use crate::cluster::{Cluster, ServerVersion};
use crate::model::{ShardIdx, ShardKey};
use crate::sim::Simulator;
use crate::sim::balancer::explain::Unread;
use crate::view::conformance::{Conformance, Finding, Kind, Status};

/// How long the rules may pick a migration that does not start before it is said (the balancer
/// runs a round about every 10 s: this is many rounds).
pub const WITHHELD_MS: u64 = 10 * 60 * 1000;
/// How many moves the rules would not make, within [`UNEXPECTED_SPAN_MS`], before it is said
/// (one can be a threshold crossed between two polls).
pub const UNEXPECTED_MOVES: usize = 3;
pub const UNEXPECTED_SPAN_MS: u64 = 10 * 60 * 1000;

/// What the rules said of one collection at a poll.
#[derive(Clone, Debug, PartialEq)]
enum Rules {
    /// The next round starts a migration from `from` for `reason`.
    Move {
        from: ShardIdx,
        reason: &'static str,
    },
    /// The next round starts none.
    Nothing,
    /// Not comparable (the move the rules pick would fail when it starts: ChunkTooBig).
    Unknown,
}

/// A poll compared with the next: what the rules said, and what the comparison reads of the
/// polled state — not the state itself (at a million chunks a copy of it is hundreds of MB).
struct Prev {
    seen: Seen,
    rules: BTreeMap<String, Rules>,
}

/// What [`Tracker::compare`] reads of the poll before.
struct Seen {
    now_ms: u64,
    failed: u64,
    /// Shard ids by index.
    shards: Vec<String>,
    colls: BTreeMap<String, SeenColl>,
}

/// What [`Tracker::compare`] reads of one collection of the poll before.
struct SeenColl {
    incarnation: u32,
    /// The collection version's major.
    major: u32,
    /// A migration of it was in flight.
    migrating: bool,
    /// Who owned what, in key order: each run of contiguous chunks on one shard, by the run's
    /// lower bound (a table's chunks, fewer when neighbours share a shard).
    runs: Vec<(ShardKey, ShardIdx)>,
}

impl Seen {
    fn of(state: &Cluster) -> Self {
        let colls = (state.collections.iter())
            .map(|c| {
                let mut runs: Vec<(ShardKey, ShardIdx)> = Vec::new();
                for ch in c.table.iter() {
                    if runs.last().is_none_or(|(_, s)| *s != ch.info.shard) {
                        runs.push((ch.min.clone(), ch.info.shard));
                    }
                }
                let seen = SeenColl {
                    incarnation: c.incarnation,
                    major: c.table.version().major,
                    migrating: state.balancer.migrating_in(&c.ns),
                    runs,
                };
                (c.ns.clone(), seen)
            })
            .collect();
        Self {
            now_ms: state.now_ms,
            failed: state.balancer.failed,
            shards: state.shards.iter().map(|s| s.shard.id.clone()).collect(),
            colls,
        }
    }

    /// As [`Cluster::shard_id`].
    fn shard_id(&self, s: ShardIdx) -> &str {
        self.shards.get(s.index()).map_or("?", String::as_str)
    }
}

impl SeenColl {
    /// The shard that owned `key` (the chunk a router would have sent it to).
    fn owner(&self, key: &ShardKey) -> ShardIdx {
        let k = self.runs.partition_point(|(min, _)| min <= key);
        self.runs[k.saturating_sub(1)].1
    }
}

/// One collection's account.
#[derive(Clone, Debug, Default)]
struct Track {
    /// The rules have picked a migration from this donor, for this reason, since this time, and
    /// none started.
    withheld: Option<(u64, ShardIdx, &'static str)>,
    /// Moves the rules would not make: when and from which donor.
    unexpected: Vec<(u64, ShardIdx)>,
}

/// The comparison over a source's polls, fed each polled state in order.
#[derive(Default)]
pub struct Tracker {
    prev: Option<Box<Prev>>,
    tracks: BTreeMap<String, Track>,
    polls: u64,
    /// Polls compared with the one before since the last reset.
    compared: u64,
    /// Why nothing is compared now.
    unknown: Option<String>,
    /// The last state's time and its shard names, for the words.
    now_ms: u64,
    shards: Vec<String>,
    version: Option<ServerVersion>,
    zoned: BTreeMap<String, bool>,
}

/// Why the rules cannot be compared with `state`, if they cannot.
fn unknown_reason(state: &Cluster, unread: Unread) -> Option<String> {
    if !state.balancer_mode().migrates() {
        return Some(format!(
            "the balancer does not migrate (mode {})",
            state.balancer_mode().as_str()
        ));
    }
    if unread.balancer {
        return Some("the balancer's settings were not all read".into());
    }
    if unread.sizes && state.balancing_metric() == BalancingMetric::DataSize {
        return Some("the shards' data sizes could not be read".into());
    }
    if state.settings.active_window.is_some() {
        let open = if unread.window {
            state.balancer.window_now.as_ref().and_then(|w| w.open)
        } else {
            (state.settings.active_window).map(|w| w.contains(state.now_ms))
        };
        match open {
            Some(true) => {}
            Some(false) => return Some("outside the balancer's active window".into()),
            None => {
                return Some("whether the balancer's active window is open is not known".into());
            }
        }
    }
    if state.balancer.round.is_some() {
        return Some("a balancer round is in flight".into());
    }
    None
}

/// The chunks of `now` whose major version is above `before`'s collection version: each moved
/// since (a migration or moveRange), with its donor then.
fn moved(before: &SeenColl, now: &crate::cluster::Collection) -> Vec<(ShardKey, ShardIdx)> {
    let major = before.major;
    if now.table.version().major <= major {
        return Vec::new();
    }
    now.table
        .iter()
        .filter(|ch| ch.info.version.major > major)
        .filter_map(|ch| {
            let from = before.owner(ch.min);
            (from != ch.info.shard).then(|| (ch.min.clone(), from))
        })
        .collect()
}

/// Whether the rules, on `sim`'s state with the chunk at `min` put back on `from`, start a
/// migration from `from` on collection `c` (the move was theirs, only after the poll before).
fn rules_would_move(sim: &Simulator, c: usize, min: &ShardKey, from: ShardIdx) -> bool {
    let mut copy = sim.clone();
    let now = copy.cluster.now_ms;
    let table = &mut copy.cluster.collections[c].table;
    let i = table.find_by_min(min).unwrap_or_else(|| table.route(min));
    if table.move_chunk(i, from, now).is_err() {
        return true; // cannot tell: taken as the rules'
    }
    matches!(copy.next_move(c), Ok(m) if m.from == from)
}

/// A MongoDB issue known to give this finding, labelled as a guess.
fn known_issue(
    kind: Kind,
    rule: &str,
    zoned: bool,
    version: Option<ServerVersion>,
) -> Option<String> {
    // SERVER-115962: no migrations when the most loaded shard is balanced within its zone,
    // fixed in 8.2.6 (a poll reads the release line, not the patch release).
    (kind == Kind::Withheld
        && rule == "chunksImbalance"
        && zoned
        && version.is_some_and(|v| v <= ServerVersion::V8_2))
    .then(|| {
        "possibly SERVER-115962 (no migrations when the most loaded shard is balanced within \
         its zone; fixed in 8.2.6)"
            .to_string()
    })
}

impl Tracker {
    /// Takes the next polled state; `unread` says what its poll could not read.
    pub fn observe(&mut self, state: &Cluster, unread: Unread) {
        self.polls += 1;
        self.now_ms = state.now_ms;
        self.shards = state.shards.iter().map(|s| s.shard.id.clone()).collect();
        self.version = Some(state.version);
        self.zoned = (state.collections.iter())
            .map(|c| (c.ns.clone(), !c.zones.is_empty()))
            .collect();
        if let Some(reason) = unknown_reason(state, unread) {
            self.prev = None;
            self.tracks.clear();
            self.compared = 0;
            self.unknown = Some(reason);
            return;
        }
        self.unknown = None;
        let sim = Simulator::over(state.clone());
        let rules: BTreeMap<String, Rules> = (sim.next_moves().into_iter().enumerate())
            .map(|(c, next)| {
                let r = match next {
                    Ok(m) if m.fails.is_none() => Rules::Move {
                        from: m.from,
                        reason: m.reason.as_str(),
                    },
                    Ok(_) => Rules::Unknown,
                    Err(_) => Rules::Nothing,
                };
                (state.collections[c].ns.clone(), r)
            })
            .collect();
        if let Some(prev) = self.prev.take() {
            self.compare(&prev, &sim);
            self.compared += 1;
        }
        let seen = Seen::of(&sim.cluster);
        self.prev = Some(Box::new(Prev { seen, rules }));
    }

    /// What happened between `prev`'s poll and `now`'s, against what the rules said at `prev`.
    fn compare(&mut self, prev: &Prev, now: &Simulator) {
        let (before, state) = (&prev.seen, &now.cluster);
        let failed = state.balancer.failed != before.failed;
        let busy = |s: ShardIdx| {
            let id = before.shard_id(s);
            (state.balancer.in_flight.iter())
                .any(|m| state.shard_id(m.from) == id || state.shard_id(m.to) == id)
        };
        self.tracks.retain(|ns, _| state.collection(ns).is_some());
        for (c, coll) in state.collections.iter().enumerate() {
            let ns = &coll.ns;
            let track = self.tracks.entry(ns.clone()).or_default();
            let Some(was) = before.colls.get(ns) else {
                *track = Track::default();
                continue;
            };
            if was.incarnation != coll.incarnation || coll.table.version().major < was.major {
                *track = Track::default();
                continue;
            }
            let moves = moved(was, coll);
            let in_flight = state.balancer.migrating_in(ns) || was.migrating;
            match prev.rules.get(ns) {
                Some(Rules::Move { from, reason }) => {
                    if !moves.is_empty() || in_flight || failed || busy(*from) {
                        track.withheld = None;
                    } else {
                        let since = track.withheld.map_or(before.now_ms, |(t, ..)| t);
                        track.withheld = Some((since, *from, reason));
                    }
                }
                Some(Rules::Nothing) => {
                    track.withheld = None;
                    if !in_flight {
                        for (min, from) in &moves {
                            if !rules_would_move(now, c, min, *from) {
                                track.unexpected.push((state.now_ms, *from));
                            }
                        }
                    }
                }
                _ => track.withheld = None,
            }
            let oldest = state.now_ms.saturating_sub(UNEXPECTED_SPAN_MS);
            track.unexpected.retain(|(t, _)| *t >= oldest);
        }
    }

    fn shard_name(&self, s: ShardIdx) -> String {
        (self.shards.get(s.0 as usize)).map_or_else(|| format!("shard #{}", s.0), Clone::clone)
    }

    /// The verdict over the polls taken so far.
    pub fn conformance(&self) -> Conformance {
        if let Some(r) = &self.unknown {
            return Conformance::unknown(r.clone(), self.polls);
        }
        if self.compared == 0 {
            return Conformance::unknown(
                "one poll so far: the rules are compared with the polls that follow",
                self.polls,
            );
        }
        let mut findings = Vec::new();
        for (ns, t) in &self.tracks {
            let zoned = self.zoned.get(ns).copied().unwrap_or(false);
            if let Some((since, from, reason)) = t.withheld
                && self.now_ms.saturating_sub(since) >= WITHHELD_MS
            {
                findings.push(Finding {
                    ns: ns.clone(),
                    kind: Kind::Withheld,
                    rule: reason.to_string(),
                    shard: self.shard_name(from),
                    for_secs: (self.now_ms - since) / 1000,
                    moves: 0,
                    issue: known_issue(Kind::Withheld, reason, zoned, self.version),
                });
            }
            if t.unexpected.len() >= UNEXPECTED_MOVES {
                let first = t.unexpected[0].0;
                let mut donors: Vec<String> = t
                    .unexpected
                    .iter()
                    .map(|(_, s)| self.shard_name(*s))
                    .collect();
                donors.dedup();
                findings.push(Finding {
                    ns: ns.clone(),
                    kind: Kind::Unexpected,
                    rule: "none".into(),
                    shard: donors.join(", "),
                    for_secs: self.now_ms.saturating_sub(first) / 1000,
                    moves: t.unexpected.len() as u64,
                    issue: None,
                });
            }
        }
        Conformance {
            status: if findings.is_empty() {
                Status::Conforms
            } else {
                Status::Diverges
            },
            reason: None,
            polls: self.polls,
            findings,
        }
    }
}

/// What a poll could not read, as the comparison needs it: as [`super::explain::unread_of`]
/// from its notes (`(pane, text)`), except that a refused `balancerCollectionStatus` — what the
/// balancer pane's "why" says, not an input of the rules, which decide for themselves — leaves
/// the balancer's settings read.
pub fn unread<'a>(state: &Cluster, notes: impl IntoIterator<Item = (&'a str, &'a str)>) -> Unread {
    let panes = (notes.into_iter())
        .filter(|(_, text)| !text.starts_with("balancerCollectionStatus "))
        .map(|(pane, _)| pane);
    super::explain::unread_of(true, state, panes)
}

/// What `refused` leaves unread, as [`unread`].
pub fn unread_of_refused(
    state: &Cluster,
    refused: &[crate::cluster::privileges::RefusedRead],
) -> Unread {
    unread(
        state,
        refused.iter().map(|r| (r.feeds.as_str(), r.text.as_str())),
    )
}

/// The verdict of one poll (`watch --once`, a capture): unknown — the rules are compared with
/// the polls that follow — and why, when the balancer could not be compared anyway.
pub fn of_one_poll(
    state: &Cluster,
    refused: &[crate::cluster::privileges::RefusedRead],
) -> Conformance {
    let mut t = Tracker::default();
    t.observe(state, unread_of_refused(state, refused));
    t.conformance()
}

/// The tracker over a live recording, fed its states a poll interval apart (a recording keeps
/// one keyframe per poll) from a cursor of its own; going back starts it again from the start.
pub struct OverTrace {
    trace: std::sync::Arc<crate::trace::TraceFile>,
    cursor: Option<crate::trace::Replay>,
    tracker: Tracker,
    /// The trace time the tracker last observed.
    at_ms: Option<u64>,
}

impl OverTrace {
    /// Over `trace` when it is a live recording (`None` otherwise: a simulator's trace follows
    /// the rules it was made with).
    pub fn of(trace: &std::sync::Arc<crate::trace::TraceFile>) -> Option<Self> {
        trace.header.live_start_ms()?;
        Some(Self {
            trace: std::sync::Arc::clone(trace),
            cursor: None,
            tracker: Tracker::default(),
            at_ms: None,
        })
    }

    /// The verdict at trace time `t_ms`.
    pub fn at(&mut self, t_ms: u64) -> Result<Conformance, crate::trace::TraceError> {
        if self.at_ms.is_some_and(|a| a > t_ms) {
            (self.cursor, self.tracker, self.at_ms) = (None, Tracker::default(), None);
        }
        let step = self.trace.header.keyframe_interval_ms.max(1000);
        let cursor = match self.cursor.as_mut() {
            Some(c) => c,
            None => (self.cursor).insert(crate::trace::Replay::start(self.trace.clone())?),
        };
        let mut next = self.at_ms.map_or(0, |a| a + step);
        while next <= t_ms {
            cursor.play_to(next)?;
            let state = cursor.state();
            let notes =
                (state.poll_notes.iter()).map(|(pane, text)| (pane.as_str(), text.as_str()));
            let unread = unread(state, notes);
            self.tracker.observe(state, unread);
            self.at_ms = Some(next);
            next += step;
        }
        Ok(self.tracker.conformance())
    }
}

#[cfg(test)]
#[path = "conformance_tests.rs"]
mod tests;
