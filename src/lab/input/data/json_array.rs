//! One JSON array read element by element (`mongoexport --jsonArray`): a scanner finds where each
//! top-level element ends — outside strings, at depth 0, at a `,` or the closing `]` — and hands
//! its bytes on, so only one element is ever held.

use std::io::BufRead;

use super::text::{Fault, MAX_TEXT_BYTES, is_blank, leading_space, too_long};

/// The elements of an array whose `[` has been read.
pub struct Elements<R> {
    reader: R,
    line: u64,
    state: State,
    buf: Vec<u8>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Inside the array; `true` before its first element.
    Open(bool),
    /// The `]` was read; what follows it is not checked yet.
    Closed,
    Finished,
}

/// Where a scan of an element stopped.
#[derive(PartialEq, Eq)]
enum End {
    /// At a `,`: more elements follow.
    Comma,
    /// At the array's `]`.
    Bracket,
}

impl<R: BufRead> Elements<R> {
    /// The elements after the `[`, which is on line `line`.
    pub fn new(reader: R, line: u64) -> Self {
        Self {
            reader,
            line,
            state: State::Open(true),
            buf: Vec::new(),
        }
    }

    /// The next element's bytes and the line it starts on; `None` after the array.
    pub fn next_element(&mut self) -> Result<Option<(&[u8], u64)>, Fault> {
        let first = match self.state {
            State::Finished => return Ok(None),
            State::Closed => {
                self.state = State::Finished;
                self.check_rest()?;
                return Ok(None);
            }
            State::Open(first) => first,
        };
        self.state = State::Open(false);
        let next = self.skip_whitespace()?;
        if first && next == Some(b']') {
            self.reader.consume(1);
            self.state = State::Finished;
            self.check_rest()?;
            return Ok(None);
        }
        let start = self.line;
        let end = self.scan(start)?;
        if end == End::Bracket {
            self.state = State::Closed;
        }
        if is_blank(&self.buf) {
            return Err(Fault::new(start, "not valid JSON: expected a value"));
        }
        Ok(Some((&self.buf, start)))
    }

    /// Reads one element into `buf`, up to and with the `,` or `]` that ends it.
    fn scan(&mut self, start: u64) -> Result<End, Fault> {
        self.buf.clear();
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        loop {
            let chunk = self
                .reader
                .fill_buf()
                .map_err(|e| Fault::new(self.line, e.to_string()))?;
            if chunk.is_empty() {
                return Err(Fault::new(
                    self.line,
                    "not valid JSON: the array has no `]`",
                ));
            }
            let mut end = None;
            for (i, &b) in chunk.iter().enumerate() {
                if b == b'\n' {
                    self.line += 1;
                }
                if in_string {
                    match b {
                        _ if escaped => escaped = false,
                        b'\\' => escaped = true,
                        b'"' => in_string = false,
                        _ => {}
                    }
                    continue;
                }
                match b {
                    b'"' => in_string = true,
                    b'{' | b'[' => depth += 1,
                    b',' if depth == 0 => end = Some((i, End::Comma)),
                    b']' if depth == 0 => end = Some((i, End::Bracket)),
                    b'}' | b']' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                if end.is_some() {
                    break;
                }
            }
            let taken = end.as_ref().map_or(chunk.len(), |(i, _)| *i);
            self.buf.extend_from_slice(&chunk[..taken]);
            let consumed = taken + usize::from(end.is_some());
            self.reader.consume(consumed);
            if self.buf.len() > MAX_TEXT_BYTES {
                return Err(Fault::new(start, too_long("array element")));
            }
            if let Some((_, end)) = end {
                return Ok(end);
            }
        }
    }

    /// The next byte that is not whitespace, left unread; `None` at the end.
    fn skip_whitespace(&mut self) -> Result<Option<u8>, Fault> {
        loop {
            let chunk = self
                .reader
                .fill_buf()
                .map_err(|e| Fault::new(self.line, e.to_string()))?;
            if chunk.is_empty() {
                return Ok(None);
            }
            let (blank, newlines) = leading_space(chunk);
            self.line += newlines;
            let next = chunk.get(blank).copied();
            self.reader.consume(blank);
            if next.is_some() {
                return Ok(next);
            }
        }
    }

    /// Nothing but whitespace after the `]`.
    fn check_rest(&mut self) -> Result<(), Fault> {
        match self.skip_whitespace()? {
            None => Ok(()),
            Some(_) => Err(Fault::new(
                self.line,
                "not valid JSON: trailing characters after the array",
            )),
        }
    }
}
