//! What `capture --anonymize` learns before it rewrites: each collection's UUID and hashed
//! fields, and every name a capture holds in the fields that hold names, so that a name is
//! replaced wherever it is, in the order of the file.
//!
//! Owns: the first walks over the capture. May not touch: the rewriting.

use bson::{Bson, Document};

use super::fields::{
    DB_FIELDS, HOST_FIELDS, NS_FIELDS, SET_FIELDS, SHARD_FIELDS, USER_FIELDS, ZONE_FIELDS,
};
use super::names::own_db;
use super::{Anonymizer, answered, config_collection, uuid_of};
use crate::capture::CapturedRead;

impl Anonymizer {
    /// What `config.collections` says of each collection: its UUID and its hashed field.
    pub(super) fn learn(&mut self, r: &CapturedRead) {
        if config_collection(r) != Some("collections") {
            return;
        }
        for d in answered(r) {
            let Ok(ns) = d.get_str("_id") else { continue };
            if let Some(uuid) = uuid_of(d, "uuid") {
                self.uuids.insert(uuid.to_vec(), ns.to_string());
            }
            if let Ok(key) = d.get_document("key") {
                for (field, v) in key {
                    if v.as_str() == Some("hashed") {
                        self.keys.note_hashed(ns, field);
                    }
                }
            }
        }
    }

    /// The names a read's documents hold in the fields that hold them.
    pub(super) fn learn_names(&mut self, r: &CapturedRead) {
        let coll = config_collection(r);
        for d in answered(r) {
            match coll {
                Some("shards") => {
                    if let Ok(id) = d.get_str("_id") {
                        self.names.shard(id);
                    }
                }
                Some("databases") => {
                    if let Ok(id) = d.get_str("_id") {
                        self.names.db(id);
                    }
                    if let Ok(p) = d.get_str("primary") {
                        self.names.shard(p);
                    }
                }
                Some("collections") => {
                    if let Ok(id) = d.get_str("_id") {
                        self.names.ns(id);
                    }
                }
                Some("mongos") => {
                    if let Ok(id) = d.get_str("_id") {
                        self.names.host(id);
                    }
                }
                _ => {}
            }
            self.learn_document(d);
        }
        if !own_db(&r.db) {
            self.names.db(&r.db);
        }
    }

    fn learn_document(&mut self, d: &Document) {
        // `addShard` and `removeShard` log entries name the shard in `details.name`.
        if d.get_str("what")
            .is_ok_and(|w| w.starts_with("addShard") || w.starts_with("removeShard"))
            && let Ok(name) = d.get_document("details").and_then(|x| x.get_str("name"))
        {
            self.names.shard(name);
        }
        for (k, v) in d {
            let k = k.as_str();
            match v {
                Bson::Document(d) => self.learn_document(d),
                Bson::Array(items) => {
                    for item in items {
                        match item {
                            Bson::Document(d) => self.learn_document(d),
                            Bson::String(s) => self.learn_string(k, s),
                            _ => {}
                        }
                    }
                }
                Bson::String(s) => self.learn_string(k, s),
                _ => {}
            }
        }
    }

    fn learn_string(&mut self, k: &str, s: &str) {
        if NS_FIELDS.contains(&k) {
            self.names.ns(s);
        } else if DB_FIELDS.contains(&k) {
            self.names.db(s);
        } else if HOST_FIELDS.contains(&k) || k == "primary" && s.contains(':') {
            self.names.connection(s);
        } else if SHARD_FIELDS.contains(&k) || k == "primary" {
            self.names.shard(s);
        } else if SET_FIELDS.contains(&k) {
            self.names.set(s);
        } else if ZONE_FIELDS.contains(&k) {
            self.names.zone(s);
        } else if USER_FIELDS.contains(&k) {
            self.names.user(s);
        }
    }
}
