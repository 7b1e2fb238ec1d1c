//! Reading a trace: one validating pass that replays every event, records where the keyframes
//! are, and lists the notable events (migrations, errors, jumbo marks) for jumping. A compressed
//! trace is decompressed as that pass reads it, line by line, a copy going to a temporary file so
//! seeking works: a file that is not a trace is refused at its first bad line, never expanded whole.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::header::Header;
pub(super) use super::lines::LineReader;
use super::probe::{Probed, probe};
use super::writer::Compression;
use super::{event_codec, state_codec};
use crate::cluster::Cluster;
use crate::cluster::{Event, EventKind};

/// A trace that cannot be read: bad input (exit 2) or an I/O failure (exit 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    pub input: bool,
    pub message: String,
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TraceError {}

pub(super) fn bad(path: &Path, line: u64, msg: impl std::fmt::Display) -> TraceError {
    TraceError {
        input: true,
        message: format!("{}:{line}: {msg}", path.display()),
    }
}

pub(super) fn io_err(path: &Path, e: &io::Error) -> TraceError {
    TraceError {
        input: false,
        message: format!("cannot read {}: {e}", path.display()),
    }
}

/// Limits of the reader.
#[derive(Clone, Copy, Debug)]
pub struct ReadOptions {
    /// A longer line is refused (a keyframe of a million chunks is about 200 MB).
    pub max_line_bytes: usize,
    /// A compressed trace that decompresses to more is refused (16 GiB).
    pub max_total_bytes: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            max_line_bytes: 512 << 20,
            max_total_bytes: 16 << 30,
        }
    }
}

/// The header line is at most this long (a header names shards and collections: kilobytes), so a
/// file that is not a trace is refused after reading this much of it.
const MAX_HEADER_BYTES: usize = 1 << 20;

/// What kind of notable event, for jumping between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notable {
    Migration,
    Error,
    Jumbo,
}

impl Notable {
    pub fn of(kind: &EventKind) -> Option<Self> {
        match kind {
            EventKind::MigrationStarted { .. } | EventKind::MigrationCommitted { .. } => {
                Some(Self::Migration)
            }
            EventKind::MigrationFailed { .. } | EventKind::SplitFailed { .. } => Some(Self::Error),
            EventKind::JumboMarked { .. } => Some(Self::Jumbo),
            _ => None,
        }
    }
}

/// Where a keyframe is.
#[derive(Clone, Copy, Debug)]
pub struct KeyframeAt {
    pub t_ms: u64,
    pub offset: u64,
    pub line: u64,
    /// Events before it (the ordinal of the first event after it).
    pub events_before: u64,
}

/// A validated, indexed trace.
#[derive(Debug)]
pub struct TraceFile {
    pub path: PathBuf,
    readable: PathBuf,
    _temp: Option<tempfile::TempPath>,
    pub header: Header,
    pub keyframes: Vec<KeyframeAt>,
    /// Number of event lines.
    pub events: u64,
    /// The time of the end marker, or of the last event when the recording was cut short.
    pub end_ms: u64,
    pub finished: bool,
    /// (time, ordinal, kind) of every notable event.
    pub notable: Vec<(u64, u64, Notable)>,
    pub warnings: Vec<String>,
    opts: ReadOptions,
    /// The time of the last keyframe or event applied, and its line: a later one may not be
    /// earlier.
    last: (u64, u64),
}

/// One line read from a trace.
pub(super) enum Line {
    Event(Value),
    Keyframe(Value),
    End(u64),
}

pub(super) fn classify(v: Value) -> Result<Line, String> {
    if v.get("keyframe").is_some() {
        Ok(Line::Keyframe(v))
    } else if let Some(end) = v.get("end") {
        end.as_f64()
            .map(|t| Line::End(super::json::ms_of_seconds(t)))
            .ok_or_else(|| "field `end`: expected a number".into())
    } else if v.get("what").is_some() {
        Ok(Line::Event(v))
    } else {
        Err(
            "expected an event (\"what\"), a keyframe (\"keyframe\") or the end marker (\"end\")"
                .into(),
        )
    }
}

impl TraceFile {
    /// Opens and validates a trace (decompressing it as it is read).
    pub fn open(path: &Path, opts: ReadOptions) -> Result<Self, TraceError> {
        let mut warnings = Vec::new();
        let compression = super::compression::of_content(path, &mut warnings)?;
        let (mut lines, readable, temp, damaged) = if compression == Compression::None {
            let lines =
                LineReader::open(path, 0, 0, MAX_HEADER_BYTES).map_err(|e| io_err(path, &e))?;
            (lines, path.to_path_buf(), None, None)
        } else {
            let (copy, temp) = tempfile::NamedTempFile::new()
                .map_err(|e| io_err(path, &e))?
                .into_parts();
            let tee = super::compression::stream(path, compression, copy, opts.max_total_bytes)?;
            let damaged = tee.damaged.clone();
            let lines = LineReader::of(Box::new(tee), 0, 0, MAX_HEADER_BYTES);
            (lines, temp.to_path_buf(), Some(temp), Some(damaged))
        };
        let header = match lines.next_raw_of(path)? {
            None => return Err(bad(path, 1, "empty file: not a shardtop trace")),
            Some(Err(_)) => {
                return Err(bad(
                    path,
                    1,
                    format!(
                        "not a shardtop trace: the first line is longer than {MAX_HEADER_BYTES} bytes, and a header is a few kilobytes"
                    ),
                ));
            }
            Some(Ok((text, _))) => {
                let v: Value = serde_json::from_slice(text)
                    .map_err(|e| bad(path, 1, format!("not a shardtop trace: not JSON ({e})")))?;
                Header::from_json(&v).map_err(|e| bad(path, 1, e))?
            }
        };
        lines.max = opts.max_line_bytes;
        let mut trace = Self {
            path: path.to_path_buf(),
            readable,
            _temp: temp,
            header,
            keyframes: Vec::new(),
            last: (0, 0),
            events: 0,
            end_ms: 0,
            finished: false,
            notable: Vec::new(),
            warnings,
            opts,
        };
        trace.scan(&mut lines)?;
        if let Some(e) = damaged.and_then(|d| d.lock().ok().and_then(|mut d| d.take())) {
            trace.warnings.push(format!(
                "{}: the compressed data ends early or is damaged ({e}); reading what came before",
                path.display()
            ));
        }
        Ok(trace)
    }

    /// Replays everything once: validates each line and builds the index.
    fn scan(&mut self, lines: &mut LineReader) -> Result<(), TraceError> {
        let path = self.path.clone();
        let mut state: Option<Cluster> = None;
        loop {
            let start = lines.offset;
            let (parsed, complete) = match lines.next_raw_of(&path)? {
                None => break,
                Some(Err(e)) => return Err(bad(&path, lines.line, e)),
                Some(Ok((text, complete))) => (probe(text, state.is_some()), complete),
            };
            lines.release();
            let line_no = lines.line;
            let value = match parsed {
                Ok(Probed::Line(v)) => v,
                Ok(Probed::Event(e)) => {
                    self.take_event(state.as_mut(), Some(e), line_no)
                        .map_err(|e| bad(&path, line_no, e))?;
                    continue;
                }
                Ok(Probed::Keyframe(s)) => {
                    self.take_keyframe(&mut state, *s, start, line_no)?;
                    continue;
                }
                Err(_) if !complete => {
                    self.warnings.push(format!("{}:{line_no}: the last line is cut short (the recording was interrupted); ignored", path.display()));
                    break;
                }
                Err(e) => return Err(bad(&path, line_no, format!("not JSON: {e}"))),
            };
            match classify(value).map_err(|e| bad(&path, line_no, e))? {
                Line::Keyframe(v) => {
                    let s = state_codec::decode(&v).map_err(|e| bad(&path, line_no, e))?;
                    self.take_keyframe(&mut state, s, start, line_no)?;
                }
                Line::End(t) => {
                    self.end_ms = t;
                    self.finished = true;
                }
                Line::Event(v) => {
                    if let Some(l) =
                        super::logged::decode(&v).map_err(|e| bad(&path, line_no, e))?
                    {
                        self.take_logged(state.is_some(), &l);
                        continue;
                    }
                    let event = match state.as_ref() {
                        Some(st) => {
                            event_codec::decode(&v, st).map_err(|e| bad(&path, line_no, e))?
                        }
                        None => None,
                    };
                    self.take_event(state.as_mut(), event, line_no)
                        .map_err(|e| bad(&path, line_no, e))?;
                }
            }
        }
        if self.keyframes.is_empty() {
            return Err(bad(
                &path,
                lines.line,
                "the trace has no keyframe, so no state can be shown",
            ));
        }
        if !self.finished {
            self.warnings.push(format!(
                "{}: no end marker: the recording did not finish; showing up to its last line",
                path.display()
            ));
        }
        Ok(())
    }

    /// Indexes a decoded keyframe (line `line_no`, at byte `offset`), which becomes the scan's
    /// state.
    fn take_keyframe(
        &mut self,
        state: &mut Option<Cluster>,
        s: Cluster,
        offset: u64,
        line_no: u64,
    ) -> Result<(), TraceError> {
        // Every keyframe is decoded now, so a damaged one is refused at open, not met by a seek
        // in the middle of a session; in a simulator's recording (where every change is an
        // event) a later one must also be where its events led. A live recording is keyframes
        // only, each poll's state.
        if let Some(prev) = self.keyframes.last()
            && s.now_ms < prev.t_ms
        {
            return Err(bad(
                &self.path,
                line_no,
                format!(
                    "field `t`: {} s is before the previous keyframe's {} s (line {}): time goes backwards",
                    s.now_ms as f64 / 1000.0,
                    prev.t_ms as f64 / 1000.0,
                    prev.line
                ),
            ));
        }
        if let Some(replayed) = state.as_ref()
            && self.header.scenario.is_some()
            && let Some(at) = super::keyframe_check::difference(replayed, &s)
        {
            return Err(bad(
                &self.path,
                line_no,
                format!(
                    "this keyframe is not the state the events before it lead to \
                     (they differ at `{at}`): the file is damaged"
                ),
            ));
        }
        self.last = (s.now_ms, line_no);
        self.keyframes.push(KeyframeAt {
            t_ms: s.now_ms,
            offset,
            line: line_no,
            events_before: self.events,
        });
        self.end_ms = self.end_ms.max(s.now_ms);
        *state = Some(s);
        Ok(())
    }

    /// Counts an event line and, after the first keyframe, applies it to the scan's state.
    /// Events before the first keyframe describe the set-up it already contains.
    fn take_event(
        &mut self,
        state: Option<&mut Cluster>,
        event: Option<Event>,
        line_no: u64,
    ) -> Result<(), String> {
        if let (Some(st), Some(event)) = (state, event) {
            if let Some(kf) = self.keyframes.last()
                && event.at_ms < kf.t_ms
            {
                return Err(format!(
                    "field `t`: {} s is before the keyframe before it ({} s, line {}): time goes backwards",
                    event.at_ms as f64 / 1000.0,
                    kf.t_ms as f64 / 1000.0,
                    kf.line
                ));
            }
            let (last_ms, last_line) = self.last;
            if event.at_ms < last_ms {
                return Err(format!(
                    "field `t`: {} s is before the event before it ({} s, line {last_line}): time goes backwards",
                    event.at_ms as f64 / 1000.0,
                    last_ms as f64 / 1000.0,
                ));
            }
            st.apply(&event).map_err(|e| e.to_string())?;
            self.last = (event.at_ms, line_no);
            if let Some(kind) = Notable::of(&event.kind) {
                self.notable.push((event.at_ms, self.events, kind));
            }
            self.end_ms = self.end_ms.max(event.at_ms);
        }
        self.events += 1;
        Ok(())
    }

    /// Counts a recorded log entry (it changes no state) and lists its migration or error.
    fn take_logged(&mut self, after_keyframe: bool, l: &super::logged::Logged) {
        if after_keyframe {
            if let Some(kind) = l.notable() {
                self.notable.push((l.at_ms, self.events, kind));
            }
            self.end_ms = self.end_ms.max(l.at_ms);
        }
        self.events += 1;
    }

    /// Reads lines from a keyframe on.
    pub(super) fn lines_from(&self, kf: &KeyframeAt) -> Result<LineReader, TraceError> {
        LineReader::open(
            &self.readable,
            kf.offset,
            kf.line - 1,
            self.opts.max_line_bytes,
        )
        .map_err(|e| io_err(&self.path, &e))
    }

    /// The last keyframe at or before `t_ms` (the first one if none).
    pub fn keyframe_before(&self, t_ms: u64) -> &KeyframeAt {
        let i = self.keyframes.partition_point(|k| k.t_ms <= t_ms);
        &self.keyframes[i.saturating_sub(1)]
    }

    /// The last keyframe whose first following event has ordinal ≤ `ordinal`.
    pub fn keyframe_before_event(&self, ordinal: u64) -> &KeyframeAt {
        let i = self
            .keyframes
            .partition_point(|k| k.events_before <= ordinal);
        &self.keyframes[i.saturating_sub(1)]
    }

    /// Reads one line from `lines` as a keyframe state, event, or end (errors name the line).
    pub(super) fn read(
        &self,
        lines: &mut LineReader,
        state: Option<&Cluster>,
    ) -> Result<Option<Read1>, TraceError> {
        let (parsed, complete) = match lines.next_raw().map_err(|e| io_err(&self.path, &e))? {
            None => return Ok(None),
            Some(Err(e)) => return Err(bad(&self.path, lines.line, e)),
            Some(Ok((text, complete))) => (probe(text, state.is_some()), complete),
        };
        lines.release();
        let line_no = lines.line;
        let value = match parsed {
            Ok(Probed::Line(v)) => v,
            Ok(Probed::Event(e)) => return Ok(Some(Read1::Event(e))),
            Ok(Probed::Keyframe(s)) => return Ok(Some(Read1::Keyframe(s))),
            Err(_) if !complete => return Ok(None),
            Err(e) => return Err(bad(&self.path, line_no, format!("not JSON: {e}"))),
        };
        Ok(Some(
            match classify(value).map_err(|e| bad(&self.path, line_no, e))? {
                Line::Keyframe(v) => Read1::Keyframe(Box::new(
                    state_codec::decode(&v).map_err(|e| bad(&self.path, line_no, e))?,
                )),
                Line::End(_) => Read1::End,
                Line::Event(v) => {
                    if let Some(l) =
                        super::logged::decode(&v).map_err(|e| bad(&self.path, line_no, e))?
                    {
                        return Ok(Some(Read1::Logged(l)));
                    }
                    let st = state
                        .ok_or_else(|| bad(&self.path, line_no, "an event before any keyframe"))?;
                    match event_codec::decode(&v, st).map_err(|e| bad(&self.path, line_no, e))? {
                        Some(e) => Read1::Event(e),
                        None => Read1::Unknown,
                    }
                }
            },
        ))
    }
}

/// One decoded line.
pub(super) enum Read1 {
    Keyframe(Box<Cluster>),
    Event(Event),
    /// A recorded `config.changelog` / `config.actionlog` entry (no change of state).
    Logged(super::logged::Logged),
    /// An event kind of a newer minor version: skipped.
    Unknown,
    End,
}
