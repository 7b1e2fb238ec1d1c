//! Recording a live cluster into a trace: the header, then per poll the new entries of
//! `config.changelog` and `config.actionlog` it read (what the live view's event log shows) and
//! one keyframe of the whole state (times relative to the first poll), and the end marker when
//! the recording stops (its duration, or Ctrl-C). A replay shows each poll's state from its
//! keyframe on, and the entries in its event log. Failed polls are retried with backoff and
//! recorded as nothing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::client::{LiveError, hosts};
use super::one_poll::{FIRST_POLL, later_poll};
use super::poller::{Poller, now_ms};
use crate::trace::header::Header;
use crate::trace::writer::TraceWriter;
use crate::trace::{LogCollection, Logged};

/// How the recording went.
pub struct Recorded {
    pub path: PathBuf,
    pub polls: u64,
    pub failed_polls: u64,
    pub duration_ms: u64,
}

fn io(e: &std::io::Error, path: &Path) -> LiveError {
    LiveError {
        message: format!("cannot write the trace {}: {e}", path.display()),
        input: false,
        unauthorized: false,
        code: None,
    }
}

/// Polls every `interval` until `duration` has passed (or `stop` resolves), writing `path`
/// (replacing a file already there).
/// The first poll must succeed (so a wrong URI gives its message instead of an empty trace).
pub async fn record(
    poller: Poller,
    uri: &str,
    path: &Path,
    interval: Duration,
    duration: Option<Duration>,
    stop: impl std::future::Future<Output = ()>,
) -> Result<Recorded, LiveError> {
    let to = (path, crate::trace::writer::Existing::Replace);
    record_to(poller, uri, to, (interval, duration), stop, |_| {}).await
}

/// How far a recording has come, after each poll (for a progress line).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Milliseconds since the recording began.
    pub elapsed_ms: u64,
    pub polls: u64,
    pub failed_polls: u64,
    /// Log entries (events) written.
    pub events: u64,
    /// Bytes of the file on disk so far (compressed, as flushed); `None` through a FIFO.
    pub bytes: Option<u64>,
}

/// [`record`], refusing a file already at `path` unless `existing` allows replacing it;
/// `progress` hears of every poll.
#[allow(clippy::too_many_lines)] // one loop: poll, write, report
pub async fn record_to(
    mut poller: Poller,
    uri: &str,
    (path, existing): (&Path, crate::trace::writer::Existing),
    (interval, duration): (Duration, Option<Duration>),
    stop: impl std::future::Future<Output = ()>,
    mut progress: impl FnMut(Progress),
) -> Result<Recorded, LiveError> {
    // Trace time 0 is a whole second (the header's `startEpochSeconds`), so a replay's
    // wall-clock times are the live view's.
    let began = now_ms();
    let start = began / 1000 * 1000;
    // The duration counts from when the recording began, in trace time.
    let duration = duration.map(|d| d + Duration::from_millis(began - start));
    poller.clock_origin_ms = start;
    poller.logs.record();
    // The first poll has a deadline too, never past the duration.
    let limit = duration.map_or(FIRST_POLL, |d| d.min(FIRST_POLL));
    tokio::pin!(stop);
    let first = tokio::select! {
        first = poller.poll_within(0, limit) => first?,
        () = &mut stop => return Err(LiveError {
            message: format!("stopped before the first poll of {} answered; nothing recorded", hosts(uri)),
            input: false,
            unauthorized: false,
            code: None,
        }),
    };
    let header = Header {
        recorder: format!("shardtop {}", env!("CARGO_PKG_VERSION")),
        source: hosts(uri),
        server_version: first.state.version.to_string(),
        start_epoch_seconds: start / 1000,
        keyframe_interval_ms: interval.as_millis() as u64,
        shards: first
            .state
            .shards
            .iter()
            .map(|s| s.shard.id.clone())
            .collect(),
        collections: first
            .state
            .collections
            .iter()
            .map(|c| (c.ns.clone(), crate::trace::json::pattern_json(&c.pattern)))
            .collect(),
        scenario: None,
    };
    let mut w = TraceWriter::create(path, &header, existing).map_err(|e| io(&e, path))?;
    w.keyframe_of(first.state).map_err(|e| io(&e, path))?;
    // The entries the first poll read (the newest of each log, older than the recording) come
    // right after the first keyframe, at time 0.
    let mut entries = Entries {
        start,
        last_ms: 0,
        written: 0,
    };
    entries
        .write(&mut w, poller.logs.take_recorded(), 1)
        .map_err(|e| io(&e, path))?;
    let (mut polls, mut failed, mut last) = (1, 0, 0);
    let report = |w: &TraceWriter, polls, failed_polls, events| Progress {
        elapsed_ms: now_ms().saturating_sub(began),
        polls,
        failed_polls,
        events,
        bytes: (w.partial_path())
            .and_then(|p| std::fs::metadata(p).ok())
            .map(|m| m.len()),
    };
    progress(report(&w, polls, failed, entries.written));
    let mut wait = interval;
    loop {
        let elapsed = now_ms() - start;
        if duration.is_some_and(|d| elapsed >= d.as_millis() as u64) {
            break;
        }
        // Never past the duration, whatever the interval.
        let left = duration.map(|d| Duration::from_millis(d.as_millis() as u64 - elapsed));
        tokio::select! {
            () = &mut stop => break,
            () = tokio::time::sleep(left.map_or(wait, |l| wait.min(l))) => {}
        }
        let at = now_ms() - start;
        if duration.is_some_and(|d| at >= d.as_millis() as u64) {
            break;
        }
        let mut limit = later_poll(interval);
        if let Some(d) = duration {
            limit = limit.min(Duration::from_millis(
                (d.as_millis() as u64).saturating_sub(at),
            ));
        }
        let polled = tokio::select! {
            polled = poller.poll_within(at, limit) => polled.is_ok(),
            () = &mut stop => break,
        };
        if polled {
            entries
                .write(&mut w, poller.logs.take_recorded(), at)
                .map_err(|e| io(&e, path))?;
            w.keyframe_of(poller.state()).map_err(|e| io(&e, path))?;
            polls += 1;
            last = at;
            wait = interval;
        } else {
            // Entries a failed poll did read stay taken, and go with the next poll's.
            failed += 1;
            wait = (wait * 2).min(Duration::from_secs(30));
        }
        progress(report(&w, polls, failed, entries.written));
    }
    let path = w.finish(last).map_err(|e| io(&e, path))?;
    poller.close(super::client::CLOSE_WITHIN).await;
    Ok(Recorded {
        path,
        polls,
        failed_polls: failed,
        duration_ms: last,
    })
}

/// Writes the log entries a poll read, each at its own time relative to the recording's start,
/// kept in order and before the poll's keyframe.
struct Entries {
    /// Wall-clock milliseconds of trace time 0.
    start: u64,
    /// The last line's time.
    last_ms: u64,
    /// Entries written so far.
    written: u64,
}

impl Entries {
    /// Writes `read` (oldest first within each log) before the keyframe at `poll_ms`: each entry
    /// at its `time` after the start, but never before the previous line nor at or after the
    /// keyframe (an entry older than the recording is at its start).
    fn write(
        &mut self,
        w: &mut TraceWriter,
        mut read: Vec<(LogCollection, bson::Document)>,
        poll_ms: u64,
    ) -> std::io::Result<()> {
        let time = |d: &bson::Document| {
            d.get_datetime("time")
                .map_or(0, |t| t.timestamp_millis().max(0) as u64)
        };
        read.sort_by_key(|(_, d)| time(d));
        let latest = poll_ms.saturating_sub(1).max(self.last_ms);
        for (log, d) in read {
            let at_ms = time(&d)
                .saturating_sub(self.start)
                .clamp(self.last_ms, latest);
            self.last_ms = at_ms;
            let line = Logged {
                at_ms,
                collection: log,
                entry: crate::trace::logged::entry_of(&d),
            };
            w.line(&line.encode())?;
            self.written += 1;
        }
        Ok(())
    }
}
