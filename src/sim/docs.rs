//! Deletes and updates of single documents, as `shardtop serve` carries them out: the caller
//! knows the document (its fields, and the bytes it was counted with when inserted); the
//! simulator routes it by shard key and changes the owning chunk's counts.
//!
//! * a delete takes one document and its bytes out of the chunk owning its key (never below
//!   zero), counts a write on that chunk's shard and is reported as a `delete` event (so a replay
//!   takes the same document out);
//! * an update that leaves the shard key as it is counts a write on the owning chunk (reported
//!   with the other writes); the document keeps the size it was counted with;
//! * an update that changes the shard key moves the document to the chunk owning its new key
//!   (`updateShardKey`, as [`Simulator::update_shard_key`] does).
//!
//! When the collection keeps its documents' field values (scenario `keepDocuments`, refine,
//! reshard), the kept values follow: one entry with the old values (the same bytes preferred) is
//! removed or rewritten.

use bson::{Bson, Document};

use super::engine::Simulator;
use crate::cluster::error::MongoError;
use crate::cluster::event::EventKind;
use crate::model::extjson::from_bson;
use crate::model::{ChunkStats, KeyValue, ShardKey, value_at};

impl Simulator {
    /// The shard key of document `d` in collection `c` (a missing field is null; an array is
    /// refused as the server refuses it).
    pub fn shard_key_of(&self, c: usize, d: &Document) -> Result<ShardKey, MongoError> {
        let pattern = &self.cluster.collections[c].pattern;
        let mut values = Vec::new();
        for f in pattern.fields() {
            values.push(match value_at(d, &f.path) {
                None => KeyValue::Null,
                Some(Bson::Array(_)) => {
                    return Err(MongoError::bad_value(format!(
                        "Shard key cannot contain an array value, found one at field '{}'",
                        f.path
                    )));
                }
                Some(v) => from_bson(v),
            });
        }
        pattern
            .key_of(values)
            .map_err(|e| MongoError::bad_value(e.0))
    }

    /// The values of the kept fields of `d`, when collection `c` keeps them.
    fn kept_values(&self, c: usize, d: &Document) -> Option<Vec<KeyValue>> {
        let store = self.cluster.collections[c].docs.as_ref()?;
        Some(
            store
                .fields
                .iter()
                .map(|f| value_at(d, f).map_or(KeyValue::Null, from_bson))
                .collect(),
        )
    }

    /// Index of the kept entry with `values` (and `bytes` if one has them).
    fn kept_entry(&self, c: usize, values: &[KeyValue], bytes: u64) -> Option<usize> {
        let store = self.cluster.collections[c].docs.as_ref()?;
        let same = |(v, _): &(Vec<KeyValue>, u64)| v.as_slice() == values;
        store
            .docs
            .iter()
            .position(|e| same(e) && e.1 == bytes)
            .or_else(|| store.docs.iter().position(same))
    }

    /// Deletes document `d` (counted with `bytes` when inserted) from sharded collection `c`.
    pub fn delete_document(
        &mut self,
        c: usize,
        d: &Document,
        bytes: u64,
    ) -> Result<(), MongoError> {
        let key = self.shard_key_of(c, d)?;
        if let Some(values) = self.kept_values(c, d)
            && let Some(at) = self.kept_entry(c, &values, bytes)
            && let Some(store) = self.cluster.collections[c].docs.as_mut()
        {
            store.docs.remove(at);
        }
        // Writes not yet reported come first, so a replay adds the document before removing it.
        self.flush_writes(c);
        let coll = &mut self.cluster.collections[c];
        coll.keys.remove(&key, bytes);
        coll.delete_document(&key, bytes);
        let ns = coll.ns.clone();
        self.emit(EventKind::DocumentDeleted { ns, key, bytes });
        Ok(())
    }

    /// Replaces document `old` (counted with `bytes`) of sharded collection `c` by `new`: a write
    /// on the owning chunk, or a move when the shard key changed. Returns whether it moved.
    pub fn update_document(
        &mut self,
        c: usize,
        old: &Document,
        new: &Document,
        bytes: u64,
    ) -> Result<bool, MongoError> {
        let from = self.shard_key_of(c, old)?;
        let to = self.shard_key_of(c, new)?;
        if let (Some(old_values), Some(new_values)) =
            (self.kept_values(c, old), self.kept_values(c, new))
            && let Some(at) = self.kept_entry(c, &old_values, bytes)
            && let Some(store) = self.cluster.collections[c].docs.as_mut()
        {
            store.docs[at].0 = new_values;
        }
        if from == to {
            let coll = &mut self.cluster.collections[c];
            let i = coll.table.route(&from);
            let shard = coll.table.chunk(i).info.shard;
            let write = ChunkStats::new(0, 0, 1);
            coll.table.add_stats(i, write);
            coll.pending.add(i, shard, write, &from);
            if coll.routed_writes.len() <= shard.index() {
                coll.routed_writes.resize(shard.index() + 1, 0);
            }
            coll.routed_writes[shard.index()] += 1;
            return Ok(false);
        }
        self.flush_writes(c);
        let coll = &mut self.cluster.collections[c];
        coll.keys.remove(&from, bytes);
        coll.keys.insert(to.clone(), bytes);
        coll.move_document(&from, &to, bytes);
        let ns = coll.ns.clone();
        self.emit(EventKind::ShardKeyUpdated {
            ns,
            from,
            to,
            bytes,
        });
        Ok(true)
    }
}
