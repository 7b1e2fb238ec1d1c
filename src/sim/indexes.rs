//! Index commands — `createIndexes` and `dropIndexes` of one index — with the refusals sharding
//! adds: a unique index must be prefixed by the shard key; the `_id` index and the last index that
//! supports the shard key cannot be dropped.

use super::engine::Simulator;
use super::ops::{is_field_name_prefix, is_prefix};
use crate::cluster::Index;
use crate::cluster::error::MongoError;
use crate::cluster::event::EventKind;
use crate::model::KeyPattern;

impl Simulator {
    /// `createIndexes` of one index; a unique index must be prefixed by the shard key.
    pub fn create_index(
        &mut self,
        ns: &str,
        key: KeyPattern,
        unique: bool,
    ) -> Result<(), MongoError> {
        let c = self
            .cluster
            .collection_index(ns)
            .ok_or_else(|| MongoError::namespace_not_sharded(format!("{ns} is not sharded")))?;
        let coll = &mut self.cluster.collections[c];
        let sharded = coll.placement == crate::cluster::Placement::Sharded;
        if sharded && unique && !is_field_name_prefix(&coll.pattern, &key) {
            return Err(MongoError::cannot_create_index(format!(
                "cannot create index with 'unique' or 'prepareUnique' option over {} with shard key pattern {} and collation {{}}",
                key.server_text(),
                coll.pattern.server_text()
            )));
        }
        if !coll.indexes.iter().any(|i| i.key == key) {
            coll.indexes.push(Index {
                key: key.clone(),
                unique,
            });
        }
        let ns = coll.ns.clone();
        self.emit(EventKind::IndexCreated { ns, key, unique });
        Ok(())
    }

    /// `dropIndexes` of the index with key pattern `key`.
    pub fn drop_index(&mut self, ns: &str, key: &KeyPattern) -> Result<(), MongoError> {
        let c = self.coll(ns)?;
        let coll = &mut self.cluster.collections[c];
        let Some(at) = coll.indexes.iter().position(|i| i.key == *key) else {
            return Err(MongoError::index_not_found(format!(
                "can't find index with key: {}",
                key.server_text()
            )));
        };
        if key.len() == 1 && &*key.fields()[0].path == "_id" && !key.fields()[0].hashed {
            return Err(MongoError::invalid_options("cannot drop _id index"));
        }
        let supports = |i: &Index| is_prefix(&coll.pattern, &i.key);
        if supports(&coll.indexes[at]) && coll.indexes.iter().filter(|i| supports(i)).count() == 1 {
            return Err(MongoError::cannot_drop_shard_key_index(
                "cannot drop the only shard key index",
            ));
        }
        coll.indexes.remove(at);
        let ns = coll.ns.clone();
        self.emit(EventKind::IndexDropped {
            ns,
            key: key.clone(),
        });
        Ok(())
    }
}
