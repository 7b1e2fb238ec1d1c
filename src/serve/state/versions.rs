//! The versions of documents that open transactions' snapshots still read, shared between them: a
//! write keeps the version it replaced once, not once per open transaction, and only when some
//! open transaction began before the write and reads no later kept version of that document
//! (a storage engine's history store keeps a version per update, read by every snapshot older
//! than it: `db/storage/wiredtiger`, `minSnapshotHistoryWindowInSeconds`). A write costs
//! O(log n) whatever the number of open transactions; a version is forgotten once every open
//! transaction began after it was replaced.
//!
//! Data only: `sessions` decides who reads what. May import nothing of `serve` above `state`.

use std::collections::BTreeMap;

use bson::Document;

use crate::model::KeyValue;

/// A document of one namespace, by `_id` (in BSON order).
pub type DocKey = (String, KeyValue);

/// Kept versions by document and by the write that replaced them.
#[derive(Debug, Default)]
pub struct Versions {
    /// Writes counted since the start: the clock of snapshots (a transaction begun at `t` reads,
    /// for a document, the version replaced by its first write after `t`).
    clock: u64,
    /// Per document: (the write that replaced it, the version before; `None`: it did not
    /// exist), oldest first.
    by_doc: BTreeMap<DocKey, Vec<(u64, Option<Document>)>>,
    /// The same versions by the write that replaced them, to forget them oldest first.
    by_write: BTreeMap<u64, DocKey>,
}

impl Versions {
    /// The clock now (a transaction beginning now reads every document as it is).
    pub fn now(&self) -> u64 {
        self.clock
    }

    /// Versions kept.
    #[cfg(test)]
    pub fn kept(&self) -> usize {
        self.by_write.len()
    }

    /// A write of `key` replaced `old`; `newest_open`: when the newest open transaction began.
    /// Keeps `old` when that transaction (and so maybe others) would read it.
    pub fn wrote(&mut self, key: &DocKey, old: Option<&Document>, newest_open: Option<u64>) {
        self.clock += 1;
        let Some(newest) = newest_open else {
            return;
        };
        let list = self.by_doc.entry(key.clone()).or_default();
        if list.last().is_some_and(|(w, _)| *w > newest) {
            // Every open transaction reads this version or an older one already kept.
            return;
        }
        list.push((self.clock, old.cloned()));
        self.by_write.insert(self.clock, key.clone());
    }

    /// What a transaction begun at `start` reads of `key` when the document changed since:
    /// `Some(None)` when it did not exist then.
    pub fn seen_at(&self, key: &DocKey, start: u64) -> Option<&Option<Document>> {
        let list = self.by_doc.get(key)?;
        let i = list.partition_point(|(w, _)| *w <= start);
        list.get(i).map(|(_, v)| v)
    }

    /// Whether `key` was written since `start`.
    pub fn changed_since(&self, key: &DocKey, start: u64) -> bool {
        self.seen_at(key, start).is_some()
    }

    /// Whether any document was written since `start` (with a version kept).
    pub fn any_since(&self, start: u64) -> bool {
        self.by_write.range(start + 1..).next().is_some()
    }

    /// The documents of `ns` changed since `start`, each with the version a transaction begun
    /// then reads.
    pub fn since<'a>(
        &'a self,
        ns: &'a str,
        start: u64,
    ) -> impl Iterator<Item = (&'a KeyValue, &'a Option<Document>)> + 'a {
        self.by_write
            .range(start + 1..)
            .filter(move |(_, k)| k.0 == ns)
            .filter_map(move |(w, k)| {
                // Once per document: at its first write after `start`.
                let list = self.by_doc.get(k)?;
                let i = list.partition_point(|(x, _)| *x <= start);
                let (first, v) = list.get(i)?;
                (first == w).then_some((&k.1, v))
            })
    }

    /// Forgets the versions no open transaction reads (`oldest_open`: when the oldest began;
    /// `None`: none is open).
    pub fn forget(&mut self, oldest_open: Option<u64>) {
        let Some(oldest) = oldest_open else {
            self.by_doc.clear();
            self.by_write.clear();
            return;
        };
        while let Some(entry) = self.by_write.first_entry() {
            if *entry.key() > oldest {
                break;
            }
            let key = entry.remove();
            if let Some(list) = self.by_doc.get_mut(&key) {
                if !list.is_empty() {
                    list.remove(0);
                }
                if list.is_empty() {
                    self.by_doc.remove(&key);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn key(n: i64) -> DocKey {
        ("db.c".to_string(), KeyValue::Int64(n))
    }

    #[test]
    fn one_version_for_every_open_transaction_and_forgotten_when_they_end() {
        let mut v = Versions::default();
        let t1 = v.now();
        let t2 = v.now();
        v.wrote(&key(1), Some(&doc! {"x": 1}), Some(t2));
        v.wrote(&key(1), Some(&doc! {"x": 2}), Some(t2));
        assert_eq!(
            v.kept(),
            1,
            "the second write is read by no open transaction"
        );
        assert_eq!(v.seen_at(&key(1), t1), Some(&Some(doc! {"x": 1})));
        let t3 = v.now();
        v.wrote(&key(1), Some(&doc! {"x": 3}), Some(t3));
        assert_eq!(v.kept(), 2);
        assert_eq!(v.seen_at(&key(1), t3), Some(&Some(doc! {"x": 3})));
        assert_eq!(v.seen_at(&key(1), t1), Some(&Some(doc! {"x": 1})));
        assert!(v.seen_at(&key(2), t1).is_none());
        let seen: Vec<_> = v.since("db.c", t1).collect();
        assert_eq!(seen.len(), 1);
        v.forget(Some(t3));
        assert_eq!(v.kept(), 1);
        v.forget(None);
        assert_eq!(v.kept(), 0);
    }

    #[test]
    fn nothing_kept_without_open_transactions() {
        let mut v = Versions::default();
        for i in 0..1000 {
            v.wrote(&key(i), Some(&doc! {"x": i}), None);
        }
        assert_eq!(v.kept(), 0);
        assert_eq!(v.now(), 1000);
    }
}
