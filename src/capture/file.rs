//! A capture's file (docs/capture.md): one JSON value per line in canonical Extended JSON (so a
//! number's BSON type survives) — a header naming the format and its version, then each read in
//! the order the poll made it, a cursor's documents in batches of [`BATCH`] lines. Compressed
//! when the name ends in `.gz` or `.zst` (read by content, whatever the name says). Written whole
//! or not at all through `files`; read with bounds (line length, bytes, documents, reads), every
//! error naming the file, the line and the field.
//!
//! Owns: the bytes of a capture file. May not touch: the network, how a poll reads the documents.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use bson::{Bson, Document};
use serde_json::{Map, Value, json};

use super::file_reader::{decompressed, reader};
use super::replay::Replay;
use super::{Capture, Outcome};
use crate::files::{Existing, OutFile, Unfinished};
use crate::trace::writer::Compression;

/// What the header's `kind` says: this file is a shardtop capture.
pub const KIND: &str = "shardtop capture";
/// Documents of a cursor per line.
pub const BATCH: usize = 1_000;
/// The longest line read (a batch of 1,000 documents of 16 MiB each cannot be; real ones are far
/// below).
pub const MAX_LINE: usize = 256 << 20;
/// The most bytes a capture is read to (decompressed): 2,000,000 chunk documents (twice a
/// million-chunk collection) of 500 bytes, about one in canonical Extended JSON. What is read is
/// held in memory (as documents by `--anonymize`, as packed BSON by `open`), so this bounds what
/// they hold.
pub const MAX_BYTES: u64 = 1_000_000_000;
/// The longest string a capture may hold (a field name or a value, once unescaped): BSON's
/// 16 MiB, checked before the string is copied.
pub use super::bounded_json::MAX_STRING;
/// The most documents a capture may hold, all reads together: twice the bound of one live read
/// (`live::bounds::Bounds`, 2,000,000).
pub const MAX_DOCUMENTS: u64 = 4_000_000;
/// The most reads a capture may hold (a poll of 100,000 collections makes about 300,000).
pub const MAX_READS: u64 = 1_000_000;

/// A capture that cannot be read: the file, the place and what is wrong, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureError(pub String);

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CaptureError {}

fn canonical(d: &Document) -> Value {
    Bson::Document(d.clone()).into_canonical_extjson()
}

fn documents(docs: &[Document]) -> Value {
    Value::Array(docs.iter().map(canonical).collect())
}

/// `2026-12-03T14:43:38.123Z`, for people (the reader uses `capturedAtMs`).
fn rfc3339(ms: u64) -> String {
    bson::DateTime::from_millis(ms as i64)
        .try_to_rfc3339_string()
        .unwrap_or_default()
}

/// The capture as lines (each ends with a newline).
pub fn to_writer(capture: &Capture, w: &mut impl Write) -> io::Result<()> {
    let header = json!({
        "kind": KIND,
        "format": capture.format,
        "capturedAtMs": capture.captured_at_ms,
        "capturedAt": rfc3339(capture.captured_at_ms),
        "target": capture.target,
        "serverVersion": capture.server_version,
        "anonymized": capture.anonymized,
        "reads": capture.reads.len(),
    });
    let mut line = |v: &Value| -> io::Result<()> {
        serde_json::to_writer(&mut *w, v)?;
        w.write_all(b"\n")
    };
    line(&header)?;
    for (i, r) in capture.reads.iter().enumerate() {
        let mut o = Map::new();
        o.insert("read".into(), i.into());
        o.insert("db".into(), r.db.clone().into());
        o.insert("command".into(), canonical(&r.command));
        let mut rest: &[Document] = &[];
        match &r.outcome {
            Outcome::Reply(d) => {
                o.insert("reply".into(), canonical(d));
            }
            Outcome::Error {
                code,
                code_name,
                message,
            } => {
                let mut e = Map::new();
                if let Some(c) = code {
                    e.insert("code".into(), (*c).into());
                }
                if let Some(n) = code_name {
                    e.insert("codeName".into(), n.clone().into());
                }
                e.insert("errmsg".into(), message.clone().into());
                o.insert("error".into(), Value::Object(e));
            }
            Outcome::Documents(docs) => {
                let first = &docs[..docs.len().min(BATCH)];
                rest = &docs[first.len()..];
                o.insert("documents".into(), docs.len().into());
                o.insert("batch".into(), documents(first));
            }
        }
        line(&Value::Object(o))?;
        for batch in rest.chunks(BATCH) {
            line(&json!({"read": i, "batch": documents(batch)}))?;
        }
    }
    Ok(())
}

/// Writes `capture` to `path` whole or not at all, compressed by the name (`.gz`, `.zst`).
pub fn write(capture: &Capture, path: &Path, existing: Existing) -> io::Result<PathBuf> {
    let out = OutFile::create(path, existing, Unfinished::Remove)?;
    let out = io::BufWriter::with_capacity(1 << 16, out);
    let out = match Compression::of(path) {
        Compression::Gzip => {
            let mut z = flate2::write::GzEncoder::new(out, flate2::Compression::default());
            to_writer(capture, &mut z)?;
            z.finish()?
        }
        Compression::Zstd => {
            let mut z = zstd::Encoder::new(out, 3)?;
            to_writer(capture, &mut z)?;
            z.finish()?
        }
        Compression::None => {
            let mut out = out;
            to_writer(capture, &mut out)?;
            out
        }
    };
    out.into_inner()
        .map_err(io::IntoInnerError::into_error)?
        .finish()
}

/// Reads the capture at `path`.
pub fn read(path: &Path) -> Result<Capture, CaptureError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| CaptureError(format!("{name}: {e}")))?;
    from_reader(&name, file)
}

/// Reads a capture from `input` (compressed or not, told by its first bytes); `name` names it in
/// errors.
pub fn from_reader(name: &str, input: impl Read + Send + 'static) -> Result<Capture, CaptureError> {
    reader(name, input)?.capture()
}

/// Reads the capture at `path` as `open` replays it: the same checks and errors as [`read`],
/// each cursor's documents packed as they are read (a million-chunk capture is held in about
/// the bytes of its BSON, never as a million `Document`s).
pub fn read_replay(path: &Path) -> Result<Replay, CaptureError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| CaptureError(format!("{name}: {e}")))?;
    replay_from_reader(&name, file)
}

/// [`read_replay`] of `input` (compressed or not); `name` names it in errors.
pub fn replay_from_reader(
    name: &str,
    input: impl Read + Send + 'static,
) -> Result<Replay, CaptureError> {
    reader(name, input)?.replay()
}

/// Whether the file at `path` says it is a capture: its first line (at most 1 MiB, decompressed
/// as its first bytes say) is a JSON object whose `kind` is a capture's. Any failure: not one.
pub fn is_capture(path: &Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    starts_as_capture(&path.display().to_string(), file)
}

/// Whether `input` starts with a capture's first line (see [`is_capture`]).
pub(super) fn starts_as_capture(name: &str, input: impl Read + Send + 'static) -> bool {
    let Ok(plain) = decompressed(name, input) else {
        return false;
    };
    let mut line = Vec::new();
    let mut first = BufReader::new(plain.take(1 << 20));
    if first.read_until(b'\n', &mut line).is_err() {
        return false;
    }
    serde_json::from_slice::<Value>(line.trim_ascii_end())
        .is_ok_and(|v| v.get("kind").and_then(Value::as_str) == Some(KIND))
}

/// Reads a capture from bytes (the fuzz target's entry).
pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<Capture, CaptureError> {
    from_reader(name, io::Cursor::new(bytes.to_vec()))
}

#[cfg(test)]
#[path = "file_tests.rs"]
mod tests;
