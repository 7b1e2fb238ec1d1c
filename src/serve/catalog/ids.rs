//! Stable identifiers for the generated config database: a collection's `uuid`, `lastmodEpoch`
//! and `timestamp` derive from its namespace and incarnation (they change when MongoDB's would —
//! refine, reshard), a chunk's `_id` from the collection's uuid and its lower bound. Same state ⇒
//! same ids, on every run.

use bson::spec::BinarySubtype;
use bson::{Binary, Bson, Timestamp, oid::ObjectId};
use md5::{Digest, Md5};

fn digest(parts: &[&[u8]]) -> [u8; 16] {
    let mut h = Md5::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize().into()
}

/// The collection's UUID (BinData subtype 4, version-4 layout).
pub fn collection_uuid(ns: &str, incarnation: u32) -> Bson {
    let mut b = digest(&[b"uuid", ns.as_bytes(), &incarnation.to_le_bytes()]);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    Bson::Binary(Binary {
        subtype: BinarySubtype::Uuid,
        bytes: b.to_vec(),
    })
}

/// An ObjectId whose 4-byte time is `secs` and whose other 8 bytes come from `parts`.
pub fn object_id(secs: u64, parts: &[&[u8]]) -> ObjectId {
    let d = digest(parts);
    let mut b = [0u8; 12];
    b[..4].copy_from_slice(&(secs as u32).to_be_bytes());
    b[4..].copy_from_slice(&d[..8]);
    ObjectId::from_bytes(b)
}

/// The collection's `lastmodEpoch`.
pub fn collection_epoch(ns: &str, incarnation: u32, secs: u64) -> ObjectId {
    object_id(secs, &[b"epoch", ns.as_bytes(), &incarnation.to_le_bytes()])
}

/// The collection's `timestamp` (5.0+): the server's start plus the incarnation as increment.
pub fn collection_timestamp(secs: u64, incarnation: u32) -> Timestamp {
    Timestamp {
        time: secs as u32,
        increment: incarnation,
    }
}
