//! Replay control over an indexed trace — what the TUI drives: seek to a time (from the nearest
//! keyframe), step one event forward or back, jump to the next or previous migration, error or
//! jumbo mark, and play forward by an amount of trace time.

use std::path::Path;

use super::reader::{LineReader, Notable, Read1, ReadOptions, TraceError, TraceFile};
use crate::cluster::Cluster;
use crate::cluster::Event;

/// A trace being replayed: its current state and position.
pub struct Replay {
    pub trace: TraceFile,
    state: Cluster,
    lines: LineReader,
    /// Ordinal of the next event to apply.
    next_ordinal: u64,
    /// The next event, read but not yet applied.
    peeked: Option<Event>,
    time_ms: u64,
}

impl Replay {
    /// Opens and validates a trace; the replay starts at its first keyframe.
    pub fn open(path: &Path, opts: ReadOptions) -> Result<Self, TraceError> {
        let trace = TraceFile::open(path, opts)?;
        let first = trace.keyframes[0];
        let lines = trace.lines_from(&first)?;
        let mut replay = Self {
            state: placeholder(),
            trace,
            lines,
            next_ordinal: 0,
            peeked: None,
            time_ms: 0,
        };
        replay.load_keyframe(first)?;
        Ok(replay)
    }

    /// The state at the current position.
    pub fn state(&self) -> &Cluster {
        &self.state
    }

    pub fn time_ms(&self) -> u64 {
        self.time_ms
    }

    pub fn end_ms(&self) -> u64 {
        self.trace.end_ms
    }

    /// Ordinal of the next event (= events applied since the start of the trace).
    pub fn position(&self) -> u64 {
        self.next_ordinal
    }

    fn load_keyframe(&mut self, kf: super::reader::KeyframeAt) -> Result<(), TraceError> {
        let mut lines = self.trace.lines_from(&kf)?;
        match self.trace.read(&mut lines, None)? {
            Some(Read1::Keyframe(state)) => self.state = *state,
            _ => {
                return Err(TraceError {
                    input: true,
                    message: format!(
                        "{}:{}: expected a keyframe",
                        self.trace.path.display(),
                        kf.line
                    ),
                });
            }
        }
        self.lines = lines;
        self.next_ordinal = kf.events_before;
        self.peeked = None;
        self.time_ms = kf.t_ms;
        Ok(())
    }

    /// The next event, without applying it (keyframes after the first are skipped: the state
    /// already equals them).
    fn peek(&mut self) -> Result<Option<&Event>, TraceError> {
        while self.peeked.is_none() {
            match self.trace.read(&mut self.lines, Some(&self.state))? {
                None | Some(Read1::End) => return Ok(None),
                Some(Read1::Keyframe(_)) => {}
                Some(Read1::Unknown) => self.next_ordinal += 1,
                Some(Read1::Event(e)) => self.peeked = Some(e),
            }
        }
        Ok(self.peeked.as_ref())
    }

    /// Applies the next event; `None` at the end of the trace.
    pub fn step_forward(&mut self) -> Result<Option<Event>, TraceError> {
        if self.peek()?.is_none() {
            return Ok(None);
        }
        let Some(e) = self.peeked.take() else {
            return Ok(None);
        };
        self.apply(&e)?;
        self.time_ms = self.time_ms.max(e.at_ms);
        Ok(Some(e))
    }

    fn apply(&mut self, e: &Event) -> Result<(), TraceError> {
        self.state.apply(e).map_err(|err| TraceError {
            input: true,
            message: format!(
                "{}: event {}: {err}",
                self.trace.path.display(),
                self.next_ordinal
            ),
        })?;
        self.next_ordinal += 1;
        Ok(())
    }

    /// Goes back one event (re-applying from the keyframe before it).
    pub fn step_back(&mut self) -> Result<(), TraceError> {
        if let Some(target) = self.next_ordinal.checked_sub(1) {
            self.seek_event(target)?;
        }
        Ok(())
    }

    /// The state just before event `ordinal`.
    pub fn seek_event(&mut self, ordinal: u64) -> Result<(), TraceError> {
        let kf = *self.trace.keyframe_before_event(ordinal);
        self.load_keyframe(kf)?;
        while self.next_ordinal < ordinal {
            if self.step_forward()?.is_none() {
                break;
            }
        }
        self.state.close_open_ticks();
        Ok(())
    }

    /// The state at `t_ms`: every event before that time applied.
    pub fn seek(&mut self, t_ms: u64) -> Result<(), TraceError> {
        let t_ms = t_ms.min(self.trace.end_ms);
        if t_ms < self.time_ms
            || t_ms >= self.time_ms + self.trace.header.keyframe_interval_ms.max(1)
        {
            let kf = *self.trace.keyframe_before(t_ms);
            if kf.t_ms > self.time_ms || t_ms < self.time_ms {
                self.load_keyframe(kf)?;
            }
        }
        self.play_to(t_ms)
    }

    /// Plays forward to `t_ms` (applying the events before it).
    pub fn play_to(&mut self, t_ms: u64) -> Result<(), TraceError> {
        self.play_to_with(t_ms, |_, _| {})
    }

    /// Plays forward to `t_ms`, handing each applied event and the state after it to `on_event`.
    pub fn play_to_with(
        &mut self,
        t_ms: u64,
        mut on_event: impl FnMut(&Cluster, &Event),
    ) -> Result<(), TraceError> {
        while let Some(e) = self.peek()? {
            if e.at_ms >= t_ms {
                break;
            }
            if let Some(e) = self.step_forward()? {
                on_event(&self.state, &e);
            }
        }
        self.time_ms = self.time_ms.max(t_ms.min(self.trace.end_ms));
        self.state.advance_clock(self.time_ms);
        self.state.close_open_ticks();
        Ok(())
    }

    /// Jumps to just before the next notable event of `kind` (any kind when `None`).
    pub fn next_notable(&mut self, kind: Option<Notable>) -> Result<bool, TraceError> {
        let target = self
            .trace
            .notable
            .iter()
            .find(|(_, ord, k)| *ord >= self.next_ordinal && kind.is_none_or(|want| want == *k))
            .map(|(_, ord, _)| *ord);
        match target {
            Some(ord) => self.seek_event(ord + 1).map(|()| true),
            None => Ok(false),
        }
    }

    /// Jumps to the previous notable event of `kind`.
    pub fn prev_notable(&mut self, kind: Option<Notable>) -> Result<bool, TraceError> {
        let target = self
            .trace
            .notable
            .iter()
            .rev()
            .find(|(_, ord, k)| ord + 1 < self.next_ordinal && kind.is_none_or(|want| want == *k))
            .map(|(_, ord, _)| *ord);
        match target {
            Some(ord) => self.seek_event(ord + 1).map(|()| true),
            None => Ok(false),
        }
    }
}

fn placeholder() -> crate::cluster::Cluster {
    crate::cluster::Cluster {
        version: crate::cluster::ServerVersion::DEFAULT,
        shards: Vec::new(),
        settings: crate::cluster::Settings {
            chunk_size_bytes: 1,
            balancer_enabled: false,
            auto_split_only: false,
            active_window: None,
            auto_merge: true,
            attempt_to_balance_jumbo_chunks: false,
            migration_bytes_per_sec: 1,
            migration_overhead_ms: 0,
            resharding: crate::cluster::resharding::ReshardingParams::default(),
            orphan_cleanup_delay_secs: None,
            balancer_migrations_throttling_ms: None,
        },
        databases: std::collections::BTreeMap::default(),
        collections: Vec::new(),
        pending_zones: Vec::new(),
        now_ms: 0,
        balancer: crate::cluster::balancer::BalancerState::default(),
        next_migration_id: 1,
        failed_actions: Vec::new(),
    }
}
