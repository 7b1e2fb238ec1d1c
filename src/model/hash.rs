//! MongoDB's hashed-index hash (`BSONElementHasher::hash64`, seed 0): the value
//! `convertShardKeyToHashed` returns and hashed shard keys are partitioned by.
//!
//! md5 over: the seed as 4 bytes, then recursively for the element: its canonical type as an
//! int32 (little-endian), its field name with NUL when inside a document, and either the number
//! as `safeNumberLongForHash` (int64 LE) or the raw BSON bytes of the value; documents and arrays
//! hash their elements followed by the terminating EOO. The result is the first 8 digest bytes as
//! a little-endian signed integer.

use md5::{Digest, Md5};

use super::number;
use super::value::{Field, KeyValue};

/// The hash of a value, as a hashed shard-key field stores it.
pub fn hash64(value: &KeyValue) -> i64 {
    let mut md5 = Md5::new();
    md5.update(0i32.to_le_bytes());
    hash_element(&mut md5, None, value);
    let digest = md5.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    i64::from_le_bytes(first)
}

fn hash_element(md5: &mut Md5, name: Option<&str>, value: &KeyValue) {
    md5.update(value.canonical_type().to_le_bytes());
    if let Some(name) = name {
        md5.update(name.as_bytes());
        md5.update([0]);
    }
    match value {
        KeyValue::Int32(_) | KeyValue::Int64(_) | KeyValue::Double(_) | KeyValue::Decimal(_) => {
            md5.update(number::hash_long(value).to_le_bytes());
        }
        KeyValue::Document(fields) => hash_fields(md5, fields),
        KeyValue::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                hash_element(md5, Some(&i.to_string()), item);
            }
            hash_eoo(md5);
        }
        KeyValue::CodeWithScope(cws) => {
            md5.update(cws.code.as_bytes());
            md5.update([0]);
            hash_fields(md5, &cws.scope);
        }
        other => md5.update(raw_value_bytes(other)),
    }
}

fn hash_fields(md5: &mut Md5, fields: &[Field]) {
    for (name, value) in fields {
        hash_element(md5, Some(name), value);
    }
    hash_eoo(md5);
}

/// EOO: canonical type 0, no name, no value.
fn hash_eoo(md5: &mut Md5) {
    md5.update(0i32.to_le_bytes());
}

/// The BSON encoding of a scalar value (what `BSONElement::value()` points at).
pub fn raw_value_bytes(value: &KeyValue) -> Vec<u8> {
    let mut out = Vec::new();
    match value {
        KeyValue::String(s) | KeyValue::Symbol(s) | KeyValue::Code(s) => push_string(&mut out, s),
        KeyValue::Binary(b) => {
            out.extend((b.bytes.len() as i32).to_le_bytes());
            out.push(b.subtype);
            out.extend_from_slice(&b.bytes);
        }
        KeyValue::ObjectId(oid) => out.extend_from_slice(oid),
        KeyValue::Bool(b) => out.push(u8::from(*b)),
        KeyValue::DateTime(ms) => out.extend(ms.to_le_bytes()),
        KeyValue::Timestamp { time, increment } => {
            out.extend(increment.to_le_bytes());
            out.extend(time.to_le_bytes());
        }
        KeyValue::Regex(r) => {
            out.extend_from_slice(r.pattern.as_bytes());
            out.push(0);
            out.extend_from_slice(r.options.as_bytes());
            out.push(0);
        }
        KeyValue::DbPointer(p) => {
            push_string(&mut out, &p.namespace);
            out.extend_from_slice(&p.id);
        }
        KeyValue::Decimal(d) => out.extend_from_slice(&d.0),
        _ => {} // MinKey, MaxKey, Null, Undefined carry no bytes; containers are handled above
    }
    out
}

fn push_string(out: &mut Vec<u8>, s: &str) {
    out.extend(((s.len() + 1) as i32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}
