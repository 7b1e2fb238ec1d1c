//! Legacy OP_QUERY (only commands on `<db>.$cmd`, as drivers send their first `isMaster`) and the
//! OP_REPLY that answers it.

use bson::{Bson, Document};

use super::{OP_REPLY, Request, WireError, framed, le_i32, read_cstring, read_document};

/// Parses an OP_QUERY body (after the header): `flags`, `fullCollectionName`, `numberToSkip`,
/// `numberToReturn`, the query (unwrapped from `$query` when wrapped), an optional selector.
/// Only `<db>.$cmd` is accepted; the database becomes the command's `$db`.
pub fn parse_query(request_id: i32, body: &[u8]) -> Result<Request, WireError> {
    let _flags = le_i32(body, 0)?;
    let (full_name, len) = read_cstring(body.get(4..).unwrap_or_default())?;
    let mut at = 4 + len;
    let _skip = le_i32(body, at)?;
    let _to_return = le_i32(body, at + 4)?;
    at += 8;
    let (mut query, len) = read_document(body.get(at..).unwrap_or_default())?;
    at += len;
    if at < body.len() {
        read_document(&body[at..])?;
    }
    let Some(db) = full_name.strip_suffix(".$cmd") else {
        return Err(WireError::Malformed(format!(
            "OP_QUERY on {full_name:?}: only commands (<db>.$cmd) are accepted"
        )));
    };
    if let Ok(inner) = query.get_document("$query") {
        let mut unwrapped = inner.clone();
        if let Some(rp) = query.get("$readPreference") {
            unwrapped.insert("$readPreference", rp.clone());
        }
        query = unwrapped;
    }
    if query.is_empty() {
        return Err(WireError::Malformed("empty command document".into()));
    }
    query.insert("$db", Bson::String(db.to_string()));
    Ok(Request {
        request_id,
        command: query,
        more_to_come: false,
        legacy: true,
    })
}

/// An OP_REPLY with one document: `responseFlags` 8 (AwaitCapable), cursor 0, from 0, 1 returned.
pub fn encode_reply(request_id: i32, response_to: i32, doc: &Document) -> Vec<u8> {
    encode_reply_with(request_id, response_to, super::document_len(doc), |out| {
        super::encode::document(out, doc);
    })
}

/// [`encode_reply`] of the document `write` appends (about `len` bytes), written in place.
pub fn encode_reply_with(
    request_id: i32,
    response_to: i32,
    len: usize,
    write: impl FnOnce(&mut Vec<u8>),
) -> Vec<u8> {
    framed(request_id, response_to, OP_REPLY, 20 + len, |out| {
        out.extend_from_slice(&8i32.to_le_bytes());
        out.extend_from_slice(&0i64.to_le_bytes());
        out.extend_from_slice(&0i32.to_le_bytes());
        out.extend_from_slice(&1i32.to_le_bytes());
        write(out);
    })
}
