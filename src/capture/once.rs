//! A capture read once from whatever its path names — a regular file, a FIFO, a pipe (a shell's
//! `<(zcat c.capture.gz)`, `/dev/stdin`) — for a command that must first tell whether its
//! argument is a capture at all: the bytes read to see its first line are kept (at most
//! [`KEPT`]) and read again from memory, then the rest is streamed from where they stopped.
//! Nothing is opened or read twice, so a FIFO or a pipe is not waited on for a second reader.
//!
//! Owns: that one read. May not touch: the file's format (`file`), the network.

use std::fs::File;
use std::io::{self, Cursor, Read};
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::Capture;
use super::file::{CaptureError, from_reader, starts_as_capture};

/// The most bytes kept while the first line is looked for: that line is read up to 1 MiB
/// decompressed, which a decompressor reaches well within this much of its input.
pub const KEPT: usize = 4 << 20;

/// The input and what was read of it so far.
struct Kept {
    input: File,
    bytes: Vec<u8>,
    /// More than [`KEPT`] bytes were read: they cannot be read again.
    overflowed: bool,
}

/// Reads the input, keeping what it reads.
struct Tee(Arc<Mutex<Kept>>);

impl Read for Tee {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut k = (self.0.lock()).map_err(|_| io::Error::other("the input's lock failed"))?;
        let n = k.input.read(buf)?;
        if k.bytes.len() + n > KEPT {
            k.overflowed = true;
        } else {
            k.bytes.extend_from_slice(&buf[..n]);
        }
        Ok(n)
    }
}

/// A capture whose first line has been read: the rest is read by [`Opened::read`].
pub struct Opened {
    name: String,
    head: Vec<u8>,
    rest: File,
}

impl Opened {
    /// The whole capture: the bytes read so far again, then the rest of the input.
    pub fn read(self) -> Result<Capture, CaptureError> {
        from_reader(&self.name, Cursor::new(self.head).chain(self.rest))
    }
}

/// The file at `path` opened once, if it is a capture (its first line says so): `None` when it
/// cannot be opened or is not one — then no more of it was read than its first line.
pub fn open_if_capture(path: &Path) -> Result<Option<Opened>, CaptureError> {
    let Ok(input) = File::open(path) else {
        return Ok(None);
    };
    let name = path.display().to_string();
    let kept = Arc::new(Mutex::new(Kept {
        input,
        bytes: Vec::new(),
        overflowed: false,
    }));
    let is = starts_as_capture(&name, Tee(Arc::clone(&kept)));
    let kept = Arc::into_inner(kept)
        .and_then(|m| m.into_inner().ok())
        .ok_or_else(|| CaptureError(format!("{name}: the input's lock failed")))?;
    if !is {
        return Ok(None);
    }
    if kept.overflowed {
        return Err(CaptureError(format!(
            "{name}: its first line was not found within {KEPT} bytes"
        )));
    }
    Ok(Some(Opened {
        name,
        head: kept.bytes,
        rest: kept.input,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_a_capture_is_none_and_one_that_is_reads_whole() {
        let dir = tempfile::tempdir().expect("a folder");
        let other = dir.path().join("x.json");
        std::fs::write(&other, "{\"kind\": \"something else\"}\n").expect("written");
        assert!(open_if_capture(&other).expect("read").is_none());
        assert!(
            open_if_capture(&dir.path().join("absent"))
                .expect("read")
                .is_none()
        );
        assert!(
            open_if_capture(Path::new("mongodb://h:1"))
                .expect("read")
                .is_none()
        );
    }
}
