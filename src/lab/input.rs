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

/// A document's size once stored: `size` bytes of BSON, and the `_id` mongod adds when it has
/// none (as `avgDocSizeBytes` counts the stored documents).
pub fn stored_size(doc: &bson::Document, size: u64) -> u64 {
    if doc.contains_key("_id") {
        size
    } else {
        size + GENERATED_ID_BYTES
    }
}
