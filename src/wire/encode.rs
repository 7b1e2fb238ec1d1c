//! BSON encoding of the documents the server sends, written directly (no serde round trip, which
//! turns ObjectIds into hex and binaries into base64 on the way): the same bytes as
//! `Document::to_writer`, several times faster for replies of many documents.

use bson::{Bson, Document};

/// The encoded bytes of `doc`.
pub fn encode_document(doc: &Document) -> Vec<u8> {
    let mut out = Vec::with_capacity(super::document_len(doc));
    document(&mut out, doc);
    out
}

/// Appends the encoded bytes of `doc` to `out`.
pub fn document(out: &mut Vec<u8>, doc: &Document) {
    framed(out, |out| {
        for (k, v) in doc {
            element(out, k, v);
        }
    });
}

/// An int32 length, what `body` writes, and the closing NUL (a document or an array).
pub fn framed(out: &mut Vec<u8>, body: impl FnOnce(&mut Vec<u8>)) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    body(out);
    out.push(0);
    let len = (out.len() - start) as i32;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

/// One element: the type byte, `key`, the value.
pub fn element(out: &mut Vec<u8>, key: &str, v: &Bson) {
    out.push(v.element_type() as u8);
    cstring(out, key);
    value(out, v);
}

/// The head of element `i` of an array that holds a document: its type byte and its index key
/// (the document's bytes follow).
pub fn document_item(out: &mut Vec<u8>, key: &mut [u8; 20], i: usize) {
    out.push(bson::spec::ElementType::EmbeddedDocument as u8);
    out.extend_from_slice(index_key(key, i).as_bytes());
    out.push(0);
}

/// A buffer for [`index_key`].
pub fn itoa_buf() -> [u8; 20] {
    [0; 20]
}

/// An array element's key (its index in decimal), written into `buf`.
pub fn index_key(buf: &mut [u8; 20], mut i: usize) -> &str {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (i % 10) as u8;
        i /= 10;
        if i == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[at..]).unwrap_or("0")
}

/// A key: a NUL ends it in BSON, so a key holding one (a name taken from a client's string that
/// no check refused) is cut there rather than corrupting the document.
fn cstring(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    out.extend_from_slice(&bytes[..end]);
    out.push(0);
}

/// A string value: its length, all its bytes (a NUL inside is legal here), the closing NUL.
fn string(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&((s.len() + 1) as i32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

fn value(out: &mut Vec<u8>, v: &Bson) {
    match v {
        Bson::Double(f) => out.extend_from_slice(&f.to_le_bytes()),
        Bson::String(s) | Bson::JavaScriptCode(s) | Bson::Symbol(s) => string(out, s),
        Bson::Document(d) => document(out, d),
        Bson::Array(a) => framed(out, |out| {
            let mut key = itoa_buf();
            for (i, v) in a.iter().enumerate() {
                element(out, index_key(&mut key, i), v);
            }
        }),
        Bson::Binary(b) => {
            let old = b.subtype == bson::spec::BinarySubtype::BinaryOld;
            let len = b.bytes.len() + if old { 4 } else { 0 };
            out.extend_from_slice(&(len as i32).to_le_bytes());
            out.push(u8::from(b.subtype));
            if old {
                out.extend_from_slice(&(b.bytes.len() as i32).to_le_bytes());
            }
            out.extend_from_slice(&b.bytes);
        }
        Bson::ObjectId(o) => out.extend_from_slice(&o.bytes()),
        Bson::Boolean(b) => out.push(u8::from(*b)),
        Bson::Null | Bson::Undefined | Bson::MaxKey | Bson::MinKey => {}
        Bson::RegularExpression(r) => {
            cstring(out, &r.pattern);
            cstring(out, &r.options);
        }
        Bson::JavaScriptCodeWithScope(c) => framed_code(out, &c.code, &c.scope),
        Bson::Int32(n) => out.extend_from_slice(&n.to_le_bytes()),
        Bson::Timestamp(t) => {
            out.extend_from_slice(&t.increment.to_le_bytes());
            out.extend_from_slice(&t.time.to_le_bytes());
        }
        Bson::Int64(n) => out.extend_from_slice(&n.to_le_bytes()),
        Bson::DateTime(d) => out.extend_from_slice(&d.timestamp_millis().to_le_bytes()),
        Bson::Decimal128(d) => out.extend_from_slice(&d.bytes()),
        // Rare and opaque in this bson version: let the library write it.
        Bson::DbPointer(_) => {
            let mut tmp = Vec::new();
            let _ = bson::doc! {"p": v.clone()}.to_writer(&mut tmp);
            // Skip the length, the type byte and "p\0"; drop the closing NUL.
            out.extend_from_slice(&tmp[4 + 1 + 2..tmp.len() - 1]);
        }
    }
}

/// `code_w_s`: an int32 total length, the code as a string, the scope document.
fn framed_code(out: &mut Vec<u8>, code: &str, scope: &Document) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    string(out, code);
    document(out, scope);
    let len = (out.len() - start) as i32;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use bson::doc;

    #[test]
    fn a_nul_inside_a_string_is_kept_and_a_key_is_cut_at_one() {
        let d = doc! { "s": "a\0b", "k\0x": 1 };
        let bytes = super::encode_document(&d);
        let back = bson::Document::from_reader(&bytes[..]).unwrap();
        assert_eq!(back.get_str("s").unwrap(), "a\0b");
        assert_eq!(back.get_i32("k").unwrap(), 1);
    }
}
