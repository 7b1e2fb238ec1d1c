//! The TUI's what-if mode on the source's side: the source's state at "now" forked into the
//! simulator (a simulator source's own copy, a replay's state at its clock, a capture's state,
//! a live cluster's latest poll — as `shardtop whatif` forks them), prepared
//! (`sim::whatif::assumptions::prepare_calibrated`, with what the source keeps to calibrate it), changed through the same step as `predict`
//! (`sim::whatif::apply_changes`) — all on a thread of its own (`forking`), cancelled when the
//! fork is dropped before it is made —, and then played beside the source: on its clock for a source
//! in virtual time (going back plays again from the fork), on a clock of its own for a capture and
//! a live cluster (real time × the speed, paused with the source). `predict` runs on a copy of the
//! fork on a thread of its own, so neither the source nor the UI waits for it; a fork dropped (or
//! another collection chosen) ends the run nobody waits for.
//!
//! Owns: the fork, its clock and its prediction. May not touch: the rules (`sim`), the terminal,
//! the source it was forked from (it is handed an owned simulator).

pub mod calibrate;
pub mod forking;

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::{Duration, Instant};

use crate::sim::Simulator;
use crate::sim::balancer::explain::Unread;
use crate::sim::engine::TICK_MS;
use crate::sim::whatif::assumptions::{Assumption, ForkedFrom};
use crate::sim::whatif::calibration::Calibration;
use crate::sim::whatif::{
    Changes, DEFAULT_SPAN_MS, Prediction, Watch, apply_watched, changes, predict_unless,
};
use crate::view::whatif::{InputView, PredictionView, WhatIfView};
use crate::view::{self, ClockView, LogLine, ViewRequest};

/// The fork's newest event-log lines kept for its screen.
const LOG_KEPT: usize = 200;
/// The most real time one advance of a fork on its own clock may take (then its clock slows).
const WORK_BUDGET: Duration = Duration::from_millis(40);
/// The most real time one advance on its own clock covers (a late wake-up does not pile work).
const MAX_CATCH_UP: Duration = Duration::from_millis(250);
/// How often a source without a clock of its own wakes up to advance its fork.
pub const FRAME: Duration = Duration::from_millis(100);

/// A source's state at "now", as the fork starts from it.
pub struct ForkPoint {
    pub sim: Simulator,
    pub from: ForkedFrom,
    /// What the source could not read (its rules are unknown, said in the assumptions).
    pub unread: Unread,
    /// What it keeps to calibrate the fork with (a capture's changelog tail); the default says
    /// nothing was read, and the assumptions say so.
    pub calibration: Calibration,
}

impl ForkPoint {
    /// The simulator itself, copied: its workloads and schedule go on.
    pub fn of_simulator(sim: &Simulator) -> Self {
        Self {
            sim: sim.clone(),
            from: ForkedFrom::Simulator,
            unread: Unread::default(),
            calibration: Calibration::default(),
        }
    }
}

/// The prompt's text checked as [`Fork::new`] checks it: the changes' words for the screen, or
/// what is wrong naming the option (for the prompt, before anything is sent to the source).
pub fn check(text: &str, shards: &[&str]) -> Result<String, String> {
    checked(text, shards).map(|c| c.label())
}

/// The prompt's text read as changes (the CLI's options, `sim::whatif::changes`), each drained
/// shard one of `shards`; the error names the option.
fn checked(text: &str, shards: &[&str]) -> Result<Changes, String> {
    let c = changes::parse(text)?;
    changes::room(shards.len(), c.add_shards)?;
    if let Some(d) = c.drain.iter().find(|d| !shards.contains(&d.as_str())) {
        return Err(format!(
            "--drain {d}: no such shard (it has: {})",
            shards.join(", ")
        ));
    }
    Ok(c)
}

/// What `predict` has answered for a collection so far.
enum Predicting {
    /// The answer to come, and the flag that ends the run when nobody waits for it any more.
    Running(Receiver<Prediction>, Arc<AtomicBool>),
    Done(Box<Prediction>),
    Failed(String),
}

/// A fork playing beside its source.
pub struct Fork {
    changes: Changes,
    /// The prepared state at the fork, before the changes: what `predict` starts from.
    base: Simulator,
    /// The fork just after the changes: where it plays again from when the clock goes back.
    origin: Simulator,
    sim: Simulator,
    /// Per collection, what the fork measured and what it assumed.
    assumed: Vec<Vec<Assumption>>,
    refused: Vec<String>,
    log: VecDeque<LogLine>,
    predicted: Option<(usize, Predicting)>,
    /// The fork's own diagnosis, for its panes (its status, next move and estimate).
    diagnoser: super::diagnose::Diagnoser,
}

impl Fork {
    /// Forks `point` with the prompt's `text` (a reshard is of collection `collection`).
    pub fn new(point: ForkPoint, text: &str, collection: usize) -> Result<Self, String> {
        Self::new_watched(point, text, collection, &Watch::default())
    }

    /// [`Fork::new`], watched from another thread ([`forking::Forking`]): the shards added are
    /// counted in `watch`, and once it is cancelled no more are added and the fork is dropped.
    pub fn new_watched(
        point: ForkPoint,
        text: &str,
        collection: usize,
        watch: &Watch,
    ) -> Result<Self, String> {
        let ids: Vec<String> = (point.sim.cluster.shards.iter())
            .filter(|s| !s.removed)
            .map(|s| s.shard.id.clone())
            .collect();
        let changes = checked(text, &ids.iter().map(String::as_str).collect::<Vec<_>>())?;
        let n = point.sim.cluster.collections.len();
        if n == 0 {
            return Err("no sharded collection to fork".into());
        }
        // The source continued as its diagnosis continues it: the same fork, changed.
        let (mut sim, assumed) = super::diagnose::continuation(point);
        let base = sim.clone();
        let applied = apply_watched(&mut sim, collection.min(n - 1), &changes, watch);
        if watch.is_cancelled() {
            return Err("cancelled".into());
        }
        let mut fork = Self {
            changes,
            base,
            origin: sim.clone(),
            sim,
            assumed,
            refused: applied.refused,
            log: VecDeque::new(),
            predicted: None,
            diagnoser: super::diagnose::Diagnoser::default(),
        };
        fork.take_log();
        fork.origin = fork.sim.clone();
        Ok(fork)
    }

    /// The fork's clock.
    pub fn now_ms(&self) -> u64 {
        self.sim.now_ms()
    }

    /// The source's time it was forked at.
    pub fn forked_at_ms(&self) -> u64 {
        self.origin.now_ms()
    }

    fn take_log(&mut self) {
        for e in self.sim.take_events() {
            if let Some(l) = view::log_line(&self.sim.cluster, &e) {
                self.log.push_back(l);
            }
        }
        while self.log.len() > LOG_KEPT {
            self.log.pop_front();
        }
    }

    /// Plays the fork to `t_ms` (never before the fork: there it stays at the fork); a time
    /// before its clock plays again from the fork. Stops early once `budget` is spent.
    pub fn follow(&mut self, t_ms: u64, budget: Option<Duration>) {
        if t_ms < self.sim.now_ms() {
            self.sim = self.origin.clone();
            self.log.clear();
        }
        let started = Instant::now();
        while self.sim.now_ms() + TICK_MS <= t_ms {
            self.sim.step();
            self.take_log();
            if budget.is_some_and(|b| started.elapsed() >= b) {
                break;
            }
        }
    }

    /// Whether a prediction is running.
    pub fn predicting(&self) -> bool {
        matches!(self.predicted, Some((_, Predicting::Running(..))))
    }

    /// Whether a prediction or the fork's diagnosis is running: its source should look again
    /// soon.
    pub fn busy(&self) -> bool {
        self.predicting() || self.diagnoser.running()
    }

    /// Starts `predict` for collection `c` on a copy of the fork, or takes its answer.
    fn predict_for(&mut self, c: usize) {
        if let Some((at, p)) = self.predicted.as_mut()
            && *at == c
        {
            if let Predicting::Running(rx, _) = p {
                *p = match rx.try_recv() {
                    Ok(done) => Predicting::Done(Box::new(done)),
                    Err(TryRecvError::Empty) => return,
                    Err(TryRecvError::Disconnected) => {
                        Predicting::Failed("the prediction ended without an answer".into())
                    }
                };
            }
            return;
        }
        self.cancel();
        let (tx, rx) = channel();
        let cancelled = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancelled);
        let sim = self.base.clone();
        let changes = self.changes.clone();
        let until = sim.now_ms().saturating_add(DEFAULT_SPAN_MS);
        let started = std::thread::Builder::new()
            .name("whatif-predict".into())
            .spawn(move || {
                // The fork is dropped before the answer comes: nobody is waiting for it.
                let _ = tx.send(predict_unless(sim, c, &changes, until, &flag));
            });
        let p = match started {
            Ok(_) => Predicting::Running(rx, cancelled),
            Err(e) => Predicting::Failed(format!("the prediction could not start: {e}")),
        };
        self.predicted = Some((c, p));
    }

    /// Ends a prediction still running (its answer is not wanted any more).
    fn cancel(&mut self) {
        if let Some((_, Predicting::Running(_, cancelled))) = &self.predicted {
            cancelled.store(true, Ordering::Relaxed);
        }
    }

    /// The fork's frame for `req`, its clock on the source's `clock`.
    pub fn view(&mut self, req: &ViewRequest, clock: &ClockView) -> WhatIfView {
        let c = req
            .collection
            .min(self.sim.cluster.collections.len().saturating_sub(1));
        self.predict_for(c);
        let mut one = req.clone();
        (one.heatmap, one.history, one.explain) = (None, None, false);
        let label = self.changes.label();
        let clock = ClockView {
            time_ms: self.sim.now_ms(),
            ..clock.clone()
        };
        if self.diagnoser.due(self.sim.now_ms()) {
            let point = ForkPoint::of_simulator(&self.sim);
            self.diagnoser.start(Box::new(move || Some(point)));
        }
        let parts = view::frame::Parts {
            diagnoses: self.diagnoser.latest(),
            ..view::frame::Parts::default()
        };
        let title = format!("what if: {label}");
        let fork = view::frame::frame(&self.sim.cluster, (&one, &title, clock), parts);
        let prediction = match &self.predicted {
            Some((_, Predicting::Done(p))) => Some(prediction_view(p)),
            Some((_, Predicting::Failed(e))) => Some(PredictionView {
                not_balanced: Some(e.clone()),
                ..PredictionView::default()
            }),
            _ => None,
        };
        let said = self.assumed.get(c).into_iter().flatten();
        let assumed = (said.clone())
            .find(|(_, how, _)| *how == "assumed")
            .map(|(what, _, note)| format!("{what}: {note}"));
        let inputs = (said)
            .map(|(what, how, note)| InputView {
                what: what.clone(),
                measured: *how == "measured",
                note: note.clone(),
            })
            .collect();
        WhatIfView {
            changes: label,
            fork: Box::new(fork),
            log: self.log.iter().cloned().collect(),
            forked_at_ms: self.forked_at_ms(),
            refused: self.refused.clone(),
            prediction,
            assumed,
            inputs,
        }
    }
}

/// A dropped fork ends its prediction.
impl Drop for Fork {
    fn drop(&mut self) {
        self.cancel();
    }
}

fn prediction_view(p: &Prediction) -> PredictionView {
    let c = &p.collection;
    PredictionView {
        ns: c.ns.clone(),
        balanced_at_ms: c.balanced_at_ms,
        not_balanced: c.not_balanced_why.clone(),
        drained: c.drained_at_ms.clone(),
        migrations: c.migrations,
        bytes_moved: c.bytes_moved,
        until_ms: p.ended_ms,
    }
}

/// A fork on a clock of its own (a capture, a live cluster): real time × its speed.
pub struct OwnClock {
    pub fork: Fork,
    last: Instant,
    pub paused: bool,
    pub speed: f64,
}

impl OwnClock {
    pub fn new(fork: Fork, paused: bool) -> Self {
        Self {
            fork,
            last: Instant::now(),
            paused,
            speed: 1.0,
        }
    }

    /// Plays the fork for the real time since the last tick (none while paused).
    pub fn tick(&mut self) {
        let real = self.last.elapsed().min(MAX_CATCH_UP);
        self.last = Instant::now();
        if !self.paused {
            let ms = (real.as_secs_f64() * 1000.0 * self.speed) as u64;
            let t = self.fork.now_ms().saturating_add(ms);
            self.fork.follow(t, Some(WORK_BUDGET));
        }
    }

    /// The fork's frame; its clock says the fork's pause and speed.
    pub fn view(&mut self, req: &ViewRequest, clock: &ClockView) -> WhatIfView {
        let clock = ClockView {
            paused: self.paused,
            speed: self.speed,
            ..clock.clone()
        };
        self.fork.view(req, &clock)
    }
}

#[cfg(test)]
mod tests;
