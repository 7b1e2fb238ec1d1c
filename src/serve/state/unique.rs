//! Unique secondary indexes over the documents `serve` keeps: every unique index created through
//! `createIndexes` (beyond `_id_`, which the store itself enforces) holds the values it indexes,
//! and an insert, update or replacement that would repeat one is refused with E11000, as a
//! server does (`db/index/index_access_method.cpp`, `db/storage/duplicate_key_error_info.cpp`).
//! A missing field indexes as null (two documents without it collide) unless the index is
//! sparse; a partial index's filter is not evaluated (simplification: it enforces on every
//! document, see docs/fidelity.md).

use std::collections::BTreeMap;

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::model::KeyValue;
use crate::model::extjson::from_bson;
use crate::model::shell_text;
use crate::serve::query::get_path;

/// One unique index of one namespace.
#[derive(Clone, Debug)]
struct Unique {
    name: String,
    /// The key pattern, as created (`keyPattern` of its E11000).
    pattern: Document,
    fields: Vec<String>,
    sparse: bool,
    /// Indexed values → the insertion number of the document holding them.
    values: BTreeMap<Vec<KeyValue>, u64>,
}

impl Unique {
    /// The values `doc` indexes under, or `None` for a sparse index it is not in.
    fn key_of(&self, doc: &Document) -> Option<Vec<KeyValue>> {
        let got: Vec<Option<&Bson>> = self.fields.iter().map(|f| get_path(doc, f)).collect();
        if self.sparse && got.iter().all(Option::is_none) {
            return None;
        }
        Some(
            got.iter()
                .map(|v| v.map_or(KeyValue::Null, from_bson))
                .collect(),
        )
    }

    fn duplicate(&self, ns: &str, doc: &Document) -> MongoError {
        let shown: Document = self
            .fields
            .iter()
            .map(|f| (f.clone(), get_path(doc, f).cloned().unwrap_or(Bson::Null)))
            .collect();
        let e = MongoError {
            code: 11000,
            code_name: "DuplicateKey",
            message: format!(
                "E11000 duplicate key error collection: {ns} index: {} dup key: {}",
                self.name,
                shell_text::document(&shown)
            ),
        };
        let info = bson::doc! { "keyPattern": self.pattern.clone(), "keyValue": shown };
        crate::serve::reply::error_info::attach(e, info)
    }
}

/// The unique indexes of every namespace.
#[derive(Clone, Debug, Default)]
pub struct UniqueIndexes {
    by_ns: BTreeMap<String, Vec<Unique>>,
}

impl UniqueIndexes {
    /// Builds unique index `name` of key pattern `pattern` over `docs` (insertion number,
    /// document); a repeated value fails the build as the server's index build does.
    pub fn create<'a>(
        &mut self,
        ns: &str,
        name: &str,
        pattern: &Document,
        sparse: bool,
        docs: impl Iterator<Item = (u64, &'a Document)>,
    ) -> Result<(), MongoError> {
        let list = self.by_ns.entry(ns.to_string()).or_default();
        if list.iter().any(|u| u.name == name) {
            return Ok(());
        }
        let mut index = Unique {
            name: name.to_string(),
            pattern: pattern.clone(),
            fields: pattern.keys().cloned().collect(),
            sparse,
            values: BTreeMap::new(),
        };
        for (seq, doc) in docs {
            let Some(key) = index.key_of(doc) else {
                continue;
            };
            if index.values.insert(key, seq).is_some() {
                let e = index.duplicate(ns, doc);
                let info = crate::serve::reply::error_info::of(&e).unwrap_or_default();
                let e = MongoError {
                    message: format!("Index build failed: {}", e.message),
                    ..e
                };
                return Err(crate::serve::reply::error_info::attach(e, info));
            }
        }
        list.push(index);
        Ok(())
    }

    /// Drops the unique index `name` of `ns` (nothing when there is none), or all of them.
    pub fn drop(&mut self, ns: &str, name: Option<&str>) {
        if let Some(list) = self.by_ns.get_mut(ns) {
            list.retain(|u| name.is_some_and(|n| u.name != n));
        }
    }

    /// The unique indexes of `from` become those of `to` (`renameCollection`).
    pub fn rename(&mut self, from: &str, to: &str) {
        if let Some(list) = self.by_ns.remove(from) {
            self.by_ns.insert(to.to_string(), list);
        }
    }

    /// Refuses `doc` (to be document `seq` of `ns`) when it repeats a unique value of another.
    pub fn check(&self, ns: &str, seq: Option<u64>, doc: &Document) -> Result<(), MongoError> {
        for u in self.by_ns.get(ns).into_iter().flatten() {
            if let Some(key) = u.key_of(doc)
                && let Some(&holder) = u.values.get(&key)
                && Some(holder) != seq
            {
                return Err(u.duplicate(ns, doc));
            }
        }
        Ok(())
    }

    /// Records that document `seq` of `ns` changed from `old` (if any) to `new` (if any).
    pub fn record(&mut self, ns: &str, seq: u64, old: Option<&Document>, new: Option<&Document>) {
        for u in self.by_ns.get_mut(ns).into_iter().flatten() {
            if let Some(key) = old.and_then(|d| u.key_of(d))
                && u.values.get(&key) == Some(&seq)
            {
                u.values.remove(&key);
            }
            if let Some(key) = new.and_then(|d| u.key_of(d)) {
                u.values.insert(key, seq);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use bson::doc;

    #[test]
    fn a_repeated_value_is_e11000_and_a_change_frees_the_old_one() {
        let mut u = UniqueIndexes::default();
        let a = doc! {"orderNo": 1};
        u.create(
            "s.o",
            "orderNo_1",
            &doc! {"orderNo": 1},
            false,
            [(0, &a)].into_iter(),
        )
        .unwrap();
        let e = u.check("s.o", None, &doc! {"orderNo": 1.0}).unwrap_err();
        assert_eq!(
            e.message,
            "E11000 duplicate key error collection: s.o index: orderNo_1 dup key: { orderNo: 1.0 }"
        );
        u.check("s.o", Some(0), &a).unwrap();
        u.record("s.o", 0, Some(&a), Some(&doc! {"orderNo": 2}));
        u.check("s.o", None, &a).unwrap();
        let b = doc! {"x": 1};
        let e = u
            .create(
                "s.p",
                "x_1",
                &doc! {"x": 1},
                false,
                [(0, &b), (1, &b)].into_iter(),
            )
            .unwrap_err();
        assert!(
            e.message.starts_with("Index build failed: E11000"),
            "{}",
            e.message
        );
    }
}
