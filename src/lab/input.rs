//! What the lab reads before a trial: the user's documents ([`data`]: mongodump BSON,
//! mongoexport JSON lines or array, gzipped or not), the traffic ([`traffic`]: workload files and
//! the slow queries of a MongoDB log), the unique indexes a dump's metadata lists ([`dump`]) and
//! seed 003's example documents and traffic ([`example`]). Every reading error is an
//! [`data::InputError`] naming the file and where in it.
//!
//! The input imports [`crate::analyze`] (the operations), [`crate::model`], [`crate::wire`]
//! (BSON depth) and the simulator's seeded random numbers (the example); never the lab's trial
//! or report, and it reads no cluster (a live collection's sample is the `--from` command's).

pub mod data;
pub mod dump;
pub mod example;
pub mod traffic;

/// The bytes of the ObjectId `_id` mongod adds to a document inserted without one: the element's
/// type byte, its name `_id` and its NUL, and the 12 bytes of the ObjectId (bsonspec.org; 8.0
/// `src/mongo/db/ops/insert.cpp`, `fixDocumentForInsert`, prepends a generated `_id`).
pub const GENERATED_ID_BYTES: u64 = 1 + 4 + 12;

/// A document as stored, and its size: `size` bytes of BSON, or, for a document without an
/// `_id`, the document with the ObjectId `_id` mongod gives it put first and its bytes added (as
/// `avgDocSizeBytes` counts the stored documents, and a key on `_id` sees a unique, increasing
/// value, not a missing one). `n` is the document's place in the input: the generated ids
/// increase in insert order, as ObjectIds made one after another do (a fixed time, then the
/// counter; the same for the same input, so both passes over a file agree).
pub fn stored(doc: bson::Document, size: u64, n: u64) -> (bson::Document, u64) {
    /// 2026-01-01T00:00:00Z: the time part of every generated id.
    const GENERATED_AT: u32 = 1_767_225_600;
    if doc.contains_key("_id") {
        return (doc, size);
    }
    let counter = (n % (1 << 24)) as u32;
    let bytes = counter.to_be_bytes();
    let oid = bson::oid::ObjectId::from_parts(GENERATED_AT, [0; 5], [bytes[1], bytes[2], bytes[3]]);
    let mut out = bson::doc! {"_id": oid};
    out.extend(doc);
    (out, size + GENERATED_ID_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_without_an_id_gets_the_one_mongod_would_give_it() {
        let (kept, size) = stored(bson::doc! {"_id": 7, "a": 1}, 20, 0);
        assert_eq!((kept, size), (bson::doc! {"_id": 7, "a": 1}, 20));
        let (first, size) = stored(bson::doc! {"a": 1}, 12, 0);
        let (second, _) = stored(bson::doc! {"a": 1}, 12, 1);
        assert_eq!(size, 12 + 17);
        assert_eq!(bson::to_vec(&first).map(|v| v.len()).ok(), Some(12 + 17));
        assert_eq!(first.keys().next().map(String::as_str), Some("_id"));
        let id = |d: &bson::Document| d.get_object_id("_id").ok();
        assert!(id(&first) < id(&second), "increasing in insert order");
    }
}
