//! The task that drives a [`Timeline`]: a playback clock (speed, pause, steps, seeks) in front of
//! it, views and log lines out to the UI, commands in. While paused it sleeps on the command
//! channel and uses no CPU.

use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::whatif::forking::{Forking, arrived};
use super::{SourceControl, SourceEvent, Timeline};
use crate::view::{ClockView, LogLine, ViewRequest};

/// Real time between two advances of the clock while playing (and between two views).
const FRAME: Duration = Duration::from_millis(50);
/// The most virtual time one advance may cover, in real milliseconds of the clock: when the
/// source cannot keep up, virtual time slows down instead of piling up work.
const MAX_CATCH_UP_MS: f64 = 200.0;
/// Virtual time advanced between two checks of the work budget.
const SLICE_MS: u64 = 1_000;
/// Real time one advance may take before the source publishes and reads commands again.
const WORK_BUDGET: Duration = Duration::from_millis(40);
/// Log lines kept per message (a long seek forward only sends the newest).
const MAX_LOG_LINES: usize = 1000;

pub const MIN_SPEED: f64 = 0.25;
pub const MAX_SPEED: f64 = 4096.0;

/// How the clock starts.
#[derive(Clone, Copy, Debug)]
pub struct Playback {
    pub speed: f64,
    pub paused: bool,
    /// Start at this virtual time (replay `--at`).
    pub start_ms: Option<u64>,
}

struct Runner<T: Timeline> {
    timeline: T,
    paused: bool,
    speed: f64,
    request: ViewRequest,
    log: Vec<LogLine>,
    reset_log: bool,
    notice: Option<String>,
    out: mpsc::Sender<SourceEvent>,
    /// The what-if mode's fork, following the clock.
    fork: Option<super::whatif::Fork>,
    /// The fork asked for, while it is made on a thread of its own.
    forking: Option<Forking>,
    /// The diagnosis of the state, worked out on a thread of its own.
    diagnoser: super::diagnose::Diagnoser,
}

/// What woke the runner.
enum Wake {
    Control(SourceControl),
    Frame,
    Diagnosed,
}

/// Runs `timeline` until the UI drops its command sender (or the UI is gone).
pub async fn run_timeline<T: Timeline>(
    timeline: T,
    playback: Playback,
    initial_log: Vec<LogLine>,
    out: mpsc::Sender<SourceEvent>,
    mut ctl: mpsc::Receiver<SourceControl>,
) -> color_eyre::Result<()> {
    let mut r = Runner {
        timeline,
        paused: playback.paused,
        speed: playback.speed.clamp(MIN_SPEED, MAX_SPEED),
        request: ViewRequest::default(),
        log: initial_log,
        reset_log: true,
        notice: None,
        out,
        fork: None,
        forking: None,
        diagnoser: super::diagnose::Diagnoser::default(),
    };
    if let Some(t) = playback.start_ms {
        r.timeline.seek(t, &mut r.log)?;
    }
    let mut last = Instant::now();
    loop {
        if !r.publish().await {
            return Ok(());
        }
        // A prediction under way is looked for again while paused; a diagnosis is shown when
        // it comes.
        let waiting = r.forking.is_some() || r.fork.as_ref().is_some_and(super::whatif::Fork::busy);
        let diagnosing = r.diagnoser.running();
        let cmd = if r.paused && !waiting {
            tokio::select! {
                c = ctl.recv() => match c { Some(c) => Wake::Control(c), None => return Ok(()) },
                () = r.diagnoser.arrival(), if diagnosing => Wake::Diagnosed,
            }
        } else {
            tokio::select! {
                c = ctl.recv() => match c { Some(c) => Wake::Control(c), None => return Ok(()) },
                () = tokio::time::sleep(FRAME) => Wake::Frame,
            }
        };
        match cmd {
            Wake::Control(c) => r.control(c)?,
            Wake::Frame if !r.paused => {
                let elapsed = last.elapsed().as_secs_f64() * 1000.0;
                r.play(elapsed.min(MAX_CATCH_UP_MS))?;
            }
            Wake::Frame | Wake::Diagnosed => {}
        }
        last = Instant::now();
    }
}

impl<T: Timeline> Runner<T> {
    /// Sends the view, the new log lines and any notice; false when the UI is gone.
    async fn publish(&mut self) -> bool {
        self.fork_arrived();
        if !self.log.is_empty() || self.reset_log {
            let start = self.log.len().saturating_sub(MAX_LOG_LINES);
            let lines = self.log.split_off(start);
            self.log.clear();
            let msg = SourceEvent::Log {
                reset: std::mem::take(&mut self.reset_log),
                lines,
            };
            if self.out.send(msg).await.is_err() {
                return false;
            }
        }
        if let Some(n) = self.notice.take()
            && self.out.send(SourceEvent::Notice(n)).await.is_err()
        {
            return false;
        }
        let clock = ClockView {
            time_ms: self.timeline.now_ms(),
            paused: self.paused,
            speed: self.speed,
            end_ms: self.timeline.end_ms(),
            virtual_time: self.timeline.wall_start_ms().is_none(),
            wall_start_ms: self.timeline.wall_start_ms(),
        };
        let whatif = (self.fork.as_mut()).map(|f| Box::new(f.view(&self.request, &clock)));
        let now = self.timeline.now_ms();
        if self.diagnoser.due(now)
            && let Some(work) = self.timeline.diagnosis_work()
        {
            self.diagnoser.start(work);
        }
        let mut view = self
            .timeline
            .view(&self.request, clock, self.diagnoser.latest());
        view.whatif = whatif;
        view.forking = self.forking.as_ref().map(Forking::progress);
        self.out
            .send(SourceEvent::View(Box::new(view)))
            .await
            .is_ok()
    }

    fn play(&mut self, real_ms: f64) -> color_eyre::Result<()> {
        let now = self.timeline.now_ms();
        let mut target = now + (real_ms * self.speed) as u64;
        if let Some(stop) = self.timeline.stop_at_ms()
            && target >= stop
        {
            // Paused at the end; the footer says so from the clock (`ClockView::at_end`) on
            // every screen, with the key that restarts.
            target = stop;
            self.paused = true;
        }
        // Advance in slices and stop when the work budget is spent: under load virtual time
        // slows down, and commands and views keep flowing.
        let started = Instant::now();
        let mut at = now;
        while at < target {
            at = (at + SLICE_MS).min(target);
            self.timeline.advance_to(at, &mut self.log)?;
            self.follow();
            if started.elapsed() >= WORK_BUDGET {
                if self.paused && at < target {
                    // Not at the end after all: keep playing.
                    self.paused = false;
                }
                break;
            }
        }
        Ok(())
    }

    /// Whether the clock stands at the end of a scenario or trace (where playing stops).
    fn at_the_end(&self) -> bool {
        (self.timeline.stop_at_ms()).is_some_and(|stop| self.timeline.now_ms() >= stop)
    }

    /// `r` anywhere, or play (`Space`) at the end: back to the start and playing, and the footer
    /// says so.
    fn restart(&mut self) -> color_eyre::Result<()> {
        let now = self.timeline.now_ms();
        self.jump(-i64::try_from(now).unwrap_or(i64::MAX))?;
        self.paused = false;
        self.notice = Some("restarted from the start".to_string());
        Ok(())
    }

    fn jump(&mut self, delta_ms: i64) -> color_eyre::Result<()> {
        let now = self.timeline.now_ms();
        if delta_ms >= 0 {
            let mut target = now + delta_ms.unsigned_abs();
            if let Some(stop) = self.timeline.stop_at_ms() {
                target = target.min(stop);
            }
            self.timeline.advance_to(target, &mut self.log)?;
        } else {
            // The log becomes the log up to the new time.
            self.reset_log = true;
            self.timeline
                .seek(now.saturating_sub(delta_ms.unsigned_abs()), &mut self.log)?;
        }
        self.follow();
        Ok(())
    }

    /// The fork to the timeline's clock.
    fn follow(&mut self) {
        if let Some(f) = self.fork.as_mut() {
            f.follow(self.timeline.now_ms(), None);
        }
    }

    /// Starts forking the timeline's state at its clock (on a thread of its own), or drops the
    /// fork and any fork being made.
    fn what_if(&mut self, text: Option<String>) {
        (self.fork, self.forking) = (None, None);
        let Some(text) = text else {
            return;
        };
        let Some(point) = self.timeline.fork_point() else {
            self.notice = Some(format!("{} has no what-if", self.timeline.label()));
            return;
        };
        match Forking::start(point, &text, self.request.collection) {
            Ok(f) => self.forking = Some(f),
            Err(e) => self.notice = Some(format!("what if: {e}")),
        }
    }

    /// The fork being made, once it is: it follows the clock from then on (what it is behind,
    /// within the work budget of a frame at a time).
    fn fork_arrived(&mut self) {
        match arrived(&mut self.forking) {
            Some(Ok(mut f)) => {
                f.follow(self.timeline.now_ms(), Some(WORK_BUDGET));
                self.fork = Some(f);
            }
            Some(Err(e)) => self.notice = Some(format!("what if: {e}")),
            None => {}
        }
    }

    fn control(&mut self, c: SourceControl) -> color_eyre::Result<()> {
        match c {
            SourceControl::SetPaused(false) if self.at_the_end() => self.restart()?,
            SourceControl::Restart => self.restart()?,
            SourceControl::SetPaused(p) => self.paused = p,
            SourceControl::SetSpeed(s) => self.speed = s.clamp(MIN_SPEED, MAX_SPEED),
            SourceControl::Step(d) => {
                self.paused = true;
                self.jump(d)?;
            }
            SourceControl::SeekBy(d) => self.jump(d)?,
            SourceControl::Migration { forward } => {
                self.paused = true;
                let mut log = Vec::new();
                if self.timeline.migration(forward, &mut log)? {
                    // The log up to the migration replaces the UI's.
                    self.reset_log = true;
                    self.log = log;
                } else {
                    self.notice = Some(self.timeline.no_migration(forward));
                }
                self.follow();
            }
            SourceControl::WhatIf(text) => self.what_if(text),
            SourceControl::View(req) => self.request = req,
        }
        Ok(())
    }
}
