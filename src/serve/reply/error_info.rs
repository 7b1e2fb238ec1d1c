//! The fields an error carries beside its code and message — MongoDB's `ErrorExtraInfo`, which
//! a server appends to the error's reply and to a write error alike
//! (`base/error_extra_info.h`; for E11000 `db/storage/duplicate_key_error_info.cpp` always
//! serializes `keyPattern` and `keyValue`). A `MongoError` holds code and message only, so the
//! fields are kept here, by code and message, when the error is made ([`attach`]) and read when
//! its reply is built ([`of`]). Both happen while one command is answered under the state's
//! lock; the newest few are kept, the newest match wins.
//!
//! The bottom layer: imports nothing of `serve`.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use bson::Document;

use crate::cluster::MongoError;

/// How many errors' fields are kept.
const KEPT: usize = 64;

static INFO: Mutex<VecDeque<(i32, String, Document)>> = Mutex::new(VecDeque::new());

/// Keeps `info` as the extra fields of `e`, and returns `e`.
pub fn attach(e: MongoError, info: Document) -> MongoError {
    let mut kept = INFO.lock().unwrap_or_else(PoisonError::into_inner);
    if kept.len() >= KEPT {
        kept.pop_front();
    }
    kept.push_back((e.code, e.message.clone(), info));
    e
}

/// The extra fields of `e`, if it was made with some.
pub fn of(e: &MongoError) -> Option<Document> {
    let kept = INFO.lock().unwrap_or_else(PoisonError::into_inner);
    kept.iter()
        .rev()
        .find(|(code, message, _)| *code == e.code && *message == e.message)
        .map(|(_, _, info)| info.clone())
}

#[cfg(test)]
mod tests {
    use bson::doc;

    use super::*;

    /// A command error's reply carries the fields its error was made with.
    #[test]
    fn an_error_reply_carries_its_extra_fields() {
        let e = MongoError {
            code: 11000,
            code_name: "DuplicateKey",
            message: "E11000 duplicate key error collection: t.c index: a_1 dup key: { a: 1 }"
                .into(),
        };
        let e = attach(e, doc! {"keyPattern": {"a": 1}, "keyValue": {"a": 1}});
        let reply = crate::serve::reply::error(&e);
        assert_eq!(reply.get_document("keyPattern"), Ok(&doc! {"a": 1}));
        assert_eq!(reply.get_document("keyValue"), Ok(&doc! {"a": 1}));
        assert_eq!(reply.get_str("codeName"), Ok("DuplicateKey"));
    }
}
