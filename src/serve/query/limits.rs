//! The limits a server puts on stored documents: 16 MiB (`BSONObjMaxUserSize`,
//! src/mongo/bson/bsonobj.h) and 180 levels of nesting (`BSONDepth::getMaxDepthForUserStorage`,
//! src/mongo/bson/bson_depth.cpp: the 200 of a message less 20 kept for the server's own
//! wrapping). An insert is refused as `fixDocumentForInsert` refuses it
//! (src/mongo/db/ops/insert.cpp), an update's result as `storage_validation.cpp` and the update
//! driver do, and an update path that would nest past the limit before it is applied.

use bson::{Bson, Document};

use crate::cluster::MongoError;

/// The largest document stored.
pub const MAX_USER_SIZE: usize = 16 * 1024 * 1024;
/// Levels of non-empty embedded documents and arrays a stored document may have.
pub const MAX_STORAGE_DEPTH: usize = 180;

fn overflow(message: String) -> MongoError {
    MongoError {
        code: 15,
        code_name: "Overflow",
        message,
    }
}

/// A document to insert, checked.
pub fn check_insert(d: &Document) -> Result<(), MongoError> {
    let size = crate::wire::document_len(d);
    if size > MAX_USER_SIZE {
        return Err(MongoError::bad_value(format!(
            "object to insert too large. size in bytes: {size}, max size: {MAX_USER_SIZE}"
        )));
    }
    if too_deep(d) {
        return Err(overflow(format!(
            "cannot insert document because it exceeds {MAX_STORAGE_DEPTH} levels of nesting"
        )));
    }
    Ok(())
}

/// A document an update produced, checked.
pub fn check_updated(d: &Document) -> Result<(), MongoError> {
    if crate::wire::document_len(d) > MAX_USER_SIZE {
        return Err(MongoError {
            code: 17419,
            code_name: "BSONObjectTooLarge",
            message: format!("Resulting document after update is larger than {MAX_USER_SIZE}"),
        });
    }
    if too_deep(d) {
        return Err(nesting());
    }
    Ok(())
}

fn nesting() -> MongoError {
    overflow(format!(
        "Document exceeds maximum nesting depth of {MAX_STORAGE_DEPTH}"
    ))
}

/// An update path, checked before it is applied: one of more parts than the limit would nest
/// the document past it.
pub fn check_path(path: &str) -> Result<(), MongoError> {
    if path.split('.').count() > MAX_STORAGE_DEPTH {
        return Err(nesting());
    }
    Ok(())
}

/// Whether `d` nests past [`MAX_STORAGE_DEPTH`] (empty documents and arrays do not count), walked
/// with an explicit stack.
fn too_deep(d: &Document) -> bool {
    let mut frames: Vec<Box<dyn Iterator<Item = &Bson> + '_>> = vec![Box::new(d.values())];
    while let Some(top) = frames.last_mut() {
        let Some(v) = top.next() else {
            frames.pop();
            continue;
        };
        let inner: Box<dyn Iterator<Item = &Bson>> = match v {
            Bson::Document(d) if !d.is_empty() => Box::new(d.values()),
            Bson::Array(a) if !a.is_empty() => Box::new(a.iter()),
            _ => continue,
        };
        if frames.len() >= MAX_STORAGE_DEPTH {
            return true;
        }
        frames.push(inner);
    }
    false
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use bson::doc;

    use super::*;

    fn nested(levels: usize) -> Document {
        let mut d = doc! { "x": 1 };
        for _ in 0..levels {
            d = doc! { "a": d };
        }
        d
    }

    #[test]
    fn depth_is_counted_as_the_server_counts_it() {
        // The top level plus 179 embedded documents is at the limit; one more is past it.
        assert!(check_insert(&nested(MAX_STORAGE_DEPTH - 1)).is_ok());
        let e = check_insert(&nested(MAX_STORAGE_DEPTH)).unwrap_err();
        assert_eq!((e.code, e.code_name), (15, "Overflow"));
        let mut empty_inside = nested(MAX_STORAGE_DEPTH - 1);
        empty_inside.insert("e", doc! {});
        assert!(check_updated(&empty_inside).is_ok());
    }

    #[test]
    fn size_over_16_mib_is_refused() {
        let big = doc! { "s": "x".repeat(MAX_USER_SIZE) };
        assert_eq!(check_insert(&big).unwrap_err().code, 2);
        assert_eq!(check_updated(&big).unwrap_err().code, 17419);
    }
}
