//! The MongoDB wire protocol as a server sees it: message framing (the 16-byte header, a size
//! cap), OP_MSG requests (a kind-0 body, kind-1 document sequences, the checksumPresent and
//! moreToCome flag bits) and the legacy OP_QUERY handshake answered with OP_REPLY.
//!
//! Owns: bytes ⇄ command documents. May not touch: the simulator, sockets' lifetimes, logging —
//! a malformed message is a [`WireError`] and the caller decides what to do with the connection.

mod depth;
pub mod encode;
mod msg;
mod query;

use tokio::io::{AsyncRead, AsyncReadExt};

pub use depth::{MAX_BSON_DEPTH, too_deep};
pub use msg::{
    CHECKSUM_PRESENT, EXHAUST_ALLOWED, MORE_TO_COME, encode_msg, encode_msg_with, parse_msg,
};
pub use query::{encode_reply, encode_reply_with, parse_query};

/// Largest message accepted (and advertised as `maxMessageSizeBytes`).
pub const MAX_MESSAGE_BYTES: usize = 48_000_000;
/// Length of the standard message header.
pub const HEADER_LEN: usize = 16;
/// OP_REPLY: the answer to a legacy OP_QUERY.
pub const OP_REPLY: i32 = 1;
/// OP_QUERY: legacy queries; only commands on `<db>.$cmd` are accepted.
pub const OP_QUERY: i32 = 2004;
/// OP_COMPRESSED: never accepted (compression is never advertised).
pub const OP_COMPRESSED: i32 = 2012;
/// OP_MSG: every modern request and reply.
pub const OP_MSG: i32 = 2013;

/// The standard message header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub message_length: i32,
    pub request_id: i32,
    pub response_to: i32,
    pub op_code: i32,
}

impl Header {
    /// Reads the header at the start of `bytes` (at least [`HEADER_LEN`] bytes).
    pub fn read(bytes: &[u8]) -> Result<Self, WireError> {
        if bytes.len() < HEADER_LEN {
            return Err(WireError::Malformed(
                "message shorter than its header".into(),
            ));
        }
        Ok(Self {
            message_length: le_i32(bytes, 0)?,
            request_id: le_i32(bytes, 4)?,
            response_to: le_i32(bytes, 8)?,
            op_code: le_i32(bytes, 12)?,
        })
    }

    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.message_length.to_le_bytes());
        out.extend_from_slice(&self.request_id.to_le_bytes());
        out.extend_from_slice(&self.response_to.to_le_bytes());
        out.extend_from_slice(&self.op_code.to_le_bytes());
    }
}

/// A command received, whichever opcode carried it.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub request_id: i32,
    /// The command document; document sequences are merged in as arrays, and a legacy query's
    /// database is added as `$db`.
    pub command: bson::Document,
    /// OP_MSG moreToCome: the client wants no reply.
    pub more_to_come: bool,
    /// Came as OP_QUERY: answer with OP_REPLY.
    pub legacy: bool,
}

impl Request {
    /// `reply` to this request in the opcode it came in: OP_REPLY to a legacy OP_QUERY, OP_MSG
    /// otherwise; `request_id` is the reply's own id.
    pub fn encode_answer(&self, request_id: i32, reply: &bson::Document) -> Vec<u8> {
        if self.legacy {
            encode_reply(request_id, self.request_id, reply)
        } else {
            encode_msg(request_id, self.request_id, reply)
        }
    }
}

/// Why a message was refused; the connection that sent it is closed.
#[derive(Debug, PartialEq, Eq)]
pub enum WireError {
    /// The declared length is above [`MAX_MESSAGE_BYTES`].
    TooLarge(i64),
    /// The declared length is below the header's, or the bytes do not parse.
    Malformed(String),
    /// An opcode this server does not speak.
    UnknownOpCode(i32),
    /// A document nests deeper than [`MAX_BSON_DEPTH`]: answered (Overflow), the connection kept.
    /// The field name of the element that went too deep.
    TooDeep(String),
    /// A document is over [`MAX_INTERNAL_OBJECT`] bytes (its size and first element as the
    /// server prints them): answered (BSONObjectTooLarge), the connection kept.
    ObjectTooLarge(usize, String),
}

/// The largest BSON object a server reads (`BSONObjMaxInternalSize`, src/mongo/bson/bsonobj.h:
/// 16 MiB of user data and 16 KiB for the server's own wrapping).
pub const MAX_INTERNAL_OBJECT: usize = 16 * 1024 * 1024 + 16 * 1024;

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooLarge(n) => write!(
                f,
                "message of {n} bytes is over the maximum of {MAX_MESSAGE_BYTES}"
            ),
            Self::Malformed(m) => write!(f, "malformed message: {m}"),
            Self::UnknownOpCode(op) => write!(f, "unsupported opcode {op}"),
            Self::TooDeep(name) => write!(
                f,
                "BSONObj exceeds maximum nested object depth in element with field name '{name}'"
            ),
            // `BSONObj::_assertInvalid` (src/mongo/bson/bsonobj.cpp).
            Self::ObjectTooLarge(size, first) => write!(
                f,
                "BSONObj size: {size} (0x{size:X}) is invalid. Size must be between 0 and {MAX_INTERNAL_OBJECT}({}MB){first}",
                MAX_INTERNAL_OBJECT / (1024 * 1024)
            ),
        }
    }
}

impl std::error::Error for WireError {}

/// What reading a message from a stream gave.
#[derive(Debug)]
pub enum ReadError {
    /// The peer closed the connection (between messages or inside one).
    Closed,
    Io(std::io::Error),
    Wire(WireError),
}

/// Checks a declared message length: at least a header, at most [`MAX_MESSAGE_BYTES`].
pub fn check_length(declared: i32) -> Result<usize, WireError> {
    if i64::from(declared) > MAX_MESSAGE_BYTES as i64 {
        return Err(WireError::TooLarge(i64::from(declared)));
    }
    if declared < HEADER_LEN as i32 {
        return Err(WireError::Malformed(format!(
            "declared length {declared} is shorter than the header"
        )));
    }
    Ok(declared as usize)
}

/// Reads one whole message (header included) after checking its declared length.
pub async fn read_message<R: AsyncRead + Unpin>(r: &mut R) -> Result<Vec<u8>, ReadError> {
    let total = read_length(r).await?;
    read_rest(r, total).await
}

/// Reads a message's declared length (its first 4 bytes) and checks it.
pub async fn read_length<R: AsyncRead + Unpin>(r: &mut R) -> Result<usize, ReadError> {
    let mut len = [0u8; 4];
    read_exact(r, &mut len).await?;
    check_length(i32::from_le_bytes(len)).map_err(ReadError::Wire)
}

/// Reads the rest of a message of `total` bytes whose length was read; the whole message. The
/// buffer grows as bytes arrive, so a message sent in part holds only what was sent.
pub async fn read_rest<R: AsyncRead + Unpin>(
    r: &mut R,
    total: usize,
) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::with_capacity(total.min(64 << 10));
    bytes.extend_from_slice(&(total as i32).to_le_bytes());
    let want = (total - 4) as u64;
    match r.take(want).read_to_end(&mut bytes).await {
        Ok(_) if bytes.len() == total => Ok(bytes),
        Ok(_) => Err(ReadError::Closed),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(ReadError::Closed),
        Err(e) => Err(ReadError::Io(e)),
    }
}

async fn read_exact<R: AsyncRead + Unpin>(r: &mut R, buf: &mut [u8]) -> Result<(), ReadError> {
    match r.read_exact(buf).await {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(ReadError::Closed),
        Err(e) => Err(ReadError::Io(e)),
    }
}

/// Parses a whole message into a request (OP_MSG or OP_QUERY).
pub fn parse(bytes: &[u8]) -> Result<Request, WireError> {
    let header = Header::read(bytes)?;
    if usize::try_from(header.message_length).ok() != Some(bytes.len()) {
        return Err(WireError::Malformed(format!(
            "declared length {} but {} bytes given",
            header.message_length,
            bytes.len()
        )));
    }
    let body = &bytes[HEADER_LEN..];
    match header.op_code {
        OP_MSG => parse_msg(header.request_id, body),
        OP_QUERY => parse_query(header.request_id, body),
        op => Err(WireError::UnknownOpCode(op)),
    }
}

pub(crate) fn le_i32(bytes: &[u8], at: usize) -> Result<i32, WireError> {
    bytes
        .get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map(i32::from_le_bytes)
        .ok_or_else(|| WireError::Malformed("truncated integer".into()))
}

/// Reads one BSON document at the start of `bytes`; returns it and its length.
pub(crate) fn read_document(bytes: &[u8]) -> Result<(bson::Document, usize), WireError> {
    let len = le_i32(bytes, 0)?;
    let len = usize::try_from(len)
        .ok()
        .filter(|n| *n >= 5 && *n <= bytes.len())
        .ok_or_else(|| WireError::Malformed(format!("BSON document length {len} out of bounds")))?;
    let bad = |e: bson::raw::Error| WireError::Malformed(format!("bad BSON: {e}"));
    // Through the raw view rather than serde: the same document, in a fraction of the time.
    let raw = bson::RawDocument::from_bytes(&bytes[..len]).map_err(bad)?;
    if len > MAX_INTERNAL_OBJECT {
        let first = match raw.iter().next() {
            Some(Ok((name, value))) => match value.to_raw_bson() {
                bson::RawBson::String(s) => format!(" First element: {name}: \"{s}\""),
                other => match bson::Bson::try_from(other) {
                    Ok(b) => format!(" First element: {name}: {b}"),
                    Err(_) => String::new(),
                },
            },
            _ => String::new(),
        };
        return Err(WireError::ObjectTooLarge(len, first));
    }
    if let Some(name) = depth::too_deep(raw) {
        return Err(WireError::TooDeep(name));
    }
    let doc = bson::Document::try_from(raw).map_err(bad)?;
    Ok((doc, len))
}

/// Reads a NUL-terminated string at the start of `bytes`; returns it and its length with the NUL.
pub(crate) fn read_cstring(bytes: &[u8]) -> Result<(String, usize), WireError> {
    let end = bytes
        .iter()
        .position(|b| *b == 0)
        .ok_or_else(|| WireError::Malformed("unterminated string".into()))?;
    let s = std::str::from_utf8(&bytes[..end])
        .map_err(|_| WireError::Malformed("string is not UTF-8".into()))?;
    Ok((s.to_string(), end + 1))
}

/// A message: the header with the given ids and opcode, then the body `write` appends (about
/// `len` bytes; the declared length is the real one).
pub(crate) fn framed(
    request_id: i32,
    response_to: i32,
    op_code: i32,
    len: usize,
    write: impl FnOnce(&mut Vec<u8>),
) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + len);
    Header {
        message_length: 0,
        request_id,
        response_to,
        op_code,
    }
    .write(&mut out);
    write(&mut out);
    let total = out.len() as i32;
    out[..4].copy_from_slice(&total.to_le_bytes());
    out
}

/// The encoded size of a document, computed without encoding it.
pub fn document_len(doc: &bson::Document) -> usize {
    // int32 length, the elements (type byte, key and NUL, value), the closing NUL.
    4 + doc
        .iter()
        .map(|(k, v)| 1 + k.len() + 1 + value_len(v))
        .sum::<usize>()
        + 1
}

fn string_len(s: &str) -> usize {
    4 + s.len() + 1
}

fn value_len(v: &bson::Bson) -> usize {
    use bson::Bson as B;
    match v {
        B::Double(_) | B::DateTime(_) | B::Timestamp(_) | B::Int64(_) => 8,
        B::String(s) | B::JavaScriptCode(s) | B::Symbol(s) => string_len(s),
        B::Document(d) => document_len(d),
        B::Array(a) => {
            4 + a
                .iter()
                .enumerate()
                .map(|(i, v)| 1 + decimal_digits(i) + 1 + value_len(v))
                .sum::<usize>()
                + 1
        }
        B::Binary(b) => {
            let old = usize::from(b.subtype == bson::spec::BinarySubtype::BinaryOld) * 4;
            4 + 1 + old + b.bytes.len()
        }
        B::ObjectId(_) => 12,
        B::Boolean(_) => 1,
        B::Null | B::Undefined | B::MaxKey | B::MinKey => 0,
        B::RegularExpression(r) => r.pattern.len() + 1 + r.options.len() + 1,
        B::JavaScriptCodeWithScope(c) => 4 + string_len(&c.code) + document_len(&c.scope),
        B::Int32(_) => 4,
        B::Decimal128(_) => 16,
        B::DbPointer(_) => {
            let mut tmp = Vec::new();
            let _ = bson::doc! {"p": v.clone()}.to_writer(&mut tmp);
            tmp.len() - 4 - 1 - 2 - 1
        }
    }
}

fn decimal_digits(mut i: usize) -> usize {
    let mut n = 1;
    while i >= 10 {
        i /= 10;
        n += 1;
    }
    n
}
