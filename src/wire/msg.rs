//! OP_MSG: `flagBits`, then sections — exactly one kind 0 (the command) and any number of kind 1
//! (`size`, `identifier`, documents back to back), then a CRC-32C when checksumPresent (not
//! verified: TCP already checks the bytes; the checksum is skipped).

use bson::{Bson, Document};

use super::{OP_MSG, Request, WireError, framed, le_i32, read_cstring, read_document};

/// flagBits bit 0: a CRC-32C follows the sections.
pub const CHECKSUM_PRESENT: u32 = 1;
/// flagBits bit 1: the sender expects no reply.
pub const MORE_TO_COME: u32 = 1 << 1;
/// flagBits bit 16: the client accepts exhaust replies (ignored: never used).
pub const EXHAUST_ALLOWED: u32 = 1 << 16;
/// Bits 0–15 are "required": a receiver must refuse any it does not know.
const REQUIRED_MASK: u32 = 0xFFFF;

/// Parses an OP_MSG body (after the header).
pub fn parse_msg(request_id: i32, body: &[u8]) -> Result<Request, WireError> {
    let flags = le_i32(body, 0)? as u32;
    let unknown = flags & REQUIRED_MASK & !(CHECKSUM_PRESENT | MORE_TO_COME);
    if unknown != 0 {
        return Err(WireError::Malformed(format!(
            "unknown required flag bits {unknown:#x}"
        )));
    }
    let mut end = body.len();
    if flags & CHECKSUM_PRESENT != 0 {
        end = end
            .checked_sub(4)
            .filter(|e| *e >= 4)
            .ok_or_else(|| WireError::Malformed("checksum flag set but no checksum".into()))?;
    }
    let mut at = 4;
    let mut command: Option<Document> = None;
    let mut sequences: Vec<(String, Vec<Bson>)> = Vec::new();
    while at < end {
        let kind = body[at];
        at += 1;
        match kind {
            0 => {
                let (doc, len) = read_document(&body[at..end])?;
                if command.replace(doc).is_some() {
                    return Err(WireError::Malformed("more than one kind-0 section".into()));
                }
                at += len;
            }
            1 => {
                let size = le_i32(&body[..end], at)?;
                let size = usize::try_from(size)
                    .ok()
                    .filter(|s| *s >= 5 && at + s <= end)
                    .ok_or_else(|| {
                        WireError::Malformed(format!("document sequence size {size} out of bounds"))
                    })?;
                let section = &body[at + 4..at + size];
                let (identifier, mut pos) = read_cstring(section)?;
                let mut docs = Vec::new();
                while pos < section.len() {
                    let (doc, len) = read_document(&section[pos..])?;
                    docs.push(Bson::Document(doc));
                    pos += len;
                }
                sequences.push((identifier, docs));
                at += size;
            }
            k => return Err(WireError::Malformed(format!("unknown section kind {k}"))),
        }
    }
    let mut command = command.ok_or_else(|| WireError::Malformed("no kind-0 section".into()))?;
    if command.is_empty() {
        return Err(WireError::Malformed("empty command document".into()));
    }
    for (identifier, docs) in sequences {
        if command.contains_key(&identifier) {
            return Err(WireError::Malformed(format!(
                "document sequence {identifier:?} duplicates a field of the command"
            )));
        }
        command.insert(identifier, Bson::Array(docs));
    }
    Ok(Request {
        request_id,
        command,
        more_to_come: flags & MORE_TO_COME != 0,
        legacy: false,
    })
}

/// An OP_MSG reply: flagBits 0 and one kind-0 section.
pub fn encode_msg(request_id: i32, response_to: i32, doc: &Document) -> Vec<u8> {
    encode_msg_with(request_id, response_to, super::document_len(doc), |out| {
        super::encode::document(out, doc);
    })
}

/// An OP_MSG reply whose kind-0 document `write` appends (about `len` bytes), written in place.
pub fn encode_msg_with(
    request_id: i32,
    response_to: i32,
    len: usize,
    write: impl FnOnce(&mut Vec<u8>),
) -> Vec<u8> {
    framed(request_id, response_to, OP_MSG, 5 + len, |out| {
        out.extend_from_slice(&0u32.to_le_bytes());
        out.push(0);
        write(out);
    })
}
