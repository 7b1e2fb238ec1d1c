//! Reading a compressed trace: the compression told by the file's first bytes (gzip's and
//! zstd's magic numbers), whatever its name says, and decompressed to a temporary file so memory
//! stays bounded and seeking works.

use std::fs::File;
use std::io::Read;
use std::path::Path;

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
