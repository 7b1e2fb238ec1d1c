//! A recorded trace as a source: plays the trace's events in virtual time, seeks through its
//! keyframes, and stops at its end. After any jump the event log is the trace's log up to the
//! new position, from a second cursor over the trace that builds the log as far as it is asked.

use std::path::Path;
use std::sync::Arc;

use color_eyre::eyre::eyre;

use super::Timeline;
use crate::cluster::Cluster;
use crate::trace::replay::Played;
use crate::trace::{Logged, Notable, ReadOptions, Replay, TraceError, TraceFile};
use crate::view::{self, ClockView, ClusterView, LogKind, LogLine, ViewRequest};

/// Log lines handed over after a jump, at most (the newest).
const LOG_AFTER_JUMP: usize = 1000;

/// A trace being replayed.
pub struct ReplayTimeline {
    label: String,
    replay: Replay,
    /// The past the views over time show.
    past: super::past::Past,
    /// The trace's event log, built as far as a jump needed it.
    book: LogBook,
    /// Conformance over a live recording, as far as the view was asked (a cursor of its own).
    conformance: Option<std::sync::Mutex<super::conformance::OverTrace>>,
}

/// The log line of an event or of a recorded entry (at its trace time), as the live view and
/// the simulator show them.
pub fn line_of(state: &Cluster, played: Played<'_>) -> Option<LogLine> {
    match played {
        Played::Event(e) => super::event_detail::log_line(state, e, super::event_detail::TRACE),
        Played::Logged(l) => Some(logged_line(l)),
    }
}

fn logged_line(l: &Logged) -> LogLine {
    let doc = bson::Bson::try_from(l.entry.clone())
        .ok()
        .and_then(|b| b.as_document().cloned());
    let mut line = doc.map_or_else(
        || LogLine {
            at_ms: 0,
            kind: LogKind::Other,
            text: format!("{:<20} (an entry this build cannot read)", l.what()),
            migration: None,
            detail: None,
        },
        |d| crate::live::logs::line_of(l.collection, &d),
    );
    line.at_ms = l.at_ms;
    line
}

/// The whole trace's log lines by event ordinal, from a cursor of its own.
struct LogBook {
    cursor: Option<Replay>,
    lines: Vec<(u64, LogLine)>,
}

impl LogBook {
    /// The log before event `ordinal`: the newest `max` lines.
    fn up_to(
        &mut self,
        trace: &Arc<TraceFile>,
        ordinal: u64,
        max: usize,
    ) -> Result<&[(u64, LogLine)], TraceError> {
        let cursor = match self.cursor.as_mut() {
            Some(c) => c,
            None => self.cursor.insert(Replay::start(Arc::clone(trace))?),
        };
        while cursor.position() < ordinal {
            let mut line = None;
            if !cursor.step_with(|state, p| line = line_of(state, p))? {
                break;
            }
            if let Some(l) = line {
                self.lines.push((cursor.position().saturating_sub(1), l));
            }
        }
        let end = self.lines.partition_point(|(o, _)| *o < ordinal);
        Ok(&self.lines[end.saturating_sub(max)..end])
    }
}

fn failed(e: &TraceError) -> color_eyre::Report {
    eyre!("{}", e.message)
}

impl ReplayTimeline {
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let replay = Replay::open(path, ReadOptions::default())?;
        let conformance =
            super::conformance::OverTrace::of(&replay.trace).map(std::sync::Mutex::new);
        Ok(Self {
            label: format!(
                "replay:{}",
                path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned()
                )
            ),
            replay,
            past: super::past::Past::keeping(super::past::KEEP_SECS),
            book: LogBook {
                cursor: None,
                lines: Vec::new(),
            },
            conformance,
        })
    }

    /// The trace's warnings as log lines (the first lines of every log).
    pub fn warning_lines(&self) -> Vec<LogLine> {
        self.warnings()
            .iter()
            .map(|w| LogLine {
                at_ms: 0,
                kind: LogKind::Error,
                text: format!("trace warning: {w}"),
                migration: None,
                detail: None,
            })
            .collect()
    }

    /// `log` becomes the log up to the current position (the warnings, then the newest lines).
    fn fill_log(&mut self, log: &mut Vec<LogLine>) -> color_eyre::Result<()> {
        log.clear();
        log.extend(self.warning_lines());
        let lines = self
            .book
            .up_to(&self.replay.trace, self.replay.position(), LOG_AFTER_JUMP)
            .map_err(|e| failed(&e))?;
        log.extend(lines.iter().map(|(_, l)| l.clone()));
        Ok(())
    }

    /// Keeps `secs` of the past for the views over time (from now on).
    pub fn keep_past(&mut self, secs: u64) {
        self.past = super::past::Past::keeping(secs);
    }

    /// The trace's warnings (truncated last line, missing end marker).
    pub fn warnings(&self) -> &[String] {
        &self.replay.trace.warnings
    }
}

impl Timeline for ReplayTimeline {
    fn label(&self) -> String {
        self.label.clone()
    }

    fn now_ms(&self) -> u64 {
        self.replay.time_ms()
    }

    fn stop_at_ms(&self) -> Option<u64> {
        Some(self.replay.end_ms())
    }

    fn end_ms(&self) -> Option<u64> {
        Some(self.replay.end_ms())
    }

    /// A live recording (a trace without a simulator's scenario) shows wall-clock time.
    fn wall_start_ms(&self) -> Option<u64> {
        self.replay.trace.header.live_start_ms()
    }

    fn advance_to(&mut self, t_ms: u64, log: &mut Vec<LogLine>) -> color_eyre::Result<()> {
        let past = &mut self.past;
        self.replay
            .play_to_with(t_ms, |state, p| {
                if let Played::Event(e) = p {
                    past.observe(std::slice::from_ref(e));
                }
                past.sample(state);
                log.extend(line_of(state, p));
            })
            .map_err(|e| failed(&e))?;
        self.past.sample(self.replay.state());
        Ok(())
    }

    /// A jump back forgets the past after it; a jump forward skips what lies between (the
    /// views over time show it as quiet, with no samples). The log is the trace's up to `t_ms`.
    fn seek(&mut self, t_ms: u64, log: &mut Vec<LogLine>) -> color_eyre::Result<()> {
        self.past.truncate_after(t_ms);
        self.replay.seek(t_ms).map_err(|e| failed(&e))?;
        self.fill_log(log)
    }

    fn migration(&mut self, forward: bool, log: &mut Vec<LogLine>) -> color_eyre::Result<bool> {
        let kind = Some(Notable::Migration);
        let moved = if forward {
            self.replay.next_notable(kind)
        } else {
            self.replay.prev_notable(kind)
        }
        .map_err(|e| failed(&e))?;
        if moved {
            self.past.truncate_after(self.replay.time_ms());
            self.fill_log(log)?;
        }
        Ok(moved)
    }

    /// The state at the replay's clock, calibrated as `shardtop whatif TRACE --at T` forks it
    /// (a live recording played again from its start for its changelog; the state 5 minutes
    /// before for its growth).
    fn fork_point(&self) -> Option<super::whatif::ForkPoint> {
        Some(fork_point_of(&self.replay))
    }

    fn view(
        &self,
        req: &ViewRequest,
        clock: ClockView,
        diagnoses: Option<&crate::diagnosis::Diagnoses>,
    ) -> ClusterView {
        let state = self.replay.state();
        // A recording's notes on the reads its polls could not use, as watch showed them.
        let refused = (state.poll_notes.iter())
            .filter_map(|(feeds, text)| {
                let feeds = crate::cluster::privileges::Feeds::parse(feeds)?;
                Some(crate::cluster::privileges::RefusedRead {
                    feeds,
                    text: text.clone(),
                })
            })
            .collect();
        let live = self.replay.trace.header.live_start_ms().is_some();
        let explain = |v: &ClusterView| {
            let notes = state.poll_notes.iter().map(|(pane, _)| pane.as_str());
            let unread = super::explain::unread_of(live, state, notes);
            let sim = crate::sim::Simulator::over(state.clone());
            super::explain::panel(&sim, req, v, unread, diagnoses)
        };
        let parts = view::frame::Parts {
            diagnoses,
            past: Some(self.past.parts(true)),
            explain: Some(Box::new(explain)),
            refused,
            // As the live view without heat: a recording has no write signal.
            heat: live.then(|| super::live::HeatMode::Off.label()),
            conformance: (self.conformance.as_ref())
                .and_then(|m| m.lock().ok()?.at(self.replay.time_ms()).ok()),
            ..view::frame::Parts::default()
        };
        view::frame::frame(state, (req, &self.label, clock), parts)
    }

    /// The trace is played again on the diagnosing thread, not on the source's task.
    fn diagnosis_work(&self) -> Option<super::diagnose::Work> {
        let trace = self.replay.trace.clone();
        let at = self.replay.time_ms();
        let state = self.replay.state().clone();
        Some(Box::new(move || Some(fork_point_parts(trace, at, state))))
    }
}

/// A replay's state at its clock as a fork starts from it: calibrated by playing the trace again
/// from its start to the clock, as `shardtop whatif TRACE --at T` does.
pub fn fork_point_of(replay: &crate::trace::Replay) -> super::whatif::ForkPoint {
    fork_point_parts(
        replay.trace.clone(),
        replay.time_ms(),
        replay.state().clone(),
    )
}

/// [`fork_point_of`] from its parts: the trace, its time and its state then.
fn fork_point_parts(
    trace: std::sync::Arc<crate::trace::TraceFile>,
    at: u64,
    state: crate::cluster::Cluster,
) -> super::whatif::ForkPoint {
    let live = trace.header.live_start_ms().is_some();
    let notes = state.poll_notes.iter().map(|(pane, _)| pane.as_str());
    let unread = super::explain::unread_of(live, &state, notes);
    let calibration = match super::whatif::calibrate::of_trace(trace, at) {
        Ok((calibration, _)) => calibration,
        Err(e) => {
            let why = format!("the trace could not be played again: {}", e.message);
            crate::sim::whatif::calibration::Calibration {
                migrations: Err(why.clone()),
                earlier: Err(why),
                recent: None,
            }
        }
    };
    super::whatif::ForkPoint {
        unread,
        sim: crate::sim::Simulator::over(state),
        from: crate::sim::whatif::assumptions::ForkedFrom::Trace,
        calibration,
    }
}

#[cfg(test)]
mod feeds_tests {
    /// A trace names a poll note's pane as the view does: the two lists are the same.
    #[test]
    fn a_traces_pane_names_are_the_views() {
        let view: Vec<&str> = crate::trace::state_codec::POLL_NOTE_FEEDS
            .iter()
            .filter_map(|n| {
                crate::cluster::privileges::Feeds::parse(n)
                    .map(crate::cluster::privileges::Feeds::as_str)
            })
            .collect();
        assert_eq!(view, crate::trace::state_codec::POLL_NOTE_FEEDS);
    }
}
