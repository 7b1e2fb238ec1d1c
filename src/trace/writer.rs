//! Writing a trace: one JSON value per line, compressed by the file name (`.gz`, `.zst`), flushed
//! regularly. The file is written as `NAME.partial` and renamed to `NAME` only when finished, so a
//! killed recorder leaves a readable `.partial` trace up to its last flush and never a file that
//! looks whole but is not.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use serde_json::Value;

use super::header::Header;

/// How a trace file is compressed, from its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
}

impl Compression {
    /// By extension (`.gz`, `.zst`; a trailing `.partial` is ignored).
    #[allow(clippy::case_sensitive_file_extension_comparisons)] // the name is lowercased first
    pub fn of(path: &Path) -> Self {
        let name = path.to_string_lossy().to_ascii_lowercase();
        let name = name.strip_suffix(".partial").unwrap_or(&name);
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
    Plain(BufWriter<File>),
    Gzip(GzEncoder<BufWriter<File>>),
    Zstd(zstd::Encoder<'static, BufWriter<File>>),
}

impl Out {
    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Self::Plain(w) => w,
            Self::Gzip(w) => w,
            Self::Zstd(w) => w,
        }
    }

    fn finish(self) -> io::Result<()> {
        match self {
            Self::Plain(mut w) => w.flush(),
            Self::Gzip(w) => w.finish()?.flush(),
            Self::Zstd(w) => w.finish()?.flush(),
        }
    }
}

/// Lines written between flushes.
const FLUSH_EVERY: u64 = 1000;

/// A trace being written.
pub struct TraceWriter {
    out: Out,
    partial: PathBuf,
    path: PathBuf,
    lines: u64,
}

impl TraceWriter {
    /// Creates `path.partial` and writes the header.
    pub fn create(path: &Path, header: &Header) -> io::Result<Self> {
        let partial = PathBuf::from(format!("{}.partial", path.display()));
        let file = BufWriter::new(File::create(&partial)?);
        let out = match Compression::of(path) {
            Compression::None => Out::Plain(file),
            Compression::Gzip => Out::Gzip(GzEncoder::new(file, flate2::Compression::default())),
            Compression::Zstd => Out::Zstd(zstd::Encoder::new(file, 3)?),
        };
        let mut w = Self {
            out,
            partial,
            path: path.to_path_buf(),
            lines: 0,
        };
        w.line(&header.to_json())?;
        w.flush()?;
        Ok(w)
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

    /// Writes a keyframe line and flushes.
    pub fn keyframe(&mut self, v: &Value) -> io::Result<()> {
        self.line(v)?;
        self.flush()
    }

    /// Flushes what is written so far to the file (readable if the recorder dies after this).
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.writer().flush()
    }

    /// Writes the end marker, finishes compression and renames the file to its final name.
    pub fn finish(mut self, end_ms: u64) -> io::Result<PathBuf> {
        self.line(&serde_json::json!({"end": end_ms as f64 / 1000.0}))?;
        self.out.finish()?;
        std::fs::rename(&self.partial, &self.path)?;
        Ok(self.path)
    }
}
