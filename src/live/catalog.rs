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
//! Untracked unsharded collections (on their database's primary, in no `config.*` collection)
//! are named only by `$listClusterCatalog` (8.0.10+, 8.1+), read once a poll when the server has
//! it: each becomes a collection of the model marked [`Placement::Untracked`], on the shard the
//! stage names.
//!
//! Owns: that split, those reads and that size read. May not touch: the routing refresh, the model's other
//! collections, any command outside the client's allowlist.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bson::doc;

use super::client::{LiveClient, LiveError};
use super::config::CollectionDoc;
use super::data_sizes::{ShardSize, row as size_row};
use super::refusals::Refusals;
use super::snapshot::ShardList;
use crate::cluster::{Collection, Placement};
use crate::model::{KeyPattern, RoutingTable};

/// How often one unsharded collection's size is re-read.
const SIZES_EVERY: Duration = Duration::from_secs(60);

/// At most this many unsharded collections' sizes are read a poll (a cluster may hold thousands
/// of untracked collections: one `$collStats` each).
pub(crate) const FRESH_PER_POLL: usize = 32;

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

/// Whether a mongos of this version string (`buildInfo.version`) has `$listClusterCatalog`:
/// 8.0.10 and later on the 8.0 line, and every line from 8.1 (the manual's
/// `$listClusterCatalog` page: "New in version 8.0.10"; 8.1 and the rapid releases after it have
/// it from their first build). Before, a mongos answers 40324 "Unrecognized pipeline stage name".
/// A string that does not parse is taken as a server without it.
pub fn has_list_cluster_catalog(version: &str) -> bool {
    let mut parts = version
        .split(['-', '+'])
        .next()
        .unwrap_or_default()
        .split('.')
        .map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten(), parts.next()) {
        (Some(major), _, _) if major > 8 => true,
        (Some(8), Some(minor), _) if minor > 0 => true,
        (Some(8), Some(0), Some(Some(patch))) => patch >= 10,
        _ => false,
    }
}

/// An untracked unsharded collection and the shard that holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Untracked {
    pub ns: String,
    pub shard: String,
    /// A 9.0 time series (`type: "timeseries"` with no `system.buckets.` collection of its own
    /// in the catalog: one namespace): its documents are buckets.
    pub timeseries: bool,
}

/// The untracked unsharded collections `$listClusterCatalog` names: on `admin` it lists every
/// collection of the cluster (mongo `src/mongo/db/pipeline/document_source_list_cluster_catalog.cpp`);
/// `shards: true` adds the shards that hold each (for an untracked one, its database's primary:
/// jstest `sharding/list_cluster_catalog.js`). Left out: sharded and tracked collections (the
/// catalog's own reads show them), views and time-series views (their buckets collection is
/// listed), `admin`, `config` and `local`, and `system.*` collections other than buckets.
pub(super) async fn untracked(
    client: &LiveClient,
    tracked: &[CollectionDoc],
    databases: &[(String, String)],
    refused: &mut Refusals,
) -> Result<Vec<Untracked>, LiveError> {
    let cmd = doc! {
        "aggregate": 1,
        "pipeline": [
            {"$listClusterCatalog": {"shards": true}},
            {"$match": {"sharded": false}},
            {"$project": {"_id": 0, "ns": 1, "db": 1, "type": 1, "shards": 1}},
        ],
        "cursor": {},
    };
    let docs = client.drain("admin", cmd).await;
    let docs = refused.optional(docs, &super::privileges::list_cluster_catalog())?;
    Ok(untracked_of(&docs, tracked, databases))
}

/// The untracked unsharded collections among `$listClusterCatalog`'s documents.
fn untracked_of(
    docs: &[bson::Document],
    tracked: &[CollectionDoc],
    databases: &[(String, String)],
) -> Vec<Untracked> {
    let named = |ns: &str| docs.iter().any(|d| d.get_str("ns") == Ok(ns));
    // Before 9.0 a time series is a view (`type: "timeseries"`) over its buckets collection,
    // listed too; from 9.0 it is one namespace, listed as `timeseries` alone.
    let one_namespace = |ns: &str| {
        ns.split_once('.')
            .is_some_and(|(db, coll)| !named(&format!("{db}.system.buckets.{coll}")))
    };
    let mut out: Vec<Untracked> = docs
        .iter()
        .filter(|d| match d.get_str("type") {
            Ok("collection") => true,
            Ok("timeseries") => d.get_str("ns").is_ok_and(one_namespace),
            _ => false,
        })
        .filter_map(|d| {
            let ns = d.get_str("ns").ok()?;
            let (db, coll) = ns.split_once('.')?;
            let system = coll.starts_with("system.") && !coll.starts_with("system.buckets.");
            if system || matches!(db, "admin" | "config" | "local") {
                return None;
            }
            if tracked.iter().any(|t| t.ns == ns) {
                return None;
            }
            let named = d.get_array("shards").ok().and_then(|a| a.first());
            let shard = match named.and_then(bson::Bson::as_str) {
                Some(s) => s.to_string(),
                None => databases.iter().find(|(d, _)| d == db)?.1.clone(),
            };
            Some(Untracked {
                ns: ns.to_string(),
                shard,
                timeseries: d.get_str("type") == Ok("timeseries"),
            })
        })
        .collect();
    out.sort_by(|a, b| a.ns.cmp(&b.ns));
    out.dedup_by(|a, b| a.ns == b.ns);
    out
}

/// An untracked unsharded collection as the model keeps one: the whole `{_id: 1}` range on the
/// shard that holds it, marked [`Placement::Untracked`] (no chunk of the catalog).
pub(super) fn untracked_collection(u: &Untracked, shards: &mut ShardList) -> Option<Collection> {
    let key = KeyPattern::parse_json(r#"{"_id": 1}"#).ok()?;
    let shard = shards.index_of(&u.shard);
    let table = RoutingTable::single(key.global_min(), key.global_max(), shard);
    let mut c = Collection::new(&u.ns, key, table);
    c.placement = Placement::Untracked;
    c.timeseries = u.timeseries;
    c.indexes[0].unique = true;
    Some(c)
}

/// The last sizes read of each tracked unsharded collection, and when.
#[derive(Default)]
pub struct UnsplittableSizes {
    read: HashMap<String, (Instant, Vec<ShardSize>)>,
}

impl UnsplittableSizes {
    /// The sizes of the unsharded collections: the tracked ones of `colls` and `untracked`; a
    /// refusal is noted and gives none. At most [`FRESH_PER_POLL`] are read a poll; the others
    /// keep their last sizes, and those never read yet are said to be unknown.
    pub(super) async fn read(
        &mut self,
        client: &LiveClient,
        colls: &[CollectionDoc],
        untracked: &[Untracked],
        refused: &mut Refusals,
    ) -> Result<Vec<ShardSize>, LiveError> {
        let names: Vec<String> = (colls.iter())
            .filter(|c| c.unsplittable && !c.dropped)
            .map(|c| c.ns.clone())
            .chain(untracked.iter().map(|u| u.ns.clone()))
            .collect();
        let Some(first) = names.first() else {
            return Ok(Vec::new());
        };
        let read = self.sizes(client, &names).await;
        let (sizes, unread) = refused.optional(read, &super::privileges::coll_stats(first))?;
        if unread > 0 {
            refused.say(
                crate::cluster::privileges::Feeds::Shards,
                format!(
                    "sizes of {} not read yet ({FRESH_PER_POLL} `$collStats` a poll): shown as 0",
                    crate::units::count(unread as u64, "unsharded collection")
                ),
            );
        }
        Ok(sizes)
    }

    /// The sizes of the unsharded collections `names`: the kept ones when read less than a
    /// minute ago, `$collStats` (`storageStats.count`, `.size`, one document per shard that
    /// holds the collection) otherwise, at most [`FRESH_PER_POLL`] of them; and how many have no
    /// size yet. Collections gone from the catalog are forgotten.
    async fn sizes(
        &mut self,
        client: &LiveClient,
        names: &[String],
    ) -> Result<(Vec<ShardSize>, usize), LiveError> {
        self.read.retain(|ns, _| names.contains(ns));
        let (mut out, mut fresh, mut unread) = (Vec::new(), 0, 0);
        for ns in names {
            let kept = self.read.get(ns);
            if let Some((at, sizes)) = kept
                && (at.elapsed() < SIZES_EVERY || fresh >= FRESH_PER_POLL)
            {
                out.extend(sizes.iter().cloned());
                continue;
            }
            if fresh >= FRESH_PER_POLL {
                unread += 1;
                continue;
            }
            fresh += 1;
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
        Ok((out, unread))
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

    #[test]
    fn the_catalog_stage_arrived_in_8_0_10_and_8_1() {
        for (v, has) in [
            ("7.0.24", false),
            ("8.0.0", false),
            ("8.0.9", false),
            ("8.0.10", true),
            ("8.0.32", true),
            ("8.0.12-4", true),
            ("8.1.0-rc0", true),
            ("8.2.1", true),
            ("9.0.0", true),
            ("8.0", false),
            ("banana", false),
        ] {
            assert_eq!(has_list_cluster_catalog(v), has, "{v}");
        }
    }

    fn entry(ns: &str, kind: &str, shards: &[&str]) -> bson::Document {
        let db = ns.split_once('.').map_or(ns, |(d, _)| d);
        doc! {"ns": ns, "db": db, "type": kind, "shards": shards.to_vec()}
    }

    #[test]
    fn only_untracked_collections_with_data_of_their_own_are_kept() {
        let tracked = [parsed(
            r#"{"_id": "shop.logs", "key": {"_id": {"$numberInt": "1"}}, "unsplittable": true}"#,
        )];
        let databases = [("app".to_string(), "sh3".to_string())];
        let docs = [
            entry("shop.logs", "collection", &["sh2"]),
            entry("shop.carts", "collection", &["sh1"]),
            entry("shop.recent", "view", &["sh1"]),
            entry("shop.system.views", "collection", &["sh1"]),
            entry("metrics.cpu", "timeseries", &["sh2"]),
            entry("metrics.system.buckets.cpu", "collection", &["sh2"]),
            entry("iot.weather", "timeseries", &["sh1"]),
            entry("config.system.sessions", "collection", &["sh1"]),
            entry("admin.system.version", "collection", &["config"]),
            doc! {"ns": "app.users", "db": "app", "type": "collection"},
            doc! {"ns": "lost.things", "db": "lost", "type": "collection"},
        ];
        let got = untracked_of(&docs, &tracked, &databases);
        let series: Vec<&str> = (got.iter().filter(|u| u.timeseries))
            .map(|u| u.ns.as_str())
            .collect();
        assert_eq!(
            series,
            ["iot.weather"],
            "9.0: one namespace, counted in buckets"
        );
        let want = [
            ("app.users", "sh3"),
            ("iot.weather", "sh1"),
            ("metrics.system.buckets.cpu", "sh2"),
            ("shop.carts", "sh1"),
        ];
        let got: Vec<(&str, &str)> = got
            .iter()
            .map(|u| (u.ns.as_str(), u.shard.as_str()))
            .collect();
        assert_eq!(got, want);
        let mut shards = ShardList::default();
        let c = untracked_collection(
            &Untracked {
                ns: "shop.carts".into(),
                shard: "sh1".into(),
                timeseries: false,
            },
            &mut shards,
        )
        .expect("built");
        assert_eq!(c.placement, Placement::Untracked);
        assert_eq!(c.table.len(), 1);
        assert_eq!(c.key_json(), None, "no document names its key");
        let weather = Untracked {
            ns: "iot.weather".into(),
            shard: "sh1".into(),
            timeseries: true,
        };
        let c = untracked_collection(&weather, &mut shards).expect("built");
        assert_eq!(c.unit(), "buckets");
    }

    /// A 9.0 time series: `config.collections` names it by its own namespace with
    /// `timeseriesFields`; its documents are buckets.
    #[test]
    fn a_time_series_of_one_namespace_counts_buckets() {
        let doc = parsed(
            r#"{"_id": "iot.weather", "key": {"meta.sensorId": {"$numberInt": "1"}},
                "timeseriesFields": {"timeField": "ts", "metaField": "meta"}}"#,
        );
        assert!(doc.timeseries);
        let key = doc.key.clone();
        let table = RoutingTable::single(
            key.global_min(),
            key.global_max(),
            crate::model::ShardIdx(0),
        );
        let (c, _) = super::super::snapshot::collection(&doc, table, &[]);
        assert_eq!(c.unit(), "buckets");
        assert!(c.key_json().is_some());
        let plain = parsed(r#"{"_id": "iot.plain", "key": {"x": {"$numberInt": "1"}}}"#);
        assert!(!plain.timeseries);
    }
}
