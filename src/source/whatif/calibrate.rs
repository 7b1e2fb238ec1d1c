//! What each source hands a fork to calibrate it with (`sim::whatif::calibration::Calibration`):
//! a trace's changelog entries up to the fork and its state some minutes before; a poll's
//! changelog tail; a live session's migration entries seen so far and its per-shard totals of
//! an earlier poll ([`LiveGrowth`]). One implementation for `shardtop whatif` and the TUI's
//! what-if mode, so both forks of a source say the same.
//!
//! Owns: gathering those inputs. May not touch: the fit and the workload made of them
//! (`sim::whatif`), the cluster (it reads states it is handed).

use std::collections::VecDeque;
use std::sync::Arc;

use crate::cluster::Cluster;
use crate::cluster::privileges::RefusedRead;
use crate::sim::whatif::calibration::{Calibration, Earlier};
use crate::sim::whatif::growth::Totals;
use crate::trace::replay::Played;
use crate::trace::{LogCollection, Replay, TraceError, TraceFile};

/// How far before a fork its growth is measured from.
pub const GROWTH_WINDOW_MS: u64 = 5 * 60 * 1000;

/// A span shorter than this measures no growth.
const MIN_SPAN_MS: u64 = 1_000;

/// The calibration of a fork of `trace` at `until`, and the state there: a live recording is
/// played from its start, so every changelog entry recorded before `until` is seen; a
/// simulator's trace keeps no changelog and is sought.
pub fn of_trace(
    trace: Arc<TraceFile>,
    until: u64,
) -> Result<(Calibration, Box<Cluster>), TraceError> {
    let mut replay = Replay::start(trace.clone())?;
    let migrations = if trace.header.live_start_ms().is_some() {
        let mut changelog = Vec::new();
        replay.play_to_with(until, |_, played| {
            if let Played::Logged(l) = played
                && l.collection == LogCollection::Changelog
                && let Ok(bson::Bson::Document(d)) = bson::Bson::try_from(l.entry.clone())
            {
                changelog.push(d);
            }
        })?;
        Calibration::of_changelog(&changelog).migrations
    } else {
        replay.seek(until)?;
        Err("a simulator's trace keeps no changelog".into())
    };
    let state = Box::new(replay.state().clone());
    let calibration = Calibration {
        migrations,
        earlier: earlier(trace.clone(), until)?,
        recent: recent(trace, until)?,
    };
    Ok((calibration, state))
}

/// How long before the fork a trace must still grow for its writes to go on in the fork.
pub const STILL_WRITING_MS: u64 = 60_000;

/// The trace's state [`STILL_WRITING_MS`] before `until`, when the trace reaches that far back.
fn recent(trace: Arc<TraceFile>, until: u64) -> Result<Option<Box<Cluster>>, TraceError> {
    let mut replay = Replay::start(trace)?;
    let Some(at) = until
        .checked_sub(STILL_WRITING_MS)
        .filter(|&t| t >= replay.time_ms())
    else {
        return Ok(None);
    };
    replay.seek(at)?;
    Ok(Some(Box::new(replay.state().clone())))
}

/// The trace's state `GROWTH_WINDOW_MS` before `until` (or at its start, if later) and how long
/// before; `Err` with why when the trace holds less than a second before `until`.
fn earlier(trace: Arc<TraceFile>, until: u64) -> Result<Result<Earlier, String>, TraceError> {
    let mut replay = Replay::start(trace)?;
    let at = until.saturating_sub(GROWTH_WINDOW_MS).max(replay.time_ms());
    let span = until.saturating_sub(at);
    if span < MIN_SPAN_MS {
        return Ok(Err("the trace holds under a second before the fork".into()));
    }
    replay.seek(at)?;
    Ok(Ok(Earlier::State(Box::new(replay.state().clone()), span)))
}

/// The calibration of a poll's changelog entries (`refused`: the reads the poll could not make,
/// which may include the changelog), with `earlier` for its writes.
pub fn of_poll<'a>(
    refused: &[RefusedRead],
    changelog: impl IntoIterator<Item = &'a bson::Document>,
    earlier: Result<Earlier, String>,
) -> Calibration {
    let unread = refused.iter().any(|r| r.text.contains("config.changelog"));
    let migrations = if unread {
        Err("the changelog could not be read".into())
    } else {
        Calibration::of_changelog(changelog).migrations
    };
    Calibration {
        migrations,
        earlier,
        recent: None,
    }
}

/// How often a live session keeps its per-shard totals.
const SAMPLE_EVERY_MS: u64 = 30_000;

/// A live session's per-shard totals of earlier polls, one every [`SAMPLE_EVERY_MS`], kept for
/// [`GROWTH_WINDOW_MS`] and one more (at most a dozen).
#[derive(Debug, Default)]
pub struct LiveGrowth {
    kept: VecDeque<Totals>,
}

impl LiveGrowth {
    /// Takes a poll's state.
    pub fn observe(&mut self, state: &Cluster) {
        let now = state.now_ms;
        if self.kept.back().is_some_and(|t| t.at_ms > now) {
            self.kept.clear(); // the clock went back: nothing kept is before it
        }
        if (self.kept.back()).is_none_or(|t| now >= t.at_ms.saturating_add(SAMPLE_EVERY_MS)) {
            self.kept.push_back(Totals::of(state));
        }
        while self.kept.len() > 1 && self.kept[1].at_ms.saturating_add(GROWTH_WINDOW_MS) <= now {
            self.kept.pop_front();
        }
    }

    /// The totals the growth at `now_ms` is measured from: the oldest kept (about
    /// [`GROWTH_WINDOW_MS`] before), or why there are none.
    pub fn earlier(&self, now_ms: u64) -> Result<Earlier, String> {
        match self.kept.front() {
            Some(t) if now_ms >= t.at_ms.saturating_add(MIN_SPAN_MS) => {
                Ok(Earlier::Totals(t.clone()))
            }
            _ => Err("one poll so far: no growth to measure yet".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Cluster {
        let mut c = crate::live::snapshot::empty();
        c.now_ms = ms;
        c
    }

    #[test]
    fn a_live_session_measures_from_about_five_minutes_back_and_keeps_a_dozen() {
        let mut g = LiveGrowth::default();
        g.observe(&at(1_000_000));
        assert!(g.earlier(1_000_000).is_err(), "one poll");
        for s in 1..=3_600u64 {
            g.observe(&at(1_000_000 + s * 1_000));
            assert!(g.kept.len() <= 12, "{} kept", g.kept.len());
        }
        let now = 1_000_000 + 3_600_000;
        let Ok(Earlier::Totals(t)) = g.earlier(now) else {
            panic!("an earlier poll");
        };
        let span = now - t.at_ms;
        assert!((GROWTH_WINDOW_MS..=GROWTH_WINDOW_MS + SAMPLE_EVERY_MS).contains(&span));
    }

    #[test]
    fn a_clock_gone_back_forgets_what_came_after() {
        let mut g = LiveGrowth::default();
        g.observe(&at(500_000));
        g.observe(&at(600_000));
        g.observe(&at(100_000));
        assert!(g.earlier(100_500).is_err());
        assert!(g.earlier(200_000).is_ok());
    }
}
