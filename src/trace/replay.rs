//! Replay control over an indexed trace — what the TUI drives: seek to a time (from the nearest
//! keyframe), step one event forward or back, jump to the next or previous migration, error or
//! jumbo mark, and play forward by an amount of trace time — taking each keyframe it meets as
//! the state from then on (a live recording is a keyframe per poll).

use std::path::Path;
use std::sync::Arc;

use super::logged::Logged;
use super::reader::{LineReader, Notable, Read1, ReadOptions, TraceError, TraceFile};
use crate::cluster::Cluster;
use crate::cluster::Event;

/// What a replay hands on as it plays: an event it applied, or a recorded log entry.
#[derive(Clone, Copy, Debug)]
pub enum Played<'a> {
    Event(&'a Event),
    Logged(&'a Logged),
}

impl Played<'_> {
    pub fn at_ms(&self) -> u64 {
        match self {
            Self::Event(e) => e.at_ms,
            Self::Logged(l) => l.at_ms,
        }
    }
}

/// A line read ahead.
enum Item {
    Event(Event),
    Logged(Logged),
    /// A keyframe after the first: the state from its time on.
    Keyframe(Box<Cluster>),
}

impl Item {
    fn at_ms(&self) -> u64 {
        match self {
            Self::Event(e) => e.at_ms,
            Self::Logged(l) => l.at_ms,
            Self::Keyframe(s) => s.now_ms,
        }
    }
}

/// A trace being replayed: its current state and position.
pub struct Replay {
    /// The indexed trace (shared with other cursors over the same file).
    pub trace: Arc<TraceFile>,
    state: Cluster,
    lines: LineReader,
    /// Ordinal of the next event to apply.
    next_ordinal: u64,
    /// The next line, read but not yet applied.
    peeked: Option<Item>,
    time_ms: u64,
}

impl Replay {
    /// Opens and validates a trace; the replay starts at its first keyframe.
    pub fn open(path: &Path, opts: ReadOptions) -> Result<Self, TraceError> {
        Self::start(Arc::new(TraceFile::open(path, opts)?))
    }

    /// A new replay of an opened trace, at its first keyframe.
    pub fn start(trace: Arc<TraceFile>) -> Result<Self, TraceError> {
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

    /// The next line to apply, without applying it.
    fn peek(&mut self) -> Result<Option<&Item>, TraceError> {
        while self.peeked.is_none() {
            match self.trace.read(&mut self.lines, Some(&self.state))? {
                None | Some(Read1::End) => return Ok(None),
                Some(Read1::Keyframe(s)) => self.peeked = Some(Item::Keyframe(s)),
                Some(Read1::Unknown) => self.next_ordinal += 1,
                Some(Read1::Event(e)) => self.peeked = Some(Item::Event(e)),
                Some(Read1::Logged(l)) => self.peeked = Some(Item::Logged(l)),
            }
        }
        Ok(self.peeked.as_ref())
    }

    /// Applies the line read ahead: a keyframe becomes the state (in a simulator's trace it
    /// equals the state already; in a live recording it is the next poll), an event changes the
    /// state, a recorded log entry only moves the position. `on` sees events and entries.
    fn take(&mut self, on: &mut impl FnMut(&Cluster, Played<'_>)) -> Result<bool, TraceError> {
        let Some(item) = self.peeked.take() else {
            return Ok(false);
        };
        self.time_ms = self.time_ms.max(item.at_ms());
        match item {
            Item::Keyframe(s) => self.state = *s,
            Item::Event(e) => {
                self.apply(&e)?;
                on(&self.state, Played::Event(&e));
            }
            Item::Logged(l) => {
                self.next_ordinal += 1;
                on(&self.state, Played::Logged(&l));
            }
        }
        Ok(true)
    }

    /// Applies the next event or recorded entry (and any keyframe before it), handing it to
    /// `on`; false at the end of the trace.
    pub fn step_with(
        &mut self,
        mut on: impl FnMut(&Cluster, Played<'_>),
    ) -> Result<bool, TraceError> {
        while let Some(item) = self.peek()? {
            let keyframe = matches!(item, Item::Keyframe(_));
            self.take(&mut on)?;
            if !keyframe {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Applies the next event; `None` at the end of the trace (recorded entries are passed).
    pub fn step_forward(&mut self) -> Result<Option<Event>, TraceError> {
        let mut applied = None;
        while applied.is_none() {
            let more = self.step_with(|_, p| {
                if let Played::Event(e) = p {
                    applied = Some(e.clone());
                }
            })?;
            if !more {
                break;
            }
        }
        Ok(applied)
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
            if !self.step_with(|_, _| {})? {
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

    /// Plays forward to `t_ms`: every event and recorded entry before that time and every
    /// keyframe at or before it, handing each event and entry, with the state after it, to
    /// `on`.
    pub fn play_to_with(
        &mut self,
        t_ms: u64,
        mut on: impl FnMut(&Cluster, Played<'_>),
    ) -> Result<(), TraceError> {
        while let Some(item) = self.peek()? {
            let due = match item {
                Item::Keyframe(s) => s.now_ms <= t_ms,
                other => other.at_ms() < t_ms,
            };
            if !due {
                break;
            }
            self.take(&mut on)?;
        }
        self.time_ms = self.time_ms.max(t_ms.min(self.trace.end_ms));
        self.state.advance_clock(self.time_ms);
        self.state.close_open_ticks();
        Ok(())
    }

    /// Jumps to just after the next notable event of `kind` (any kind when `None`); false when
    /// there is none.
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

    /// Jumps to just after the previous notable event of `kind`; false when there is none.
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
        before_6_0_3: false,
        shards: Vec::new(),
        settings: crate::cluster::Settings {
            chunk_size_bytes: 1,
            balancer_enabled: false,
            auto_split_only: false,
            active_window: None,
            window_rejected: None,
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
        poll_notes: Vec::new(),
    }
}
