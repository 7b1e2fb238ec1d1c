//! A trace's lines, one at a time: each at most a given length (a longer one is refused, not read
//! whole), from a file at an offset or from a decompressing stream. Owns the raw line reading
//! only; what a line means is the reader's.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use super::reader::{TraceError, bad, io_err};

/// A line's bytes (without the newline) and whether it ended with one, or why it was refused.
pub(super) type RawLine<'a> = Result<(&'a [u8], bool), String>;

/// The room a reader keeps between lines: a long line's is given back once it is parsed.
const KEPT_BYTES: usize = 1 << 20;

pub(super) struct LineReader {
    reader: BufReader<Box<dyn Read + Send>>,
    pub offset: u64,
    pub line: u64,
    buf: Vec<u8>,
    pub max: usize,
}

impl LineReader {
    pub fn open(path: &Path, offset: u64, line: u64, max: usize) -> io::Result<Self> {
        let mut file = File::open(path)?;
        file.seek(SeekFrom::Start(offset))?;
        Ok(Self::of(Box::new(file), offset, line, max))
    }

    pub fn of(input: Box<dyn Read + Send>, offset: u64, line: u64, max: usize) -> Self {
        Self {
            reader: BufReader::with_capacity(1 << 16, input),
            offset,
            line,
            buf: Vec::new(),
            max,
        }
    }

    /// The next raw line, a read error naming `path` (and, for a compressed trace read too far,
    /// the line).
    pub fn next_raw_of(&mut self, path: &Path) -> Result<Option<RawLine<'_>>, TraceError> {
        let line = self.line + 1;
        self.next_raw().map_err(|e| {
            if e.kind() == io::ErrorKind::InvalidData {
                bad(path, line, e)
            } else {
                io_err(path, &e)
            }
        })
    }

    /// Gives back the room of a long line read (a keyframe of a million chunks is 150 MB), so a
    /// reader kept open holds no more than a short line's; the line's bytes are gone after.
    pub fn release(&mut self) {
        if self.buf.capacity() > KEPT_BYTES {
            self.buf = Vec::new();
        } else {
            self.buf.clear();
        }
    }

    /// The next raw line: `Ok(None)` at the end; `Err(text)` for a line too long.
    /// The flag tells whether the line ended with a newline.
    pub fn next_raw(&mut self) -> io::Result<Option<RawLine<'_>>> {
        self.release();
        let limit = (self.max + 1) as u64;
        let n = (&mut self.reader)
            .take(limit)
            .read_until(b'\n', &mut self.buf)?;
        if n == 0 {
            return Ok(None);
        }
        self.offset += n as u64;
        self.line += 1;
        let complete = self.buf.last() == Some(&b'\n');
        if !complete && n as u64 >= limit {
            return Ok(Some(Err(format!("line is longer than {} bytes", self.max))));
        }
        let text = if complete {
            &self.buf[..n - 1]
        } else {
            &self.buf[..]
        };
        Ok(Some(Ok((text, complete))))
    }
}
