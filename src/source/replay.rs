//! A recorded trace as a source: plays the trace's events in virtual time, seeks through its
//! keyframes, and stops at its end.

use std::path::Path;

use color_eyre::eyre::eyre;

use super::Timeline;
use crate::trace::{Notable, ReadOptions, Replay, TraceError};
use crate::view::{self, ClockView, ClusterView, LogLine, ViewRequest};

/// A trace being replayed.
pub struct ReplayTimeline {
    label: String,
    replay: Replay,
    /// The past the views over time show.
    past: super::past::Past,
}

fn failed(e: &TraceError) -> color_eyre::Report {
    eyre!("{}", e.message)
}

impl ReplayTimeline {
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let replay = Replay::open(path, ReadOptions::default())?;
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
        })
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

    fn advance_to(&mut self, t_ms: u64, log: &mut Vec<LogLine>) -> color_eyre::Result<()> {
        let past = &mut self.past;
        self.replay
            .play_to_with(t_ms, |state, e| {
                past.observe(std::slice::from_ref(e));
                past.sample(state);
                log.extend(view::log_line(state, e));
            })
            .map_err(|e| failed(&e))?;
        self.past.sample(self.replay.state());
        Ok(())
    }

    /// A jump back forgets the past after it; a jump forward skips what lies between (the
    /// views over time show it as quiet, with no samples).
    fn seek(&mut self, t_ms: u64) -> color_eyre::Result<()> {
        self.past.truncate_after(t_ms);
        self.replay.seek(t_ms).map_err(|e| failed(&e))
    }

    fn migration(&mut self, forward: bool, _log: &mut Vec<LogLine>) -> color_eyre::Result<bool> {
        let kind = Some(Notable::Migration);
        if forward {
            self.replay.next_notable(kind)
        } else {
            self.replay.prev_notable(kind)
        }
        .map_err(|e| failed(&e))
    }

    fn view(&self, req: &ViewRequest, clock: ClockView) -> ClusterView {
        let state = self.replay.state();
        let mut v = view::build(state, req, &self.label, clock);
        self.past.fill(state, &mut v, req);
        v
    }
}
