//! The reading half of a capture's file (docs/capture.md): the input decompressed as its first
//! bytes say, then each line checked against the bounds of [`super::file`] and turned into the
//! reads of a [`Capture`] (documents) or of a [`Replay`] (packed BSON, the fast path first),
//! every error naming the file, the line and the field.
//!
//! Owns: turning a capture's lines into reads. May not touch: the network, writing a capture.

use std::io::{self, BufRead, BufReader, Read};

use bson::{Bson, Document};
use serde_json::{Map, Value};

use super::bounded_json::LineError;
use super::file::{CaptureError, KIND, MAX_BYTES, MAX_DOCUMENTS, MAX_LINE, MAX_READS, MAX_STRING};
use super::raw_documents::{Documents, Packed};
use super::replay::{Answer, Replay};
use super::{Capture, CapturedRead, FORMAT_VERSION, Outcome};

pub(super) fn reader(
    name: &str,
    input: impl Read + Send + 'static,
) -> Result<Reader<'_, Box<dyn Read + Send>>, CaptureError> {
    let plain = decompressed(name, input)?;
    Ok(Reader {
        name,
        input: BufReader::with_capacity(1 << 16, plain.take(MAX_BYTES)),
        line: 0,
        buf: Vec::new(),
        announced: 0,
        fast: false,
        packed: None,
    })
}

/// `input` decompressed as its first bytes say (gzip, zstd, or plain).
pub(super) fn decompressed(
    name: &str,
    input: impl Read + Send + 'static,
) -> Result<Box<dyn Read + Send>, CaptureError> {
    let mut input = BufReader::with_capacity(1 << 16, input);
    let head = input
        .fill_buf()
        .map_err(|e| CaptureError(format!("{name}: {e}")))?;
    Ok(match head {
        [0x1f, 0x8b, ..] => Box::new(flate2::read::MultiGzDecoder::new(input)),
        [0x28, 0xb5, 0x2f, 0xfd, ..] => Box::new(
            zstd::Decoder::with_buffer(input).map_err(|e| CaptureError(format!("{name}: {e}")))?,
        ),
        _ => Box::new(input),
    })
}

pub(super) struct Reader<'a, R> {
    name: &'a str,
    input: BufReader<io::Take<R>>,
    line: u64,
    buf: Vec<u8>,
    /// The reads the header announces.
    announced: u64,
    /// Whether lines go through the fast path first (`open`: documents packed as read).
    fast: bool,
    /// The current line's `batch`, when the fast path read it (its other fields are what
    /// [`Reader::next`] returned).
    packed: Option<Packed>,
}

/// One read's outcome as the reader gives it, its documents in `D`.
enum Got<D> {
    Documents(D),
    Reply(Document),
    /// An [`Outcome::Error`].
    Error(Outcome),
}

/// Where a read's documents go as they are read: a `Vec` (the [`Capture`]) or packed
/// ([`Documents`], a replay).
trait Batch: Default {
    fn add(&mut self, d: Document);
    /// Documents the fast path packed.
    fn add_packed(&mut self, p: Packed);
    fn count(&self) -> usize;
    /// Called once every document is in.
    fn done(&mut self) {}
}

impl Batch for Vec<Document> {
    fn add(&mut self, d: Document) {
        self.push(d);
    }
    fn add_packed(&mut self, p: Packed) {
        self.extend(p.iter().filter_map(|r| Document::try_from(r).ok()));
    }
    fn count(&self) -> usize {
        self.len()
    }
}

impl Batch for Documents {
    fn add(&mut self, d: Document) {
        self.push(d);
    }
    fn add_packed(&mut self, p: Packed) {
        self.append(p);
    }
    fn count(&self) -> usize {
        self.len()
    }
    fn done(&mut self) {
        self.shrink();
    }
}

impl<R: Read> Reader<'_, R> {
    fn err(&self, what: impl std::fmt::Display) -> CaptureError {
        CaptureError(format!("{}: line {}: {what}", self.name, self.line))
    }

    fn past_max_bytes(&self) -> CaptureError {
        CaptureError(format!(
            "{}: more than {MAX_BYTES} bytes, the most a capture is read to (decompressed)",
            self.name
        ))
    }

    /// The next line as a JSON object; `None` at the end of the file.
    fn next(&mut self) -> Result<Option<Map<String, Value>>, CaptureError> {
        self.packed = None;
        self.buf.clear();
        let limit = MAX_LINE as u64 + 1;
        let n = (&mut self.input)
            .take(limit)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| {
                CaptureError(format!(
                    "{}: after line {}: {e} (damaged or cut short)",
                    self.name, self.line
                ))
            })?;
        if n == 0 {
            if self.input.get_ref().limit() == 0 {
                return Err(self.past_max_bytes());
            }
            return Ok(None);
        }
        self.line += 1;
        if self.buf.last() != Some(&b'\n') {
            if self.input.get_ref().limit() == 0 {
                return Err(self.past_max_bytes());
            }
            return Err(if n as u64 >= limit {
                self.err(format!("longer than {MAX_LINE} bytes"))
            } else {
                self.err("cut short (no newline at its end): the file is truncated")
            });
        }
        if self.fast
            && let Some(line) = super::fast_batch::line(&self.buf[..n - 1])
        {
            self.packed = line.batch;
            return Ok(Some(line.rest));
        }
        match super::bounded_json::parse(&self.buf[..n - 1], MAX_STRING) {
            Ok(Value::Object(o)) => Ok(Some(o)),
            Ok(_) => Err(self.err("not a JSON object")),
            Err(LineError::Json(e)) => Err(self.err(format!("not valid JSON: {e}"))),
            Err(LineError::TooLong { bytes, max }) => Err(self.err(format!(
                "a string of {bytes} bytes, longer than {max}, the most a BSON document holds"
            ))),
        }
    }

    pub(super) fn capture(mut self) -> Result<Capture, CaptureError> {
        let mut capture = self.header()?;
        self.reads(|db, command, got: Got<Vec<Document>>| {
            let outcome = match got {
                Got::Documents(d) => Outcome::Documents(d),
                Got::Reply(d) => Outcome::Reply(d),
                Got::Error(e) => e,
            };
            capture.reads.push(CapturedRead {
                db,
                command,
                outcome,
            });
        })?;
        Ok(capture)
    }

    /// The capture's reads as a replay holds them: each cursor's documents packed as they are
    /// read, never held as `Document`s all together.
    pub(super) fn replay(mut self) -> Result<Replay, CaptureError> {
        let header = self.header()?;
        self.fast = true;
        let mut replay = Replay::empty(header.captured_at_ms, header.target, header.server_version);
        self.reads(|db, command, got: Got<Documents>| {
            let answer = match got {
                Got::Documents(d) => Answer::Documents(d),
                Got::Reply(d) => Answer::Reply(d),
                Got::Error(e) => Answer::from(e),
            };
            replay.push(&db, &command, answer);
        })?;
        Ok(replay)
    }

    /// The header, read and checked: a capture of no reads yet, and how many the header
    /// announces (in [`Reader::announced`]).
    fn header(&mut self) -> Result<Capture, CaptureError> {
        let not_capture = |r: &Self, why: &str| {
            CaptureError(format!(
                "{}: not a shardtop capture ({why}); `shardtop capture URI -o FILE` writes one",
                r.name
            ))
        };
        let header = match self.next() {
            Ok(Some(h)) => h,
            Ok(None) => return Err(not_capture(self, "the file is empty")),
            Err(e) => return Err(not_capture(self, &format!("line 1: {}", after_line(&e.0)))),
        };
        if header.get("kind").and_then(Value::as_str) != Some(KIND) {
            return Err(not_capture(
                self,
                "its first line has no `kind` \"shardtop capture\"",
            ));
        }
        let format = header.get("format").and_then(Value::as_u64);
        let format = format.ok_or_else(|| self.err("`format`: not a whole number"))?;
        if format > u64::from(FORMAT_VERSION) {
            return Err(CaptureError(format!(
                "{}: a capture of format {format}, newer than this shardtop reads (format {FORMAT_VERSION} and older): open it with a newer shardtop",
                self.name
            )));
        }
        if format == 0 {
            return Err(self.err("`format`: 0 is no format (the first is 1)"));
        }
        let number = |k: &str| {
            header
                .get(k)
                .and_then(Value::as_u64)
                .ok_or_else(|| self.err(format!("`{k}`: not a whole number")))
        };
        let captured_at_ms = number("capturedAtMs")?;
        let reads = number("reads")?;
        if reads > MAX_READS {
            return Err(self.err(format!("`reads`: {reads} is more than {MAX_READS}")));
        }
        let target = header.get("target").and_then(Value::as_str);
        let target = target.ok_or_else(|| self.err("`target`: not a string"))?;
        let server_version = match header.get("serverVersion") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(self.err("`serverVersion`: neither a string nor null")),
        };
        let anonymized = match header.get("anonymized") {
            None => false,
            Some(v) => v
                .as_bool()
                .ok_or_else(|| self.err("`anonymized`: not true or false"))?,
        };
        self.announced = reads;
        Ok(Capture {
            format: format as u32,
            captured_at_ms,
            target: target.to_string(),
            server_version,
            anonymized,
            reads: Vec::new(),
        })
    }

    /// Every read the header announces, each handed to `keep` as it is read; then the end of
    /// the file.
    fn reads<D: Batch>(
        &mut self,
        mut keep: impl FnMut(String, Document, Got<D>),
    ) -> Result<(), CaptureError> {
        let reads = self.announced;
        let mut held = 0u64;
        for i in 0..reads {
            let (db, command, got) = self.read(i, &mut held)?;
            keep(db, command, got);
        }
        if self.next()?.is_some() {
            return Err(self.err(format!(
                "a line after the {reads} reads the header announces"
            )));
        }
        Ok(())
    }

    /// Read `i` (and the lines of its further batches).
    fn read<D: Batch>(
        &mut self,
        i: u64,
        held: &mut u64,
    ) -> Result<(String, Document, Got<D>), CaptureError> {
        let cut = |r: &Self| {
            CaptureError(format!(
                "{}: truncated after line {}: read {i} of the header's reads is missing",
                r.name, r.line
            ))
        };
        let mut o = self.next()?.ok_or_else(|| cut(self))?;
        self.check_index(&o, i)?;
        let Some(Value::String(db)) = o.remove("db") else {
            return Err(self.err("`db`: not a string"));
        };
        let command = self.document(o.remove("command"), "command")?;
        let got = if let Some(reply) = o.remove("reply") {
            Got::Reply(self.document(Some(reply), "reply")?)
        } else if let Some(e) = o.remove("error") {
            Got::Error(self.error(&e)?)
        } else if let Some(n) = o.remove("documents") {
            let n = n
                .as_u64()
                .ok_or_else(|| self.err("`documents`: not a whole number"))?;
            if held.saturating_add(n) > MAX_DOCUMENTS {
                return Err(self.err(format!(
                    "more than {MAX_DOCUMENTS} documents, the most a capture may hold"
                )));
            }
            *held += n;
            let mut docs = D::default();
            self.batch(o.remove("batch"), n, &mut docs)?;
            while (docs.count() as u64) < n {
                let mut more = self.next()?.ok_or_else(|| cut(self))?;
                self.check_index(&more, i)?;
                let left = n - docs.count() as u64;
                self.batch(more.remove("batch"), left, &mut docs)?;
            }
            docs.done();
            Got::Documents(docs)
        } else {
            return Err(self.err("a read with none of `reply`, `error`, `documents`"));
        };
        Ok((db, command, got))
    }

    fn check_index(&self, o: &Map<String, Value>, i: u64) -> Result<(), CaptureError> {
        match o.get("read").and_then(Value::as_u64) {
            Some(n) if n == i => Ok(()),
            Some(n) => Err(self.err(format!("`read`: {n} where read {i} belongs"))),
            None => Err(self.err("`read`: not a whole number")),
        }
    }

    fn document(&self, v: Option<Value>, field: &str) -> Result<Document, CaptureError> {
        let v = v.ok_or_else(|| self.err(format!("no `{field}`")))?;
        match crate::model::extjson::bson_from_json(v) {
            Ok(Bson::Document(d)) => Ok(d),
            Ok(_) => Err(self.err(format!("`{field}`: not a document"))),
            Err(e) => Err(self.err(format!("`{field}`: {e}"))),
        }
    }

    /// A batch of at most `left` documents, added to `out`.
    fn batch(
        &mut self,
        v: Option<Value>,
        left: u64,
        out: &mut impl Batch,
    ) -> Result<(), CaptureError> {
        if let Some(packed) = self.packed.take() {
            let n = packed.len() as u64;
            if n > left || n == 0 && left > 0 {
                return Err(self.err(format!(
                    "`batch`: {n} documents where {left} remain of the read's `documents`"
                )));
            }
            out.add_packed(packed);
            return Ok(());
        }
        let Some(Value::Array(docs)) = v else {
            return Err(self.err("`batch`: not an array"));
        };
        if docs.len() as u64 > left || docs.is_empty() && left > 0 {
            return Err(self.err(format!(
                "`batch`: {} documents where {left} remain of the read's `documents`",
                docs.len()
            )));
        }
        for (k, d) in docs.into_iter().enumerate() {
            out.add(self.document(Some(d), &format!("batch[{k}]"))?);
        }
        Ok(())
    }

    fn error(&self, e: &Value) -> Result<Outcome, CaptureError> {
        let e = e
            .as_object()
            .ok_or_else(|| self.err("`error`: not an object"))?;
        let code = match e.get("code") {
            None => None,
            Some(c) => Some(
                c.as_i64()
                    .and_then(|c| i32::try_from(c).ok())
                    .ok_or_else(|| self.err("`error.code`: not a 32-bit whole number"))?,
            ),
        };
        let code_name = match e.get("codeName") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(self.err("`error.codeName`: not a string")),
        };
        let message = e.get("errmsg").and_then(Value::as_str);
        let message = message.ok_or_else(|| self.err("`error.errmsg`: not a string"))?;
        Ok(Outcome::Error {
            code,
            code_name,
            message: message.to_string(),
        })
    }
}

/// "…: line 1: not valid JSON" → "not valid JSON" (the header's own words).
fn after_line(text: &str) -> &str {
    text.split_once("line 1: ").map_or(text, |(_, rest)| rest)
}
