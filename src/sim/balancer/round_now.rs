//! The policy's decision on a state as it is now: a balancer round started at once on a copy
//! (a round in progress played to its end first), without the workloads or the schedule — what
//! the conformance of a live cluster compares its next moves with. The migration the source's
//! own next round starts, on its schedule, is the diagnosis's (`diagnosis::lookahead`).
//!
//! Owns: that round on a copy and what it picked. May not touch: the simulator it was asked of
//! (it plays a copy), I/O, the clock.

use crate::cluster::event::{EventKind, MigrationReason};
use crate::model::{ShardIdx, ShardKey};
use crate::sim::engine::Simulator;

/// The first migration of the next round on one collection, as the simulator starts it.
#[derive(Clone, Debug, PartialEq)]
pub struct NextMove {
    pub min: ShardKey,
    pub from: ShardIdx,
    pub to: ShardIdx,
    pub reason: MigrationReason,
    /// The move fails when it starts (ChunkTooBig): the server's code name.
    pub fails: Option<&'static str>,
}

/// How long a copy plays a round in progress to its end before giving up (virtual time).
const ROUND_END_LIMIT_MS: u64 = 6 * 3600 * 1000;

/// One round started on a copy of the simulator ([`Simulator::next_moves`]).
struct CopiedRound {
    events: Vec<crate::cluster::event::Event>,
    why_not: Vec<String>,
}

impl CopiedRound {
    /// The first migration this round started on `ns`, or why none.
    fn of(&self, ns: &str) -> Result<NextMove, String> {
        let started = self.events.iter().find_map(|e| match &e.kind {
            EventKind::MigrationStarted { range, reason, .. } if range.ns == ns => {
                Some((range.clone(), *reason))
            }
            _ => None,
        });
        if let Some((range, reason)) = started {
            let fails = self.events.iter().find_map(|e| match &e.kind {
                EventKind::MigrationFailed { range: r, error } if r.id == range.id => {
                    Some(error.code_name)
                }
                _ => None,
            });
            return Ok(NextMove {
                min: range.min,
                from: range.from,
                to: range.to,
                reason,
                fails,
            });
        }
        let mine: Vec<String> = (self.why_not.iter())
            .filter_map(|w| w.strip_prefix(ns))
            .filter(|w| w.starts_with(':') || w.starts_with(' '))
            .map(|w| w.trim_start_matches(':').trim().to_string())
            .collect();
        if mine.is_empty() {
            Err("balanced: the policy picks no migration for this collection".into())
        } else {
            Err(mine.join("; "))
        }
    }
}

impl Simulator {
    /// The first migration the next balancer round starts on collection `c`, or why none: the
    /// round runs on a copy without workloads or scheduled actions (a round in progress is
    /// played to its end first, its migrations committing as the simulator commits them).
    pub fn next_move(&self, c: usize) -> Result<NextMove, String> {
        let round = self.round_on_copy()?;
        round.of(&self.cluster.collections[c].ns)
    }

    /// [`Simulator::next_move`] of every collection, in the cluster's order, from one round on
    /// one copy (a round picks for every collection at once: the answers are the same).
    pub fn next_moves(&self) -> Vec<Result<NextMove, String>> {
        let round = self.round_on_copy();
        (self.cluster.collections.iter())
            .map(|coll| match &round {
                Ok(round) => round.of(&coll.ns),
                Err(e) => Err(e.clone()),
            })
            .collect()
    }

    /// The next round, started on a copy: its events and its reasons for not moving.
    fn round_on_copy(&self) -> Result<CopiedRound, String> {
        if !self.cluster.settings.balancer_enabled {
            return Err("the balancer is stopped".into());
        }
        let mut copy = self.clone();
        copy.workloads.clear();
        copy.actions.clear();
        copy.next_action = 0;
        let limit = copy.cluster.now_ms + ROUND_END_LIMIT_MS;
        while copy.cluster.balancer.round.is_some() && copy.cluster.now_ms < limit {
            copy.step();
        }
        if copy.cluster.balancer.round.is_some() {
            return Err("a balancer round in progress has not ended within 6 h".into());
        }
        if (copy.cluster.settings.active_window).is_some_and(|w| !w.contains(copy.cluster.now_ms)) {
            return Err("outside the balancer's active window".into());
        }
        copy.take_events();
        copy.start_round();
        Ok(CopiedRound {
            events: copy.take_events(),
            why_not: std::mem::take(&mut copy.cluster.balancer.why_not),
        })
    }
}
