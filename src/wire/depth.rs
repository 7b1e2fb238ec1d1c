//! The nesting bound of every document a message carries, checked on the raw bytes with an
//! explicit stack (no recursion, so no depth can exhaust the thread's stack) before the document
//! is decoded: MongoDB's `validateBSON` (src/mongo/bson/bson_validate.cpp) refuses a message whose
//! documents nest deeper than `BSONDepth::getMaxAllowableDepth()` (200,
//! src/mongo/bson/bson_depth.h) with Overflow.

use bson::RawDocument;
use bson::raw::{RawBsonRef, RawIter};

/// Nested objects and arrays a document of a message may have below its top level
/// (`BSONDepth::kDefaultMaxAllowableDepth`).
pub const MAX_BSON_DEPTH: usize = 200;

/// The field name of the first element that nests past [`MAX_BSON_DEPTH`], if one does; bytes
/// that do not parse are left to the decoder to refuse.
pub fn too_deep(doc: &RawDocument) -> Option<String> {
    let mut frames: Vec<RawIter<'_>> = vec![doc.iter_elements()];
    while let Some(top) = frames.last_mut() {
        let Some(elem) = top.next() else {
            frames.pop();
            continue;
        };
        let Ok(elem) = elem else { return None };
        let inner = match elem.value() {
            Ok(RawBsonRef::Document(d)) => d,
            Ok(RawBsonRef::Array(a)) => match RawDocument::from_bytes(a.as_bytes()) {
                Ok(d) => d,
                Err(_) => return None,
            },
            Ok(RawBsonRef::JavaScriptCodeWithScope(c)) => c.scope,
            Ok(_) => continue,
            Err(_) => return None,
        };
        if frames.len() > MAX_BSON_DEPTH {
            return Some(elem.key().to_string());
        }
        frames.push(inner.iter_elements());
    }
    None
}
