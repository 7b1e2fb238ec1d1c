//! The simulator as a source. Going back in time restores the nearest earlier checkpoint (a copy
//! of the simulator taken every `CHECKPOINT_MS` of virtual time) and runs forward again — the
//! simulator is deterministic, so the result is the same state.

use super::Timeline;
use crate::cluster::{EventKind, ServerVersion};
use crate::sim::{Scenario, Simulator};
use crate::view::{self, ClockView, ClusterView, LogLine, ViewRequest};

/// Virtual time between checkpoints.
const CHECKPOINT_MS: u64 = 30_000;
/// Checkpoints kept (older ones are thinned out).
const MAX_CHECKPOINTS: usize = 64;
/// How far forward a search for the next migration looks.
const SEARCH_MS: u64 = 3_600_000;

/// A scenario running in the simulator.
pub struct SimTimeline {
    label: String,
    sim: Simulator,
    end_ms: u64,
    checkpoints: Vec<Simulator>,
    /// Start times of the migrations seen so far.
    migrations: Vec<u64>,
    initial: Vec<LogLine>,
    /// The past the views over time show.
    past: super::past::Past,
}

impl SimTimeline {
    /// The scenario at time 0 (right after its collections are sharded).
    pub fn new(sc: &Scenario, seed: u64, version: Option<ServerVersion>) -> Result<Self, String> {
        let sim = Simulator::from_scenario(sc, seed, version)?;
        let mut tl = Self {
            label: format!("sim:{}", sc.name),
            end_ms: (sc.until * 1000.0) as u64,
            checkpoints: vec![sim.clone()],
            sim,
            migrations: Vec::new(),
            initial: Vec::new(),
            past: super::past::Past::keeping(super::past::KEEP_SECS),
        };
        let first = tl.sim.take_events();
        tl.note_migrations(&first);
        tl.initial = first
            .iter()
            .filter_map(|e| view::log_line(&tl.sim.cluster, e))
            .collect();
        Ok(tl)
    }

    /// Keeps `secs` of the past for the views over time (from now on).
    pub fn keep_past(&mut self, secs: u64) {
        self.past = super::past::Past::keeping(secs);
    }

    /// The log lines of the events produced while the scenario was set up (taken once).
    pub fn take_initial_log(&mut self) -> Vec<LogLine> {
        std::mem::take(&mut self.initial)
    }

    fn note_migrations(&mut self, events: &[crate::cluster::Event]) {
        for e in events {
            if matches!(e.kind, EventKind::MigrationStarted { .. })
                && self.migrations.last().is_none_or(|&t| t < e.at_ms)
            {
                self.migrations.push(e.at_ms);
            }
        }
    }

    fn checkpoint(&mut self) {
        let last = self.checkpoints.last().map_or(0, Simulator::now_ms);
        if self.sim.now_ms() >= last + CHECKPOINT_MS {
            self.checkpoints.push(self.sim.clone());
            if self.checkpoints.len() > MAX_CHECKPOINTS {
                // Keep the first, drop every second one after it.
                let mut i = 0;
                self.checkpoints.retain(|_| {
                    i += 1;
                    i == 1 || i % 2 == 0
                });
            }
        }
    }

    fn run_to(&mut self, t_ms: u64, mut log: Option<&mut Vec<LogLine>>) {
        while self.sim.now_ms() + crate::sim::engine::TICK_MS <= t_ms {
            self.sim.step();
            let events = self.sim.take_events();
            if !events.is_empty() {
                self.note_migrations(&events);
                self.past.observe(&events);
                if let Some(log) = log.as_deref_mut() {
                    log.extend(
                        events
                            .iter()
                            .filter_map(|e| view::log_line(&self.sim.cluster, e)),
                    );
                }
            }
            self.past.sample(&self.sim.cluster);
            self.checkpoint();
        }
    }
}

impl Timeline for SimTimeline {
    fn label(&self) -> String {
        self.label.clone()
    }

    fn now_ms(&self) -> u64 {
        self.sim.now_ms()
    }

    fn stop_at_ms(&self) -> Option<u64> {
        None
    }

    fn end_ms(&self) -> Option<u64> {
        Some(self.end_ms)
    }

    fn advance_to(&mut self, t_ms: u64, log: &mut Vec<LogLine>) -> color_eyre::Result<()> {
        self.run_to(t_ms, Some(log));
        Ok(())
    }

    fn seek(&mut self, t_ms: u64) -> color_eyre::Result<()> {
        if t_ms < self.sim.now_ms() {
            let at = self
                .checkpoints
                .iter()
                .rposition(|c| c.now_ms() <= t_ms)
                .unwrap_or(0);
            self.sim = self.checkpoints[at].clone();
            self.checkpoints.truncate(at + 1);
            self.past.truncate_after(self.sim.now_ms());
        }
        self.run_to(t_ms, None);
        Ok(())
    }

    fn migration(&mut self, forward: bool, log: &mut Vec<LogLine>) -> color_eyre::Result<bool> {
        let now = self.sim.now_ms();
        if !forward {
            let Some(&t) = self.migrations.iter().rev().find(|&&t| t + 1 < now) else {
                return Ok(false);
            };
            self.seek(t + crate::sim::engine::TICK_MS)?;
            return Ok(true);
        }
        let known = self.migrations.len();
        let limit = now + SEARCH_MS;
        while self.migrations.len() == known && self.sim.now_ms() < limit {
            let next = self.sim.now_ms() + crate::sim::engine::TICK_MS;
            self.run_to(next, Some(log));
        }
        Ok(self.migrations.len() > known)
    }

    fn view(&self, req: &ViewRequest, clock: ClockView) -> ClusterView {
        let mut v = view::build(&self.sim.cluster, req, &self.label, clock);
        self.past.fill(&self.sim.cluster, &mut v, req);
        v
    }
}
