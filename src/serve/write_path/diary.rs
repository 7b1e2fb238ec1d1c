//! The `config.changelog` and `config.actionlog` entries one simulator event makes, as the
//! servers of the release line write them (without the `_id`, which the capped log gives): a
//! pure function of the cluster after the event, so a test can rebuild the past from exactly
//! what `serve` keeps.
//!
//! Every entry has `server`, `shard` (the shard that logged it, `config` for the config
//! server), `clientAddr`, `time`, `what`, `ns` and `details`, as `ShardingLogging::_log`
//! (`src/mongo/db/s/sharding_logging.cpp`) writes them; the `details` of each `what` are the
//! server's:
//!
//! | what | logged by | details | source |
//! |---|---|---|---|
//! | `shardCollection.start` / `.end` | the primary shard | `shardKey`, `collection`, `primary` (4.4: and `uuid`, `empty`) / `version` (`placementVersion` from 8.0), `numChunks` | `create_collection_coordinator.cpp` |
//! | `split` | config | `before {min, max}`, `left {min, max}`, `right {min, max}`, `owningShard` (from 5.0: not in the real 4.4.1 entries; 5.0 and 6.0 unverified) | `sharding_catalog_manager_chunk_operations.cpp` (`commitChunkSplit`) |
//! | `multi-split` | config | one entry per piece: `before`, `number`, `of`, `chunk {min, max}`, `owningShard` | the same |
//! | `merge` | config | `owningShard`, `min`, `max`, `numChunks` (7.0+, `logMergeToChangelog`); before 7.0 the same range as `merged`/`mergedChunk` is not written (unverified) | the same |
//! | `moveChunk.start` / `.commit` / `.error` | the donor | `min`, `max`, `from`, `to` (`counts` in the commit) | `migration_source_manager.cpp` |
//! | `moveChunk.from` | the donor | `step 1 of 6` … `step 6 of 6`, `min`, `max`, `to`, `from`, `note` (`errmsg` when aborted) | `move_timing_helper.cpp` |
//! | `removeShard.start` / `removeShard` | config | `shard` | `sharding_catalog_manager_shard_operations.cpp` |
//! | `addShard` | config | `name`, `host` | the same |
//! | `movePrimary.commit` | the old primary | `database`, `from`, `to` (unverified) | `move_primary_coordinator.cpp` |
//! | `balancer.round` (actionlog) | config | `executionTimeMillis`, `errorOccured` (`errorOccurred` from 5.0), `candidateChunks`, `chunksMoved` (+ the unsharded collections' from 8.0) | `balancer.cpp` |
//!
//! The `lastmod` versions of split and merge entries, the recipient's `moveChunk.to` (its step
//! count was not confirmed in the source read) and the collection's `uuid` are not written
//! (docs/fidelity.md). Resharding keeps the names the events use (`reshardCollection.start`,
//! `.commit`, `.abort`; unverified against `resharding_coordinator_service.cpp`). Events a real
//! server does not log (jumbo flags, range deletions, index builds, settings, failed splits,
//! scheduled actions refused) are not written. serve adds one field of its own to the
//! `details` of each changelog entry: `shardtop`, the event in words.

use bson::{Document, doc};

use crate::cluster::{Cluster, Event, EventKind, ServerVersion};
use crate::model::{ChunkStats, ShardIdx, ShardKey};
use crate::serve::catalog::ids;

/// Which capped collection an entry goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Diary {
    Changelog,
    Actionlog,
}

/// The entries of one event (none for an event no server logs). `started_secs`: the Unix time
/// of virtual time 0.
#[allow(clippy::too_many_lines)] // one arm per logged event
pub fn entries(cluster: &Cluster, started_secs: u64, e: &Event) -> Vec<(Diary, Document)> {
    let millis = i64::try_from(started_secs)
        .unwrap_or(i64::MAX / 2_000)
        .saturating_mul(1000)
        .saturating_add(i64::try_from(e.at_ms).unwrap_or(0));
    let time = bson::DateTime::from_millis(millis);
    let v = cluster.version;
    let entry = |shard: &str, what: &str, ns: &str, details: Document| {
        doc! {
            "server": "shardtop", "shard": shard, "clientAddr": "", "time": time,
            "what": what, "ns": ns, "details": details,
        }
    };
    if let Some(details) = action_details(&e.kind, v) {
        return vec![(
            Diary::Actionlog,
            entry("config", e.kind.what(), "", details),
        )];
    }
    let words = cluster.describe_detail(e);
    let mut out = Vec::new();
    let mut log = |shard: &str, what: &str, ns: &str, mut details: Document| {
        details.insert("shardtop", words.clone());
        out.push((Diary::Changelog, entry(shard, what, ns, details)));
    };
    let sid = |s: &ShardIdx| cluster.shard_id(*s).to_string();
    let bound = |ns: &str, k: &ShardKey| -> Document {
        cluster
            .collection(ns)
            .map(|c| c.pattern.bound_to_document(k))
            .unwrap_or_default()
    };
    let range = |ns: &str, min: &ShardKey, max: &ShardKey| doc! {"min": bound(ns, min), "max": bound(ns, max)};
    match &e.kind {
        EventKind::ShardAdded { id, .. } => {
            log(
                "config",
                "addShard",
                "",
                doc! {"name": id, "host": format!("{id}/{id}.shardtop.sim:27018")},
            );
        }
        EventKind::CollectionSharded {
            ns, key, chunks, ..
        } => {
            let db = ns.split_once('.').map_or(ns.as_str(), |(d, _)| d);
            let primary = cluster.databases.get(db).map(sid).unwrap_or_default();
            let incarnation = cluster.collection(ns).map_or(0, |c| c.incarnation);
            let start = if v >= ServerVersion::V5_0 {
                doc! {"shardKey": key.to_document(), "collection": ns, "primary": &primary}
            } else {
                // 4.4 `shardCollection` (the real 4.4.1 entry): the primary as `id:host`.
                doc! {
                    "shardKey": key.to_document(), "collection": ns,
                    "uuid": ids::collection_uuid(ns, incarnation), "empty": true,
                    "primary": format!("{primary}:{primary}/{primary}.shardtop.sim:27018"),
                }
            };
            log(&primary, "shardCollection.start", ns, start);
            let epoch = ids::collection_epoch(ns, incarnation, started_secs);
            let version = format!("1|{}||{}", chunks.saturating_sub(1), epoch.to_hex());
            let field = if v >= ServerVersion::V8_0 {
                "placementVersion"
            } else {
                "version"
            };
            let n = i32::try_from(*chunks).unwrap_or(i32::MAX);
            log(
                &primary,
                "shardCollection.end",
                ns,
                doc! {field: version, "numChunks": n},
            );
        }
        EventKind::Split {
            ns,
            min,
            max,
            points,
            shard,
            ..
        } => {
            let before = range(ns, min, max);
            let mut bounds = vec![min];
            bounds.extend(points.iter());
            bounds.push(max);
            let pieces: Vec<Document> = bounds.windows(2).map(|w| range(ns, w[0], w[1])).collect();
            // `owningShard` is in the 7.0/8.0 source and not in the real 4.4.1 entries.
            let owning = (v >= ServerVersion::V5_0).then(|| sid(shard));
            if let [left, right] = pieces.as_slice() {
                let mut d = doc! {"before": before, "left": left.clone(), "right": right.clone()};
                if let Some(o) = &owning {
                    d.insert("owningShard", o);
                }
                log("config", "split", ns, d);
            } else {
                let of = i32::try_from(pieces.len()).unwrap_or(i32::MAX);
                for (i, chunk) in pieces.into_iter().enumerate() {
                    let mut d = doc! {
                        "before": before.clone(), "number": i32::try_from(i + 1).unwrap_or(i32::MAX),
                        "of": of, "chunk": chunk,
                    };
                    if let Some(o) = &owning {
                        d.insert("owningShard", o);
                    }
                    log("config", "multi-split", ns, d);
                }
            }
        }
        EventKind::Merge {
            ns,
            min,
            max,
            shard,
            chunks,
            ..
        } => {
            let mut d = doc! {"owningShard": sid(shard)};
            d.extend(range(ns, min, max));
            d.insert("numChunks", i32::try_from(*chunks).unwrap_or(i32::MAX));
            log("config", "merge", ns, d);
        }
        EventKind::MigrationStarted { range: r, .. } => {
            log(
                &sid(&r.from),
                "moveChunk.start",
                &r.ns,
                migration(cluster, r),
            );
        }
        EventKind::MigrationCommitted {
            range: r,
            moved,
            millis,
        } => {
            let mut d = migration(cluster, r);
            d.insert("counts", counts(*moved));
            log(&sid(&r.from), "moveChunk.commit", &r.ns, d);
            let mut from = steps(cluster, *millis);
            from.extend(donor_fields(cluster, r));
            from.insert("note", "success");
            log(&sid(&r.from), "moveChunk.from", &r.ns, from);
        }
        EventKind::MigrationFailed { range: r, error } => {
            log(
                &sid(&r.from),
                "moveChunk.error",
                &r.ns,
                migration(cluster, r),
            );
            let mut from = donor_fields(cluster, r);
            from.insert("note", "aborted");
            from.insert("errmsg", error.message.clone());
            log(&sid(&r.from), "moveChunk.from", &r.ns, from);
        }
        EventKind::ShardDraining { shard } => {
            log(
                "config",
                "removeShard.start",
                "",
                doc! {"shard": sid(shard)},
            );
        }
        EventKind::ShardRemoved { shard } => {
            log("config", "removeShard", "", doc! {"shard": sid(shard)});
        }
        EventKind::PrimaryMoved { db, from, to } => {
            let d = doc! {"database": db, "from": sid(from), "to": sid(to)};
            log(&sid(from), "movePrimary.commit", db, d);
        }
        EventKind::KeyRefined { ns, key } => {
            log(
                "config",
                "refineCollectionShardKey.end",
                ns,
                doc! {"newShardKey": key.to_document()},
            );
        }
        EventKind::CollectionDropped { ns } => log("config", "dropCollection", ns, Document::new()),
        EventKind::ReshardingStarted { ns, key, .. }
        | EventKind::ReshardingCommitted { ns, key, .. }
        | EventKind::ReshardingAborted { ns, key, .. } => {
            log(
                "config",
                e.kind.what(),
                ns,
                doc! {"reshardingKey": key.to_document()},
            );
        }
        _ => {}
    }
    out
}

/// `details` of an actionlog entry, or `None` for an event of the changelog.
// 4.4 to 8.0 `db/s/balancer/balancer.cpp` (`_mainThread`: `balancer.round` with
// `executionTimeMillis`, `errorOccured` — spelled so before 5.0 —, `candidateChunks`,
// `chunksMoved`; 8.0 adds the unsharded collections' counts).
fn action_details(kind: &EventKind, v: ServerVersion) -> Option<Document> {
    match kind {
        EventKind::BalancerRound {
            candidates,
            moved,
            millis,
            ..
        } => {
            let error_field = if v < ServerVersion::V5_0 {
                "errorOccured"
            } else {
                "errorOccurred"
            };
            let mut d = doc! {
                "executionTimeMillis": i64::try_from(*millis).unwrap_or(i64::MAX),
                error_field: false,
                "candidateChunks": i64::try_from(*candidates).unwrap_or(i64::MAX),
                "chunksMoved": i64::try_from(*moved).unwrap_or(i64::MAX),
            };
            if v >= ServerVersion::V8_0 {
                d.insert("candidateUnshardedCollections", 0_i64);
                d.insert("unshardedCollectionsMoved", 0_i64);
            }
            Some(d)
        }
        EventKind::BalancerSet { .. } => Some(Document::new()),
        _ => None,
    }
}

/// `{min, max, from, to}` of a migration, as `migration_source_manager.cpp` logs it.
fn migration(cluster: &Cluster, r: &crate::cluster::event::MigrationRange) -> Document {
    let Some(c) = cluster.collection(&r.ns) else {
        return Document::new();
    };
    doc! {
        "min": c.pattern.bound_to_document(&r.min),
        "max": c.pattern.bound_to_document(&r.max),
        "from": cluster.shard_id(r.from),
        "to": cluster.shard_id(r.to),
    }
}

/// `{min, max, to, from}`: the order `move_timing_helper.cpp` writes them (the real 8.0.32
/// `moveChunk.from` entry).
fn donor_fields(cluster: &Cluster, r: &crate::cluster::event::MigrationRange) -> Document {
    let m = migration(cluster, r);
    let mut d = Document::new();
    for k in ["min", "max", "to", "from"] {
        if let Some(v) = m.get(k) {
            d.insert(k, v.clone());
        }
    }
    d
}

/// A committed migration's `counts` in its `moveChunk.commit` entry, as the real 8.0.32 entry
/// holds them (all Int64): what was cloned, nothing caught up or steady (the simulator has no
/// writes during a migration's copy that it would send again).
fn counts(moved: ChunkStats) -> Document {
    let long = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    doc! {
        "cloned": long(moved.docs),
        "clonedBytes": long(moved.bytes),
        "catchup": 0_i64,
        "steady": 0_i64,
    }
}

/// The donor's step times of a migration that took `millis`: the six `"step K of 6"` fields
/// `src/mongo/db/s/migration_source_manager.cpp` logs through `move_timing_helper.cpp` (Int32
/// milliseconds since the step before, ahead of `min`/`max`/`to`/`from`/`note`, as in the real
/// 8.0.32 entry). Step 4 ends when the clone has caught up (`awaitToCatchUp`), step 5 when the
/// critical section is entered, step 6 when the commit is done. The simulator's time is one
/// cost (a fixed cost + bytes ÷ a rate, `sim/balancer.rs`), so its split is ours: the copy in
/// step 4, the fixed cost in step 6, the other steps 0 (docs/fidelity.md).
fn steps(cluster: &Cluster, millis: u64) -> Document {
    let fixed = cluster.settings.migration_overhead_ms.min(millis);
    let int = |n: u64| i32::try_from(n).unwrap_or(i32::MAX);
    doc! {
        "step 1 of 6": 0_i32,
        "step 2 of 6": 0_i32,
        "step 3 of 6": 0_i32,
        "step 4 of 6": int(millis - fixed),
        "step 5 of 6": 0_i32,
        "step 6 of 6": int(fixed),
    }
}
