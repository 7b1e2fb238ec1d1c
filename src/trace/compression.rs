//! Reading a compressed trace: the compression told by the file's first bytes (gzip's and
//! zstd's magic numbers), whatever its name says, and decompressed as a stream that the reader
//! reads line by line — each line checked as it arrives — while a copy goes to a temporary file
//! (so seeking works). A file that is not a trace is refused at its first bad line, never expanded
//! whole; the expansion is bounded in total too.

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::reader::{TraceError, io_err};
use super::writer::Compression;

/// The compression of the file at `path`, by content; a name that says otherwise is a warning.
pub fn of_content(path: &Path, warnings: &mut Vec<String>) -> Result<Compression, TraceError> {
    let mut head = [0u8; 4];
    let mut file = File::open(path).map_err(|e| io_err(path, &e))?;
    let mut n = 0;
    while n < head.len() {
        match file.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) => return Err(io_err(path, &e)),
        }
    }
    let found = match &head[..n] {
        [0x1f, 0x8b, ..] => Compression::Gzip,
        [0x28, 0xb5, 0x2f, 0xfd] => Compression::Zstd,
        _ => Compression::None,
    };
    let named = Compression::of(path);
    if named != found {
        let what = |c: Compression| match c {
            Compression::Gzip => "gzip-compressed",
            Compression::Zstd => "zstd-compressed",
            Compression::None => "not compressed",
        };
        warnings.push(format!(
            "{}: the name says {} but the file is {}; read as what it is",
            path.display(),
            what(named),
            what(found)
        ));
    }
    Ok(found)
}

/// A decompressing stream that copies what it yields into a temporary file, stops with an
/// `InvalidData` error past `max_total` bytes, and turns damaged compressed data into an early end
/// (noted in `damaged`: what came before is read).
pub(super) struct Tee {
    input: Box<dyn Read + Send>,
    copy: File,
    total: u64,
    max_total: u64,
    pub damaged: Arc<Mutex<Option<String>>>,
}

impl Read for Tee {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.total >= self.max_total {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "decompresses to more than {} bytes, the most a trace is read to; not read further",
                    self.max_total
                ),
            ));
        }
        let room = usize::try_from(self.max_total - self.total).unwrap_or(usize::MAX);
        let want = buf.len().min(room.max(1));
        let n = match self.input.read(&mut buf[..want]) {
            Ok(n) => n,
            Err(e) => {
                if let Ok(mut d) = self.damaged.lock() {
                    *d = Some(e.to_string());
                }
                return Ok(0);
            }
        };
        self.copy.write_all(&buf[..n])?;
        self.total += n as u64;
        Ok(n)
    }
}

/// Opens the compressed trace at `path` as a stream (see [`Tee`]), its copy going to `temp`.
pub(super) fn stream(
    path: &Path,
    c: Compression,
    copy: File,
    max_total: u64,
) -> Result<Tee, TraceError> {
    let file = File::open(path).map_err(|e| io_err(path, &e))?;
    let input: Box<dyn Read + Send> = match c {
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(file))),
        Compression::Zstd => Box::new(zstd::Decoder::new(file).map_err(|e| io_err(path, &e))?),
        Compression::None => Box::new(file),
    };
    Ok(Tee {
        input,
        copy,
        total: 0,
        max_total,
        damaged: Arc::new(Mutex::new(None)),
    })
}
