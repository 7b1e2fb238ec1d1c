//! Tracked unsharded collections (8.0+: `config.collections` `unsplittable: true`, left there by
//! `moveCollection`, `unshardCollection` or `createUnsplittableCollection`): which of a poll's
//! collections they are, and their sizes. Their one chunk (`{_id: MinKey} → {_id: MaxKey}`) in
//! `config.chunks` names the shard that holds them, so the poller loads them as it loads a
//! sharded collection and marks them [`Placement::Unsplittable`].
//!
//! `$shardedDataDistribution` leaves them out (8.0
//! `src/mongo/db/pipeline/document_source_sharded_data_distribution.cpp` matches
//! `unsplittable: {$ne: true}`), so their sizes come from `$collStats` on the collection, read at
//! most once a minute each.
//!
//! Owns: that split and that size read. May not touch: the routing refresh, the model's other
//! collections, any command outside the client's allowlist.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bson::doc;

use super::client::{LiveClient, LiveError};
use super::config::CollectionDoc;
use super::data_sizes::{ShardSize, row as size_row};
use super::refusals::Refusals;
use crate::cluster::{Collection, Placement};

/// How often one tracked unsharded collection's size is re-read.
const SIZES_EVERY: Duration = Duration::from_secs(60);

/// Whether a `config.collections` entry is shown: alive (4.4 keeps dropped ones), sharded or
/// tracked unsharded.
pub(super) fn shown(c: &CollectionDoc) -> bool {
    !c.dropped
}

/// The placement of a collection of the model from its `config.collections` entry
/// (8.0 `src/mongo/s/catalog/type_collection.idl`: `unsplittable`).
pub(super) fn mark(coll: &CollectionDoc, out: &mut Collection) {
    if coll.unsplittable {
        out.placement = Placement::Unsplittable;
    }
}

/// The sharded collections' names (tracked unsharded ones have no chunk balancing to ask about
/// and are not in `$shardedDataDistribution`).
pub(super) fn sharded_names(colls: &[CollectionDoc]) -> Vec<String> {
    colls
        .iter()
        .filter(|c| c.is_sharded())
        .map(|c| c.ns.clone())
        .collect()
}

/// The last sizes read of each tracked unsharded collection, and when.
#[derive(Default)]
pub struct UnsplittableSizes {
    read: HashMap<String, (Instant, Vec<ShardSize>)>,
}

impl UnsplittableSizes {
    /// The sizes of the tracked unsharded collections of `colls`; a refusal is noted and gives
    /// none.
    pub(super) async fn read(
        &mut self,
        client: &LiveClient,
        colls: &[CollectionDoc],
        refused: &mut Refusals,
    ) -> Result<Vec<ShardSize>, LiveError> {
        let names: Vec<String> = colls
            .iter()
            .filter(|c| c.unsplittable && !c.dropped)
            .map(|c| c.ns.clone())
            .collect();
        let Some(first) = names.first() else {
            return Ok(Vec::new());
        };
        let read = self.sizes(client, &names).await;
        refused.optional(read, &super::privileges::coll_stats(first))
    }

    /// The sizes of the tracked unsharded collections `names`: the kept ones when read less than
    /// a minute ago, `$collStats` (`storageStats.count`, `.size`, one document per shard that
    /// holds the collection) otherwise. Collections gone from the catalog are forgotten.
    async fn sizes(
        &mut self,
        client: &LiveClient,
        names: &[String],
    ) -> Result<Vec<ShardSize>, LiveError> {
        self.read.retain(|ns, _| names.contains(ns));
        let mut out = Vec::new();
        for ns in names {
            if let Some((at, sizes)) = self.read.get(ns)
                && at.elapsed() < SIZES_EVERY
            {
                out.extend(sizes.iter().cloned());
                continue;
            }
            let (db, coll) = ns.split_once('.').unwrap_or((ns.as_str(), ""));
            let cmd = doc! {"aggregate": coll, "pipeline": [{"$collStats": {"storageStats": {}}}], "cursor": {}};
            let sizes: Vec<ShardSize> = client
                .drain(db, cmd)
                .await?
                .iter()
                .map(|r| {
                    let stats = r.get_document("storageStats").cloned().unwrap_or_default();
                    let shard = r.get_str("shard").unwrap_or_default();
                    size_row(ns, shard, &stats, ["count", "size", "", ""])
                })
                .collect();
            out.extend(sizes.iter().cloned());
            self.read.insert(ns.clone(), (Instant::now(), sizes));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(json: &str) -> CollectionDoc {
        let v: serde_json::Value = serde_json::from_str(json).expect("json");
        let b = bson::Bson::try_from(v).expect("extjson");
        CollectionDoc::parse(b.as_document().expect("a document")).expect("parses")
    }

    /// `shop.logs` after `moveCollection`, as an 8.0.32 cluster printed it (the projection of
    /// `tests/fixtures/config/8.0.json`, from the real-rock/real-rock.github.io blog post
    /// `content/posts/mongodb/07-sharding.md` @ 4a81dd4e).
    #[test]
    fn a_real_unsplittable_entry_is_shown_as_tracked_unsharded() {
        let logs = parsed(
            r#"{"_id": "shop.logs", "key": {"_id": {"$numberInt": "1"}}, "unsplittable": true}"#,
        );
        assert!(shown(&logs) && !logs.is_sharded());
        let table = |k: &crate::model::KeyPattern| {
            crate::model::RoutingTable::single(
                k.global_min(),
                k.global_max(),
                crate::model::ShardIdx(1),
            )
        };
        let mut c = Collection::new(&logs.ns, logs.key.clone(), table(&logs.key));
        mark(&logs, &mut c);
        assert_eq!(c.placement, Placement::Unsplittable);
        let orders = parsed(
            r#"{"_id": "shop.orders", "key": {"customerId": {"$numberInt": "1"}}, "unique": false}"#,
        );
        let mut c = Collection::new(&orders.ns, orders.key.clone(), table(&orders.key));
        mark(&orders, &mut c);
        assert_eq!(c.placement, Placement::Sharded);
        let dropped = parsed(r#"{"_id": "a.b", "key": {"x": 1}, "dropped": true}"#);
        assert!(!shown(&dropped));
    }
}
