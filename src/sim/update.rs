//! Updates of a document's shard-key value: the document moves to the chunk that owns its new
//! key — a delete on the old chunk's shard and an insert on the new one, both counted as writes.
//!
//! MongoDB requires such an update to be a retryable write or to run in a transaction (otherwise:
//! "Must run update to shard key field in a multi-statement transaction or with retryWrites:
//! true"); the simulator's updates are always treated as retryable writes. The recent-writes
//! window does not see them.

use bson::Document;

use super::engine::Simulator;
use crate::cluster::error::MongoError;
use crate::cluster::event::EventKind;

impl Simulator {
    /// `updateOne(find, {$set: set})` where `set` changes shard-key fields: the first kept
    /// document whose fields match `find` takes the values of `set` and moves to its new chunk.
    pub fn update_shard_key(
        &mut self,
        ns: &str,
        find: &Document,
        set: &Document,
    ) -> Result<(), MongoError> {
        let c = self.coll(ns)?;
        let coll = &self.cluster.collections[c];
        let Some(store) = coll.docs.as_ref() else {
            return Err(MongoError::illegal_operation(
                "the simulator did not keep this collection's documents (scenario: keepDocuments)",
            ));
        };
        let field = |name: &str| store.fields.iter().position(|f| f == name);
        let mut wanted = Vec::new();
        for (name, value) in find {
            let k = field(name).ok_or_else(|| MongoError::bad_value(format!("no field {name}")))?;
            wanted.push((k, crate::model::extjson::from_bson(value)));
        }
        let Some(d) = store
            .docs
            .iter()
            .position(|(values, _)| wanted.iter().all(|(k, v)| values[*k] == *v))
        else {
            return Err(MongoError::bad_value(format!("no document matches {find}")));
        };
        let (old_values, bytes) = store.docs[d].clone();
        let mut new_values = old_values.clone();
        for (name, value) in set {
            let k = field(name).ok_or_else(|| MongoError::bad_value(format!("no field {name}")))?;
            new_values[k] = crate::model::extjson::from_bson(value);
        }
        let key_of = |values: &[crate::model::KeyValue]| {
            coll.pattern
                .key_of(store.values_for(&coll.pattern, values))
                .map_err(|e| MongoError::bad_value(e.0))
        };
        let (from, to) = (key_of(&old_values)?, key_of(&new_values)?);
        self.flush_writes(c);
        let coll = &mut self.cluster.collections[c];
        coll.keys.remove(&from, bytes);
        coll.keys.insert(to.clone(), bytes);
        if let Some(store) = coll.docs.as_mut() {
            store.docs[d].0 = new_values;
        }
        coll.move_document(&from, &to, bytes);
        self.emit(EventKind::ShardKeyUpdated {
            ns: ns.to_string(),
            from,
            to,
            bytes,
        });
        Ok(())
    }
}
