//! Sources of cluster states over time feed the UI: the simulator, a trace replay, a live
//! cluster. They all meet the UI through one message type, [`SourceEvent`], and take
//! [`SourceControl`] commands back. The simulator can also be recorded into a trace (`record`).
//!
//! Owns: the messages, the playback clock of virtual-time sources, and the source tasks. May use
//! tokio, `sim`, `trace` and `view`; never the terminal or ratatui.

pub mod capture;
pub mod conformance;
pub mod diagnose;
pub mod event_detail;
pub mod explain;
pub mod heat;
pub mod heat_choice;
pub mod lab;
pub mod live;
pub mod past;
pub mod record;
pub mod replay;
pub mod runner;
pub mod sim;
pub mod whatif;

pub use runner::{Playback, run_timeline};

use crate::view::{ClockView, ClusterView, LogLine, ViewRequest};

/// A message from a source to the UI.
#[derive(Clone, Debug)]
pub enum SourceEvent {
    /// A fresh view (the newest one wins).
    View(Box<ClusterView>),
    /// New event-log lines; `reset` clears the log first (after a seek).
    Log { reset: bool, lines: Vec<LogLine> },
    /// A one-line notice for the footer (end of trace, a failed command).
    Notice(String),
}

/// A command from the UI to a source.
#[derive(Clone, Debug, PartialEq)]
pub enum SourceControl {
    SetPaused(bool),
    /// Back to the start and playing (a scenario, a trace, the lab's documents).
    Restart,
    SetSpeed(f64),
    /// Moves the clock by this many milliseconds (negative = back) and pauses.
    Step(i64),
    /// Jumps by this many milliseconds, keeping play/pause.
    SeekBy(i64),
    /// Jumps to the next (or previous) migration.
    Migration {
        forward: bool,
    },
    /// What to aggregate.
    View(ViewRequest),
    /// The what-if mode: fork the state at "now" with these changes (the `whatif` CLI's options,
    /// as typed) and play the fork beside it; `None` drops the fork.
    WhatIf(Option<String>),
}

/// A source that lives in virtual time: it can advance, jump anywhere and build views. The
/// runner adds the clock (speed, pause) and the messages.
pub trait Timeline: Send + 'static {
    /// `sim:ascending`, `replay:<file>`.
    fn label(&self) -> String;
    fn now_ms(&self) -> u64;
    /// Where playing stops (the end of a trace); `None` plays on.
    fn stop_at_ms(&self) -> Option<u64>;
    /// The nominal end (scenario end, trace end) for the clock display.
    fn end_ms(&self) -> Option<u64>;
    /// A replay of a live recording: the wall-clock milliseconds since the epoch of its time 0,
    /// so its times are shown as the live view showed them; `None` for virtual time.
    fn wall_start_ms(&self) -> Option<u64> {
        None
    }
    /// Plays forward to `t_ms`, adding log lines for the events on the way.
    fn advance_to(&mut self, t_ms: u64, log: &mut Vec<LogLine>) -> color_eyre::Result<()>;
    /// Jumps to `t_ms` (either direction); `log` becomes the event log up to that time (the
    /// newest lines), which replaces the UI's.
    fn seek(&mut self, t_ms: u64, log: &mut Vec<LogLine>) -> color_eyre::Result<()>;
    /// Jumps to just after the next or previous migration; false when there is none, and then
    /// the clock has not moved. When it jumps, `log` becomes the event log up to the new time.
    fn migration(&mut self, forward: bool, log: &mut Vec<LogLine>) -> color_eyre::Result<bool>;
    /// What the footer says when [`Timeline::migration`] found none.
    fn no_migration(&self, forward: bool) -> String {
        if forward {
            "no later migration".into()
        } else {
            "no earlier migration".into()
        }
    }
    /// The view for `req`, with the newest diagnosis the source has (`diagnoses`; the explain
    /// panel's next move is its).
    fn view(
        &self,
        req: &ViewRequest,
        clock: ClockView,
        diagnoses: Option<&crate::diagnosis::Diagnoses>,
    ) -> ClusterView;
    /// The state at "now" for the what-if mode to fork; `None`: this source has none.
    fn fork_point(&self) -> Option<whatif::ForkPoint> {
        None
    }
    /// What the diagnosing thread builds the state at "now" with (what is costly to build runs
    /// there, not on the source's task); by default [`Timeline::fork_point`], built here.
    fn diagnosis_work(&self) -> Option<diagnose::Work> {
        let point = self.fork_point()?;
        Some(Box::new(move || Some(point)))
    }
}
