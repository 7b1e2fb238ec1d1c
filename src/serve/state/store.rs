//! The documents `serve` keeps: every document written through it (insert, upsert, update) in
//! memory, per namespace, in insertion order, with a unique `_id` index — up to `--max-docs`
//! documents in all ([`DEFAULT_MAX_DOCS`] by default). Past the limit a write is still routed
//! into the simulator and counted, but its document is not kept; the namespace counts what it
//! dropped, and reads on it say so (see [`State::not_kept`](crate::serve::state::State::not_kept)).
//!
//! The kept documents' BSON bytes are bounded too, by `--max-bytes` ([`DEFAULT_MAX_BYTES`] by
//! default): a write that would keep more is refused before anything changes, as MongoDB's
//! in-memory storage engine refuses a write past its cache ([`cache_full`]).
//!
//! Each kept document carries the bytes it was counted with in the simulator when inserted, so
//! that a delete takes exactly those bytes out of its chunk.

use std::collections::BTreeMap;

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::model::KeyValue;
use crate::model::extjson::from_bson;

/// Documents kept in all namespaces unless `--max-docs` says otherwise.
pub const DEFAULT_MAX_DOCS: u64 = 1_000_000;

/// BSON bytes of the documents kept in all unless `--max-bytes` says otherwise: 512 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 512 * 1024 * 1024;

/// A kept document and the bytes the simulator counted for it.
#[derive(Clone, Debug)]
pub struct Stored {
    pub doc: Document,
    pub bytes: u64,
}

/// One namespace's documents.
#[derive(Debug, Default)]
struct Docs {
    /// By insertion number: the natural order.
    by_seq: BTreeMap<u64, Stored>,
    /// `_id` (in BSON order, so `1` and `1.0` are the same key) → insertion number.
    ids: BTreeMap<KeyValue, u64>,
    next: u64,
    /// Documents written but not kept (past `--max-docs`).
    dropped: u64,
}

/// Every namespace's documents.
#[derive(Debug)]
pub struct Store {
    colls: BTreeMap<String, Docs>,
    max_docs: u64,
    kept: u64,
    max_bytes: u64,
    /// BSON bytes of the kept documents as they are now (`wire::document_len`).
    kept_bytes: u64,
}

/// What [`Store::insert`] did with a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    /// Kept, under this insertion number.
    Yes(u64),
    /// `--max-docs` is reached: counted, not kept.
    Dropped,
}

/// E11000 on the `_id` index, as a server words it, with its `keyPattern` and `keyValue`
/// (`db/storage/duplicate_key_error_info.cpp`).
pub fn duplicate_key(ns: &str, id: &Bson) -> MongoError {
    let value = bson::doc! { "_id": id.clone() };
    let e = MongoError {
        code: 11000,
        code_name: "DuplicateKey",
        message: format!(
            "E11000 duplicate key error collection: {ns} index: _id_ dup key: {}",
            crate::model::shell_text::document(&value)
        ),
    };
    crate::serve::reply::error_info::attach(
        e,
        bson::doc! { "keyPattern": { "_id": 1 }, "keyValue": value },
    )
}

/// A write refused because the kept documents would pass `--max-bytes`: what MongoDB's in-memory
/// storage engine answers when a write would pass its cache — WiredTiger's `WT_CACHE_FULL`
/// (-31807, "operation would overflow cache") turned into `ExceededMemoryLimit` (146) by mongo
/// `src/mongo/db/storage/wiredtiger/wiredtiger_error_util.cpp` (`wtRCToStatus_slow`:
/// `uassert(ErrorCodes::ExceededMemoryLimit, s, retCode != WT_CACHE_FULL)`, `s` being
/// "-31807: WT_CACHE_FULL: operation would overflow cache").
pub fn cache_full() -> MongoError {
    MongoError {
        code: 146,
        code_name: "ExceededMemoryLimit",
        message: "-31807: WT_CACHE_FULL: operation would overflow cache".into(),
    }
}

fn len(doc: &Document) -> u64 {
    crate::wire::document_len(doc) as u64
}

impl Store {
    pub fn new(max_docs: u64) -> Self {
        Self {
            colls: BTreeMap::new(),
            max_docs,
            kept: 0,
            max_bytes: DEFAULT_MAX_BYTES,
            kept_bytes: 0,
        }
    }

    pub fn max_docs(&self) -> u64 {
        self.max_docs
    }

    /// Bounds the kept documents' BSON bytes (`--max-bytes`).
    pub fn set_max_bytes(&mut self, max_bytes: u64) {
        self.max_bytes = max_bytes;
    }

    /// BSON bytes of the documents kept now.
    #[cfg(test)]
    pub fn kept_bytes(&self) -> u64 {
        self.kept_bytes
    }

    /// Refused ([`cache_full`]) when keeping `doc` in place of `old` (none for an insert) would
    /// take the kept bytes past `--max-bytes`; a document `--max-docs` would not keep costs
    /// nothing, and a write that does not grow the kept bytes always passes.
    pub fn check_room(&self, doc: &Document, old: Option<&Document>) -> Result<(), MongoError> {
        if old.is_none() && self.kept >= self.max_docs {
            return Ok(());
        }
        let new = len(doc);
        let before = old.map_or(0, len);
        if new <= before {
            return Ok(());
        }
        if self.kept_bytes.saturating_add(new - before) > self.max_bytes {
            return Err(cache_full());
        }
        Ok(())
    }

    /// The documents of `ns` in natural order, with their insertion numbers.
    pub fn iter(&self, ns: &str) -> impl Iterator<Item = (u64, &Stored)> + '_ {
        self.colls
            .get(ns)
            .into_iter()
            .flat_map(|d| d.by_seq.iter().map(|(s, x)| (*s, x)))
    }

    /// The documents of `ns` from insertion number `start` on, in natural order.
    pub fn range(
        &self,
        ns: &str,
        start: std::ops::Bound<u64>,
    ) -> impl Iterator<Item = (u64, &Stored)> + '_ {
        self.colls.get(ns).into_iter().flat_map(move |d| {
            d.by_seq
                .range((start, std::ops::Bound::Unbounded))
                .map(|(s, x)| (*s, x))
        })
    }

    /// Documents kept for `ns`.
    pub fn len(&self, ns: &str) -> u64 {
        self.colls.get(ns).map_or(0, |d| d.by_seq.len() as u64)
    }

    /// Documents of `ns` written but not kept.
    pub fn dropped(&self, ns: &str) -> u64 {
        self.colls.get(ns).map_or(0, |d| d.dropped)
    }

    pub fn get(&self, ns: &str, seq: u64) -> Option<&Stored> {
        self.colls.get(ns)?.by_seq.get(&seq)
    }

    /// The kept document of `ns` with this `_id`.
    pub fn by_id(&self, ns: &str, id: &Bson) -> Option<(u64, &Stored)> {
        let docs = self.colls.get(ns)?;
        let seq = *docs.ids.get(&from_bson(id))?;
        docs.by_seq.get(&seq).map(|s| (seq, s))
    }

    /// Whether a kept document of `ns` has this `_id`.
    pub fn has_id(&self, ns: &str, id: &Bson) -> bool {
        self.by_id(ns, id).is_some()
    }

    /// Keeps `doc` (which has an `_id`) unless `--max-docs` is reached; a kept `_id` again is
    /// DuplicateKey. Returns `true` in `.1` when this is the namespace's first dropped document.
    pub fn insert(
        &mut self,
        ns: &str,
        doc: Document,
        bytes: u64,
    ) -> Result<(Kept, bool), MongoError> {
        let id = doc.get("_id").cloned().unwrap_or(Bson::Null);
        if self.has_id(ns, &id) {
            return Err(duplicate_key(ns, &id));
        }
        let full = self.kept >= self.max_docs;
        let docs = self.colls.entry(ns.to_string()).or_default();
        if full {
            docs.dropped += 1;
            return Ok((Kept::Dropped, docs.dropped == 1));
        }
        let seq = docs.next;
        docs.next += 1;
        docs.ids.insert(from_bson(&id), seq);
        self.kept_bytes += len(&doc);
        docs.by_seq.insert(seq, Stored { doc, bytes });
        self.kept += 1;
        Ok((Kept::Yes(seq), false))
    }

    /// Replaces the document `seq` of `ns` (same `_id`, same counted bytes).
    pub fn replace(&mut self, ns: &str, seq: u64, doc: Document) {
        if let Some(s) = self.colls.get_mut(ns).and_then(|d| d.by_seq.get_mut(&seq)) {
            self.kept_bytes = (self.kept_bytes + len(&doc)).saturating_sub(len(&s.doc));
            s.doc = doc;
        }
    }

    /// Removes the document `seq` of `ns`.
    pub fn remove(&mut self, ns: &str, seq: u64) -> Option<Stored> {
        let docs = self.colls.get_mut(ns)?;
        let s = docs.by_seq.remove(&seq)?;
        docs.ids
            .remove(&from_bson(s.doc.get("_id").unwrap_or(&Bson::Null)));
        self.kept -= 1;
        self.kept_bytes = self.kept_bytes.saturating_sub(len(&s.doc));
        Some(s)
    }

    /// Forgets every document of `ns` (`drop`): how many were kept.
    pub fn drop_namespace(&mut self, ns: &str) -> u64 {
        let Some(docs) = self.colls.remove(ns) else {
            return 0;
        };
        let n = docs.by_seq.len() as u64;
        self.kept -= n;
        let bytes: u64 = docs.by_seq.values().map(|s| len(&s.doc)).sum();
        self.kept_bytes = self.kept_bytes.saturating_sub(bytes);
        n
    }

    /// The documents of `from` become those of `to` (`renameCollection`; `to` holds none).
    pub fn rename(&mut self, from: &str, to: &str) {
        if let Some(docs) = self.colls.remove(from) {
            self.colls.insert(to.to_string(), docs);
        }
    }

    /// The namespaces with documents written, kept or not.
    pub fn namespaces(&self) -> impl Iterator<Item = &str> + '_ {
        self.colls.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use bson::doc;

    use super::*;

    #[test]
    fn ids_are_unique_in_bson_order_and_the_limit_drops() {
        let mut s = Store::new(2);
        s.insert("a.b", doc! { "_id": 1 }, 10).unwrap();
        let e = s.insert("a.b", doc! { "_id": 1.0 }, 10).unwrap_err();
        assert_eq!(e.code, 11000);
        assert!(e.message.contains("dup key: { _id: 1.0 }"), "{}", e.message);
        s.insert("a.c", doc! { "_id": 1 }, 10).unwrap();
        assert_eq!(
            s.insert("a.b", doc! { "_id": 2 }, 10).unwrap(),
            (Kept::Dropped, true)
        );
        assert_eq!(
            s.insert("a.b", doc! { "_id": 3 }, 10).unwrap(),
            (Kept::Dropped, false)
        );
        assert_eq!((s.len("a.b"), s.dropped("a.b")), (1, 2));
        let (seq, _) = s.by_id("a.b", &Bson::Int64(1)).unwrap();
        s.remove("a.b", seq).unwrap();
        assert!(!s.has_id("a.b", &Bson::Int32(1)));
        assert!(matches!(
            s.insert("a.b", doc! { "_id": 4 }, 10).unwrap(),
            (Kept::Yes(_), false)
        ));
    }

    #[test]
    fn the_kept_bytes_are_bounded_and_follow_replaces_and_removes() {
        let mut s = Store::new(10);
        s.set_max_bytes(100);
        let small = doc! { "_id": 1, "s": "x" };
        s.check_room(&small, None).unwrap();
        s.insert("a.b", small.clone(), 0).unwrap();
        assert_eq!(s.kept_bytes(), len(&small));
        let big = doc! { "_id": 2, "s": "y".repeat(70) };
        assert_eq!(s.check_room(&big, None).unwrap_err().code, 146);
        let grown = doc! { "_id": 1, "s": "y".repeat(90) };
        let e = s.check_room(&grown, Some(&small)).unwrap_err();
        assert_eq!(
            (e.code_name, e.message.as_str()),
            (
                "ExceededMemoryLimit",
                "-31807: WT_CACHE_FULL: operation would overflow cache"
            )
        );
        let (seq, _) = s.by_id("a.b", &Bson::Int32(1)).unwrap();
        let fits = doc! { "_id": 1, "s": "y".repeat(40) };
        s.check_room(&fits, Some(&small)).unwrap();
        s.replace("a.b", seq, fits.clone());
        assert_eq!(s.kept_bytes(), len(&fits));
        s.remove("a.b", seq).unwrap();
        assert_eq!(s.kept_bytes(), 0);
        s.check_room(&big, None).unwrap();
        // Past --max-docs nothing is kept, so nothing is refused for room.
        let mut s = Store::new(0);
        s.set_max_bytes(1);
        s.check_room(&big, None).unwrap();
    }
}
