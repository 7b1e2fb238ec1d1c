//! The simulator as a source. Going back in time restores the nearest earlier checkpoint (a copy
//! of the simulator taken every `CHECKPOINT_MS` of virtual time, with how long the event log was
//! then) and runs forward again — the simulator is deterministic, so the result is the same state
//! and the same log. The next migration is searched for up to the scenario's end (an hour past
//! the clock once past it); when there is none the clock stays where it was.

use super::Timeline;
use super::event_detail::SIMULATOR;
use crate::cluster::{EventKind, ServerVersion};
use crate::sim::{Scenario, Simulator};
use crate::view::{self, ClockView, ClusterView, LogLine, ViewRequest};

/// Virtual time between checkpoints.
const CHECKPOINT_MS: u64 = 30_000;
/// Checkpoints kept (older ones are thinned out).
const MAX_CHECKPOINTS: usize = 64;
/// How far past the clock a search for the next migration looks once past the scenario's end.
const SEARCH_MS: u64 = 3_600_000;
/// Log lines handed over after a jump, at most (the newest).
const LOG_AFTER_JUMP: usize = 1000;
/// Log lines kept for going back; past it the oldest half is dropped.
const BOOK_LINES: usize = 200_000;

/// A scenario running in the simulator.
pub struct SimTimeline {
    label: String,
    sim: Simulator,
    end_ms: u64,
    /// Copies of the simulator, with the number of log lines written before each.
    checkpoints: Vec<(Simulator, u64)>,
    /// Start times of the migrations seen so far.
    migrations: Vec<u64>,
    initial: Vec<LogLine>,
    /// The event log since the start (its newest `BOOK_LINES` at most)…
    book: Vec<LogLine>,
    /// …and how many lines came before its first.
    book_start: u64,
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
            checkpoints: Vec::new(),
            sim,
            migrations: Vec::new(),
            initial: Vec::new(),
            book: Vec::new(),
            book_start: 0,
            past: super::past::Past::keeping(super::past::KEEP_SECS),
        };
        let first = tl.sim.take_events();
        tl.note_migrations(&first);
        tl.initial = first
            .iter()
            .filter_map(|e| super::event_detail::log_line(&tl.sim.cluster, e, SIMULATOR))
            .collect();
        tl.book.clone_from(&tl.initial);
        tl.checkpoints.push((tl.sim.clone(), tl.logged()));
        Ok(tl)
    }

    /// Log lines written since the start.
    fn logged(&self) -> u64 {
        self.book_start + self.book.len() as u64
    }

    /// Keeps `lines` in the book (dropping its oldest half when full).
    fn write_book(&mut self, lines: &[LogLine]) {
        self.book.extend_from_slice(lines);
        if self.book.len() > BOOK_LINES {
            let drop = self.book.len() - BOOK_LINES / 2;
            self.book.drain(..drop);
            self.book_start += drop as u64;
        }
    }

    /// `log` becomes the newest lines of the book.
    fn fill_log(&self, log: &mut Vec<LogLine>) {
        log.clear();
        log.extend_from_slice(&self.book[self.book.len().saturating_sub(LOG_AFTER_JUMP)..]);
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
        let last = self.checkpoints.last().map_or(0, |(c, _)| c.now_ms());
        if self.sim.now_ms() >= last + CHECKPOINT_MS {
            self.checkpoints.push((self.sim.clone(), self.logged()));
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
                let lines: Vec<LogLine> = events
                    .iter()
                    .filter_map(|e| super::event_detail::log_line(&self.sim.cluster, e, SIMULATOR))
                    .collect();
                self.write_book(&lines);
                if let Some(log) = log.as_deref_mut() {
                    log.extend(lines);
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

    /// A demo pauses at its scenario's end, as a replay at its trace's end (going back with `[`
    /// or `,` and playing again works as before).
    fn stop_at_ms(&self) -> Option<u64> {
        Some(self.end_ms)
    }

    fn end_ms(&self) -> Option<u64> {
        Some(self.end_ms)
    }

    fn advance_to(&mut self, t_ms: u64, log: &mut Vec<LogLine>) -> color_eyre::Result<()> {
        self.run_to(t_ms, Some(log));
        Ok(())
    }

    fn seek(&mut self, t_ms: u64, log: &mut Vec<LogLine>) -> color_eyre::Result<()> {
        if t_ms < self.sim.now_ms() {
            let at = self
                .checkpoints
                .iter()
                .rposition(|(c, _)| c.now_ms() <= t_ms)
                .unwrap_or(0);
            let (sim, logged) = &self.checkpoints[at];
            self.sim = sim.clone();
            let keep = logged.saturating_sub(self.book_start);
            self.book
                .truncate(usize::try_from(keep).unwrap_or(usize::MAX));
            self.checkpoints.truncate(at + 1);
            self.past.truncate_after(self.sim.now_ms());
        }
        self.run_to(t_ms, None);
        self.fill_log(log);
        Ok(())
    }

    /// A migration starts at `t` in the step from `t` to `t + TICK_MS`: a jump to it lands just
    /// after that step, and the one before is the latest that lands before the clock.
    fn migration(&mut self, forward: bool, log: &mut Vec<LogLine>) -> color_eyre::Result<bool> {
        let now = self.sim.now_ms();
        let landing = |t: u64| t + crate::sim::engine::TICK_MS;
        if !forward {
            let Some(&t) = self.migrations.iter().rev().find(|&&t| landing(t) < now) else {
                return Ok(false);
            };
            self.seek(landing(t), log)?;
            return Ok(true);
        }
        if let Some(&t) = self.migrations.iter().find(|&&t| landing(t) > now) {
            self.seek(landing(t), log)?;
            return Ok(true);
        }
        let known = self.migrations.len();
        let limit = if now < self.end_ms {
            self.end_ms
        } else {
            now + SEARCH_MS
        };
        while self.migrations.len() == known && self.sim.now_ms() < limit {
            let next = self.sim.now_ms() + crate::sim::engine::TICK_MS;
            self.run_to(next, None);
        }
        if self.migrations.len() == known {
            // None: back to where the clock was (the log stays as the UI has it).
            self.seek(now, &mut Vec::new())?;
            return Ok(false);
        }
        self.fill_log(log);
        Ok(true)
    }

    fn no_migration(&self, forward: bool) -> String {
        if !forward {
            return "no earlier migration".into();
        }
        let now = self.sim.now_ms();
        let until = if now < self.end_ms {
            self.end_ms
        } else {
            now + SEARCH_MS
        };
        let s = until / 1000;
        format!(
            "no later migration up to {}m{:02}s (the scenario's end, or an hour past it)",
            s / 60,
            s % 60
        )
    }

    /// The simulator itself, copied: its workloads and schedule go on in the fork.
    fn fork_point(&self) -> Option<super::whatif::ForkPoint> {
        Some(super::whatif::ForkPoint::of_simulator(&self.sim))
    }

    fn view(
        &self,
        req: &ViewRequest,
        clock: ClockView,
        diagnoses: Option<&crate::diagnosis::Diagnoses>,
    ) -> ClusterView {
        let explain = |v: &ClusterView| {
            let unread = crate::sim::balancer::explain::Unread::default();
            super::explain::panel(&self.sim, req, v, unread, diagnoses)
        };
        let parts = view::frame::Parts {
            diagnoses,
            past: Some(self.past.parts(true)),
            explain: Some(Box::new(explain)),
            ..view::frame::Parts::default()
        };
        view::frame::frame(&self.sim.cluster, (req, &self.label, clock), parts)
    }
}
