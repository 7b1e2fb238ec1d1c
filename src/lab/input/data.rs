//! The user's documents, read from a file one at a time in file order (the order that stands for
//! insertion order), each with its BSON size as MongoDB counts it: mongodump's BSON (`.bson`), or
//! mongoexport's text — JSON lines, or one JSON array (`--jsonArray`) — in Extended JSON, relaxed
//! or canonical; any of them gzipped (`.gz`, as `mongodump --gzip` writes `.bson.gz`).
//!
//! Streamed: one document is held at a time, so a file of any length costs the memory of its
//! largest document. A document over MongoDB's 16 MiB, a line or array element over
//! [`MAX_TEXT_BYTES`], more than [`MAX_DOCUMENTS`] documents or more than [`MAX_BYTES`] bytes of
//! them in all is an error. Every error names the
//! file as given and where in it: the line (text) or the document's number (BSON); the iterator
//! ends after one.

mod json_array;
pub(crate) mod text;

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use bson::{Document, RawDocument};
use flate2::read::MultiGzDecoder;

use self::json_array::Elements;
pub use self::text::MAX_TEXT_BYTES;
use self::text::{Fault, Lines, MAX_BSON_BYTES, Position, grouped, is_blank, leading_space};

/// The most documents the lab reads from one file.
pub const MAX_DOCUMENTS: u64 = 1_000_000;
/// The most BSON bytes the lab reads from one file, all documents together: [`MAX_DOCUMENTS`]
/// of 1,000 bytes. The sample of `--suggest`, `--order-by` and the trial's layout hold
/// documents, so this bounds their memory whatever the documents' sizes (200 of 15 MB would be
/// 3 GB).
pub const MAX_BYTES: u64 = 1_000_000_000;

/// Where a bad input was found: `FILE, line N: message` (text), `FILE, document N: message`
/// (BSON), or `FILE: message`.
#[derive(Debug, Clone, PartialEq)]
pub struct InputError {
    pub file: String,
    pub line: Option<u64>,
    pub document: Option<u64>,
    pub message: String,
}

impl InputError {
    pub fn in_file(file: &str, message: impl Into<String>) -> Self {
        Self {
            file: file.to_string(),
            line: None,
            document: None,
            message: message.into(),
        }
    }

    pub fn at_line(file: &str, line: u64, message: impl Into<String>) -> Self {
        Self {
            line: Some(line),
            ..Self::in_file(file, message)
        }
    }

    pub fn at_document(file: &str, document: u64, message: impl Into<String>) -> Self {
        Self {
            document: Some(document),
            ..Self::in_file(file, message)
        }
    }

    pub(crate) fn from_fault(file: &str, fault: Fault) -> Self {
        Self::at_line(file, fault.line, fault.message)
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.document) {
            (Some(n), _) => write!(f, "{}, line {n}: {}", self.file, self.message),
            (None, Some(n)) => write!(f, "{}, document {n}: {}", self.file, self.message),
            (None, None) => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for InputError {}

/// How a file's bytes are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// JSON lines, or one JSON array when the first byte that is not whitespace is `[`.
    JsonText,
    /// BSON documents one after the other, as mongodump writes them.
    Bson,
}

/// Opens a data file: `.bson` is BSON, anything else text; a `.gz` after either is gunzipped.
pub fn open(path: &Path) -> Result<Documents, InputError> {
    let file = path.display().to_string();
    let opened = File::open(path).map_err(|e| InputError::in_file(&file, e.to_string()))?;
    if opened.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(InputError::in_file(&file, "is a directory"));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let (name, gzipped) = match name.strip_suffix(".gz") {
        Some(inner) => (inner.to_string(), true),
        None => (name, false),
    };
    let reader: Box<dyn BufRead> = if gzipped {
        Box::new(BufReader::new(MultiGzDecoder::new(BufReader::new(opened))))
    } else {
        Box::new(BufReader::new(opened))
    };
    let kind = if Path::new(&name).extension().is_some_and(|e| e == "bson") {
        Kind::Bson
    } else {
        Kind::JsonText
    };
    Ok(documents_from_reader(reader, &file, kind))
}

/// The documents of bytes read from `reader`, named `file` in errors.
pub fn documents_from_reader(reader: Box<dyn BufRead>, file: &str, kind: Kind) -> Documents {
    Documents {
        file: file.to_string(),
        source: match kind {
            Kind::JsonText => Source::Text(reader),
            Kind::Bson => Source::Bson(reader),
        },
        read: 0,
        bytes: 0,
    }
}

/// The documents of a file in file order, each with its BSON size in bytes (the raw length in a
/// BSON file, `bson::to_vec`'s length for text).
pub struct Documents {
    file: String,
    source: Source,
    read: u64,
    /// BSON bytes of the documents read so far.
    bytes: u64,
}

enum Source {
    /// Text not looked at yet: lines or an array.
    Text(Box<dyn BufRead>),
    Lines(Lines<Box<dyn BufRead>>),
    Array(Elements<Box<dyn BufRead>>),
    Bson(Box<dyn BufRead>),
    Done,
}

impl Iterator for Documents {
    type Item = Result<(Document, u64), InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.step()?;
        let item = item.and_then(|doc| {
            if self.read == MAX_DOCUMENTS {
                return Err(InputError::in_file(
                    &self.file,
                    format!(
                        "more than {max} documents (the lab reads at most {max})",
                        max = grouped(MAX_DOCUMENTS)
                    ),
                ));
            }
            if self.bytes.saturating_add(doc.1) > MAX_BYTES {
                return Err(InputError::at_document(
                    &self.file,
                    self.read + 1,
                    format!(
                        "the documents up to this one hold more than {max} bytes of BSON (the lab \
                         reads at most {max})",
                        max = grouped(MAX_BYTES)
                    ),
                ));
            }
            self.bytes += doc.1;
            self.read += 1;
            Ok(doc)
        });
        if item.is_err() {
            self.source = Source::Done;
        }
        Some(item)
    }
}

impl Documents {
    /// Counts the documents left without building them: a JSON line is checked as JSON text
    /// only (no values kept), any other source is read in full. A line that is not JSON is
    /// the error reading it would give; what only building a document finds (Extended JSON
    /// types, the 16 MiB and total bounds) is found when the documents are read. The counting
    /// pass of `lab --data` (it needs the total for the layout before the run).
    pub fn count(mut self) -> Result<u64, InputError> {
        let mut n = 0u64;
        loop {
            if let Source::Lines(lines) = &mut self.source {
                let file = &self.file;
                match lines.next_line() {
                    Ok(None) => return Ok(n),
                    Ok(Some((bytes, _))) if is_blank(bytes) => continue,
                    Ok(Some((bytes, line))) => {
                        if serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_err() {
                            let e = text::document(bytes, Position::Line).err();
                            return Err(InputError::at_line(
                                file,
                                line,
                                e.unwrap_or_else(|| "not valid JSON".into()),
                            ));
                        }
                    }
                    Err(fault) => return Err(InputError::from_fault(file, fault)),
                }
                if n == MAX_DOCUMENTS {
                    return Err(InputError::in_file(
                        file,
                        format!(
                            "more than {max} documents (the lab reads at most {max})",
                            max = grouped(MAX_DOCUMENTS)
                        ),
                    ));
                }
                n += 1;
                continue;
            }
            match self.next() {
                None => return Ok(n),
                Some(Err(e)) => return Err(e),
                Some(Ok(_)) => n += 1,
            }
        }
    }

    fn step(&mut self) -> Option<Result<(Document, u64), InputError>> {
        let file = &self.file;
        match &mut self.source {
            Source::Text(_) => {
                let Source::Text(reader) = std::mem::replace(&mut self.source, Source::Done) else {
                    return None;
                };
                match sniff(reader) {
                    Ok(source) => self.source = source,
                    Err(fault) => return Some(Err(InputError::from_fault(file, fault))),
                }
                self.step()
            }
            Source::Lines(lines) => loop {
                match lines.next_line() {
                    Ok(None) => return None,
                    Ok(Some((bytes, _))) if is_blank(bytes) => {}
                    Ok(Some((bytes, line))) => {
                        return Some(
                            text::document(bytes, Position::Line)
                                .map_err(|m| InputError::at_line(file, line, m)),
                        );
                    }
                    Err(fault) => return Some(Err(InputError::from_fault(file, fault))),
                }
            },
            Source::Array(elements) => match elements.next_element() {
                Ok(None) => None,
                Ok(Some((bytes, line))) => Some(
                    text::document(bytes, Position::Element)
                        .map_err(|m| InputError::at_line(file, line, m)),
                ),
                Err(fault) => Some(Err(InputError::from_fault(file, fault))),
            },
            Source::Bson(reader) => {
                let n = self.read + 1;
                read_bson(reader)
                    .map_err(|m| InputError::at_document(file, n, m))
                    .transpose()
            }
            Source::Done => None,
        }
    }
}

/// Lines or an array, by the first byte that is not whitespace (a UTF-8 byte order mark is
/// skipped).
fn sniff(mut reader: Box<dyn BufRead>) -> Result<Source, Fault> {
    let mut line = 1;
    let io = |line: u64| move |e: std::io::Error| Fault::new(line, e.to_string());
    if reader
        .fill_buf()
        .map_err(io(line))?
        .starts_with(b"\xEF\xBB\xBF")
    {
        reader.consume(3);
    }
    loop {
        let chunk = reader.fill_buf().map_err(io(line))?;
        if chunk.is_empty() {
            return Ok(Source::Lines(Lines::new(reader, line - 1)));
        }
        let (blank, newlines) = leading_space(chunk);
        let first = chunk.get(blank).copied();
        line += newlines;
        reader.consume(blank);
        match first {
            Some(b'[') => {
                reader.consume(1);
                return Ok(Source::Array(Elements::new(reader, line)));
            }
            Some(_) => return Ok(Source::Lines(Lines::new(reader, line - 1))),
            None => {}
        }
    }
}

/// The next BSON document and its length; `None` at the end of the input.
fn read_bson(reader: &mut dyn BufRead) -> Result<Option<(Document, u64)>, String> {
    let mut head = Vec::with_capacity(4);
    reader
        .take(4)
        .read_to_end(&mut head)
        .map_err(|e| e.to_string())?;
    match head.len() {
        0 => return Ok(None),
        1..=3 => {
            return Err(format!(
                "truncated (needs at least 5 bytes, {} left)",
                head.len()
            ));
        }
        _ => {}
    }
    let length = i32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    let size = usize::try_from(length)
        .ok()
        .filter(|n| (5..=MAX_BSON_BYTES).contains(n))
        .ok_or_else(|| {
            format!(
                "bad length {length} (a BSON document is 5 to {} bytes)",
                grouped(MAX_BSON_BYTES as u64)
            )
        })?;
    let mut bytes = Vec::with_capacity(size);
    bytes.extend_from_slice(&head);
    reader
        .take(size as u64 - 4)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() < size {
        return Err(format!(
            "truncated (needs {size} bytes, {} left)",
            bytes.len()
        ));
    }
    let bad = |e: bson::raw::Error| format!("not a valid BSON document: {e}");
    let raw = RawDocument::from_bytes(&bytes).map_err(bad)?;
    if let Some(field) = crate::wire::too_deep(raw) {
        return Err(format!(
            "nested deeper than {} levels (at field {field:?})",
            crate::wire::MAX_BSON_DEPTH
        ));
    }
    let doc = Document::try_from(raw).map_err(bad)?;
    Ok(Some((doc, size as u64)))
}
