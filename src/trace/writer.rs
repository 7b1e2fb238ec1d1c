//! Writing a trace: one JSON value per line, compressed by the file name (`.gz`, `.zst`), flushed
//! regularly, through the one safe writer ([`crate::files`]). A regular file is written as
//! `NAME.XXXXXX.partial` (created exclusively, an unpredictable name) and renamed to `NAME` only
//! when finished, so a killed recorder leaves a readable `.partial` trace up to its last flush and
//! never a file that looks whole but is not; a FIFO or a device (`/dev/stdout`) is written through.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use serde_json::Value;

use super::header::Header;
pub use crate::files::Existing;
use crate::files::{OutFile, Unfinished};

/// How a trace file is compressed, from its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
}

impl Compression {
    /// By extension (`.gz`, `.zst`; a trailing `.partial` or `.XXXXXX.partial` — an unfinished
    /// trace — is ignored).
    #[allow(clippy::case_sensitive_file_extension_comparisons)] // the name is lowercased first
    pub fn of(path: &Path) -> Self {
        let name = path.to_string_lossy().to_ascii_lowercase();
        let name = match name.strip_suffix(".partial") {
            Some(rest) => match rest.rsplit_once('.') {
                Some((head, tail))
                    if tail.len() == 6 && tail.bytes().all(|b| b.is_ascii_alphanumeric()) =>
                {
                    head
                }
                _ => rest,
            },
            None => &name,
        };
        if name.ends_with(".gz") {
            Self::Gzip
        } else if name.ends_with(".zst") || name.ends_with(".zstd") {
            Self::Zstd
        } else {
            Self::None
        }
    }
}

enum Out {
    Plain(BufWriter<OutFile>),
    Gzip(GzEncoder<BufWriter<OutFile>>),
    Zstd(zstd::Encoder<'static, BufWriter<OutFile>>),
}

impl Out {
    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Self::Plain(w) => w,
            Self::Gzip(w) => w,
            Self::Zstd(w) => w,
        }
    }

    fn finish(self) -> io::Result<OutFile> {
        let buffered = match self {
            Self::Plain(w) => w,
            Self::Gzip(w) => w.finish()?,
            Self::Zstd(w) => w.finish()?,
        };
        buffered
            .into_inner()
            .map_err(io::IntoInnerError::into_error)
    }
}

/// Lines written between flushes.
const FLUSH_EVERY: u64 = 1000;

/// A trace being written.
pub struct TraceWriter {
    out: Out,
    lines: u64,
}

impl TraceWriter {
    /// Opens `path` (a `NAME.XXXXXX.partial` beside it, or the FIFO or device itself) and writes
    /// the header; a file already at `path` is refused unless `existing` allows replacing it.
    pub fn create(path: &Path, header: &Header, existing: Existing) -> io::Result<Self> {
        let file = BufWriter::new(OutFile::create(path, existing, Unfinished::Keep)?);
        let out = match Compression::of(path) {
            Compression::None => Out::Plain(file),
            Compression::Gzip => Out::Gzip(GzEncoder::new(file, flate2::Compression::default())),
            Compression::Zstd => Out::Zstd(zstd::Encoder::new(file, 3)?),
        };
        let mut w = Self { out, lines: 0 };
        w.line(&header.to_json())?;
        w.flush()?;
        Ok(w)
    }

    /// The unfinished file being written (`NAME.XXXXXX.partial`; `None` when written through a
    /// FIFO or a device).
    pub fn partial_path(&self) -> Option<PathBuf> {
        let file = match &self.out {
            Out::Plain(w) => w.get_ref(),
            Out::Gzip(w) => w.get_ref().get_ref(),
            Out::Zstd(w) => w.get_ref().get_ref(),
        };
        file.temp_path().map(Path::to_path_buf)
    }

    /// Writes one line (an event).
    pub fn line(&mut self, v: &Value) -> io::Result<()> {
        let w = self.out.writer();
        serde_json::to_writer(&mut *w, v).map_err(io::Error::other)?;
        w.write_all(b"\n")?;
        self.lines += 1;
        if self.lines.is_multiple_of(FLUSH_EVERY) {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the line of an event: `line(&event_codec::encode(e, names))`, a big one (a
    /// collection's initial layout) written without building it whole.
    pub fn event(
        &mut self,
        e: &crate::cluster::Event,
        names: &super::event_codec::Names<'_>,
    ) -> io::Result<()> {
        let w = self.out.writer();
        super::event_codec::write(e, names, &mut *w)?;
        w.write_all(b"\n")?;
        self.lines += 1;
        if self.lines.is_multiple_of(FLUSH_EVERY) {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes a keyframe line and flushes.
    pub fn keyframe(&mut self, v: &Value) -> io::Result<()> {
        self.line(v)?;
        self.flush()
    }

    /// Writes the keyframe line of `c` and flushes: the same line as
    /// `keyframe(&state_codec::encode(c))`, its chunks turned into JSON one at a time.
    pub fn keyframe_of(&mut self, c: &crate::cluster::Cluster) -> io::Result<()> {
        let w = self.out.writer();
        super::state_codec::write(c, &mut *w)?;
        w.write_all(b"\n")?;
        self.lines += 1;
        self.flush()
    }

    /// Flushes what is written so far to the file (readable if the recorder dies after this).
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.writer().flush()
    }

    /// Writes the end marker, finishes compression and renames the file to its final name.
    pub fn finish(mut self, end_ms: u64) -> io::Result<PathBuf> {
        self.line(&serde_json::json!({"end": end_ms as f64 / 1000.0}))?;
        self.out.finish()?.finish()
    }
}
