//! What the text readers share: lines read with a bound on their length, and one JSON text read
//! as an Extended JSON document with the message MongoDB's tools would give.

use std::io::{BufRead, Read};

use bson::{Bson, Document};

use crate::model::extjson;

/// The longest line or array element read: a 16 MiB document written as Extended JSON, with
/// room for what text costs more than BSON (base64 binary, escapes, canonical numbers).
pub const MAX_TEXT_BYTES: usize = 32 * 1024 * 1024;
/// MongoDB's largest document (`BSONObjMaxUserSize`).
pub const MAX_BSON_BYTES: usize = 16 * 1024 * 1024;

/// A bad input at a line of a text file.
#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    pub line: u64,
    pub message: String,
}

impl Fault {
    pub fn new(line: u64, message: impl Into<String>) -> Self {
        Self {
            line,
            message: message.into(),
        }
    }
}

/// The lines of a text, each at most [`MAX_TEXT_BYTES`], numbered from 1.
pub struct Lines<R> {
    reader: R,
    line: u64,
    buf: Vec<u8>,
}

impl<R: BufRead> Lines<R> {
    /// Lines of `reader`, the first one numbered `after + 1`.
    pub fn new(reader: R, after: u64) -> Self {
        Self {
            reader,
            line: after,
            buf: Vec::new(),
        }
    }

    /// The next line without its end (`\n` or `\r\n`), and its number; `None` at the end.
    pub fn next_line(&mut self) -> Result<Option<(&[u8], u64)>, Fault> {
        self.buf.clear();
        let limit = MAX_TEXT_BYTES as u64 + 2;
        let read = (&mut self.reader)
            .take(limit)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| Fault::new(self.line + 1, e.to_string()))?;
        if read == 0 {
            return Ok(None);
        }
        self.line += 1;
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        }
        if self.buf.len() > MAX_TEXT_BYTES {
            return Err(Fault::new(self.line, too_long("line")));
        }
        Ok(Some((&self.buf, self.line)))
    }
}

/// The message for a line or array element over [`MAX_TEXT_BYTES`].
pub fn too_long(what: &str) -> String {
    format!(
        "the {what} is longer than {} MiB (no document of MongoDB's 16 MiB needs more)",
        MAX_TEXT_BYTES / (1024 * 1024)
    )
}

/// JSON whitespace.
pub fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// How many whitespace bytes `chunk` starts with, and how many of them end a line.
pub fn leading_space(chunk: &[u8]) -> (usize, u64) {
    let mut newlines = 0;
    for (i, &b) in chunk.iter().enumerate() {
        if !is_space(b) {
            return (i, newlines);
        }
        newlines += u64::from(b == b'\n');
    }
    (chunk.len(), newlines)
}

/// Only JSON whitespace.
pub fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| is_space(*b))
}

/// One JSON text; the message says where in it the JSON went wrong when `at` says how.
pub fn json(bytes: &[u8], at: Position) -> Result<serde_json::Value, String> {
    serde_json::from_slice(bytes).map_err(|e| {
        let text = e.to_string();
        // serde's position counts from the start of the text it was given, not of the file.
        let message = match text.rfind(" at line ") {
            Some(i) => &text[..i],
            None => &text,
        };
        let (line, column) = (e.line(), e.column());
        let place = match at {
            _ if line == 0 => String::new(),
            Position::Line => format!(" at column {column}"),
            Position::Element if line == 1 => format!(" at column {column} of the element"),
            Position::Element => format!(" at line {line}, column {column} of the element"),
        };
        format!("not valid JSON: {message}{place}")
    })
}

/// What a JSON text is: a whole line, or an element of an array (which may span lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    Line,
    Element,
}

/// A parsed JSON value read as Extended JSON (relaxed or canonical).
pub fn bson(json: serde_json::Value) -> Result<Bson, String> {
    extjson::bson_from_json(json).map_err(|e| e.0)
}

/// One JSON text that must be a document, and its BSON size.
pub fn document(bytes: &[u8], at: Position) -> Result<(Document, u64), String> {
    let doc = match bson(json(bytes, at)?)? {
        Bson::Document(doc) => doc,
        other => return Err(format!("expected a document, found {}", kind(&other))),
    };
    let size = bson::to_vec(&doc)
        .map_err(|e| format!("not storable as BSON: {e}"))?
        .len();
    if size > MAX_BSON_BYTES {
        return Err(format!(
            "the document is {size} bytes of BSON, over MongoDB's {MAX_BSON_BYTES}"
        ));
    }
    Ok((doc, size as u64))
}

/// A value's kind, as a message names it ("an array", "a string", ...).
pub fn kind(value: &Bson) -> String {
    match value {
        Bson::Document(_) => "a document".into(),
        Bson::Array(_) => "an array".into(),
        Bson::String(_) => "a string".into(),
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
            "a number".into()
        }
        Bson::Boolean(_) => "a boolean".into(),
        Bson::Null => "null".into(),
        Bson::ObjectId(_) => "an ObjectId".into(),
        Bson::DateTime(_) => "a date".into(),
        other => format!("a value of BSON type {:?}", other.element_type()),
    }
}

pub use crate::units::grouped;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        let got: Vec<String> = [0, 7, 999, 1000, 16_777_216, 1_000_000_000]
            .into_iter()
            .map(grouped)
            .collect();
        assert_eq!(
            got,
            ["0", "7", "999", "1,000", "16,777,216", "1,000,000,000"]
        );
    }

    #[test]
    fn lines_end_at_lf_or_crlf_and_are_numbered() {
        let mut lines = Lines::new(&b"a\r\n\nb\nc"[..], 4);
        let mut got = Vec::new();
        while let Some((bytes, n)) = lines.next_line().expect("a line") {
            got.push((String::from_utf8_lossy(bytes).into_owned(), n));
        }
        let want = [("a", 5), ("", 6), ("b", 7), ("c", 8)].map(|(s, n)| (s.to_string(), n));
        assert_eq!(got, want);
    }

    #[test]
    fn a_json_error_is_placed_in_the_line_or_the_element() {
        let line = json(b"{\"a\": x}", Position::Line).expect_err("not JSON");
        assert_eq!(line, "not valid JSON: expected value at column 7");
        let element = json(b"{\"a\":\n  x}", Position::Element).expect_err("not JSON");
        assert_eq!(
            element,
            "not valid JSON: expected value at line 2, column 3 of the element"
        );
        assert!(
            document(b"[1]", Position::Line)
                .expect_err("not a document")
                .ends_with("found an array")
        );
    }
}
