//! A source's diagnosis: its state at "now" continued as `whatif` continues it (the simulator
//! itself with its workloads and schedule; any other source's fork, prepared with what the source
//! measured — [`continuation`]) and handed to the diagnosis floor, with what a live cluster's
//! server said itself (`balancerCollectionStatus`, its drains). The TUI's sources compute it on a
//! thread of their own ([`Diagnoser`]), so neither the source nor the UI waits for it.
//!
//! Owns: the continuation of every source and the diagnosing thread. May not touch: the rules
//! (`sim`, `diagnosis`), the terminal.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use tokio::sync::oneshot::{self, Receiver, error::TryRecvError};

use super::whatif::ForkPoint;
use crate::diagnosis::{Diagnoses, Input, SourceKind};
use crate::sim::Simulator;
use crate::sim::whatif::assumptions::{Assumption, ForkedFrom, prepare_calibrated};

/// The simulator that continues a source: every collection prepared as a fork prepares it, and
/// what each collection's preparation measured and assumed.
pub fn continuation(point: ForkPoint) -> (Simulator, Vec<Vec<Assumption>>) {
    let ForkPoint {
        mut sim,
        from,
        unread,
        calibration,
    } = point;
    let assumed = (0..sim.cluster.collections.len())
        .map(|c| prepare_calibrated(from, &mut sim, c, unread, &calibration))
        .collect();
    sim.take_events();
    (sim, assumed)
}

/// The diagnosis of the state at `point`.
pub fn of_point(point: ForkPoint) -> Diagnoses {
    let kind = match point.from {
        ForkedFrom::Simulator => SourceKind::Simulator,
        ForkedFrom::Trace => SourceKind::Trace,
        ForkedFrom::Capture | ForkedFrom::Live => SourceKind::Live,
    };
    let unread = point.unread;
    let cluster = &point.sim.cluster;
    let server = cluster.balancer.compliance.clone();
    let measured_drains: BTreeMap<String, u64> = (cluster.balancer.drains.iter())
        .filter_map(|d| Some((d.shard.clone(), d.eta_secs?)))
        .collect();
    let (sim, _) = continuation(point);
    crate::diagnosis::diagnose(&Input {
        sim: &sim,
        kind,
        server,
        unread,
        measured_drains,
    })
}

/// The diagnosis of one poll's state (`watch --once`, `open` of a capture): its reads refused
/// are unknown, its changelog's migrations calibrate the fork, and one instant has no growth.
pub fn of_poll(polled: &crate::live::one_poll::OnePoll, from: ForkedFrom) -> Diagnoses {
    of_point(poll_point(
        &polled.refused,
        &polled.changelog,
        polled.state.clone(),
        from,
    ))
}

/// One poll's state as a fork starts from it: `refused` its reads refused, `changelog` the
/// changelog entries it read.
pub fn poll_point(
    refused: &[crate::cluster::privileges::RefusedRead],
    changelog: &[bson::Document],
    state: crate::cluster::Cluster,
    from: ForkedFrom,
) -> ForkPoint {
    let panes = refused.iter().map(|r| r.feeds.as_str());
    let unread = super::explain::unread_of(true, &state, panes);
    let one_instant = Err("a poll is one instant: no growth to measure".into());
    let calibration = super::whatif::calibrate::of_poll(refused, changelog, one_instant);
    ForkPoint {
        sim: Simulator::over(state),
        from,
        unread,
        calibration,
    }
}

/// What builds the state a diagnosis starts from, run on the diagnosing thread.
pub type Work = Box<dyn FnOnce() -> Option<ForkPoint> + Send>;

/// The diagnosis of what `work` builds, here and now (an export's frames, tests): the answer the
/// diagnosing thread would give.
pub fn now(work: Work) -> Option<Diagnoses> {
    work().map(of_point)
}

/// At most one diagnosis a source asks for in this time.
const EVERY: Duration = Duration::from_millis(250);

/// The diagnosing thread of a TUI source: one diagnosis at a time, the newest answer kept.
#[derive(Default)]
pub struct Diagnoser {
    running: Option<Receiver<Diagnoses>>,
    latest: Option<Diagnoses>,
    started: Option<Instant>,
}

impl Diagnoser {
    /// Takes a finished answer; the newest one.
    pub fn latest(&mut self) -> Option<&Diagnoses> {
        if let Some(rx) = self.running.as_mut() {
            match rx.try_recv() {
                Ok(d) => {
                    self.latest = Some(d);
                    self.running = None;
                }
                Err(TryRecvError::Closed) => self.running = None,
                Err(TryRecvError::Empty) => {}
            }
        }
        self.latest.as_ref()
    }

    /// Whether a new diagnosis of the state at `now_ms` is due: none running, none of that
    /// instant yet, and the last one started [`EVERY`] ago at least.
    pub fn due(&mut self, now_ms: u64) -> bool {
        self.latest();
        if self.latest.as_ref().is_some_and(|d| d.at_ms > now_ms) {
            // The clock went back: an answer of a later state is no answer.
            self.forget();
        }
        self.running.is_none()
            && self.latest.as_ref().is_none_or(|d| d.at_ms != now_ms)
            && self.started.is_none_or(|t| t.elapsed() >= EVERY)
    }

    /// Whether a diagnosis is running (its source should look again soon).
    pub fn running(&self) -> bool {
        self.running.is_some()
    }

    /// Diagnoses what `work` builds on a thread of its own.
    pub fn start(&mut self, work: Work) {
        let (tx, rx) = oneshot::channel();
        let spawned = std::thread::Builder::new()
            .name("diagnosis".into())
            .spawn(move || {
                if let Some(point) = work() {
                    let _ = tx.send(of_point(point));
                }
            });
        if spawned.is_ok() {
            self.running = Some(rx);
            self.started = Some(Instant::now());
        }
    }

    /// Forgets the answers (the source went back in time: they are of a later state).
    pub fn forget(&mut self) {
        self.latest = None;
        self.running = None;
    }

    /// Waits for the running diagnosis to end (at once when none runs): a source's task awaits
    /// it beside its commands, and shows the answer when it comes.
    pub async fn arrival(&mut self) {
        if let Some(rx) = self.running.as_mut() {
            if let Ok(d) = rx.await {
                self.latest = Some(d);
            }
            self.running = None;
        }
    }
}
